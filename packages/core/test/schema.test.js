import { describe, expect, it } from "vitest";
import { AgentSchemaError, AgentSurfaceDefinitionError, emptyObjectSchema, fromJsonSchema, fromStandardSchema } from "../dist/index.js";

function definitionError(f) {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(AgentSurfaceDefinitionError);
    return e;
  }
  throw new Error("no AgentSurfaceDefinitionError");
}

function issues(schema, value) {
  try {
    schema.parse(value);
  } catch (e) {
    expect(e).toBeInstanceOf(AgentSchemaError);
    return e.issues.map((i) => [i.path, i.keyword]);
  }
  return [];
}

describe("emptyObjectSchema", () => {
  it("has the manifest's JSON Schema and accepts only {}", () => {
    expect(emptyObjectSchema.jsonSchema).toEqual({ type: "object", properties: {}, additionalProperties: false });
    expect(Object.isFrozen(emptyObjectSchema.jsonSchema)).toBe(true);
    expect(emptyObjectSchema.parse({})).toEqual({});
    expect(issues(emptyObjectSchema, { a: 1 })).toEqual([["", "additionalProperties"]]);
    expect(issues(emptyObjectSchema, [])).toEqual([["", "type"]]);
    expect(issues(emptyObjectSchema, null)).toEqual([["", "type"]]);
  });
});

describe("fromJsonSchema", () => {
  const select = fromJsonSchema({
    type: "object",
    additionalProperties: false,
    properties: {
      ids: { type: "array", items: { type: "string", pattern: "^dev_[a-z0-9]{6,}$" }, minItems: 1, maxItems: 3, uniqueItems: true },
      mode: { type: "string", enum: ["replace", "add", "remove"], default: "replace" },
      note: { type: ["string", "null"], maxLength: 3 },
      count: { type: "integer", minimum: 0, exclusiveMaximum: 10, multipleOf: 2 },
      tag: { const: "v1" },
      ref: { $ref: "#/$defs/pos" },
      either: { anyOf: [{ type: "string" }, { type: "number", minimum: 100 }] },
    },
    required: ["ids"],
    $defs: { pos: { type: "number", exclusiveMinimum: 0 } },
  });

  it("keeps the JSON Schema as given (frozen copy) and returns a copy of valid values, defaults applied", () => {
    expect(select.jsonSchema.required).toEqual(["ids"]);
    expect(Object.isFrozen(select.jsonSchema.properties.ids)).toBe(true);
    const v = { ids: ["dev_abc123"], mode: "add", note: null, count: 4, tag: "v1", ref: 0.5, either: 150 };
    // parse validates a private JSON copy of the value (keys in the caller's order) and returns
    // it, not the caller's object.
    const parsed = select.parse(v);
    expect(parsed).toEqual(v);
    expect(parsed).not.toBe(v);
    expect(Object.keys(parsed)).toEqual(Object.keys(v));
    expect(select.parse({ ids: ["dev_abc123"], note: "😀😀😀" })).toEqual({ ids: ["dev_abc123"], note: "😀😀😀", mode: "replace" }); // maxLength counts code points
  });

  it("applies defaults and asserts formats, as the registry does", () => {
    const s = fromJsonSchema({
      type: "object",
      properties: { mode: { type: "string", default: "replace" }, when: { type: "string", format: "date-time" }, nested: { type: "object", properties: { n: { type: "integer", default: 1 } }, default: {} } },
    });
    const input = {};
    expect(s.parse(input)).toEqual({ mode: "replace", nested: { n: 1 } });
    expect(input).toEqual({});
    expect(issues(s, { when: "yesterday" })).toEqual([["/when", "format"]]);
    expect(s.parse({ when: "2026-12-01T21:00:00Z", mode: "add", nested: { n: 2 } })).toEqual({ when: "2026-12-01T21:00:00Z", mode: "add", nested: { n: 2 } });
  });

  it("reports every issue with a JSON pointer and the keyword", () => {
    expect(issues(select, {})).toEqual([["", "required"]]);
    expect(issues(select, { ids: [], extra: 1 })).toEqual([
      ["", "additionalProperties"],
      ["/ids", "minItems"],
    ]);
    // The Rust validator's order: schema keywords in document (sorted) order, so `items` before `maxItems`.
    expect(issues(select, { ids: ["dev_abc123", "dev_abc123", "x", 1] })).toEqual([
      ["/ids/2", "pattern"],
      ["/ids/3", "type"],
      ["/ids", "maxItems"],
      ["/ids", "uniqueItems"],
    ]);
    // Properties in sorted order; every failed keyword of a value (3.5 fails multipleOf and
    // type), and an anyOf reports its branches' issues before its own.
    expect(issues(select, { ids: ["dev_abc123"], mode: "merge", note: "long", count: 3.5, tag: "v2", ref: 0, either: 5 })).toEqual([
      ["/count", "multipleOf"],
      ["/count", "type"],
      ["/either", "type"],
      ["/either", "minimum"],
      ["/either", "anyOf"],
      ["/mode", "enum"],
      ["/note", "maxLength"],
      ["/ref", "exclusiveMinimum"],
      ["/tag", "const"],
    ]);
    expect(issues(select, { ids: ["dev_abc123"], count: 10 })).toEqual([["/count", "exclusiveMaximum"]]);
    expect(issues(select, { ids: ["dev_abc123"], count: 3 })).toEqual([["/count", "multipleOf"]]);
    expect(issues(select, { ids: ["dev_abc123"], count: -2 })).toEqual([["/count", "minimum"]]);
  });

  it("messages do not quote the offending value", () => {
    let err;
    try {
      select.parse({ ids: ["secret-value"] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AgentSchemaError);
    expect(err.message).not.toContain("secret-value");
    expect(JSON.stringify(err.issues)).not.toContain("secret-value");
  });

  it("refuses values that are not JSON", () => {
    expect(issues(fromJsonSchema({}), { f: () => 1 })).toEqual([["", "json"]]);
    expect(issues(fromJsonSchema({}), NaN)).toEqual([["", "json"]]);
    expect(fromJsonSchema({}).parse({ any: [1, "x"] })).toEqual({ any: [1, "x"] });
  });

  it("an unresolvable, remote or recursive $ref is refused when the schema is built", () => {
    // The subset is checked (and every $ref compiled) up front, as the Rust validator does; an
    // earlier JS validator reported these as parse-time issues.
    for (const schema of [{ $ref: "#/$defs/missing" }, { $ref: "https://example.com/s.json" }, { $ref: "#/$defs/a", $defs: { a: { $ref: "#/$defs/a" } } }]) {
      const e = definitionError(() => fromJsonSchema(schema));
      expect(e.violations.length).toBeGreaterThan(0);
      expect(e.violations[0].pointer).toMatch(/\/\$ref$/);
    }
  });

  it("the schema must be a JSON object inside the supported subset", () => {
    expect(() => fromJsonSchema(true)).toThrow(AgentSurfaceDefinitionError);
    expect(() => fromJsonSchema({ default: () => 1 })).toThrow(AgentSurfaceDefinitionError);
    const e = definitionError(() => fromJsonSchema({ type: "object", properties: { a: { oneOf: [] }, b: { type: "string", format: "hostname" } } }));
    expect(e.contract).toBeNull();
    expect(e.message).toMatch(/^fromJsonSchema: the JSON Schema is outside the supported subset at \/properties\/a/);
    expect(e.violations.map((v) => v.pointer)).toEqual(["/properties/a/oneOf", "/properties/b/format"]);
    expect(() => fromJsonSchema({ type: "string", pattern: "(" })).toThrow(AgentSurfaceDefinitionError);
  });
});

describe("fromStandardSchema", () => {
  it("zod-to-json-schema's draft-07 $schema is dropped, as the compiler drops it; any other dialect is refused", () => {
    const num = { "~standard": { version: 1, vendor: "t", validate: (v) => (typeof v === "number" ? { value: v } : { issues: [{ message: "nan" }] }) } };
    const s = fromStandardSchema(num, { jsonSchema: { type: "number", $schema: "http://json-schema.org/draft-07/schema#" } });
    expect(s.jsonSchema).toEqual({ type: "number" });
    expect(s.parse(2)).toBe(2);
    expect(() => fromStandardSchema(num, { jsonSchema: { type: "number", $schema: "https://json-schema.org/draft/2019-09/schema#" } })).toThrow(AgentSurfaceDefinitionError);
  });
  // A hand-made Standard Schema v1 (what Zod, Valibot and ArkType expose as "~standard").
  const positive = {
    "~standard": {
      version: 1,
      vendor: "test",
      validate: (v) => (typeof v === "number" && v > 0 ? { value: v * 1 } : { issues: [{ message: "must be positive", path: [{ key: "n" }, 0] }] }),
    },
  };

  it("parses through ~standard.validate and keeps the explicit JSON Schema", () => {
    const s = fromStandardSchema(positive, { jsonSchema: { type: "number", exclusiveMinimum: 0 } });
    expect(s.jsonSchema).toEqual({ type: "number", exclusiveMinimum: 0 });
    expect(s.parse(2)).toBe(2);
    let err;
    try {
      s.parse(-1);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AgentSchemaError);
    expect(err.issues).toEqual([{ path: "/n/0", keyword: "standard", message: "must be positive" }]);
  });

  it("returns the validator's output value (transforms are the library's business)", () => {
    const trim = { "~standard": { version: 1, vendor: "t", validate: (v) => ({ value: String(v).trim() }) } };
    expect(fromStandardSchema(trim, { jsonSchema: { type: "string" } }).parse("  x ")).toBe("x");
  });

  it("async validation is refused by the synchronous parse", () => {
    const asyncSchema = { "~standard": { version: 1, vendor: "t", validate: async (v) => ({ value: v }) } };
    expect(() => fromStandardSchema(asyncSchema, { jsonSchema: {} }).parse(1)).toThrow(AgentSchemaError);
  });

  it("needs a Standard Schema and an explicit jsonSchema", () => {
    expect(() => fromStandardSchema({}, { jsonSchema: {} })).toThrow(AgentSurfaceDefinitionError);
    expect(() => fromStandardSchema(positive)).toThrow(AgentSurfaceDefinitionError);
    expect(() => fromStandardSchema(positive, {})).toThrow(AgentSurfaceDefinitionError);
  });
});
