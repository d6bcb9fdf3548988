// `pattern` in the page is the host's RegExp in Unicode mode (src/validate/pattern.ts); natively it
// is regress. Both must decide every schema and value the same: the validator `fromJsonSchema`
// uses (compileValidator) is run here on conformance/ecmascript-patterns.json, ECMA-262 answers for
// patterns only ECMAScript's Unicode-mode semantics decide (property escapes, lookbehind, named
// groups, astral characters, the escapes `u` mode refuses), which the Rust side checks natively.
// The JSON-Schema-Test-Suite verdicts (conformance/suite-verdicts.json) are checked by
// test/validate/suite.test.js.
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { fromJsonSchema } from "../dist/index.js";
import { compileValidator, SchemaCompileError } from "../dist/validate/index.js";
import { packageDir, readJson } from "./paths.js";

const conformance = resolve(packageDir, "../../conformance");

// A refusal's violations as "<pointer> pattern|subset" (the engines word invalid patterns
// differently), a validation's outcome as true or its issues as "<path> <keyword>".
function compile(schema) {
  try {
    return { validator: compileValidator(schema) };
  } catch (e) {
    if (!(e instanceof SchemaCompileError)) throw e;
    const refused = e.violations.map((v) => `${v.pointer} ${v.message.startsWith('"pattern" is not a valid ECMAScript regular expression') ? "pattern" : "subset"}`);
    return { refused, message: e.message };
  }
}

function verdict(validator, data) {
  const out = validator.validate(data);
  return out.ok === true ? true : out.issues.map((i) => `${i.path} ${i.keyword}`);
}

describe("ECMAScript-only patterns (conformance/ecmascript-patterns.json)", () => {
  const { cases } = readJson(join(conformance, "ecmascript-patterns.json"));

  it("has the cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
    expect(cases.some((c) => !c.valid)).toBe(true);
  });

  for (const c of cases) {
    it(`${JSON.stringify(c.pattern)} is ${c.valid ? "accepted and matches as ECMAScript says" : "refused when the schema is built"}`, () => {
      const r = compile({ type: "string", pattern: c.pattern });
      if (!c.valid) {
        expect(r.refused).toEqual(["/pattern pattern"]);
        // V8's wording: the host's RegExp decided (regress words it differently).
        expect(r.message).toMatch(/Invalid regular expression: \//);
        return;
      }
      expect(r.refused).toBeUndefined();
      for (const t of c.tests) expect([t.data, verdict(r.validator, t.data) === true]).toEqual([t.data, t.match]);
    });
  }

  it("refuses an invalid pattern through fromJsonSchema, with the violation's pointer", () => {
    let error;
    try {
      fromJsonSchema({ type: "object", properties: { id: { type: "string", pattern: "\\-" } } });
    } catch (e) {
      error = e;
    }
    expect(error?.name).toBe("AgentSurfaceDefinitionError");
    expect(error.violations.map((v) => v.pointer)).toEqual(["/properties/id/pattern"]);
  });

  it("matches with the same compiled pattern across schemas and calls (no lastIndex state)", () => {
    const a = fromJsonSchema({ type: "string", pattern: "(?<=a)b" });
    const b = fromJsonSchema({ type: "string", pattern: "(?<=a)b" });
    for (let i = 0; i < 3; i++) {
      expect(a.parse("ab")).toBe("ab");
      expect(() => b.parse("cb")).toThrow(/pattern/);
    }
  });
});

describe("ES2025 syntax: the host's version decides in the page (conformance/ecmascript-patterns.json, hostDependent)", () => {
  const { hostDependent } = readJson(join(conformance, "ecmascript-patterns.json"));
  for (const c of hostDependent) {
    it(`${JSON.stringify(c.pattern)} (${c.note}) is decided as this host's RegExp decides it`, () => {
      let host;
      try {
        host = new RegExp(c.pattern, "u");
      } catch {
        host = null;
      }
      const r = compile({ type: "string", pattern: c.pattern });
      if (host === null) {
        // Refused when the schema is built, as every other invalid pattern (regress accepts it).
        expect(r.refused).toEqual(["/pattern pattern"]);
        return;
      }
      expect(r.refused).toBeUndefined();
      for (const t of c.tests) expect([t.data, verdict(r.validator, t.data) === true]).toEqual([t.data, t.match]);
    });
  }
});
