// Differential property test of the two manifest verifiers (issue 25, item 6): seeded random
// manifests and tamperings, each verified by the TypeScript model (verifyManifest) and by the
// Rust CLI (`agent-surface verify FILE --format json`): the same verdict, kind, contract and
// message for every case. The Rust binary is AGENT_SURFACE_BINARY, else the repository's
// target/debug/agent-surface (a worktree's main checkout's); without it the test fails (it is
// not skipped).
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { contractHash, manifestHash } from "../../dist/model/manifest-hash.js";
import { verifyManifest } from "../../dist/model/verify.js";
import { fixtureManifestPath, packageDir, readJson } from "../paths.js";

// A fixed seed; VERIFY_DIFF_SEED explores others (a failure names its case, reproducible with that seed).
const SEED = Number(process.env.VERIFY_DIFF_SEED ?? 0x25c0ffee);
const CASES = 340;
/** The CLI: AGENT_SURFACE_BINARY, else this checkout's debug build, else (in a git worktree) the main checkout's. */
function findBinary() {
  if (process.env.AGENT_SURFACE_BINARY) return process.env.AGENT_SURFACE_BINARY;
  const own = resolve(packageDir, "../../target/debug/agent-surface");
  if (existsSync(own)) return own;
  try {
    const common = execFileSync("git", ["rev-parse", "--path-format=absolute", "--git-common-dir"], { cwd: packageDir, encoding: "utf8" }).trim();
    const main = resolve(common, "../target/debug/agent-surface");
    if (existsSync(main)) return main;
  } catch {
    // not a git checkout
  }
  return own;
}
const binary = findBinary();
const requireBinary = () =>
  expect(existsSync(binary), `the Rust CLI is needed for this test: build it (cargo build) or set AGENT_SURFACE_BINARY (looked for ${binary})`).toBe(true);

const bases = {
  devices: readJson(fixtureManifestPath),
  api: readJson(resolve(packageDir, "test/api/manifest.json")),
  scenarios: readJson(resolve(packageDir, "../../conformance/scenarios/manifest.json")),
};

// ------------------------------------------------------------------ seeded randomness

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(SEED);
const int = (n) => Math.floor(rand() * n);
const pick = (xs) => xs[int(xs.length)];
const chance = (p) => rand() < p;

// ------------------------------------------------------------------ what to write

const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
/** Printable pieces of ids, names and descriptions, including what the grammars refuse and what Rust escapes in messages. */
const PIECES = ["a", "b", "z", "Q", "7", "_", "-", ".", ":", " ", "é", "😀", "\u0301", "\u200b", "\u00a0", "\t", "\n", "'", '"', "\\", "/", "~", "\u0085", "ß", "0"];
const randomText = (max = 12) => Array.from({ length: int(max) }, () => pick(PIECES)).join("");
const lowerRun = (n) => Array.from({ length: n }, () => pick("abcdefghijklmnopqrstuvwxyz")).join("");
/** A name that is valid, or broken in one place. */
function nameLike(segments, sep = ".") {
  const parts = Array.from({ length: segments }, () => lowerRun(1 + int(6)));
  if (chance(0.15)) parts[int(parts.length)] = lowerRun(30 + int(6));
  let s = parts.join(sep);
  if (chance(0.6)) {
    const at = int(s.length + 1);
    s = s.slice(0, at) + randomText(3) + s.slice(at);
  }
  return s;
}
const JSON_VALUES = [null, true, false, 0, -1, 1, 1.5, 2 ** 31, 2 ** 32, -(2 ** 40), 1e21, 2 ** 60, 2 ** 53 + 2, "", "x", "1", "read", [], [1], ["a"], {}, { a: 1 }, { read: null }];
const jsonValue = () => structuredClone(pick(JSON_VALUES));

/** Schema fragments: inside and outside the subset, deep, large, looping. */
const SCHEMA_EDITS = [
  (s) => (s.type = pick(["string", "date", ["string", "string"], ["string", "nul"], [], 1, ["null", "integer"]])),
  (s) => (s.oneOf = [{ type: "string" }]),
  (s) => (s[pick(["allOf", "not", "if", "patternProperties", "prefixItems", "nullable", "$id", "readOnly", "frobnicate", "$comment", "contentEncoding", "minProperties"])] = {}),
  (s) => (s.format = pick(["uuid", "date-time", "ipv4", 1, "hostname", "email"])),
  (s) => (s.pattern = pick(["^[a-z]+$", "([", "a++", "\\b*", "(?<=a)b", "[\\b]*", "\\d{3}", "]", "{", 5, "(?<n>x)\\k<n>", "\\p{L}+"])),
  (s) => (s.$ref = pick(["#/$defs/missing", "https://example.com/s.json", "#/$defs/", "#", 1, "#/definitions/a"])),
  (s) => (s.$defs = { x: {} }),
  (s) => (s.additionalProperties = pick([{}, "no", { type: "string" }, true, false, null])),
  (s) => (s.items = pick([[{}], true, {}, { type: "string" }, 3])),
  (s) => (s[pick(["minItems", "maxItems", "minLength", "maxLength"])] = pick([-1, 1.5, "1", 0, 3, 1e21])),
  (s) => (s.multipleOf = pick([0, -2, 0.5, "2", 3])),
  (s) => (s[pick(["exclusiveMinimum", "exclusiveMaximum", "minimum", "maximum"])] = pick([true, "0", 0, -1.5])),
  (s) => (s.enum = pick([[], "a", [1, "a", null]])),
  (s) => (s.required = pick([["a", "a"], ["a", 1], "a", ["x"]])),
  (s) => (s[pick(["description", "title"])] = pick([1, null, "ok"])),
  (s) => (s.examples = pick(["a", ["a"]])),
  (s) => (s[pick(["deprecated", "uniqueItems"])] = pick(["yes", 1, true])),
  (s) => (s.$schema = pick(["https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2020-12/schema#", "http://json-schema.org/draft-07/schema#"])),
  (s) => (s.const = pick([{ a: [1] }, null])),
  (s) => (s.default = pick([5, { x: [] }])),
  (s) => {
    let deep = { type: "string" };
    for (let i = 0; i < 6 + int(5); i++) deep = { type: "array", items: deep };
    s.properties = { ...(isObj(s.properties) ? s.properties : {}), deep };
  },
  (s) => (s.description = "x".repeat(16_000 + int(1000))),
  (s) => (s.properties = { ...(isObj(s.properties) ? s.properties : {}), [pick(["a", "a/b", "c~d", "😀", "\ue000"])]: pick([true, false, 1, {}, { anyOf: [] }]) }),
  (s) => {
    s.$defs = { a: { $ref: "#/$defs/b" }, b: { anyOf: [{ $ref: "#/$defs/a" }, { type: "null" }] }, c: { type: "object", properties: { n: { $ref: "#/$defs/c" } } } };
    s.$ref = pick(["#/$defs/a", "#/$defs/c", "#/$defs/b"]);
  },
  (s) => {
    s.$defs = { "a/b": { $ref: "#/$defs/a~1b" } };
    s.anyOf = [{ $ref: "#/$defs/a~1b" }];
  },
  (s) => (s.anyOf = pick([[], {}, [{}, 3], [{ type: "string" }, { $ref: "#/$defs/nope" }]])),
];

/** Every schema position of a contract: [holder, key] of its input/output schemas. */
function schemaSlots(c) {
  const slots = [];
  const add = (o) => {
    for (const k of ["inputSchema", "outputSchema"]) if (isObj(o) && k in o && o[k] !== null) slots.push([o, k]);
  };
  add(c);
  for (const plane of ["observations", "actions"]) if (isObj(c[plane])) Object.values(c[plane]).forEach(add);
  return slots;
}
/** A subschema to edit: the schema itself or one nested under properties/items/anyOf. */
function someSubschema(s) {
  for (let depth = 0; depth < 3 && isObj(s); depth++) {
    const children = [
      ...(isObj(s.properties) ? Object.values(s.properties) : []),
      ...(isObj(s.items) ? [s.items] : []),
      ...(Array.isArray(s.anyOf) ? s.anyOf : []),
    ].filter(isObj);
    if (children.length === 0 || chance(0.5)) break;
    s = pick(children);
  }
  return s;
}
const contractsOf = (m) => (Array.isArray(m.contracts) ? m.contracts.filter(isObj) : []);
const someContract = (m) => pick(contractsOf(m));
const capabilitiesOf = (m) =>
  contractsOf(m).flatMap((c) => ["observations", "actions"].flatMap((p) => (isObj(c[p]) ? Object.entries(c[p]).map(([n, cap]) => [c, p, n, cap]) : [])));
/** Something that has governance fields: an action, a procedure or an external tool. */
const someGoverned = (m) => pick([...contractsOf(m).filter((c) => c.kind !== "component"), ...capabilitiesOf(m).filter(([, p]) => p === "actions").map((x) => x[3])]);
/** A random object of the manifest, for unknown/missing/wrong-typed fields. */
function someObject(m) {
  const c = someContract(m);
  return pick([m, m.generator, m.completeness, c, ...capabilitiesOf(m).map((x) => x[3])].filter(isObj));
}

function rename(obj, from, to) {
  const out = {};
  for (const [k, v] of Object.entries(obj)) out[k === from ? to : k] = v;
  return out;
}

/** [name, weight, mutate(m)] — each changes the manifest in one way; some leave it valid. */
const MUTATIONS = [
  ["description", 3, (m) => (pick([someContract(m), ...capabilitiesOf(m).map((x) => x[3])]).description = pick(["Changed.", "", " \u0085 ", "😀".repeat(150 + int(5)), "d".repeat(290 + int(220)), randomText(20)]))],
  ["schema", 7, (m) => {
    const [holder, key] = pick(contractsOf(m).flatMap(schemaSlots));
    pick(SCHEMA_EDITS)(someSubschema(holder[key]));
  }],
  ["schema replaced", 1, (m) => {
    const [holder, key] = pick(contractsOf(m).flatMap(schemaSlots));
    holder[key] = pick([true, null, [], "x", {}, { type: "object" }]);
  }],
  ["effect", 2, (m) => (someGoverned(m).effect = pick(["read", "local-state", "navigation", "mutation", "destructive", "external-side-effect", "explode", 1, null, { read: null }, { a: 1, b: 2 }]))],
  ["confirmation", 2, (m) => (someGoverned(m).confirmation = pick(["never", "optional", "required", "Required"]))],
  ["governance default", 2, (m) => {
    const g = someGoverned(m);
    const k = pick(["idempotent", "reversible", "audit"]);
    g[k] = k === "audit" ? pick(["none", "full", "partial"]) : pick([!g[k], "yes", null]);
  }],
  ["component field", 1, (m) => {
    const c = pick(contractsOf(m).filter((x) => x.kind === "component"));
    const k = pick(["priority", "origin", "tags", "policies"]);
    c[k] = { priority: pick([5, -3, 1.5, 2 ** 60, 2 ** 63, "1"]), origin: pick(["third-party", 1]), tags: pick([["x"], [1], "x"]), policies: pick([[{ any: 1 }], {}]) }[k];
  }],
  ["meta", 2, (m) => {
    const o = pick([someContract(m), ...capabilitiesOf(m).map((x) => x[3])]);
    o.meta = pick([{ k: "é".repeat(1000 + int(50)) }, { k: "a".repeat(2030 + int(30)) }, [], "x", { ok: [1, { x: null }] }]);
  }],
  ["remove contract", 1, (m) => {
    m.contracts.splice(int(m.contracts.length), 1);
    if (chance(0.5)) m.completeness.contracts--;
  }],
  ["add contract", 1, (m) => {
    const c = structuredClone(someContract(m));
    if (chance(0.6)) {
      if (c.kind === "component") (c.type = `${c.type}x`), (c.id = `view:${c.type}`);
      else c.id = `${c.id}x`;
    }
    m.contracts.splice(int(m.contracts.length + 1), 0, c);
    if (chance(0.7)) m.completeness.contracts++;
  }],
  ["duplicate id", 2, (m) => {
    const i = int(m.contracts.length);
    m.contracts.splice(i + int(2), 0, structuredClone(m.contracts[i]));
    m.completeness.contracts++;
  }],
  ["swap contracts", 1, (m) => {
    const i = int(m.contracts.length - 1);
    [m.contracts[i], m.contracts[i + 1]] = [m.contracts[i + 1], m.contracts[i]];
  }],
  ["hash", 1, (m) => {
    if (chance(0.5)) m.manifestHash = pick([`blake3:${"0".repeat(64)}`, someContract(m).contractHash, 1, "blake3:xyz"]);
    else someContract(m).contractHash = pick([`blake3:${"0".repeat(64)}`, m.manifestHash, null]);
  }],
  // Format 1 kept a `source` in every contract; format 2 has none (the locations sidecar).
  ["format 1 source", 2, (m) => {
    someContract(m).source = pick([{ file: "src/a.ts", line: 1, column: 1 }, { file: "src/moved/x.tsx", line: 11, column: 3 }, null, [], "src/a.ts:1:1"]);
  }],
  ["generator", 2, (m) => (m.generator[pick(["name", "version"])] = pick(["9.9.9", "", "other", "é"]))],
  ["formatVersion", 1, (m) => {
    if (chance(0.15)) delete m.formatVersion;
    else m.formatVersion = pick([1, 3, "2", 2.5, 0, null, true, [2], { v: 2 }, -1, 1e21, "é"]);
  }],
  ["completeness", 2, (m) => {
    const k = pick(["status", "failed", "contracts"]);
    m.completeness[k] = { status: pick(["incomplete", "done", 1, "Complete"]), failed: pick([1, 3, -1, 1.5]), contracts: pick([0, 99, -1, "5"]) }[k];
  }],
  ["unknown field", 1, (m) => Object.defineProperty(someObject(m), pick(["extra", "Kind", "kind", "ID", "__proto__", "\u{1F600}"]), { value: jsonValue(), enumerable: true, writable: true, configurable: true })],
  ["missing field", 1, (m) => {
    const o = someObject(m);
    delete o[pick(Object.keys(o))];
  }],
  ["wrong type", 1, (m) => {
    const o = someObject(m);
    o[pick(Object.keys(o))] = jsonValue();
  }],
  ["kind", 1, (m) => (someContract(m).kind = pick(["component", "procedure", "external-tool", "widget", 1, null]))],
  ["struct as array", 1, (m) => {
    const k = pick(["generator", "completeness"]);
    const values = Object.values(m[k]);
    m[k] = pick([values, values.slice(0, 1), []]);
  }],
  ["absent outputSchema", 1, (m) => delete pick([...contractsOf(m).filter((c) => c.kind !== "component"), ...capabilitiesOf(m).filter(([, p]) => p === "actions").map((x) => x[3])]).outputSchema],
  ["component type", 3, (m) => {
    const c = pick(contractsOf(m).filter((x) => x.kind === "component"));
    c.type = nameLike(1 + int(chance(0.1) ? 10 : 3));
    if (chance(0.85)) c.id = `view:${c.type}`;
  }],
  ["capability name", 3, (m) => {
    const [c, plane, name] = pick(capabilitiesOf(m));
    const to = chance(0.3) ? pick(["Read", "_x", "a-b", "a.b", "é", "x".repeat(49), "9lives", "ok_name", ""]) : nameLike(1, "_");
    c[plane] = rename(c[plane], name, to);
  }],
  ["shared capability name", 1, (m) => {
    const comps = contractsOf(m).filter((x) => x.kind === "component" && Object.keys(x.observations).length > 0 && Object.keys(x.actions).length > 0);
    const c = pick(comps);
    if (c) c.actions = rename(c.actions, pick(Object.keys(c.actions)), pick(Object.keys(c.observations)));
  }],
  ["operation id", 3, (m) => {
    const o = pick(contractsOf(m).filter((x) => x.kind !== "component"));
    const prefix = pick(["domain:", "external:", "", "domain", "view:", "external:"]);
    o.id = prefix + nameLike(1 + int(chance(0.1) ? 9 : 3));
  }],
];

// ------------------------------------------------------------------ the cases

function rehash(m) {
  if (!isObj(m)) return;
  for (const c of contractsOf(m)) c.contractHash = contractHash(c);
  m.manifestHash = manifestHash(m);
}
const reverseKeys = (v) => (Array.isArray(v) ? v.map(reverseKeys) : isObj(v) ? Object.fromEntries(Object.keys(v).reverse().map((k) => [k, reverseKeys(v[k])])) : v);
// Fisher-Yates on the seeded stream: a random comparator given to sort() draws as many numbers as
// the engine's sort makes comparisons, which changed between V8 versions (Node 26 drew a
// different stream, hence other cases, from the same seed).
function shuffled(xs) {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = int(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
const shuffleKeys = (v) => (Array.isArray(v) ? v.map(shuffleKeys) : isObj(v) ? Object.fromEntries(shuffled(Object.keys(v)).map((k) => [k, shuffleKeys(v[k])])) : v);

const TOTAL_WEIGHT = MUTATIONS.reduce((n, [, w]) => n + w, 0);
function weighted() {
  let at = rand() * TOTAL_WEIGHT;
  const found = MUTATIONS.find(([, w]) => (at -= w) < 0) ?? MUTATIONS[0];
  return [found[0], found[2]];
}

function makeCase(i) {
  const baseName = pick(Object.keys(bases));
  let m = structuredClone(bases[baseName]);
  const applied = [];
  // A few cases change nothing but the layout: they must verify on both sides.
  const count = i % 17 === 0 ? 0 : 1 + (chance(0.25) ? 1 : 0);
  for (let tries = 0; applied.length < count && tries < 20; tries++) {
    const [name, mutate] = weighted();
    const before = JSON.stringify(m);
    try {
      mutate(m);
      applied.push(name);
    } catch {
      m = JSON.parse(before); // the mutation did not fit this manifest (e.g. no such field left)
    }
  }
  const rehashed = applied.length > 0 && chance(0.55);
  if (rehashed) rehash(m);
  const layout = pick(["compact", "2", "4", "tab", "reversed", "shuffled"]);
  const value = layout === "reversed" ? reverseKeys(m) : layout === "shuffled" ? shuffleKeys(m) : m;
  const indent = { compact: undefined, 2: 2, 4: 4, tab: "\t", reversed: 1, shuffled: 2 }[layout];
  return { name: `#${i} ${baseName}: ${applied.join(" + ") || "unchanged"}${rehashed ? " (re-hashed)" : ""}, ${layout}`, text: JSON.stringify(value, null, indent) };
}

function typescriptVerdict(text) {
  try {
    const v = verifyManifest(JSON.parse(text));
    return { ok: true, contracts: v.manifest.contracts.length, manifestHash: v.manifest.manifestHash };
  } catch (e) {
    if (!e || typeof e.kind !== "string") throw e;
    return { ok: false, error: { kind: e.kind, message: e.message, contract: e.contract } };
  }
}

function rustVerdict(file) {
  return new Promise((done, fail) => {
    execFile(binary, ["verify", file, "--format", "json"], { encoding: "utf8" }, (error, stdout, stderr) => {
      if (error && error.code !== 1) return fail(new Error(`${binary} verify ${file} failed (${error.code}): ${stderr}`));
      try {
        done(JSON.parse(stdout));
      } catch {
        fail(new Error(`${binary} verify ${file}: not JSON on stdout: ${stdout}${stderr}`));
      }
    });
  });
}

/** Runs `f` over `items` with at most `n` at a time, results in order. */
async function pool(items, n, f) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await f(items[i], i);
      }
    }),
  );
  return out;
}

/**
 * A verdict as compared: an invalid `pattern` carries the message of the regular-expression
 * engine that refused it (the page's RegExp, regress natively), which is not the same text. A
 * `malformed` refusal's message is the page's own (where the manifest departs from the format,
 * not serde's words): its verdict, kind and contract are compared, not its message.
 */
const same = (verdict) =>
  JSON.stringify(verdict.error?.kind === "malformed" ? { ...verdict, error: { ...verdict.error, message: "(malformed)" } } : verdict)
    // Rust's JSON parser says where in the text it stopped; a value has no text positions.
    .replace(/( at line \d+ column \d+)(\",\"contract)/, "$2")
    .replace(/(\\"pattern\\" is not a valid ECMAScript regular expression: ).*?(\",\"contract)/, "$1<the engine's message>$2");

async function expectSameVerdicts(cases, name) {
  requireBinary();
  const rust = await pool(cases, 4, (c) => rustVerdict(c.file));
  const differences = cases
    .map((c, i) => [c, typescriptVerdict(c.text), rust[i]])
    .filter(([, ts, r]) => same(ts) !== same(r))
    .map(([c, ts, r]) => `${name(c)}\n  TS:   ${JSON.stringify(ts)}\n  Rust: ${JSON.stringify(r)}`);
  expect(differences).toEqual([]);
}

describe("the TypeScript and Rust verifiers agree (seeded random manifests and tamperings)", () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-surface-verify-diff-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(`${CASES} cases: same verdict, kind, contract and message`, async () => {
    requireBinary();
    const cases = Array.from({ length: CASES }, (_, i) => makeCase(i));
    cases.forEach((c, i) => writeFileSync((c.file = join(dir, `case-${i}.json`)), c.text));
    const rust = await pool(cases, 4, (c) => rustVerdict(c.file));
    const differences = [];
    const kinds = {};
    cases.forEach((c, i) => {
      const ts = typescriptVerdict(c.text);
      const r = rust[i];
      const key = r.ok ? "ok" : r.error.kind;
      kinds[key] = (kinds[key] ?? 0) + 1;
      if (same(ts) !== same(r)) differences.push(`${c.name}\n  TS:   ${JSON.stringify(ts)}\n  Rust: ${JSON.stringify(r)}`);
    });
    expect(differences).toEqual([]);
    if (process.env.VERIFY_DIFF_SEED) return void console.log(kinds);
    // The generator reaches every refusal a value can have (not-json needs text) and acceptance.
    for (const kind of ["ok", "unsupported-format-version", "malformed", "incomplete", "count-mismatch", "contract-hash-mismatch", "duplicate-id", "not-sorted", "manifest-hash-mismatch", "invalid-contract"]) {
      expect(kinds[kind] ?? 0, `cases of ${kind}: ${JSON.stringify(kinds)}`).toBeGreaterThanOrEqual(3);
    }
  }, 180_000); // about 5 s on an idle machine: the time is spawning the CLI

  it("the id grammar's messages name each character as Rust's escape_debug writes it", async () => {
    requireBinary();
    // Controls, quotes, spaces and separators, format and private-use characters, combining marks
    // and other grapheme extenders, unassigned code points, and plain non-ASCII letters.
    const chars = ["\0", "\t", "\n", "\r", "\u001b", "\u007f", "'", '"', "\\", " ", "\u00a0", "\u0085", "\u00ad", "\u200b", "\u200d", "\u2028", "\u3000", "\u0301", "\ufe0f", "\u{1f3fb}", "\u{e0061}", "\ue000", "\u0378", "\uffff", "\u{10ffff}", "é", "ß", "😀", "ｱ", "\u{1d400}"];
    const cases = chars.map((ch, i) => {
      const m = structuredClone(bases.devices);
      m.contracts[0].id = `domain:ab.c${ch}d`;
      rehash(m);
      const text = JSON.stringify(m);
      const file = join(dir, `char-${i}.json`);
      writeFileSync(file, text);
      return { ch, text, file };
    });
    await expectSameVerdicts(cases, (c) => `U+${c.ch.codePointAt(0).toString(16)}`);
  }, 90_000);

  it("what the Rust JSON parser refuses in the text JSON.stringify writes: nesting past 127, lone surrogates", async () => {
    const nest = (n) => {
      let v = null;
      for (let i = 0; i < n; i++) v = i % 2 ? { k: v } : [v];
      return v;
    };
    const tampers = [
      // The manifest, its contracts, a contract and its meta are 4 levels: 4 + 123 = 127 is JSON, 128 is not.
      (m) => (m.contracts[0].meta = { deep: nest(123) }),
      (m) => (m.contracts[0].meta = { deep: nest(124) }),
      (m) => (m.contracts[0].meta = { deep: nest(200) }),
      (m) => (m.contracts[0].description = "a\ud800b"),
      (m) => (m.contracts[0].description = "a\udc00"),
      (m) => (m.contracts[0].description = "\ud800"),
      (m) => (m.contracts[0].description = "\ud800\ud800"),
      (m) => (m.contracts[0].description = "\ud800\u0001"),
      (m) => (m.contracts[0].description = "\ud800\n"),
      (m) => (m.contracts[0].description = '\ud800"'),
      (m) => (m.contracts[0].meta = { "\udfff": 1 }),
      (m) => ((m.contracts[0].meta = { deep: nest(300) }), (m.contracts[1].description = "\ud800")),
      (m) => ((m.contracts[0].description = "\ud800"), (m.contracts[1].meta = { deep: nest(300) })),
      (m) => (m.contracts[0].description = "😀 paired is fine"),
    ];
    const cases = tampers.flatMap((tamper, i) =>
      [false, true].map((rehashed) => {
        const m = structuredClone(bases.devices);
        tamper(m);
        if (rehashed) rehash(m);
        const text = JSON.stringify(m);
        const file = join(dir, `text-${i}-${rehashed}.json`);
        writeFileSync(file, text);
        return { i, rehashed, text, file };
      }),
    );
    await expectSameVerdicts(cases, (c) => `tampering ${c.i}${c.rehashed ? " (re-hashed)" : ""}`);
  }, 90_000);

  it("the first $ref loop is the one Rust reports (node order, search order)", async () => {
    const schemas = [
      { $ref: "#/$defs/a", $defs: { a: { $ref: "#/$defs/a" } } },
      { $defs: { a: { $ref: "#/$defs/b" }, b: { anyOf: [{ $ref: "#/$defs/a" }, { type: "null" }] } } },
      { $defs: { z: { $ref: "#/$defs/y" }, y: { $ref: "#/$defs/z" }, a: { anyOf: [{ $ref: "#/$defs/a" }] } } },
      { anyOf: [{ $ref: "#/$defs/x" }], $defs: { x: { anyOf: [{ $ref: "#/$defs/y" }] }, y: { $ref: "#/$defs/x" } } },
      { properties: { p: { $ref: "#/$defs/q" } }, $defs: { q: { properties: { r: { $ref: "#/$defs/q" } }, anyOf: [{ $ref: "#/$defs/s" }] }, s: { $ref: "#/$defs/q" } } },
      { $ref: "#/$defs/a~1b", $defs: { "a/b": { anyOf: [{ type: "null" }, { $ref: "#/$defs/a~1b" }] } } },
      { items: { $ref: "#/$defs/t" }, $defs: { t: { anyOf: [{ $ref: "#/$defs/u" }, { $ref: "#/$defs/t" }] }, u: { items: { $ref: "#/$defs/t" } } } },
    ];
    const cases = schemas.map((schema, i) => {
      const m = structuredClone(bases.devices);
      m.contracts[0].inputSchema = schema;
      rehash(m);
      const text = JSON.stringify(m);
      const file = join(dir, `loop-${i}.json`);
      writeFileSync(file, text);
      return { i, text, file };
    });
    await expectSameVerdicts(cases, (c) => `schema ${c.i}`);
  }, 90_000);
});
