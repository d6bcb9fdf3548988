import { describe, expect, it } from "vitest";
import { blake3Hex, canonicalJson } from "../dist/index.js";
import { hashingVectorsPath, readJson } from "./paths.js";

const { vectors } = readJson(hashingVectorsPath);

describe("shared conformance vectors (conformance/hashing-vectors.json)", () => {
  it("has the vectors", () => {
    expect(vectors.length).toBeGreaterThanOrEqual(6);
  });
  for (const v of vectors) {
    it(`${v.name}: canonical and blake3 are exact`, () => {
      expect(canonicalJson(v.value)).toBe(v.canonical);
      expect(blake3Hex(v.value)).toBe(v.blake3);
      // Idempotent: the canonical text re-parsed canonicalizes to itself.
      expect(canonicalJson(JSON.parse(v.canonical))).toBe(v.canonical);
    });
  }
});

describe("canonicalJson", () => {
  it("sorts keys by UTF-16 code units, not code points", () => {
    // U+1F600 (surrogates D83D..) sorts before U+FF61 in UTF-16, after it in UTF-8.
    expect(canonicalJson({ "\uFF61": 1, "\u{1F600}": 2 })).toBe('{"\u{1F600}":2,"\uFF61":1}');
    expect(canonicalJson({ b: 1, 10: 2, 9: 3, a: 4 })).toBe('{"10":2,"9":3,"a":4,"b":1}');
  });

  it("formats numbers like ECMAScript (same cases as crates/schema/src/canonical.rs)", () => {
    const cases = [
      [0, "0"],
      [-0, "0"],
      [1.0, "1"],
      [-7, "-7"],
      [1.5, "1.5"],
      [1e21, "1e+21"],
      [1e20, "100000000000000000000"],
      [1e-7, "1e-7"],
      [0.000001, "0.000001"],
      [0.1 + 0.2, "0.30000000000000004"],
      [18446744073709551615, "18446744073709552000"],
      [9007199254740993, "9007199254740992"],
      [5e-324, "5e-324"],
      [1.7976931348623157e308, "1.7976931348623157e+308"],
    ];
    for (const [n, want] of cases) expect(canonicalJson(n)).toBe(want);
  });

  it("escapes strings like JSON.stringify", () => {
    const s = 'a"b\\c/d\b\f\n\r\t\u0000\u001f\u007f\u2028é😀';
    expect(canonicalJson(s)).toBe('"a\\"b\\\\c/d\\b\\f\\n\\r\\t\\u0000\\u001f\u007f\u2028é😀"');
    expect(canonicalJson("\u001b")).toBe('"\\u001b"');
  });

  it("has no whitespace and keeps array order", () => {
    expect(canonicalJson({ b: [3, 1, 2], a: { y: null, x: true } })).toBe('{"a":{"x":true,"y":null},"b":[3,1,2]}');
  });

  it("skips undefined properties and refuses values that are not JSON", () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
    for (const bad of [undefined, () => 1, Symbol("x"), 1n, NaN, Infinity, new Date(0), new Map(), [undefined], { a: [1, { b: NaN }] }]) {
      expect(() => canonicalJson(bad)).toThrow(TypeError);
    }
    const cyclic = { a: {} };
    cyclic.a.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cyclic/);
    // Shared (non-cyclic) references are fine.
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
    expect(canonicalJson(Object.assign(Object.create(null), { z: 1, y: 2 }))).toBe('{"y":2,"z":1}');
  });

  it("blake3Hex: format, key-order independence, value sensitivity", () => {
    const h = blake3Hex({ a: 1 });
    expect(h).toMatch(/^blake3:[0-9a-f]{64}$/);
    expect(blake3Hex({ a: 1, b: 2 })).toBe(blake3Hex({ b: 2, a: 1 }));
    expect(blake3Hex({ a: 1 })).not.toBe(blake3Hex({ a: 2 }));
  });
});
