// The schema subset checker: the cases of crates/schema/src/subset/tests.rs, each violation as
// `{ pointer, message, help }` with the Rust text; and the `$ref` loops compiling refuses.
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../dist/model/canonical.js";
import { checkSubset, schemaViolations, SUPPORTED_FORMATS } from "../../dist/model/subset.js";

const DIALECT = "https://json-schema.org/draft/2020-12/schema";
const check = (s, limits) => checkSubset(s, limits);
function one(s, limits) {
  const vs = check(s, limits);
  expect(vs, JSON.stringify(s)).toHaveLength(1);
  return vs[0];
}

describe("what the subset accepts", () => {
  it("typical zod output, {}, a tolerated trailing '#', 1.0 as an integer", () => {
    const s = {
      $schema: DIALECT,
      type: "object",
      description: "Select rows",
      properties: {
        ids: { type: "array", items: { type: "string", format: "uuid" }, minItems: 1, maxItems: 100, uniqueItems: true, description: "Device ids to select" },
        mode: { default: "replace", type: "string", enum: ["replace", "add", "remove"] },
        note: { type: ["string", "null"], minLength: 0, maxLength: 200, pattern: "^[a-z]+(?:-[a-z]+)*$" },
        count: { type: "integer", minimum: 0, exclusiveMaximum: 10, multipleOf: 2 },
        ratio: { type: "number", exclusiveMinimum: 0, maximum: 1.5 },
        when: { type: "string", format: "date-time", examples: ["2024-01-01T00:00:00Z"] },
        kind: { anyOf: [{ type: "object", properties: { tag: { const: "a" } }, required: ["tag"], additionalProperties: false }, { $ref: "#/$defs/b" }] },
        old: { deprecated: true, title: "Old" },
      },
      required: ["ids", "mode"],
      additionalProperties: false,
      $defs: { b: { type: "object", properties: { tag: { const: "b" } } } },
    };
    expect(check(s)).toEqual([]);
    expect(check({})).toEqual([]);
    expect(check({ $schema: `${DIALECT}#`, minItems: 1.0 })).toEqual([]);
    for (const f of SUPPORTED_FORMATS) expect(check({ type: "string", format: f })).toEqual([]);
    expect(check({ const: null, default: { x: [1] }, enum: [1, "a", null] })).toEqual([]);
  });
});

describe("violations, with the Rust pointer, message and help", () => {
  it("unsupported keywords name the alternative", () => {
    expect(one({ oneOf: [{ type: "string" }] })).toEqual({
      pointer: "/oneOf",
      message: 'unsupported keyword "oneOf"',
      help: "use anyOf; for a discriminated union give every branch a const-tagged property (zod: z.union of objects with z.literal tags instead of z.discriminatedUnion)",
    });
    for (const [kw, part] of [
      ["allOf", "merge"],
      ["not", "positively"],
      ["if", "anyOf"],
      ["else", "precondition"],
      ["patternProperties", "properties"],
      ["propertyNames", "z.record"],
      ["prefixItems", "tuples"],
      ["unevaluatedProperties", "additionalProperties: false"],
      ["additionalItems", "single items"],
      ["definitions", "$defs"],
      ["$anchor", "root $defs"],
      ["dependentRequired", "anyOf"],
      ["nullable", "type array"],
      ["minProperties", "properties"],
      ["maxContains", "precondition"],
      ["contentSchema", "binary"],
      ["$comment", "annotations"],
      ["frobnicate", "supported keywords: type, enum, const,"],
      ["constructor", "supported keywords:"],
    ]) {
      const v = one({ [kw]: {} });
      expect(v.message).toBe(`unsupported keyword "${kw}"`);
      expect(v.help, kw).toContain(part);
    }
  });

  it("a schema that is not an object", () => {
    expect(one(true)).toEqual({ pointer: "", message: "boolean schema `true` is not supported; a schema must be a JSON object", help: "use {} to accept any value" });
    expect(one([])).toEqual({ pointer: "", message: "a schema must be a JSON object, found array", help: null });
    expect(one({ properties: { a: false } })).toEqual({
      pointer: "/properties/a",
      message: "boolean schema `false` is not supported; a schema must be a JSON object",
      help: "remove the property or array instead of forbidding it with false",
    });
    expect(one({ items: true }).pointer).toBe("/items");
    expect(one({ anyOf: [{}, 3] })).toEqual({ pointer: "/anyOf/1", message: "a schema must be a JSON object, found number", help: null });
  });

  it("additionalProperties must be a boolean", () => {
    expect(check({ additionalProperties: true })).toEqual([]);
    const v = one({ additionalProperties: { type: "string" } });
    expect(v.pointer).toBe("/additionalProperties");
    expect(v.message).toBe('"additionalProperties" must be true or false, found a schema');
    expect(v.help).toContain("z.record");
    expect(one({ additionalProperties: "no" }).message).toBe('"additionalProperties" must be true or false, found string');
  });

  it("formats", () => {
    expect(one({ properties: { x: { format: "ipv4" } } })).toEqual({
      pointer: "/properties/x/format",
      message: 'format "ipv4" is not supported',
      help: "supported formats: date-time, date, uuid, email, uri; otherwise use pattern, or describe the format in description",
    });
    expect(one({ format: 1 }).message).toBe('"format" must be a string');
  });

  it("refs", () => {
    expect(one({ $ref: "https://example.com/s.json" })).toEqual({
      pointer: "/$ref",
      message: '"$ref": "https://example.com/s.json" is not supported; only "#/$defs/<name>" references are',
      help: "put the referenced schema in the root $defs (remote references are refused)",
    });
    for (const r of ["#/definitions/a", "#/$defs/", "#/$defs/a/properties/b", "#", "other.json#/$defs/a"]) expect(one({ $ref: r }).message).toContain("is not supported");
    expect(one({ properties: { a: { $ref: "#/$defs/missing" } }, $defs: { b: {} } })).toEqual({
      pointer: "/properties/a/$ref",
      message: '"$ref": "#/$defs/missing" does not resolve: the root $defs has no "missing"',
      help: 'add "missing" to the root schema\'s $defs',
    });
    expect(check({ $ref: "#/$defs/a~1b", $defs: { "a/b": { $ref: "#/$defs/a~1b" } } })).toEqual([]);
    expect(one({ $ref: 1 }).message).toBe('"$ref" must be a string of the form "#/$defs/<name>"');
  });

  it("$defs and $schema only at the root", () => {
    expect(one({ properties: { a: { $defs: { x: {} } } } })).toEqual({
      pointer: "/properties/a/$defs",
      message: '"$defs" is only allowed at the schema root',
      help: 'move the definitions to the root schema\'s $defs and reference them with "$ref": "#/$defs/<name>"',
    });
    expect(one({ items: { $schema: DIALECT } })).toEqual({ pointer: "/items/$schema", message: '"$schema" is only allowed at the schema root', help: "remove it from this subschema" });
    expect(one({ $schema: "http://json-schema.org/draft-07/schema#" }).message).toBe(`"$schema" must be "${DIALECT}"`);
    expect(one({ $defs: { x: { oneOf: [] } } }).pointer).toBe("/$defs/x/oneOf");
    expect(one({ $defs: [] }).message).toBe('"$defs" must be an object mapping names to schemas');
  });

  it("the depth limit: once per subtree, at the first level too deep", () => {
    const nested = (levels) => {
      let s = { type: "string" };
      for (let i = 1; i < levels; i++) s = { type: "array", items: s };
      return s;
    };
    expect(check(nested(8))).toEqual([]);
    expect(one(nested(9))).toEqual({
      pointer: "/items".repeat(8),
      message: "schema is nested 9 levels deep here; at most 8 are allowed (the root schema is level 1)",
      help: "flatten the structure",
    });
    expect(one(nested(12)).pointer).toBe("/items".repeat(8));
    const vs = check({ properties: { a: { anyOf: [nested(7)] }, b: { items: nested(7) } } });
    expect(vs.map((v) => v.pointer)).toEqual([`/properties/a/anyOf/0${"/items".repeat(6)}`, `/properties/b/items${"/items".repeat(6)}`]);
    expect(check({ $defs: { d: nested(7) }, $ref: "#/$defs/d" })).toEqual([]);
    expect(one({ $defs: { d: nested(8) } }).message).toContain("nested 9 levels");
    expect(check(nested(2), { maxSchemaBytes: 16384, maxSchemaDepth: 2 })).toEqual([]);
    expect(check(nested(3), { maxSchemaBytes: 16384, maxSchemaDepth: 2 })[0].message).toContain("nested 3 levels deep here; at most 2");
  });

  it("the size limit counts UTF-8 bytes of canonical JSON", () => {
    const s = { description: "é".repeat(100) };
    const bytes = new TextEncoder().encode(canonicalJson(s)).length;
    expect(check(s, { maxSchemaBytes: bytes, maxSchemaDepth: 8 })).toEqual([]);
    expect(check(s, { maxSchemaBytes: bytes - 1, maxSchemaDepth: 8 })).toEqual([
      {
        pointer: "",
        message: `schema is ${bytes} bytes as canonical JSON; at most ${bytes - 1} are allowed`,
        help: "split the capability, shorten descriptions, or move repeated parts into $defs",
      },
    ]);
    expect(one({ description: "x".repeat(16_384) }).message).toContain("at most 16384 are allowed");
  });

  it("patterns compile as ECMAScript in Unicode mode (the page's RegExp gives the reason)", () => {
    for (const p of ["^\\d{3}-\\w+$", "(?<year>\\d{4})", "(?<=a)b", "[\\b]*", "\\\\b*"]) expect(check({ pattern: p }), p).toEqual([]);
    for (const p of ["([a-z]", "a++", "\\b*", "x\\B{2}y", "\\b?", "(?:\\b+)"]) {
      const v = one({ pattern: p });
      expect(v.pointer).toBe("/pattern");
      expect(v.message, p).toMatch(/^"pattern" is not a valid ECMAScript regular expression: ./);
      expect(v.help).toContain("unicode mode");
    }
    expect(one({ pattern: 5 }).message).toBe('"pattern" must be a string');
  });

  it("types", () => {
    expect(one({ type: "date" })).toEqual({
      pointer: "/type",
      message: 'unknown type "date"',
      help: "type names: object, array, string, number, integer, boolean, null",
    });
    expect(one({ type: ["string", "nul"] }).pointer).toBe("/type/1");
    expect(one({ type: [] }).message).toBe('"type" must be a type name or a non-empty array of type names');
    expect(one({ type: 1 }).pointer).toBe("/type");
    expect(one({ type: ["string", "string"] })).toEqual({ pointer: "/type/1", message: '"type" must be an array of distinct type names', help: null });
    expect(one({ type: ["string", 1] }).pointer).toBe("/type/1");
  });

  it("keyword values", () => {
    const bad = [
      [{ enum: [] }, '"enum" must be a non-empty array'],
      [{ enum: "a" }, '"enum" must be a non-empty array'],
      [{ properties: [] }, '"properties" must be an object mapping property names to schemas'],
      [{ required: "a" }, '"required" must be an array of property names'],
      [{ minItems: -1 }, '"minItems" must be a non-negative integer'],
      [{ maxLength: 1.5 }, '"maxLength" must be a non-negative integer'],
      [{ minLength: "1" }, '"minLength" must be a non-negative integer'],
      [{ uniqueItems: 1 }, '"uniqueItems" must be a boolean'],
      [{ deprecated: "yes" }, '"deprecated" must be a boolean'],
      [{ description: 1 }, '"description" must be a string'],
      [{ title: null }, '"title" must be a string'],
      [{ examples: "a" }, '"examples" must be an array'],
      [{ minimum: "0" }, '"minimum" must be a number'],
      [{ multipleOf: 0 }, '"multipleOf" must be a number greater than 0'],
      [{ multipleOf: -2 }, '"multipleOf" must be a number greater than 0'],
      [{ anyOf: [] }, '"anyOf" must be a non-empty array of schemas'],
      [{ anyOf: {} }, '"anyOf" must be a non-empty array of schemas'],
      [{ items: [{}] }, '"items" must be a single schema'],
    ];
    for (const [s, message] of bad) expect(one(s).message, JSON.stringify(s)).toBe(message);
    expect(one({ items: [{}] }).help).toBe("tuples are not supported: use an object with named properties (zod: z.object instead of z.tuple)");
    expect(one({ exclusiveMinimum: true, minimum: 0 })).toEqual({
      pointer: "/exclusiveMinimum",
      message: '"exclusiveMinimum" must be a number',
      help: 'the boolean draft-04 form is not supported; write "exclusiveMinimum": <number> instead of "minimum" + "exclusiveMinimum": true',
    });
    expect(one({ required: ["a", "b", "a"] })).toEqual({ pointer: "/required/2", message: '"required" must be an array of distinct property names', help: null });
    expect(one({ required: ["a", 1] }).pointer).toBe("/required/1");
  });

  it("every violation, in document order (keys in Rust's order), pointers escaped", () => {
    const s = { type: "object", properties: { c: { additionalProperties: {} }, b: { oneOf: [{ type: "bogus" }] }, a: { type: "string", format: "hostname" } }, allOf: [] };
    expect(check(s).map((v) => v.pointer)).toEqual(["/allOf", "/properties/a/format", "/properties/b/oneOf", "/properties/c/additionalProperties"]);
    expect(one({ properties: { "a/b": { properties: { "c~d": { format: "x" } } } } }).pointer).toBe("/properties/a~1b/properties/c~0d/format");
    // Rust orders keys by code point: U+E000 before U+1F600, which UTF-16 order reverses.
    expect(check({ properties: { "\u{1F600}": { format: "x" }, "\uE000": { format: "y" } } }).map((v) => v.pointer)).toEqual(["/properties/\uE000/format", "/properties/\u{1F600}/format"]);
  });
});

describe("schemaViolations: what compiling refuses besides the subset ($ref loops that never descend)", () => {
  const LOOP_HELP =
    'a recursive definition must recurse through properties or items, e.g. {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}';
  it("refuses a loop through $ref and anyOf, at the $ref that closes it", () => {
    expect(schemaViolations({ $ref: "#/$defs/a", $defs: { a: { $ref: "#/$defs/a" } } })).toEqual([
      { pointer: "/$defs/a/$ref", message: '"$ref" to "a" leads back to a schema already applied to the same value, so validation would never finish', help: LOOP_HELP },
    ]);
    const vs = schemaViolations({ $defs: { a: { $ref: "#/$defs/b" }, b: { anyOf: [{ $ref: "#/$defs/a" }, { type: "null" }] } } });
    expect(vs.map((v) => [v.pointer, v.message.slice(0, 14)])).toEqual([["/$defs/b/anyOf/0/$ref", '"$ref" to "a" ']]);
  });

  it("accepts recursion through properties or items", () => {
    expect(schemaViolations({ $ref: "#/$defs/n", $defs: { n: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/n" } } } } } })).toEqual([]);
    expect(schemaViolations({ $ref: "#/$defs/a~1b", $defs: { "a/b": { properties: { x: { $ref: "#/$defs/a~1b" } } } } })).toEqual([]);
  });

  it("reports the subset's violations first, alone", () => {
    expect(schemaViolations({ oneOf: [], $defs: { a: { $ref: "#/$defs/a" } } }).map((v) => v.pointer)).toEqual(["/oneOf"]);
  });
});
