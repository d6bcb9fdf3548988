// The model's canonical JSON and hashes: every vector of conformance/hashing-vectors.json (the
// Rust canonicalizer reproduces the same file), FNV-1a 64 and the request fingerprint of
// crates/engine/src/invoke/request.rs, and the base32 digest suffix of wire names.
import { blake3 as nobleBlake3 } from "@noble/hashes/blake3.js";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../dist/model/canonical.js";
import { blake3, blake3Base32, blake3Hex, blake3HexOfText, fingerprint, fnv1a64 } from "../../dist/model/hash.js";
import { contractHash, manifestHash, manifestHashes } from "../../dist/model/manifest-hash.js";
import { fixtureManifestPath, hashingVectorsPath, readJson } from "../paths.js";

const { vectors } = readJson(hashingVectorsPath);

describe("conformance/hashing-vectors.json", () => {
  it("has the vectors", () => expect(vectors.length).toBeGreaterThanOrEqual(6));
  for (const v of vectors) {
    it(`${v.name}: canonical, blake3 and idempotence`, () => {
      expect(canonicalJson(v.value)).toBe(v.canonical);
      expect(blake3Hex(v.value)).toBe(v.blake3);
      expect(blake3HexOfText(v.canonical)).toBe(v.blake3);
      expect(canonicalJson(JSON.parse(v.canonical))).toBe(v.canonical);
    });
  }
});

describe("canonicalJson", () => {
  it("sorts by UTF-16 code units, skips undefined members, names the pointer of a non-JSON value", () => {
    expect(canonicalJson({ "\uFF61": 1, "\u{1F600}": 2, a: undefined })).toBe('{"\u{1F600}":2,"\uFF61":1}');
    expect(canonicalJson(-0)).toBe("0");
    expect(() => canonicalJson({ a: [1, { "b/c~": NaN }] })).toThrow('not a JSON value at "/a/1/b~1c~0": NaN');
    expect(() => canonicalJson({ f() {} })).toThrow('not a JSON value at "/f": function');
    expect(() => canonicalJson([new Date(0)])).toThrow('not a JSON value at "/0": Date object');
    expect(() => canonicalJson([undefined])).toThrow('not a JSON value at "/0": undefined');
    const cyclic = { a: [] };
    cyclic.a.push(cyclic);
    expect(() => canonicalJson(cyclic)).toThrow('not a JSON value at "/a/0": cyclic structure');
  });

  it("sorts members out of order at any depth, and integer-like keys JavaScript enumerates numerically", () => {
    expect(canonicalJson({ a: [{ c: 1, b: { e: 2, d: 3 } }], f: null })).toBe('{"a":[{"b":{"d":3,"e":2},"c":1}],"f":null}');
    expect(canonicalJson({ 2: "two", 10: "ten", b: [1, { 1: 0, x: -0 }] })).toBe('{"10":"ten","2":"two","b":[1,{"1":0,"x":0}]}');
    expect(canonicalJson({ b: 1, a: { y: undefined, x: [] } })).toBe('{"a":{"x":[]},"b":1}');
  });

  it("reads each member once", () => {
    let reads = 0;
    const o = Object.defineProperty({}, "x", { enumerable: true, get: () => ++reads });
    expect(canonicalJson(o)).toBe('{"x":1}');
    expect(reads).toBe(1);
  });
});

describe("blake3 (the model's own, checked against @noble/hashes)", () => {
  it("equals @noble/hashes' blake3 at every chunk and block boundary (one chunk, parents, uneven trees)", () => {
    const lengths = [0, 1, 63, 64, 65, 1023, 1024, 1025, 2047, 2048, 2049, 3072, 3073, 4096, 4097, 5121, 8192, 8193, 16385, 31744, 65543, 100000];
    for (const n of lengths) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 31 + 7) & 255);
      expect(Buffer.from(blake3(bytes)).toString("hex"), `${n} bytes`).toBe(Buffer.from(nobleBlake3(bytes)).toString("hex"));
    }
  });
});

describe("FNV-1a 64 and the request fingerprint (crates/engine/src/invoke/request.rs)", () => {
  /** The definition, in BigInt arithmetic. */
  const reference = (text) => {
    let h = 0xcbf29ce484222325n;
    for (const b of new TextEncoder().encode(text)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
    return h.toString(16).padStart(16, "0");
  };

  it("reproduces the published FNV-1a 64 vectors", () => {
    expect(fnv1a64("")).toBe("cbf29ce484222325");
    expect(fnv1a64("a")).toBe("af63dc4c8601ec8c");
    expect(fnv1a64("foobar")).toBe("85944171f73967e8");
  });

  it("equals the BigInt definition over UTF-8 bytes", () => {
    for (const text of ["x", "é😀\u0000", '{"capabilityId":"view:a.b","input":{"n":1}}', "z".repeat(1000), "\u{10FFFF}\uFFFF"]) {
      expect(fnv1a64(text), text.slice(0, 20)).toBe(reference(text));
    }
  });

  it("fingerprint: the canonical JSON of the request as issued (absent or null fields left out)", () => {
    const inv = { capabilityId: "view:a.b", instanceId: "default", input: { b: 2, a: 1 } };
    expect(fingerprint(inv)).toBe(reference('{"capabilityId":"view:a.b","input":{"a":1,"b":2},"instanceId":"default"}'));
    expect(fingerprint({ ...inv, registrationId: null, surfaceVersion: undefined, confirmationId: null })).toBe(fingerprint(inv));
    expect(fingerprint({ capabilityId: "x", input: null })).toBe(fingerprint({ capabilityId: "x" }));
    expect(fingerprint({ capabilityId: "x", surfaceVersion: "3" })).not.toBe(fingerprint({ capabilityId: "x" }));
  });
});

describe("blake3Base32 (the wire-name suffix of crates/engine/src/expose/catalog.rs)", () => {
  it("is the digest as a little-endian integer, 5 bits at a time from the low end", () => {
    for (const text of ["view:a.b", "x".repeat(80), "é😀"]) {
      const hex = blake3HexOfText(text).slice(7);
      let bits = 0n;
      for (let i = 7; i >= 0; i--) bits = (bits << 8n) | BigInt(parseInt(hex.slice(2 * i, 2 * i + 2), 16));
      let want = "";
      for (let i = 0; i < 8; i++, bits >>= 5n) want += "abcdefghijklmnopqrstuvwxyz234567"[Number(bits & 31n)];
      expect(blake3Base32(text, 8)).toBe(want);
      expect(blake3Base32(text, 12).startsWith(want)).toBe(true);
    }
  });
});

describe("contractHash and manifestHash (crates/model/src/manifest/hashing.rs)", () => {
  it("reproduce the fixture's stored hashes, alone and spliced", () => {
    const m = readJson(fixtureManifestPath);
    const spliced = manifestHashes(m);
    m.contracts.forEach((c, i) => {
      expect(contractHash(c), c.id).toBe(c.contractHash);
      expect(spliced.contracts[i]).toBe(c.contractHash);
    });
    expect(manifestHash(m)).toBe(m.manifestHash);
    expect(spliced.manifest).toBe(m.manifestHash);
  });

  it("format 2: no contract carries a source; a format 1 contract's source never reached its contractHash", () => {
    const m = readJson(fixtureManifestPath);
    expect(m.formatVersion).toBe(2);
    for (const c of m.contracts) expect(Object.hasOwn(c, "source"), c.id).toBe(false);
    // A format 1 contract (with its `source`) hashed to what the format 2 one hashes to: the
    // provenance a bundle carries names the same contract in both formats.
    const { contractHash: _h, ...semantics } = m.contracts[0];
    expect(contractHash(semantics)).toBe(m.contracts[0].contractHash);
    // Every member but contractHash is covered now, so a `source` would change it.
    expect(contractHash({ ...m.contracts[0], source: { file: "src/a.ts", line: 1, column: 1 } })).not.toBe(m.contracts[0].contractHash);
  });
});
