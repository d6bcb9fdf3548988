import { describe, expect, it } from "vitest";
import {
  actionContract,
  AgentSurfaceDefinitionError,
  createCapabilityAuthority,
  defineAgentComponentContract,
  defineAgentProcedureContract,
  defineExternalAgentToolContract,
  emptyObjectSchema,
  fromJsonSchema,
  observationContract,
} from "../dist/index.js";
import { fixtureManifestPath, readJson } from "./paths.js";

const HASH = `blake3:${"ab".repeat(32)}`;
const counter = (provenance) =>
  defineAgentComponentContract(
    {
      type: "demo.counter",
      description: "A counter",
      observations: { value: observationContract({ description: "Current value", output: fromJsonSchema({ type: "integer" }) }) },
      actions: { increment: actionContract({ description: "Add one", input: emptyObjectSchema, effect: "local-state" }) },
    },
    provenance,
  );
const handlers = () => ({ observations: { value: { read: () => 1 } }, actions: { increment: { execute: () => undefined } } });

function definitionError(f) {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(AgentSurfaceDefinitionError);
    return e;
  }
  throw new Error("no AgentSurfaceDefinitionError");
}

describe("defineAgentComponentContract", () => {
  it("without provenance: a frozen, inert contract", () => {
    const c = counter();
    expect(c.kind).toBe("component");
    expect(c.id).toBe("view:demo.counter");
    expect(c.provenance).toBeUndefined();
    expect(c.definition.type).toBe("demo.counter");
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.definition)).toBe(true);
    expect(Object.isFrozen(c.definition.observations)).toBe(true);
    const b = c.bind(handlers());
    expect(b.verified).toBe(false);
    expect(b.contract).toBe(c);
    expect(Object.isFrozen(b)).toBe(true);
  });

  it("with the compiler's provenance (extra last argument)", () => {
    const c = counter({ contractHash: HASH, id: "view:demo.counter" });
    expect(c.provenance).toEqual({ id: "view:demo.counter", contractHash: HASH });
    expect(Object.isFrozen(c.provenance)).toBe(true);
    const b = c.bind(handlers());
    expect(b.verified).toBe(true);
    expect(b.handlers.instanceId).toBe("default");
    expect(b.handlers.observations.value.read()).toBe(1);
    expect(Object.isFrozen(b.handlers)).toBe(true);
    expect(Object.isFrozen(b.handlers.actions.increment)).toBe(true);
  });

  it("provenance of the wrong shape or for another contract is ignored (inert)", () => {
    for (const p of [
      { id: "view:demo.other", contractHash: HASH },
      { id: "view:demo.counter", contractHash: "blake3:xyz" },
      { id: "view:demo.counter", contractHash: HASH.toUpperCase() },
      { id: "view:demo.counter" },
      { contractHash: HASH },
      "view:demo.counter",
      [HASH],
      null,
    ]) {
      const c = counter(p);
      expect(c.provenance).toBeUndefined();
      expect(c.bind(handlers()).verified).toBe(false);
    }
  });

  it("provenance the compiler injected for the example app matches the manifest", () => {
    const manifest = readJson(fixtureManifestPath);
    const authority = createCapabilityAuthority(manifest);
    const m = authority.contract("view:devices.table");
    // The compiler's literal is canonical JSON: {"contractHash":"blake3:…","id":"…"}.
    const literal = JSON.parse(`{"contractHash":"${m.contractHash}","id":"${m.id}"}`);
    const c = defineAgentComponentContract({ type: "devices.table", description: m.description }, literal);
    expect(c.provenance).toEqual({ id: m.id, contractHash: m.contractHash });
  });

  it("bind: every observation needs read, every action execute; extra names throw", () => {
    const c = counter();
    expect(definitionError(() => c.bind({ observations: {}, actions: { increment: { execute() {} } } })).message).toBe('observation "value" of "view:demo.counter" has no read handler');
    expect(definitionError(() => c.bind({ observations: { value: { read: () => 1 } }, actions: {} })).message).toBe('action "increment" of "view:demo.counter" has no execute handler');
    expect(definitionError(() => c.bind({ ...handlers(), observations: { value: { read: () => 1 }, extra: { read: () => 2 } } })).message).toBe('"view:demo.counter" declares no observation "extra"');
    expect(definitionError(() => c.bind({ ...handlers(), actions: { increment: { execute() {} }, reset: { execute() {} } } })).message).toBe('"view:demo.counter" declares no action "reset"');
    // read must be a function; execute too.
    definitionError(() => c.bind({ ...handlers(), observations: { value: { read: 1 } } }));
    definitionError(() => c.bind({ ...handlers(), actions: { increment: { run() {} } } }));
    // An observation name bound as an action is an extra action name.
    definitionError(() => c.bind({ ...handlers(), actions: { increment: { execute() {} }, value: { execute() {} } } }));
    expect(c.bind(handlers()).contract.id).toBe("view:demo.counter");
  });

  it("bind: same error order as the Rust binder (unknown names before missing handlers)", () => {
    const c = counter();
    const e = definitionError(() => c.bind({ observations: { nope: { read: () => 1 } }, actions: {} }));
    expect(e.message).toContain('declares no observation "nope"');
  });

  it("bind cannot change identity or governance", () => {
    const c = counter();
    definitionError(() => c.bind({ ...handlers(), description: "other" }));
    definitionError(() => c.bind({ ...handlers(), actions: { increment: { execute() {}, effect: "destructive" } } }));
    definitionError(() => c.bind({ ...handlers(), observations: { value: { read: () => 1, output: emptyObjectSchema } } }));
  });

  it("bind: runtime additions are recorded; instance id and concurrency are checked", () => {
    const c = counter();
    const when = () => true;
    const b = c.bind({
      instanceId: "row-42",
      enabled: false,
      meta: { row: 42 },
      observations: { value: { read: () => 1, when, unavailableReason: "later", timeoutMs: 100 } },
      actions: { increment: { execute() {}, concurrency: { mode: "parallel", max: 2 }, precondition() {} } },
    });
    expect(b.handlers.instanceId).toBe("row-42");
    expect(b.handlers.enabled).toBe(false);
    expect(b.handlers.meta).toEqual({ row: 42 });
    expect(b.handlers.observations.value.when).toBe(when);
    expect(definitionError(() => c.bind({ ...handlers(), instanceId: "-bad" })).message).toMatch(/^invalid instance id/);
    expect(definitionError(() => c.bind({ ...handlers(), actions: { increment: { execute() {}, concurrency: { mode: "parallel", max: 0 } } } })).message).toMatch(/integer max ≥ 1/);
  });

  it("a contract with no capabilities binds with an empty handler set", () => {
    const c = defineAgentComponentContract({ type: "app.shell", description: "Shell" });
    expect(c.bind({}).handlers.observations).toEqual({});
  });

  it("definition defects throw AgentSurfaceDefinitionError", () => {
    definitionError(() => defineAgentComponentContract(null));
    definitionError(() => defineAgentComponentContract({ type: "Devices.table", description: "x" }));
    definitionError(() => defineAgentComponentContract({ type: "a.b.c.d.e.f.g.h.i", description: "x" }));
    definitionError(() => defineAgentComponentContract({ type: "devices", description: "x", actions: { "do-it": {} } }));
    definitionError(() =>
      defineAgentComponentContract({
        type: "devices",
        description: "x",
        observations: { same: observationContract({ description: "o", output: emptyObjectSchema }) },
        actions: { same: actionContract({ description: "a", input: emptyObjectSchema, effect: "navigation" }) },
      }),
    );
    definitionError(() => observationContract({ description: "no output" }));
    definitionError(() => actionContract({ description: "no input", effect: "local-state" }));
    definitionError(() => actionContract({ description: "bad output", input: emptyObjectSchema, output: { type: "object" }, effect: "local-state" }));
  });
});

describe("defineAgentProcedureContract / defineExternalAgentToolContract", () => {
  const input = fromJsonSchema({ type: "object", properties: { ids: { type: "array", items: { type: "string" } } }, required: ["ids"] });

  it("procedure: inert without provenance, verified with it; bind takes { execute }", () => {
    const def = { id: "domain:devices.reboot", description: "Reboot", input, effect: "mutation" };
    const raw = defineAgentProcedureContract(def);
    expect(raw.kind).toBe("procedure");
    expect(raw.id).toBe("domain:devices.reboot");
    expect(raw.provenance).toBeUndefined();
    expect(Object.isFrozen(raw)).toBe(true);
    expect(raw.bind({ execute: async () => ({}) }).verified).toBe(false);
    const compiled = defineAgentProcedureContract(def, { contractHash: HASH, id: "domain:devices.reboot" });
    const b = compiled.bind({ execute: async () => ({}), describe: () => "3 online" });
    expect(b.verified).toBe(true);
    expect(b.handlers.describe()).toBe("3 online");
    expect(Object.isFrozen(b.handlers)).toBe(true);
  });

  it("external tool", () => {
    const def = { id: "external:reports.export", description: "Export", input: emptyObjectSchema, effect: "external-side-effect", confirmation: "required" };
    const c = defineExternalAgentToolContract(def, { contractHash: HASH, id: "external:reports.export" });
    expect(c.kind).toBe("external-tool");
    expect(c.bind({ execute: () => null }).verified).toBe(true);
    // Provenance for another id does not count.
    expect(defineExternalAgentToolContract(def, { contractHash: HASH, id: "external:reports.other" }).provenance).toBeUndefined();
  });

  it("bind checks", () => {
    const c = defineAgentProcedureContract({ id: "domain:devices.reboot", description: "Reboot", input, effect: "mutation" });
    // A procedure without execute is a forwarded reference (the registry's procedure executor runs it).
    expect(c.bind({}).handlers.execute).toBeUndefined();
    const tool = defineExternalAgentToolContract({ id: "external:crm.export", description: "Export", input, effect: "read" });
    expect(definitionError(() => tool.bind({})).message).toBe('"external:crm.export" has no execute handler');
    definitionError(() => c.bind({ execute: "no" }));
    definitionError(() => c.bind({ execute() {}, effect: "read" }));
    definitionError(() => c.bind({ execute() {}, concurrency: { mode: "parallel", max: 1.5 } }));
    expect(c.bind({ execute() {}, concurrency: { mode: "key", key: "k" } }).handlers.concurrency.mode).toBe("key");
  });

  it("ids follow the grammar of their kind", () => {
    definitionError(() => defineAgentProcedureContract({ id: "domain:devices", description: "x", input, effect: "read" }));
    definitionError(() => defineAgentProcedureContract({ id: "external:crm.export", description: "x", input, effect: "read" }));
    definitionError(() => defineExternalAgentToolContract({ id: "domain:crm.export", description: "x", input, effect: "read" }));
    definitionError(() => defineExternalAgentToolContract({ id: "external:crm.export", description: "x", input: { type: "object" }, effect: "read" }));
    expect(defineExternalAgentToolContract({ id: "external:crm", description: "x", input, effect: "read" }).id).toBe("external:crm");
  });
});

describe("AgentSurfaceDefinitionError", () => {
  it("carries the contract id and, when given, a machine-readable code", () => {
    const e = new AgentSurfaceDefinitionError("raw definition", { contract: "view:demo.counter", code: "raw-binding" });
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe("AgentSurfaceDefinitionError");
    expect(e.contract).toBe("view:demo.counter");
    expect(e.code).toBe("raw-binding");
    const plain = new AgentSurfaceDefinitionError("bad id");
    expect(plain.contract).toBeNull();
    expect(Object.hasOwn(plain, "code")).toBe(false);
    expect(Object.hasOwn(plain, "violations")).toBe(false);
  });
});
