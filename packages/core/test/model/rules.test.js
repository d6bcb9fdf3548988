// Effects and their defaults, limits, the definition rules (walk order and messages) and the
// authored-difference check: the cases of crates/model (effects.rs, limits.rs, definition.rs,
// rules/*, authored.rs).
import { describe, expect, it } from "vitest";
import { authoredDifference } from "../../dist/model/authored.js";
import { checkConfirmation, checkEffect, defaultGovernance, EFFECTS } from "../../dist/model/effects.js";
import { DEFAULT_LIMITS, resolveLimits } from "../../dist/model/limits.js";
import { validateContract } from "../../dist/model/rules.js";

const governance = (kind, effect) => ({ ...defaultGovernance(kind, effect) });

/** crates/model/src/manifest/samples.rs, as manifest JSON. */
const sampleComponent = () => ({
  kind: "component",
  id: "view:devices.table",
  type: "devices.table",
  description: "The devices table",
  meta: { owner: "devices-team" },
  origin: "first-party",
  priority: 0,
  policies: [],
  tags: ["table"],
  observations: { readState: { description: "Visible rows", outputSchema: { type: "object" }, meta: {} } },
  actions: {
    open: { description: "Open details", inputSchema: { type: "object" }, outputSchema: null, ...governance("view-action", "navigation"), meta: {} },
    select: {
      description: "Select rows",
      inputSchema: { type: "object", properties: { ids: { type: "array", items: { type: "string" } } } },
      outputSchema: { type: "null" },
      ...governance("view-action", "local-state"),
      meta: {},
    },
  },
  contractHash: "",
});
const operation = (kind, id, description, inputSchema, effect) => ({
  kind: kind === "domain-procedure" ? "procedure" : "external-tool",
  id,
  description,
  inputSchema,
  outputSchema: null,
  ...governance(kind, effect),
  policies: [],
  meta: {},
  tags: [],
  contractHash: "",
});
const sampleProcedure = () =>
  operation("domain-procedure", "domain:devices.delete", "Delete devices", { type: "object", properties: { ids: { type: "array" } }, required: ["ids"] }, "destructive");
const sampleExternal = () => ({
  ...operation("external-tool", "external:crm.export", "Export to the CRM", { type: "object" }, "external-side-effect"),
  outputSchema: { type: "string" },
  policies: [{ name: "admins-only" }],
});
const pointers = (c, limits = DEFAULT_LIMITS) => validateContract(c, limits).map((v) => v.pointer);

describe("effects (DECISIONS §3)", () => {
  it("defaults follow the table", () => {
    expect(defaultGovernance("observation", "read")).toEqual({ effect: "read", idempotent: true, reversible: true, confirmation: "never", audit: "metadata" });
    for (const e of ["local-state", "navigation"]) expect(defaultGovernance("view-action", e)).toEqual({ effect: e, idempotent: false, reversible: true, confirmation: "never", audit: "metadata" });
    for (const kind of ["domain-procedure", "external-tool"]) {
      const g = (e) => {
        const { idempotent, reversible, confirmation } = defaultGovernance(kind, e);
        return [idempotent, reversible, confirmation];
      };
      expect(g("read")).toEqual([true, true, "never"]);
      expect(g("mutation")).toEqual([false, true, "never"]);
      expect(g("destructive")).toEqual([false, false, "required"]);
      expect(g("external-side-effect")).toEqual([false, false, "required"]);
    }
  });

  it("plane rules, with the Rust messages and helps", () => {
    expect(checkEffect("view-action", "mutation")).toEqual({
      message: 'effect "mutation" is not allowed on a view action (view plane)',
      help: 'view actions may only be "local-state" or "navigation"; move "mutation" into a domain procedure (defineAgentProcedureContract)',
    });
    expect(checkEffect("view-action", "read").help).toBe('view actions may only be "local-state" or "navigation"; expose state for reading as an observation (observationContract)');
    expect(checkEffect("domain-procedure", "local-state").help).toBe(
      'domain procedures may only be "read", "mutation", "destructive" or "external-side-effect"; UI state changes and navigation belong in a view action (actionContract) of a component contract',
    );
    expect(checkEffect("external-tool", "navigation").message).toBe('effect "navigation" is not allowed on an external tool (external plane)');
    expect(checkEffect("observation", "mutation")).toEqual({
      message: 'effect "mutation" is not allowed on an observation (view plane)',
      help: 'observations are always "read"; declare an action (actionContract) or a domain procedure (defineAgentProcedureContract) for "mutation"',
    });
    const allowed = { observation: ["read"], "view-action": ["local-state", "navigation"], "domain-procedure": ["read", "mutation", "destructive", "external-side-effect"] };
    for (const [kind, ok] of Object.entries(allowed)) for (const e of EFFECTS) expect(checkEffect(kind, e) === null, `${kind} ${e}`).toBe(ok.includes(e));
    expect(checkConfirmation("destructive", "never")).toEqual({
      message: 'confirmation "never" is not allowed for a "destructive" effect',
      help: 'use confirmation: "required" (the default for destructive effects) or "optional"',
    });
    expect(checkConfirmation("destructive", "optional")).toBeNull();
    expect(checkConfirmation("mutation", "never")).toBeNull();
  });
});

describe("limits", () => {
  it("defaults match the spec, partial overrides keep the others", () => {
    expect(DEFAULT_LIMITS).toEqual({
      maxComponentDescription: 500,
      maxCapabilityDescription: 300,
      maxMetaBytes: 2048,
      maxOutputBytes: 32768,
      maxSchemaBytes: 16384,
      maxSchemaDepth: 8,
      observationTimeoutMs: 5000,
      actionTimeoutMs: 10000,
      procedureTimeoutMs: 30000,
      actionQueueDepth: 2,
      maxConcurrentObservationsPerConsumer: 8,
      maxConcurrentObservationsTotal: 32,
      maxQueuedObservationsPerConsumer: 8,
      dedupeCacheSize: 200,
      dedupeCacheTtlMs: 600000,
      tombstoneSize: 100,
      tombstoneTtlMs: 300000,
      confirmationTtlMs: 120000,
      maxPendingConfirmations: 32,
    });
    expect(Object.isFrozen(DEFAULT_LIMITS)).toBe(true);
    const l = resolveLimits({ maxSchemaDepth: 4, actionTimeoutMs: 1, tombstoneSize: undefined });
    expect([l.maxSchemaDepth, l.actionTimeoutMs, l.maxSchemaBytes, l.tombstoneSize]).toEqual([4, 1, 16384, 100]);
    expect(Object.isFrozen(l)).toBe(true);
    expect(resolveLimits({})).toEqual(DEFAULT_LIMITS);
    expect(resolveLimits(undefined)).toBe(DEFAULT_LIMITS);
    expect(resolveLimits(null)).toBe(DEFAULT_LIMITS);
  });

  it("refuses unknown fields and values that are not non-negative integers, with serde's words", () => {
    const refusal = (v) => {
      try {
        resolveLimits(v);
      } catch (e) {
        expect(e).toBeInstanceOf(TypeError);
        return e.message;
      }
      throw new Error("accepted");
    };
    expect(refusal({ maxSchemaDept: 4 })).toMatch(/^limits: unknown field `maxSchemaDept`, expected one of `maxComponentDescription`, `maxCapabilityDescription`, /);
    expect(refusal({ maxSchemaDepth: -1 })).toBe("limits: invalid value: integer `-1`, expected usize");
    expect(refusal({ maxSchemaDepth: "8" })).toBe('limits: invalid type: string "8", expected usize');
    expect(refusal({ actionTimeoutMs: 1.5 })).toBe("limits: invalid type: floating point `1.5`, expected u64");
    expect(refusal({ actionTimeoutMs: null })).toBe("limits: invalid type: null, expected u64");
    // The first in key order, as serde reads the object.
    expect(refusal({ zzz: 1, actionQueueDepth: true })).toBe("limits: invalid type: boolean `true`, expected usize");
    expect(refusal([5])).toBe("limits must be an object (Partial<AgentSurfaceLimits>)");
    expect(refusal("x")).toBe("limits must be an object (Partial<AgentSurfaceLimits>)");
  });
});

describe("validateContract (crates/model/src/definition.rs)", () => {
  it("the samples are valid", () => {
    expect(validateContract(sampleComponent(), DEFAULT_LIMITS)).toEqual([]);
    expect(validateContract(sampleProcedure(), DEFAULT_LIMITS)).toEqual([]);
    expect(validateContract(sampleExternal(), DEFAULT_LIMITS)).toEqual([]);
  });

  it("a component reports in walk order", () => {
    const c = sampleComponent();
    c.id = "view:x";
    c.meta.k = "v".repeat(3000);
    c.observations.Open = { description: "", outputSchema: { not: {} }, meta: { k: "v".repeat(3000) } };
    c.observations.select = { description: "Selection", outputSchema: {}, meta: {} };
    Object.assign(c.actions.select, { effect: "mutation", description: "s".repeat(301), inputSchema: { not: {} }, outputSchema: { oneOf: [] } });
    expect(pointers(c)).toEqual([
      "/id",
      "/meta",
      "/observations/Open",
      "/observations/Open/description",
      "/observations/Open/meta",
      "/observations/Open/outputSchema/not",
      "/actions/select/description",
      "/actions/select/effect",
      "/actions/select/inputSchema/not",
      "/actions/select/outputSchema/oneOf",
      "/actions/select",
    ]);
    const byPointer = Object.fromEntries(validateContract(c, DEFAULT_LIMITS).map((v) => [v.pointer, v]));
    expect(byPointer["/id"]).toEqual({ pointer: "/id", message: 'component contract id "view:x" does not match its type; expected "view:devices.table"', help: null });
    expect(byPointer["/meta"].message).toBe(`meta is ${JSON.stringify({ k: "v".repeat(3000), owner: "devices-team" }).length} bytes as canonical JSON; at most 2048 are allowed`);
    expect(byPointer["/observations/Open"]).toEqual({
      pointer: "/observations/Open",
      message: `capability name "Open" must start with a lowercase letter a-z (found 'O' at position 0)`,
      help: 'capability names look like "readState" or "select_rows"',
    });
    expect(byPointer["/observations/Open/description"]).toEqual({
      pointer: "/observations/Open/description",
      message: "description is empty",
      help: "say what it is for: agents choose capabilities by their descriptions",
    });
    expect(byPointer["/actions/select/description"]).toEqual({
      pointer: "/actions/select/description",
      message: "description is 301 characters long (UTF-16 code units); at most 300 are allowed",
      help: "shorten it; put details in the schemas' property descriptions",
    });
    expect(byPointer["/actions/select"]).toEqual({
      pointer: "/actions/select",
      message: '"select" is both an observation and an action; both would be "view:devices.table.select"',
      help: "rename the observation or the action",
    });
  });

  it("an operation reports in walk order; a refused effect hides its confirmation", () => {
    const p = sampleProcedure();
    Object.assign(p, { id: "domain:x", description: " ", confirmation: "never", inputSchema: { not: {} }, outputSchema: { oneOf: [] } });
    p.meta.k = "v".repeat(3000);
    expect(pointers(p)).toEqual(["/id", "/description", "/meta", "/confirmation", "/inputSchema/not", "/outputSchema/oneOf"]);
    expect(validateContract(p, DEFAULT_LIMITS)[0]).toEqual({
      pointer: "/id",
      message: `procedure id needs at least 2 segments separated by '.' (e.g. "domain:devices.delete")`,
      help: 'procedure ids look like "domain:devices.delete"',
    });
    const t = sampleExternal();
    Object.assign(t, { id: "domain:crm.export", effect: "navigation", confirmation: "never" });
    expect(validateContract(t, DEFAULT_LIMITS).map((v) => [v.pointer, v.help])).toEqual([
      ["/id", 'external tool ids look like "external:crm.export"'],
      ["/effect", 'external tools may only be "read", "mutation", "destructive" or "external-side-effect"; UI state changes and navigation belong in a view action (actionContract) of a component contract'],
    ]);
  });

  it("descriptions count UTF-16 units and blank means Unicode White_Space (U+0085 too), meta counts UTF-8 bytes", () => {
    const p = sampleProcedure();
    p.description = "😀".repeat(150);
    expect(validateContract(p, DEFAULT_LIMITS)).toEqual([]);
    p.description = "😀".repeat(151);
    expect(validateContract(p, DEFAULT_LIMITS)[0].message).toBe("description is 302 characters long (UTF-16 code units); at most 300 are allowed");
    for (const blank of ["", " \u0085 ", "\u3000\u2028", "\t\n"]) {
      p.description = blank;
      expect(validateContract(p, DEFAULT_LIMITS)[0].message, JSON.stringify(blank)).toBe("description is empty");
    }
    p.description = "\ufeff"; // not White_Space: a one-character description
    expect(validateContract(p, DEFAULT_LIMITS)).toEqual([]);
    p.description = "ok";
    p.meta = { k: "é".repeat(1020) }; // {"k":"…"}: 8 bytes + 2 per é
    expect(validateContract(p, DEFAULT_LIMITS)).toEqual([]);
    p.meta = { k: "é".repeat(1021) };
    expect(validateContract(p, DEFAULT_LIMITS)[0]).toEqual({
      pointer: "/meta",
      message: "meta is 2050 bytes as canonical JSON; at most 2048 are allowed",
      help: "keep meta to small identifiers; look larger data up at run time",
    });
  });

  it("the limits given are the ones applied", () => {
    const c = sampleComponent();
    expect(pointers(c, { ...DEFAULT_LIMITS, maxComponentDescription: 5, maxSchemaDepth: 1 })).toEqual([
      "/description",
      "/actions/select/inputSchema/properties/ids",
    ]);
  });
});

describe("authoredDifference (crates/model/src/authored.rs)", () => {
  const counter = () => ({
    kind: "component",
    id: "view:demo.counter",
    type: "demo.counter",
    description: "A counter",
    meta: {},
    origin: "first-party",
    priority: 0,
    policies: [],
    tags: [],
    observations: { value: { description: "The value", outputSchema: { type: "integer" }, meta: {} } },
    actions: { increment: { description: "Adds one", inputSchema: { type: "object" }, outputSchema: null, ...governance("view-action", "local-state"), meta: {} } },
    contractHash: "",
  });
  const authoredCounter = () => ({
    type: "demo.counter",
    description: "A counter",
    observations: { value: { description: "The value", outputSchema: { type: "integer" } } },
    actions: { increment: { description: "Adds one", inputSchema: { type: "object" }, effect: "local-state" } },
  });

  it("an unchanged definition agrees, with defaults left out or written", () => {
    expect(authoredDifference(counter(), authoredCounter())).toBeNull();
    const a = authoredCounter();
    a.priority = 0;
    Object.assign(a.actions.increment, { reversible: true, confirmation: "never", meta: null });
    expect(authoredDifference(counter(), a)).toBeNull();
  });

  it("each changed field is named by its pointer", () => {
    const cases = [
      [(a) => (a.description = "Another counter"), "/description"],
      [(a) => (a.observations.value.outputSchema = { type: "string" }), "/observations/value/outputSchema"],
      [(a) => (a.actions.increment.description = "Adds two"), "/actions/increment/description"],
      [(a) => (a.actions.increment.confirmation = "required"), "/actions/increment/confirmation"],
      [(a) => (a.actions.increment.effect = "navigation"), "/actions/increment/effect"],
      [(a) => (a.tags = ["x"]), "/tags"],
      [(a) => (a.actions.increment.outputSchema = null), null],
      [(a) => (a.actions.increment.effect = "explode"), "/actions/increment/effect"],
    ];
    for (const [change, expected] of cases) {
      const a = authoredCounter();
      change(a);
      expect(authoredDifference(counter(), a)).toBe(expected);
    }
  });

  it("added or missing capabilities differ; a non-object is ''", () => {
    const a = authoredCounter();
    a.actions.reset = { description: "x", inputSchema: {}, effect: "local-state" };
    expect(authoredDifference(counter(), a)).toBe("/actions/reset");
    const b = authoredCounter();
    b.observations = {};
    expect(authoredDifference(counter(), b)).toBe("/observations/value");
    expect(authoredDifference(counter(), [])).toBe("");
  });

  it("operations compare with their kind's defaults", () => {
    const contract = { ...sampleProcedure(), id: "domain:devices.decommission", description: "Remove devices", inputSchema: { type: "object" } };
    const authored = { id: "domain:devices.decommission", description: "Remove devices", inputSchema: { type: "object" }, effect: "destructive" };
    expect(authoredDifference(contract, authored)).toBeNull();
    expect(authoredDifference(contract, { ...authored, confirmation: "never" })).toBe("/confirmation");
    expect(authoredDifference(contract, { ...authored, policies: [{ x: 1 }] })).toBe("/policies");
    expect(authoredDifference({ ...contract, kind: "external-tool" }, authored)).toBeNull();
  });
});
