import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { assertCapabilityAuthority, blake3Hex, CapabilityAuthorityError, canonicalJson, createCapabilityAuthority, isCapabilityAuthority } from "../dist/index.js";
import { fixtureManifestPath, readJson, readText } from "./paths.js";

const fixtureText = readText(fixtureManifestPath);
const fixture = () => JSON.parse(fixtureText);
const ZERO_HASH = `blake3:${"0".repeat(64)}`;

// Independent of src/authority.ts: the hash definitions of docs/manifest.md, spelled out here.
function contractHashOf(c) {
  const { contractHash, ...rest } = c;
  return blake3Hex(rest);
}
function manifestHashOf(m) {
  const { manifestHash, ...rest } = m;
  return blake3Hex(rest);
}
/** Recomputes every hash, as a forger (or the compiler) would. */
function rehash(m) {
  for (const c of m.contracts) c.contractHash = contractHashOf(c);
  m.manifestHash = manifestHashOf(m);
  return m;
}
const component = (m) => m.contracts.find((c) => c.kind === "component" && Object.keys(c.actions).length > 0);
const byId = (m, id) => m.contracts.find((c) => c.id === id);
const withObservations = (m) => m.contracts.find((c) => c.kind === "component" && Object.keys(c.observations).length > 0);

function refusal(value) {
  try {
    createCapabilityAuthority(value);
  } catch (e) {
    expect(e).toBeInstanceOf(CapabilityAuthorityError);
    return e;
  }
  throw new Error("the manifest was accepted");
}

describe("the example app's manifest (examples/devices-app/agent-surface.manifest.json)", () => {
  it("verifies", () => {
    const a = createCapabilityAuthority(fixture());
    expect(isCapabilityAuthority(a)).toBe(true);
    expect(() => assertCapabilityAuthority(a)).not.toThrow();
    expect(a.manifest).toEqual(fixture());
    expect(a.manifest.contracts.length).toBe(9);
  });

  it("its contractHashes and manifestHash recomputed in JS equal the stored ones", () => {
    const m = fixture();
    for (const c of m.contracts) expect(contractHashOf(c), c.id).toBe(c.contractHash);
    expect(manifestHashOf(m)).toBe(m.manifestHash);
    expect(m.manifestHash).toBe("blake3:3dde2e941bff8fc190d36bcf2bc4bc783de0bebc970e8329172a110aef1aba16");
  });

  it("the file is the pretty canonical form (keys in canonical order, two spaces, trailing newline)", () => {
    const m = fixture();
    const sortDeep = (v) =>
      Array.isArray(v) ? v.map(sortDeep) : v && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortDeep(v[k])])) : v;
    expect(`${JSON.stringify(sortDeep(m), null, 2)}\n`).toBe(fixtureText);
  });

  it("re-indented or with keys re-ordered it still verifies, with the same hashes", () => {
    const reverseKeys = (v) =>
      Array.isArray(v) ? v.map(reverseKeys) : v && typeof v === "object" ? Object.fromEntries(Object.keys(v).reverse().map((k) => [k, reverseKeys(v[k])])) : v;
    for (const text of [JSON.stringify(fixture()), JSON.stringify(fixture(), null, 4), JSON.stringify(fixture(), null, "\t"), JSON.stringify(reverseKeys(fixture()), null, 1)]) {
      const a = createCapabilityAuthority(JSON.parse(text));
      expect(a.manifest.manifestHash).toBe(fixture().manifestHash);
      expect(canonicalJson(a.manifest)).toBe(canonicalJson(fixture()));
    }
  });

  it("format 2 holds no source locations: a format 1 contract's source is an unknown field, even re-hashed", () => {
    const m = fixture();
    expect(m.formatVersion).toBe(2);
    m.contracts[0].source = { file: "src/a.ts", line: 1, column: 1 };
    expect(refusal(m).kind).toBe("malformed");
    expect(refusal(rehash(m)).kind).toBe("malformed");
    // A format 1 manifest is refused for its version first.
    const v1 = fixture();
    v1.formatVersion = 1;
    v1.contracts[0].source = { file: "src/a.ts", line: 1, column: 1 };
    expect(refusal(v1).kind).toBe("unsupported-format-version");
  });

  it("authority.contract(id) returns the frozen contract or undefined", () => {
    const a = createCapabilityAuthority(fixture());
    for (const c of fixture().contracts) {
      const got = a.contract(c.id);
      expect(got).toEqual(c);
      expect(Object.isFrozen(got)).toBe(true);
      expect(got).toBe(a.manifest.contracts.find((x) => x.id === c.id));
    }
    expect(a.contract("view:nope")).toBeUndefined();
    expect(a.contract("toString")).toBeUndefined();
    expect(a.contract("__proto__")).toBeUndefined();
  });
});

// [name, mutation, expected kind, expected contract (id) or null]. The main cases mirror the
// Rust tests (crates/engine/src/authority.rs, crates/engine/tests/it/); several were cross-checked against
// `agent-surface verify --format json` (see the differential test below).
const tampers = [
  ["description", (m) => void (m.contracts[0].description = "Remove devices."), "contract-hash-mismatch", "domain:devices.decommission"],
  ["input schema", (m) => void (m.contracts[0].inputSchema.properties.ids.maxItems = 500), "contract-hash-mismatch", "domain:devices.decommission"],
  ["output schema of an observation", (m) => void (Object.values(withObservations(m).observations)[0].outputSchema.type = "array"), "contract-hash-mismatch", null],
  ["effect", (m) => void (byId(m, "domain:devices.reboot").effect = "destructive"), "contract-hash-mismatch", "domain:devices.reboot"],
  ["a materialized default (confirmation)", (m) => void (m.contracts[0].confirmation = "optional"), "contract-hash-mismatch", "domain:devices.decommission"],
  ["a materialized default (audit of an action)", (m) => void (Object.values(component(m).actions)[0].audit = "none"), "contract-hash-mismatch", null],
  ["a materialized default (priority)", (m) => void (component(m).priority = 5), "contract-hash-mismatch", null],
  ["contract removed", (m) => void m.contracts.pop(), "count-mismatch", null],
  ["contract removed, count fixed", (m) => void (m.contracts.pop(), m.completeness.contracts--), "manifest-hash-mismatch", null],
  ["contract added", (m) => void m.contracts.push(structuredClone(m.contracts.at(-1))), "count-mismatch", null],
  ["contract added (duplicate id), count fixed", (m) => void (m.contracts.push(structuredClone(m.contracts.at(-1))), m.completeness.contracts++), "duplicate-id", "view:devices.table"],
  ["order swapped", (m) => void ([m.contracts[0], m.contracts[1]] = [m.contracts[1], m.contracts[0]]), "not-sorted", "domain:devices.decommission"],
  ["contractHash", (m) => void (byId(m, "external:reports.export").contractHash = ZERO_HASH), "contract-hash-mismatch", "external:reports.export"],
  ["contractHash removed", (m) => void delete byId(m, "external:reports.export").contractHash, "malformed", null],
  ["manifestHash", (m) => void (m.manifestHash = ZERO_HASH), "manifest-hash-mismatch", null],
  ["generator version", (m) => void (m.generator.version = "9.9.9"), "manifest-hash-mismatch", null],
  ["completeness incomplete", (m) => void (m.completeness.status = "incomplete"), "incomplete", null],
  ["completeness failed > 0", (m) => void (m.completeness.failed = 1), "incomplete", null],
  ["completeness status unknown", (m) => void (m.completeness.status = "done"), "malformed", null],
  ["completeness count", (m) => void (m.completeness.contracts = 4), "count-mismatch", null],
  ["formatVersion 1", (m) => void (m.formatVersion = 1), "unsupported-format-version", null],
  ["formatVersion 3", (m) => void (m.formatVersion = 3), "unsupported-format-version", null],
  ["formatVersion \"2\"", (m) => void (m.formatVersion = "2"), "unsupported-format-version", null],
  ["formatVersion missing", (m) => void delete m.formatVersion, "unsupported-format-version", null],
  ["unknown top-level field", (m) => void (m.extra = true), "malformed", null],
  ["unknown contract field", (m) => void (m.contracts[0].extra = true), "malformed", null],
  ["unknown generator field", (m) => void (m.generator.extra = 1), "malformed", null],
  ["unknown completeness field", (m) => void (m.completeness.extra = 1), "malformed", null],
  ["a source in a contract (format 1)", (m) => void (m.contracts[0].source = { file: "src/a.ts", line: 1, column: 1 }), "malformed", null],
  ["unknown observation field", (m) => void (Object.values(withObservations(m).observations)[0].extra = 1), "malformed", null],
  ["unknown action field", (m) => void (Object.values(component(m).actions)[0].extra = 1), "malformed", null],
  ["unknown kind", (m) => void (m.contracts[0].kind = "widget"), "malformed", null],
  ["kind missing", (m) => void delete m.contracts[0].kind, "malformed", null],
  ["component field on a procedure", (m) => void (m.contracts[0].priority = 0), "malformed", null],
  ["required field missing", (m) => void delete m.contracts[0].audit, "malformed", null],
  ["wrong type: priority 1.5", (m) => void (component(m).priority = 1.5), "malformed", null],
  ["wrong type: negative failed", (m) => void (m.completeness.failed = -1), "malformed", null],
  ["wrong type: tags [1]", (m) => void (m.contracts[0].tags = [1]), "malformed", null],
  ["wrong type: meta []", (m) => void (m.contracts[0].meta = []), "malformed", null],
  ["wrong type: effect unknown", (m) => void (m.contracts[0].effect = "explode"), "malformed", null],
  ["generator missing", (m) => void delete m.generator, "malformed", null],
  // Valid hashes (recomputed) but the definition rules refuse the contract.
  ["re-hashed: view action with a domain effect", (m) => void (Object.values(component(m).actions)[0].effect = "mutation", rehash(m)), "invalid-contract", "view:app.nav"],
  ["re-hashed: destructive without confirmation", (m) => void ((m.contracts[0].confirmation = "never"), rehash(m)), "invalid-contract", "domain:devices.decommission"],
  ["re-hashed: blank description", (m) => void ((byId(m, "domain:devices.reboot").description = " \u0085 "), rehash(m)), "invalid-contract", "domain:devices.reboot"],
  ["re-hashed: description of 302 UTF-16 units", (m) => void ((byId(m, "domain:devices.reboot").description = "😀".repeat(151)), rehash(m)), "invalid-contract", "domain:devices.reboot"],
  ["re-hashed: bad procedure id", (m) => void ((m.contracts[0].id = "domain:devices"), rehash(m)), "invalid-contract", "domain:devices"],
  ["re-hashed: meta over 2 kB", (m) => void ((m.contracts[0].meta = { x: "a".repeat(2100) }), rehash(m)), "invalid-contract", "domain:devices.decommission"],
  ["re-hashed: duplicate id", (m) => void (m.contracts.splice(1, 0, structuredClone(m.contracts[0])), m.completeness.contracts++, rehash(m)), "duplicate-id", "domain:devices.decommission"],
  ["re-hashed: not sorted", (m) => void (m.contracts.reverse(), rehash(m)), "not-sorted", "view:app.nav"],
];

describe("tampered manifests are refused with the Rust kinds", () => {
  for (const [name, mutate, kind, contract] of tampers) {
    it(`${name} -> ${kind}`, () => {
      const m = fixture();
      mutate(m);
      const e = refusal(m);
      expect(e.kind).toBe(kind);
      if (contract !== null) expect(e.contract).toBe(contract);
      if (["unsupported-format-version", "malformed", "incomplete", "count-mismatch", "manifest-hash-mismatch"].includes(kind)) expect(e.contract).toBeNull();
    });
  }

  it("hash refusals carry expected and found", () => {
    const m = fixture();
    m.manifestHash = ZERO_HASH;
    const e = refusal(m);
    expect(e.expected).toBe(fixture().manifestHash);
    expect(e.found).toBe(ZERO_HASH);
    expect(e.message).toContain(ZERO_HASH);
  });

  it("re-hashed: an absent outputSchema is refused (the canonical shape writes null), priority -1 is accepted", () => {
    // Only the exact shape the Rust model writes back is accepted (an earlier JS verifier
    // accepted the absent field too).
    const m = fixture();
    delete m.contracts[0].outputSchema;
    expect(refusal(rehash(m)).kind).toBe("malformed");
    const o = fixture();
    o.contracts[0].outputSchema = null;
    expect(() => createCapabilityAuthority(rehash(o))).not.toThrow();
    const n = fixture();
    component(n).priority = -1;
    expect(() => createCapabilityAuthority(rehash(n))).not.toThrow();
  });

  it("refuses values that are not a JSON object, or hold non-JSON values", () => {
    for (const bad of [null, undefined, 1, "{}", [fixture()], new Date()]) expect(refusal(bad).kind).toBe("malformed");
    const withFn = fixture();
    withFn.contracts[0].meta.f = () => 1;
    expect(refusal(withFn).kind).toBe("malformed");
    const withNaN = fixture();
    withNaN.contracts[0].meta.n = NaN;
    expect(refusal(withNaN).kind).toBe("malformed");
    const cyclic = fixture();
    cyclic.contracts[0].meta.self = cyclic;
    expect(refusal(cyclic).kind).toBe("malformed");
  });

  it("checks happen in the Rust order", () => {
    // formatVersion before the model; completeness before hashes; count before hashes.
    const m = fixture();
    m.formatVersion = 1;
    m.extra = 1;
    expect(refusal(m).kind).toBe("unsupported-format-version");
    const n = fixture();
    n.completeness.failed = 1;
    n.contracts[0].description = "x";
    expect(refusal(n).kind).toBe("incomplete");
    const o = fixture();
    o.contracts.pop();
    o.manifestHash = ZERO_HASH;
    expect(refusal(o).kind).toBe("count-mismatch");
    const p = fixture();
    [p.contracts[0], p.contracts[1]] = [p.contracts[1], p.contracts[0]];
    p.contracts.at(-1).contractHash = ZERO_HASH;
    expect(refusal(p).kind).toBe("contract-hash-mismatch");
  });
});

describe("the authority is deeply frozen and branded", () => {
  it("mutating authority.manifest throws in strict mode and has no effect", () => {
    const a = createCapabilityAuthority(fixture());
    const before = canonicalJson(a.manifest);
    expect(() => {
      a.manifest.contracts[0].description = "changed";
    }).toThrow(TypeError);
    expect(() => {
      a.manifest.contracts[0].inputSchema.properties.ids.maxItems = 1;
    }).toThrow(TypeError);
    expect(() => a.manifest.contracts.push({})).toThrow(TypeError);
    expect(() => {
      a.manifest.manifestHash = ZERO_HASH;
    }).toThrow(TypeError);
    expect(() => {
      a.manifest = {};
    }).toThrow(TypeError);
    expect(() => {
      a.contract = () => undefined;
    }).toThrow(TypeError);
    expect(() => delete a.manifest.contracts[0].meta).toThrow(TypeError);
    expect(canonicalJson(a.manifest)).toBe(before);
    expect(Object.isFrozen(a)).toBe(true);
  });

  it("is a private copy: changing the input afterwards changes nothing", () => {
    const input = fixture();
    const a = createCapabilityAuthority(input);
    input.contracts[0].description = "changed";
    input.contracts.pop();
    expect(a.manifest.contracts.length).toBe(9);
    expect(a.manifest.contracts[0].description).toBe(fixture().contracts[0].description);
    expect(Object.isFrozen(input)).toBe(false);
  });

  it("reads each input value once (a getter cannot show the verifier one value and the copy another)", () => {
    const input = fixture();
    const real = input.contracts[0].description;
    let reads = 0;
    Object.defineProperty(input.contracts[0], "description", {
      enumerable: true,
      get: () => (reads++ === 0 ? real : "swapped after verification"),
    });
    const a = createCapabilityAuthority(input);
    expect(a.manifest.contracts[0].description).toBe(real);
    expect(reads).toBe(1);
  });

  it("a structurally identical object fails assertCapabilityAuthority", () => {
    const a = createCapabilityAuthority(fixture());
    const fakes = [
      { ...a },
      Object.freeze({ manifest: a.manifest, contract: a.contract }),
      JSON.parse(JSON.stringify(a)),
      Object.create(a),
      structuredClone({ manifest: a.manifest }),
      { manifest: fixture() },
      null,
      undefined,
    ];
    for (const fake of fakes) {
      expect(isCapabilityAuthority(fake)).toBe(false);
      let err;
      try {
        assertCapabilityAuthority(fake);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(CapabilityAuthorityError);
      expect(err.kind).toBe("not-an-authority");
    }
    expect(() => assertCapabilityAuthority(a)).not.toThrow();
  });

  it("two authorities from the same manifest are distinct objects, both genuine", () => {
    const a = createCapabilityAuthority(fixture());
    const b = createCapabilityAuthority(fixture());
    expect(a).not.toBe(b);
    expect(a.manifest).not.toBe(b.manifest);
    assertCapabilityAuthority(a);
    assertCapabilityAuthority(b);
  });
});

// Differential check against the Rust verifier, when a built binary is available:
// AGENT_SURFACE_BINARY=../../target/debug/agent-surface npm test
const binary = process.env.AGENT_SURFACE_BINARY;
describe.skipIf(!binary)("same verdict as `agent-surface verify` (AGENT_SURFACE_BINARY)", () => {
  const dir = binary ? mkdtempSync(join(tmpdir(), "agent-surface-core-")) : "";
  afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));
  const rust = (value) => {
    const file = join(dir, "manifest.json");
    writeFileSync(file, JSON.stringify(value, null, 2));
    let out;
    try {
      out = execFileSync(binary, ["verify", "--format", "json", file], { encoding: "utf8" });
    } catch (e) {
      out = e.stdout;
    }
    const r = JSON.parse(out);
    return r.ok ? { kind: "ok", contract: null } : { kind: r.error.kind, contract: r.error.contract };
  };
  const js = (value) => {
    try {
      createCapabilityAuthority(value);
      return { kind: "ok", contract: null };
    } catch (e) {
      return { kind: e.kind, contract: e.contract };
    }
  };
  it("the fixture", () => {
    expect(js(fixture())).toEqual(rust(fixture()));
  });
  for (const [name, mutate] of tampers) {
    it(name, () => {
      const m = fixture();
      mutate(m);
      expect(js(m)).toEqual(rust(m));
    });
  }
});
