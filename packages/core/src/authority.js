// createCapabilityAuthority: the JavaScript twin of runtime/src/authority.rs. The same checks in
// the same order, refused with the same kebab-case kinds:
//   malformed (not an object) -> unsupported-format-version -> malformed (the serde model:
//   types, required fields, unknown fields) -> incomplete -> count-mismatch ->
//   contract-hash-mismatch -> duplicate-id / not-sorted -> manifest-hash-mismatch ->
//   invalid-contract (definition rules, without the JSON Schema subset check).

import { blake3Hex, cloneJson, isPlainObject } from "./canonical.js";
import { CapabilityAuthorityError } from "./errors.js";
import { AUDITS, CONFIRMATIONS, EFFECTS, firstContractViolation } from "./rules.js";

export const FORMAT_VERSION = 1;

/** Objects minted by createCapabilityAuthority. Module-private: nothing else can add to it. */
const minted = new WeakSet();

const U32_MAX = 4294967295;
const I64_MIN = -9223372036854775808; // -(2**63), exact as a double
const I64_LIMIT = 9223372036854775808; // 2**63: the first double above i64::MAX

// ---- the serde model of runtime/src/manifest.rs (deny_unknown_fields everywhere) ----

class Malformed extends Error {}

function malformed(message) {
  throw new Malformed(message);
}

function typeName(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  if (typeof v === "number") return Number.isInteger(v) ? `integer ${v}` : `floating point ${v}`;
  if (typeof v === "string") return `string ${JSON.stringify(v)}`;
  return `boolean ${v}`;
}

const is = {
  any: () => true,
  string: (v) => typeof v === "string",
  bool: (v) => typeof v === "boolean",
  u32: (v) => Number.isInteger(v) && v >= 0 && v <= U32_MAX,
  i64: (v) => Number.isInteger(v) && v >= I64_MIN && v < I64_LIMIT,
  object: isPlainObject,
  array: Array.isArray,
  stringArray: (v) => Array.isArray(v) && v.every((x) => typeof x === "string"),
  oneOf: (values) => (v) => values.includes(v),
};

const expected = new Map([
  [is.string, "a string"],
  [is.bool, "a boolean"],
  [is.u32, "a u32 integer"],
  [is.i64, "an i64 integer"],
  [is.object, "an object (map)"],
  [is.array, "a sequence"],
  [is.stringArray, "a sequence of strings"],
]);

/**
 * Checks a struct: `fields` maps name -> [check, required]. Unknown fields are refused
 * (`deny_unknown_fields`); `ignore` lists fields consumed elsewhere (the `kind` tag).
 */
function struct(v, where, fields, ignore = []) {
  if (!isPlainObject(v)) malformed(`${where}: invalid type: ${typeName(v)}, expected a struct`);
  for (const key of Object.keys(v)) {
    if (!Object.hasOwn(fields, key) && !ignore.includes(key))
      malformed(`${where}: unknown field \`${key}\`, expected one of ${Object.keys(fields).map((k) => `\`${k}\``).join(", ")}`);
  }
  for (const [name, [check, required, what]] of Object.entries(fields)) {
    if (!Object.hasOwn(v, name)) {
      if (required) malformed(`${where}: missing field \`${name}\``);
      continue;
    }
    const value = v[name];
    if (typeof check === "function" && !check(value)) {
      malformed(`${where}.${name}: invalid value: ${typeName(value)}, expected ${what ?? expected.get(check) ?? "a valid value"}`);
    }
  }
}

const req = (check, what) => [check, true, what];
const opt = (check, what) => [check, false, what];
const effectField = req(is.oneOf(EFFECTS), `one of ${EFFECTS.map((e) => `\`${e}\``).join(", ")}`);
const confirmationField = req(is.oneOf(CONFIRMATIONS), `one of ${CONFIRMATIONS.map((e) => `\`${e}\``).join(", ")}`);
const auditField = req(is.oneOf(AUDITS), `one of ${AUDITS.map((e) => `\`${e}\``).join(", ")}`);

function checkSource(v, where) {
  struct(v, where, { file: req(is.string), line: req(is.u32), column: req(is.u32) });
}

function checkMapOf(v, where, each) {
  if (!isPlainObject(v)) malformed(`${where}: invalid type: ${typeName(v)}, expected a map`);
  for (const [name, item] of Object.entries(v)) each(item, `${where}.${name}`);
}

function checkObservation(v, where) {
  struct(v, where, { description: req(is.string), outputSchema: req(is.any), meta: req(is.object) });
}

function checkAction(v, where) {
  struct(v, where, {
    description: req(is.string),
    inputSchema: req(is.any),
    outputSchema: opt(is.any), // Option<Value>: absent or null = none
    effect: effectField,
    idempotent: req(is.bool),
    reversible: req(is.bool),
    confirmation: confirmationField,
    audit: auditField,
    meta: req(is.object),
  });
}

function checkContract(c, where) {
  if (!isPlainObject(c)) malformed(`${where}: invalid type: ${typeName(c)}, expected internally tagged enum ManifestContract`);
  if (!Object.hasOwn(c, "kind")) malformed(`${where}: missing field \`kind\``);
  const kind = c.kind;
  if (kind === "component") {
    struct(
      c,
      where,
      {
        id: req(is.string),
        type: req(is.string),
        description: req(is.string),
        meta: req(is.object),
        origin: req(is.string),
        priority: req(is.i64),
        policies: req(is.array),
        tags: req(is.stringArray),
        observations: req(null),
        actions: req(null),
        source: req(null),
        contractHash: req(is.string),
      },
      ["kind"],
    );
    checkMapOf(c.observations, `${where}.observations`, checkObservation);
    checkMapOf(c.actions, `${where}.actions`, checkAction);
    checkSource(c.source, `${where}.source`);
  } else if (kind === "procedure" || kind === "external-tool") {
    struct(
      c,
      where,
      {
        id: req(is.string),
        description: req(is.string),
        inputSchema: req(is.any),
        outputSchema: opt(is.any),
        effect: effectField,
        idempotent: req(is.bool),
        reversible: req(is.bool),
        confirmation: confirmationField,
        audit: auditField,
        policies: req(is.array),
        meta: req(is.object),
        tags: req(is.stringArray),
        source: req(null),
        contractHash: req(is.string),
      },
      ["kind"],
    );
    checkSource(c.source, `${where}.source`);
  } else {
    malformed(`${where}.kind: unknown variant ${typeName(kind)}, expected one of \`component\`, \`procedure\`, \`external-tool\``);
  }
}

function checkManifestModel(m) {
  struct(m, "manifest", {
    formatVersion: req(is.u32),
    generator: req(null),
    completeness: req(null),
    contracts: req(is.array),
    manifestHash: req(is.string),
  });
  struct(m.generator, "manifest.generator", { name: req(is.string), version: req(is.string) });
  struct(m.completeness, "manifest.completeness", {
    status: req(is.oneOf(["complete", "incomplete"]), "one of `complete`, `incomplete`"),
    contracts: req(is.u32),
    failed: req(is.u32),
  });
  m.contracts.forEach((c, i) => checkContract(c, `manifest.contracts[${i}]`));
}

// ---- hashes (runtime/src/manifest.rs contract_hash / manifest_hash) ----

function without(obj, keys) {
  const out = {};
  for (const k of Object.keys(obj)) if (!keys.includes(k)) Object.defineProperty(out, k, { value: obj[k], enumerable: true });
  return out;
}

/** blake3 of the canonical JSON of a contract without `source` and `contractHash`. */
export function computeContractHash(contract) {
  return blake3Hex(isPlainObject(contract) ? without(contract, ["source", "contractHash"]) : contract);
}

/** blake3 of the canonical JSON of a manifest without its top-level `manifestHash`. */
export function computeManifestHash(manifest) {
  return blake3Hex(isPlainObject(manifest) ? without(manifest, ["manifestHash"]) : manifest);
}

function deepFreeze(v) {
  if (v !== null && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze(v[k]);
  }
  return v;
}

function fail(kind, message, details) {
  throw new CapabilityAuthorityError(kind, message, details);
}

/**
 * Verifies a CapabilityContractManifest (a parsed JSON value) exactly as the Rust runtime's
 * `CapabilityAuthority::new` does, then returns a frozen authority whose `manifest` is a deeply
 * frozen copy. Throws CapabilityAuthorityError.
 */
export function createCapabilityAuthority(manifest) {
  if (!isPlainObject(manifest)) fail("malformed", "the manifest does not match the CapabilityContractManifest format: the manifest must be a JSON object");
  // Work on a private copy read once: getters, proxies or later mutation of the caller's
  // object cannot change what was verified.
  let m;
  try {
    m = cloneJson(manifest);
  } catch (e) {
    fail("malformed", `the manifest does not match the CapabilityContractManifest format: ${e.message}`);
  }
  if (!Object.hasOwn(m, "formatVersion") || m.formatVersion !== FORMAT_VERSION) {
    const found = Object.hasOwn(m, "formatVersion") ? m.formatVersion : null;
    fail("unsupported-format-version", `unsupported manifest formatVersion ${found === null ? "None" : JSON.stringify(found)} (this runtime reads ${FORMAT_VERSION})`, { found });
  }
  try {
    checkManifestModel(m);
  } catch (e) {
    if (!(e instanceof Malformed)) throw e;
    fail("malformed", `the manifest does not match the CapabilityContractManifest format: ${e.message}`);
  }
  const { completeness, contracts } = m;
  if (completeness.status !== "complete" || completeness.failed > 0) {
    fail("incomplete", `the manifest is incomplete (${completeness.failed} contract(s) failed to compile): fix the compile errors first`, { failed: completeness.failed });
  }
  if (completeness.contracts !== contracts.length) {
    fail("count-mismatch", `completeness.contracts says ${completeness.contracts} but the manifest holds ${contracts.length} contracts`, {
      declared: completeness.contracts,
      actual: contracts.length,
    });
  }
  for (const c of contracts) {
    const expectedHash = computeContractHash(c);
    if (c.contractHash !== expectedHash) {
      fail("contract-hash-mismatch", `contractHash of "${c.id}" does not match its contents (expected ${expectedHash}, found ${c.contractHash})`, {
        contract: c.id,
        expected: expectedHash,
        found: c.contractHash,
      });
    }
  }
  const byId = new Map();
  let previous = null;
  for (const c of contracts) {
    if (byId.has(c.id)) fail("duplicate-id", `contract id "${c.id}" is declared twice`, { contract: c.id });
    byId.set(c.id, c);
    // Order carries no meaning, but the compiler always sorts: anything else was edited.
    // `>` on strings compares UTF-16 code units, like cmp_utf16.
    if (previous !== null && previous > c.id) {
      fail("not-sorted", `contracts are not sorted by id: "${c.id}" comes after "${previous}"`, { contract: c.id, previous });
    }
    previous = c.id;
  }
  const expectedManifestHash = computeManifestHash(m);
  if (m.manifestHash !== expectedManifestHash) {
    fail("manifest-hash-mismatch", `manifestHash does not match the manifest (expected ${expectedManifestHash}, found ${m.manifestHash})`, {
      expected: expectedManifestHash,
      found: m.manifestHash,
    });
  }
  for (const c of contracts) {
    const v = firstContractViolation(c);
    if (v) {
      fail("invalid-contract", `contract "${c.id}" is not a valid definition at ${v.pointer}: ${v.message}`, {
        contract: c.id,
        pointer: v.pointer,
        detail: v.message,
      });
    }
  }
  deepFreeze(m);
  const authority = Object.freeze({
    manifest: m,
    /** The verified, frozen contract JSON with this id, or undefined. */
    contract(id) {
      return byId.get(id);
    },
  });
  minted.add(authority);
  return authority;
}

/** Whether `value` was minted by createCapabilityAuthority of this module instance. */
export function isCapabilityAuthority(value) {
  return typeof value === "object" && value !== null && minted.has(value);
}

/** Throws unless `authority` was minted by createCapabilityAuthority of this module instance. */
export function assertCapabilityAuthority(authority) {
  if (!isCapabilityAuthority(authority)) {
    fail("not-an-authority", "not a CapabilityAuthority: only objects returned by createCapabilityAuthority are accepted");
  }
}
