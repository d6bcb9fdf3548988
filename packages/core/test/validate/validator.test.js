// The validator's behaviour through compileValidator, the cases of the Rust validator's own unit
// tests (crates/schema/src/validate/tests/*.rs): defaults, issue order and paths, messages,
// recursion and budgets, patterns, numbers, formats; and what only the page has (values that are
// not JSON, fresh copies).
import { describe, expect, it } from "vitest";
import { compileValidator, SchemaCompileError } from "../../dist/validate/index.js";

const compile = (schema) => compileValidator(schema);
const valid = (schema, x) => compile(schema).validate(x).ok;
const value = (schema, x) => {
  const out = compile(schema).validate(x);
  expect(out.ok, JSON.stringify(out.issues)).toBe(true);
  return out.value;
};
const issues = (schema, x) => {
  const out = compile(schema).validate(x);
  expect(out.ok).toBe(false);
  return out.issues;
};
const pk = (schema, x) => issues(schema, x).map((i) => [i.path, i.keyword]);
const refused = (schema, limits) => {
  try {
    compileValidator(schema, limits);
  } catch (e) {
    expect(e).toBeInstanceOf(SchemaCompileError);
    return e;
  }
  throw new Error("schema accepted");
};

describe("defaults", () => {
  it("fill missing properties, never over a present value, without touching the input", () => {
    const v = compile({ type: "object", properties: { mode: { type: "string", default: "replace" }, tags: { type: "array", default: ["a", { b: 1 }] }, name: { type: "string", default: "x" } } });
    const input = { name: "given" };
    const out = v.validate(input);
    expect(out).toEqual({ ok: true, value: { name: "given", mode: "replace", tags: ["a", { b: 1 }] } });
    expect(input).toEqual({ name: "given" });
    // Each result gets its own deep copy of the default.
    const again = v.validate({}).value;
    again.tags[1].b = 2;
    expect(v.validate({}).value.tags[1].b).toBe(1);
    // A present null is a value; types are never coerced.
    expect(v.validate({ mode: null }).issues[0].path).toBe("/mode");
    expect(v.validate({ name: 5 }).ok).toBe(false);
  });

  it("apply recursively and before required", () => {
    const s = {
      type: "object",
      properties: {
        page: { type: "object", default: {}, properties: { size: { type: "integer", default: 20 }, sort: { type: "object", properties: { dir: { enum: ["asc", "desc"], default: "asc" } } } }, required: ["size"] },
        items: { type: "array", items: { type: "object", properties: { qty: { default: 1 } } } },
      },
      required: ["page"],
    };
    expect(value(s, {})).toEqual({ page: { size: 20 } });
    expect(value(s, { page: { sort: {} }, items: [{}, { qty: 5 }] })).toEqual({ page: { size: 20, sort: { dir: "asc" } }, items: [{ qty: 1 }, { qty: 5 }] });
    expect(issues({ properties: { a: {} }, required: ["a"] }, {})).toEqual([{ path: "", keyword: "required", message: 'must have the required property "a"' }]);
    expect(valid({ properties: { a: {} }, required: ["a"] }, { a: null })).toBe(true);
  });

  it("apply only inside the anyOf branch that matched; a $ref target's and the root's together", () => {
    const s = {
      anyOf: [
        { type: "object", properties: { kind: { const: "circle" }, r: { default: 1 } }, required: ["kind"] },
        { type: "object", properties: { kind: { const: "rect" }, w: { default: 2 }, h: { default: 3 } }, required: ["kind"] },
      ],
    };
    expect(value(s, { kind: "rect", h: 9 })).toEqual({ kind: "rect", w: 2, h: 9 });
    expect(value(s, { kind: "circle" })).toEqual({ kind: "circle", r: 1 });
    expect(pk(s, { kind: "hexagon" })).toEqual([["/kind", "const"], ["/kind", "const"], ["", "anyOf"]]);
    expect(value({ $defs: { base: { properties: { a: { default: 1 } }, required: ["a", "b"] } }, $ref: "#/$defs/base", properties: { b: { default: 2 } } }, {})).toEqual({ a: 1, b: 2 });
  });

  it("an inserted default is trusted (its own issues are dropped)", () => {
    const s = { properties: { n: { type: "integer", maximum: 3, default: 5 } } };
    expect(value(s, {})).toEqual({ n: 5 });
    expect(pk(s, { n: 5 })).toEqual([["/n", "maximum"]]);
  });

  it("reach 8 schema levels deep", () => {
    const s = { type: "object", properties: { a: { type: "array", items: { type: "object", properties: { b: { type: "array", items: { type: "object", properties: { c: { type: "array", items: { type: "object", properties: { d: { type: "string", default: "deep" } } } } } } } } } } } };
    expect(value(s, { a: [{ b: [{ c: [{}] }] }] })).toEqual({ a: [{ b: [{ c: [{ d: "deep" }] }] }] });
    expect(issues(s, { a: [{ b: [{ c: [{ d: 1 }] }] }] })[0].path).toBe("/a/0/b/0/c/0/d");
  });
});

describe("issues", () => {
  it("every issue, in schema then instance order, with JSON Pointer paths", () => {
    const s = {
      additionalProperties: false,
      properties: { a: { maxLength: 2, pattern: "^[a-z]+$", type: "string" }, list: { items: { minimum: 0, type: "integer" }, maxItems: 2 } },
      required: ["a", "z"],
      type: "object",
    };
    // The instance's key order does not matter.
    for (const x of [{ a: "ABC", list: [1, -1, 2.5], x: 1, y: 2 }, { y: 2, x: 1, list: [1, -1, 2.5], a: "ABC" }]) {
      expect(pk(s, x)).toEqual([["", "additionalProperties"], ["", "additionalProperties"], ["/a", "maxLength"], ["/a", "pattern"], ["/list/1", "minimum"], ["/list/2", "type"], ["/list", "maxItems"], ["", "required"]]);
    }
    expect(pk({ properties: { "a/b": { properties: { "c~d": { items: { type: "string" } } } } } }, { "a/b": { "c~d": ["ok", 1] } })).toEqual([["/a~1b/c~0d/1", "type"]]);
    expect(issues({ minimum: 1 }, 0)).toEqual([{ path: "", keyword: "minimum", message: "must be greater than or equal to 1" }]);
  });

  it("messages are agent-safe: the constraint, never the value", () => {
    const secret = "s3cr3t-value-from-the-agent";
    const cases = [
      [{ maxLength: 10 }, `${secret}!!`, "must be at most 10 characters"],
      [{ minLength: 1 }, "", "must be at least 1 character"],
      [{ type: ["string", "null"] }, 1, "must be a string or null"],
      [{ type: ["number", "boolean", "null"] }, "x", "must be a number, a boolean or null"],
      [{ type: "integer" }, 1.5, "must be an integer"],
      [{ enum: ["a", 1, null] }, secret, 'must be one of: "a", 1, null'],
      [{ const: { k: [1] } }, secret, 'must be {"k":[1]}'],
      [{ pattern: "^a" }, secret, 'must match the pattern "^a"'],
      [{ format: "uuid" }, secret, "must be a UUID (8-4-4-4-12 hexadecimal digits)"],
      [{ exclusiveMaximum: 1e21 }, 1e22, "must be less than 1e+21"],
      [{ multipleOf: 0.5 }, 0.3, "must be a multiple of 0.5"],
      [{ minItems: 2 }, [secret], "must have at least 2 items"],
      [{ maxItems: 1 }, [1, 2], "must have at most 1 item"],
      [{ uniqueItems: true }, [secret, 1, secret], "must not contain duplicate items (items 0 and 2 are equal)"],
    ];
    for (const [schema, x, want] of cases) {
      const got = issues(schema, x);
      expect(got.map((i) => i.message)).toEqual([want]);
    }
    const long = "k".repeat(500);
    expect(issues({ additionalProperties: false }, { [long]: 1 })[0].message).toBe(`must not have the property "${"k".repeat(64)}…" (unknown property)`);
    expect(issues({ enum: Array.from({ length: 100 }, (_, i) => `value-${i}`) }, "x")[0].message).toBe("must be one of the allowed values");
    expect(issues({ const: "x".repeat(300) }, "y")[0].message).toBe("must be the value the schema specifies");
  });
});

describe("keywords", () => {
  it("patterns are ECMAScript in Unicode mode, unanchored, and refused when invalid", () => {
    expect(valid({ pattern: "^\\p{Letter}+$" }, "héllo")).toBe(true);
    expect(valid({ pattern: "^\\p{Letter}+$" }, "h3llo")).toBe(false);
    expect(valid({ pattern: "b+" }, "abbc")).toBe(true);
    expect(valid({ pattern: "^\\d$" }, "\u07C0")).toBe(false);
    expect(valid({ pattern: "^.$" }, "🐲")).toBe(true);
    expect(valid({ pattern: "^abc$" }, "abc\n")).toBe(false);
    for (const p of ["\\-", "a{", "\\_"]) {
      const e = refused({ properties: { x: { pattern: p } } });
      expect(e.violations.map((v) => v.pointer)).toEqual(["/properties/x/pattern"]);
      expect(e.violations[0].message).toMatch(/^"pattern" is not a valid ECMAScript regular expression: /);
    }
  });

  it("types and numbers, compared exactly; multipleOf exact on the decimal values", () => {
    for (const ok of [1, 1.0, -0, 1e300, 2 ** 64]) expect(valid({ type: "integer" }, ok)).toBe(true);
    expect(valid({ type: "integer" }, 1.5)).toBe(false);
    expect(valid({ type: "integer" }, "1")).toBe(false);
    expect(valid({ type: "number" }, 3)).toBe(true);
    expect(valid({ exclusiveMinimum: -1 }, -1.0)).toBe(false);
    const cases = [
      [0.0001, 0.0075, true],
      [0.0001, 0.00751, false],
      [0.1, 0.3, true],
      [0.01, 19.99, true],
      [1.5, 4.5, true],
      [1.5, 35, false],
      [2, 2 ** 60, true],
      [3, 2 ** 60, false],
      [0.5, 1e308, true],
      [0.123456789, 1e308, false],
      [1e-8, 12391239123, true],
      [7, -14, true],
      [7, 0, true],
      [1e300, 1e-300, false],
      [0.1, 1e21, true],
    ];
    for (const [by, x, want] of cases) expect([by, x, valid({ multipleOf: by }, x)]).toEqual([by, x, want]);
  });

  it("equality and uniqueness ignore key order and representation", () => {
    const u = { uniqueItems: true };
    expect(valid(u, [1, "1", [1], { a: 1 }, { a: 2 }, true])).toBe(true);
    expect(valid(u, [{ a: 1, b: 2 }, { b: 2, a: 1 }])).toBe(false);
    expect(valid(u, [1, 1.0])).toBe(false);
    expect(valid(u, [{ a: null }, {}])).toBe(true);
    expect(valid(u, [0, false, null, "", [], {}])).toBe(true);
    // Long arrays go through canonical buckets: the first later index, then the first earlier one.
    const many = Array.from({ length: 40 }, (_, i) => ({ k: [i % 30] }));
    expect(issues(u, many)[0].message).toBe("must not contain duplicate items (items 0 and 30 are equal)");
    expect(valid({ enum: [[1, { x: 2.0 }]] }, [1.0, { x: 2 }])).toBe(true);
    expect(valid({ const: 1 }, 1.0)).toBe(true);
  });

  it("lengths count code points", () => {
    const s = { maxLength: 2, minLength: 2 };
    expect(valid(s, "💩💩")).toBe(true);
    expect(valid(s, "é\u0301")).toBe(true);
    expect(valid(s, "💩")).toBe(false);
  });

  it("formats", () => {
    const ok = (f, s) => valid({ format: f }, s);
    expect(ok("date-time", "2024-02-29T23:59:60Z")).toBe(true);
    expect(ok("date-time", "2024-01-01t00:00:00.5+14:00")).toBe(true);
    expect(ok("date-time", "2024-06-30T18:59:60-05:00")).toBe(true);
    expect(ok("date-time", "2024-06-30T23:59:60+01:00")).toBe(false);
    expect(ok("date-time", "2024-01-01T00:00:00")).toBe(false);
    expect(ok("date-time", "2024-01-01 00:00:00Z")).toBe(false);
    expect(ok("date-time", "2024-01-01T00:00:00.Z")).toBe(false);
    expect(ok("date-time", "2024-01-01T00:00:00Z\u00e9")).toBe(false);
    expect(ok("date", "2000-02-29")).toBe(true);
    expect(ok("date", "1900-02-29")).toBe(false);
    expect(ok("date", "2024-1-01")).toBe(false);
    expect(ok("uuid", "2EB8AA08-aa98-11ea-b4aa-73b441d16380")).toBe(true);
    expect(ok("uuid", "{2eb8aa08-aa98-11ea-b4aa-73b441d16380}")).toBe(false);
    expect(ok("email", "a.b+tag@sub.example.org")).toBe(true);
    expect(ok("email", '"a b"@example.org')).toBe(true);
    expect(ok("email", "x@[IPv6:2001:db8::1]")).toBe(true);
    expect(ok("email", "x@[192.168.0.01]")).toBe(true);
    expect(ok("email", "a@b@c")).toBe(false);
    expect(ok("email", "a@-b.com")).toBe(false);
    expect(ok("email", "é@example.org")).toBe(false);
    expect(ok("uri", "https://user:pw@example.com:8080/p/a%20th?q=1&r=/x?#frag/?")).toBe(true);
    expect(ok("uri", "https://example.com/?r[]=2")).toBe(false);
    expect(ok("uri", "urn:isbn:0451450523")).toBe(true);
    expect(ok("uri", "http://[v1.fe80::a+en1]/")).toBe(true);
    expect(ok("uri", "http://[::ffff:192.168.0.1]/")).toBe(true);
    expect(ok("uri", "http://[::ffff:192.168.0.01]/")).toBe(false);
    expect(ok("uri", "example.com/path")).toBe(false);
    expect(ok("uri", "https://example.com/%zz")).toBe(false);
    expect(ok("uri", "https://exa mple.com")).toBe(false);
    expect(ok("uri", "http://[1:2:3:4:5:6:7:8:9]/")).toBe(false);
    // Formats constrain strings only.
    expect(ok("date", 5)).toBe(true);
  });

  it("annotations do not validate", () => {
    const s = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      title: "T",
      description: "D",
      examples: [1],
      deprecated: true,
      $defs: { unused: { type: "null" } },
      additionalProperties: true,
      uniqueItems: false,
    };
    for (const x of [1, "s", { a: 1 }, [1, 1], null]) expect(valid(s, x)).toBe(true);
  });
});

describe("recursion", () => {
  const tree = {
    $defs: {
      node: {
        type: "object",
        properties: { name: { type: "string" }, open: { type: "boolean", default: false }, children: { type: "array", items: { $ref: "#/$defs/node" } } },
        required: ["name"],
        additionalProperties: false,
      },
    },
    $ref: "#/$defs/node",
  };

  it("through $defs, with defaults at every level; deep input stops at 128 levels", () => {
    expect(value(tree, { name: "a", children: [{ name: "b", children: [{ name: "c" }] }] })).toEqual({
      name: "a",
      open: false,
      children: [{ name: "b", open: false, children: [{ name: "c", open: false }] }],
    });
    expect(pk(tree, { name: "a", children: [{ children: [{ name: 1 }] }] })).toEqual([["/children/0/children/0/name", "type"], ["/children/0", "required"]]);
    let deep = { name: "leaf" };
    for (let i = 0; i < 200; i++) deep = { name: "n", children: [deep] };
    const got = issues(tree, deep);
    expect(got).toHaveLength(1);
    expect(got[0].keyword).toBe("$ref");
    expect(got[0].message).toBe("is nested too deeply (at most 128 levels are checked)");
    let ok = { name: "leaf" };
    for (let i = 0; i < 60; i++) ok = { name: "n", children: [ok] };
    expect(valid(tree, ok)).toBe(true);
  });

  it("recursive discriminated unions cost linear time and report the chosen alternative", () => {
    const branch = (op) => ({ type: "object", properties: { op: { const: op }, args: { type: "array", items: { $ref: "#/$defs/f" } } }, required: ["op", "args"], additionalProperties: false });
    const filter = { $defs: { f: { anyOf: [branch("and"), branch("or"), { type: "object", properties: { op: { const: "eq" }, field: { type: "string" } }, required: ["op", "field"], additionalProperties: false }] } }, $ref: "#/$defs/f" };
    let x = { op: "eq", field: "a" };
    for (let i = 0; i < 60; i++) x = { op: i % 2 === 0 ? "or" : "and", args: [x, { op: "eq", field: "b" }] };
    expect(valid(filter, x)).toBe(true);
    expect(pk(filter, { op: "or", args: [{ op: "and", args: [{ op: "eq", field: 1 }] }] })).toEqual([
      ["/args/0/args/0/field", "type"],
      ["/args/0/args/0", "anyOf"],
      ["/args/0", "anyOf"],
      ["", "anyOf"],
    ]);
    const xor = pk(filter, { op: "xor" });
    expect(xor.at(-1)).toEqual(["", "anyOf"]);
    expect(xor.filter(([, k]) => k === "const")).toHaveLength(3);
    expect(issues({ anyOf: [{ type: "string", maxLength: 3 }, { type: "integer" }] }, "abcdef").map((i) => i.message)).toEqual([
      "must be at most 3 characters",
      "must be an integer",
      "must match at least one of the allowed alternatives (anyOf)",
    ]);
  });

  it("pathological unions hit the budget instead of hanging", () => {
    const alt = { type: "object", properties: { c: { $ref: "#/$defs/n" } } };
    const s = { $defs: { n: { anyOf: [{ type: "null" }, alt, alt] } }, $ref: "#/$defs/n" };
    const nest = (levels, leaf) => {
      let x = leaf;
      for (let i = 0; i < levels; i++) x = { c: x };
      return x;
    };
    expect(valid(s, nest(100, null))).toBe(true);
    const started = Date.now();
    const got = issues(s, nest(60, 5));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(got.at(-1)).toEqual({ path: expect.any(String), keyword: "anyOf", message: "is too complex to validate against this schema (evaluation budget exhausted)" });
  });

  it("long chains of definitions and mutual recursion", () => {
    const defs = {};
    for (let i = 0; i < 400; i++) defs[`d${i}`] = { $ref: `#/$defs/d${i + 1}` };
    defs.d400 = { type: "integer" };
    const chain = { $defs: defs, $ref: "#/$defs/d0" };
    expect(valid(chain, 3)).toBe(true);
    expect(valid(chain, "3")).toBe(false);
    const mutual = { $defs: { a: { $ref: "#/$defs/b" }, b: { anyOf: [{ type: "integer" }, { type: "array", items: { $ref: "#/$defs/a" } }] } }, $ref: "#/$defs/a" };
    expect(valid(mutual, [1, [2, [3]]])).toBe(true);
    expect(valid(mutual, [1, ["x"]])).toBe(false);
  });

  it("refuses $ref loops that never descend, at the $ref", () => {
    for (const schema of [
      { $defs: { a: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" },
      { $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } } },
      { $defs: { a: { anyOf: [{ type: "null" }, { $ref: "#/$defs/a" }] } } },
    ]) {
      const e = refused(schema);
      expect(e.violations.length).toBeGreaterThan(0);
      for (const v of e.violations) expect(v.message).toMatch(/^"\$ref" to "[ab]" leads back to a schema already applied to the same value/);
      expect(e.violations[0].pointer).toMatch(/\/\$ref$/);
    }
  });
});

describe("compileValidator and validate", () => {
  it("refuses what the subset refuses, with the limits given", () => {
    const e = refused({ oneOf: [{}] });
    expect(e.message).toMatch(/^the JSON Schema is outside the supported subset at \/oneOf: unsupported keyword "oneOf"/);
    expect(refused({ items: {} }, { maxSchemaDepth: 1, maxSchemaBytes: 16384 }).violations[0].message).toMatch(/nested 2 levels deep/);
    expect(refused({ description: "x".repeat(100) }, { maxSchemaDepth: 8, maxSchemaBytes: 50 }).message).toMatch(/at the root: schema is \d+ bytes/);
  });

  it("keeps the schema, and returns a fresh JSON copy (caller's key order, -0 as 0)", () => {
    const schema = { type: "object" };
    const v = compile(schema);
    expect(v.schema).toBe(schema);
    const input = { b: { c: [1] }, a: -0 };
    const out = v.validate(input).value;
    expect(out).not.toBe(input);
    expect(out.b).not.toBe(input.b);
    expect(Object.keys(out)).toEqual(["b", "a"]);
    expect(Object.is(out.a, 0)).toBe(true);
    // A "__proto__" member stays a member.
    const proto = compile({ properties: { ["__proto__"]: { default: 1 } } }).validate(JSON.parse('{"x":1}')).value;
    expect(Object.hasOwn(proto, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
  });

  it("a value JSON cannot carry is one json issue", () => {
    const v = compile({});
    const cyclic = {};
    cyclic.self = cyclic;
    for (const x of [undefined, NaN, Infinity, () => 1, { f: () => 1 }, [undefined], new Date(0), new Map(), 1n, Symbol("s"), cyclic]) {
      expect(v.validate(x)).toEqual({ ok: false, issues: [{ path: "", keyword: "json", message: "must be a JSON value" }] });
    }
    expect(v.validate({ gone: undefined, kept: 1 })).toEqual({ ok: true, value: { kept: 1 } });
    expect(v.validate(Object.create(null))).toEqual({ ok: true, value: {} });
  });
});
