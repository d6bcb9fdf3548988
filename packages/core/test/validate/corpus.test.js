// The generated differential corpus (conformance/validator-corpus.json, written by the Rust
// validator: crates/schema/tests/it/validator_corpus.rs): for every (schema, instance) pair the
// TypeScript validator gives the same verdict, the same effective value (defaults applied) and
// the same issues (path, keyword, message), in the same order.
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { compileValidator } from "../../dist/validate/index.js";
import { packageDir, readJson } from "../paths.js";

const corpus = readJson(resolve(packageDir, "../../conformance/validator-corpus.json"));

/** `v` with every object's keys in reverse order: issue order must not depend on the value's key order. */
function reversed(v) {
  if (Array.isArray(v)) return v.map(reversed);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(Object.keys(v).reverse().map((k) => [k, reversed(v[k])]));
}

describe("the validator corpus (conformance/validator-corpus.json) gets the Rust validator's answers", () => {
  const pairs = corpus.groups.reduce((n, g) => n + g.tests.length, 0);

  it("has at least 2,000 (schema, instance) pairs", () => {
    expect(pairs).toBe(corpus.pairs);
    expect(pairs).toBeGreaterThanOrEqual(2000);
    console.log(`validator corpus: ${corpus.groups.length} schemas, ${pairs} (schema, instance) pairs`);
  });

  it("every pair: same verdict, effective value and issues (also with every object's keys reversed)", () => {
    const differences = [];
    for (const g of corpus.groups) {
      const validator = compileValidator(g.schema);
      for (const t of g.tests) {
        const want = "value" in t ? { ok: true, value: t.value } : { ok: false, issues: t.issues };
        for (const instance of [t.instance, reversed(t.instance)]) {
          const got = validator.validate(instance);
          try {
            expect(got).toEqual(want);
          } catch {
            differences.push({ schema: g.schema, instance, want, got });
          }
        }
      }
    }
    expect(differences.slice(0, 3)).toEqual([]);
    expect(differences.length).toBe(0);
  });

  it("the input is never modified, and each result is a fresh copy", () => {
    for (const g of corpus.groups.slice(0, 100)) {
      const validator = compileValidator(g.schema);
      for (const t of g.tests) {
        const before = JSON.stringify(t.instance);
        const got = validator.validate(t.instance);
        expect(JSON.stringify(t.instance)).toBe(before);
        if (got.ok && typeof t.instance === "object" && t.instance !== null) expect(got.value).not.toBe(t.instance);
      }
    }
  });
});
