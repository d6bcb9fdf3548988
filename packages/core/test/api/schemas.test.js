// Spec "Schemas": AgentSchema constructors (fromJsonSchema, fromStandardSchema,
// emptyObjectSchema), the supported subset, and the serialization rules — through the
// registry's input validation and output checks, the place an agent meets them.
import { describe, expect, it } from "vitest";
import { bindNotes, core, definitionError, evenQuantity, makeRegistry, schemas, standardCalls } from "./helpers.js";

const { AgentSchemaError, emptyObjectSchema, fromJsonSchema, fromStandardSchema } = core;

describe("fromJsonSchema through the registry", () => {
  it("the handler receives the validated, defaulted effective input", async () => {
    const seen = [];
    const r = makeRegistry();
    r.register(bindNotes({ actions: { add: { execute: (input) => (seen.push(input), { id: "n7" }) } } }));
    const res = await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "milk" } });
    expect(res).toMatchObject({ status: "ok", output: { id: "n7" } });
    expect(seen).toEqual([{ text: "milk", tag: "misc" }]);
    r.dispose();
  });

  it("INVALID_INPUT carries the same issues as the schema's own parse (one validator)", async () => {
    const r = makeRegistry();
    let calls = 0;
    r.register(bindNotes({ actions: { add: { execute: () => (calls++, { id: "n1" }) } } }));
    const bad = { text: "", due: "tomorrow", extra: 1 };
    const res = await r.invoke({ capabilityId: "view:api.notes.add", input: bad });
    expect(res.status).toBe("error");
    expect(res.error.code).toBe("INVALID_INPUT");
    expect(res.error.retry).toBe("with-changes");
    let parsed;
    try {
      schemas.addInput().parse(bad);
    } catch (e) {
      parsed = e;
    }
    expect(parsed).toBeInstanceOf(AgentSchemaError);
    expect(res.error.details.issues).toEqual(parsed.issues);
    expect(res.error.details.issues.map((i) => i.path).sort()).toEqual(["", "/due", "/text"]);
    expect(calls).toBe(0);
    r.dispose();
  });

  it("formats are asserted, enums and types enforced, an absent required field refused", async () => {
    const r = makeRegistry();
    r.register(bindNotes());
    const code = async (input) => (await r.invoke({ capabilityId: "view:api.notes.add", input })).error?.code;
    expect(await code({ text: "a", due: "2026-02-30" })).toBe("INVALID_INPUT");
    expect(await code({ text: "a", due: "2026-02-28" })).toBeUndefined();
    expect(await code({ text: "a", tag: "garden" })).toBe("INVALID_INPUT");
    expect(await code({ text: 5 })).toBe("INVALID_INPUT");
    expect(await code({})).toBe("INVALID_INPUT");
    expect(await code("text")).toBe("INVALID_INPUT");
    expect(await code({ text: "x".repeat(41) })).toBe("INVALID_INPUT");
    r.dispose();
  });

  it("the output is validated against the declared output schema (EXECUTION_FAILED otherwise)", async () => {
    const r = makeRegistry();
    r.register(bindNotes({ actions: { add: { execute: () => ({ id: "x1" }) } }, observations: { list: { read: () => ({ items: [{ id: 1 }] }) } } }));
    const a = await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "a" } });
    expect(a.status).toBe("error");
    expect(a.error.code).toBe("EXECUTION_FAILED");
    const o = await r.invoke({ capabilityId: "view:api.notes.list" });
    expect(o.error.code).toBe("EXECUTION_FAILED");
    r.dispose();
  });

  it("a schema outside the supported subset is a definition defect, with every violation's pointer", () => {
    const e = definitionError(() =>
      fromJsonSchema({ type: "object", properties: { a: { oneOf: [{ type: "string" }] }, b: { $ref: "https://example.com/x" } } }),
    );
    const pointers = e.violations.map((v) => v.pointer).sort();
    expect(pointers).toEqual(["/properties/a/oneOf", "/properties/b/$ref"]);
    for (const keyword of ["patternProperties", "unevaluatedProperties", "allOf", "not", "if"]) {
      definitionError(() => fromJsonSchema({ type: "object", [keyword]: keyword === "patternProperties" ? {} : keyword === "unevaluatedProperties" ? false : [{}] }));
    }
    definitionError(() => fromJsonSchema({ type: "object", additionalProperties: { type: "string" } }));
    definitionError(() => fromJsonSchema({ type: "string", format: "hostname" }));
  });

  it("$defs with internal $ref, anyOf with const tags and nullable type arrays are accepted", () => {
    const s = fromJsonSchema({
      $defs: { id: { type: "string", minLength: 1 } },
      anyOf: [
        { type: "object", properties: { kind: { const: "a" }, id: { $ref: "#/$defs/id" } }, required: ["kind", "id"] },
        { type: "object", properties: { kind: { const: "b" }, n: { type: ["integer", "null"] } }, required: ["kind"] },
      ],
    });
    expect(s.parse({ kind: "a", id: "x" })).toEqual({ kind: "a", id: "x" });
    expect(s.parse({ kind: "b", n: null })).toEqual({ kind: "b", n: null });
    expect(() => s.parse({ kind: "a", id: "" })).toThrow(AgentSchemaError);
  });

  it("nesting deeper than 8 and schemas over 16 kB are refused", () => {
    let deep = { type: "string" };
    for (let i = 0; i < 9; i++) deep = { type: "array", items: deep };
    definitionError(() => fromJsonSchema(deep));
    definitionError(() => fromJsonSchema({ type: "string", description: "x".repeat(17_000) }));
  });

  it("jsonSchema is a deep-frozen copy of what was given", () => {
    const given = { type: "object", properties: { a: { type: "string" } } };
    const s = fromJsonSchema(given);
    expect(s.jsonSchema).toEqual(given);
    expect(s.jsonSchema).not.toBe(given);
    expect(Object.isFrozen(s.jsonSchema.properties.a)).toBe(true);
    given.properties.a.type = "number";
    expect(s.jsonSchema.properties.a.type).toBe("string");
  });
});

describe("fromStandardSchema", () => {
  it("parse runs ~standard.validate, then checks the same value against the JSON Schema", () => {
    const s = schemas.orderInput();
    standardCalls.length = 0;
    expect(s.parse({ quantity: 4 })).toEqual({ quantity: 4 });
    expect(standardCalls).toEqual([{ quantity: 4 }]);
    // the library refuses: its issue, with its path as a JSON pointer
    let e;
    try {
      s.parse({ quantity: 3 });
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(AgentSchemaError);
    expect(e.issues).toEqual([{ path: "/quantity", keyword: "standard", message: "quantity must be even" }]);
    // the library accepts, the JSON Schema (what the agent was shown) does not
    try {
      s.parse({ quantity: 200 });
      e = undefined;
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(AgentSchemaError);
    expect(e.issues[0]).toMatchObject({ path: "/quantity", keyword: "maximum" });
  });

  it("an asynchronous validate is refused by parse", () => {
    const s = fromStandardSchema(
      { "~standard": { version: 1, vendor: "x", validate: async (v) => ({ value: v }) } },
      { jsonSchema: { type: "object" } },
    );
    expect(() => s.parse({})).toThrow(AgentSchemaError);
  });

  it("the JSON Schema is required and must be inside the subset", () => {
    expect(() => fromStandardSchema(evenQuantity)).toThrow();
    definitionError(() => fromStandardSchema(evenQuantity, { jsonSchema: { oneOf: [] } }));
  });

  it("through the registry, the declared JSON Schema is enforced (INVALID_INPUT) before the handler runs", async () => {
    const seen = [];
    const r = makeRegistry();
    r.register(bindNotes({ actions: { order: { execute: (input) => void seen.push(input) } } }));
    // no coercion the JSON Schema does not describe: "4" is not an integer
    for (const input of [{ quantity: 0 }, { quantity: 101 }, { quantity: 2.5 }, { quantity: "4" }, { quantity: 2, rush: true }, {}]) {
      const res = await r.invoke({ capabilityId: "view:api.notes.order", input });
      expect(res.error?.code, JSON.stringify(input)).toBe("INVALID_INPUT");
    }
    const ok = await r.invoke({ capabilityId: "view:api.notes.order", input: { quantity: 4 } });
    expect(ok.status).toBe("ok");
    expect(seen).toEqual([{ quantity: 4 }]);
    r.dispose();
  });
});

describe("emptyObjectSchema", () => {
  it("accepts {} only, in parse and through the registry", async () => {
    expect(emptyObjectSchema.jsonSchema).toEqual({ type: "object", properties: {}, additionalProperties: false });
    expect(emptyObjectSchema.parse({})).toEqual({});
    expect(() => emptyObjectSchema.parse({ a: 1 })).toThrow(AgentSchemaError);
    expect(() => emptyObjectSchema.parse([])).toThrow(AgentSchemaError);
    const r = makeRegistry();
    r.register(bindNotes());
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: {} })).status).toBe("ok");
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: { a: 1 } })).error.code).toBe("INVALID_INPUT");
    r.dispose();
  });
});

describe("serialization rules", () => {
  it("undefined properties of an output are stripped (JSON semantics)", async () => {
    const r = makeRegistry();
    r.register(bindNotes({ actions: { produce: { execute: () => ({ a: 1, b: undefined, c: [1, { d: undefined }] }) } } }));
    const res = await r.invoke({ capabilityId: "view:api.notes.produce", input: {} });
    expect(res).toMatchObject({ status: "ok", output: { a: 1, c: [1, {}] } });
    expect(Object.keys(res.output)).toEqual(["a", "c"]);
    r.dispose();
  });

  it("an action without an output schema that returns nothing has no output", async () => {
    const r = makeRegistry();
    r.register(bindNotes());
    const res = await r.invoke({ capabilityId: "view:api.notes.work", input: {} });
    expect(res.status).toBe("ok");
    expect("output" in res).toBe(false);
    r.dispose();
  });

  it("dates travel as ISO strings; a Date object in an output is a defect (EXECUTION_FAILED)", async () => {
    const r = makeRegistry();
    let value = new Date(0);
    r.register(bindNotes({ actions: { produce: { execute: () => value } } }));
    expect((await r.invoke({ capabilityId: "view:api.notes.produce", input: {} })).error.code).toBe("EXECUTION_FAILED");
    value = new Date(0).toISOString();
    expect(await r.invoke({ capabilityId: "view:api.notes.produce", input: {} })).toMatchObject({ status: "ok", output: "1970-01-01T00:00:00.000Z" });
    r.dispose();
  });
});
