// Manifest verification (crates/model/src/verify.rs, what the Rust CapabilityAuthority runs):
// what its JSON parser refuses, the format version, exact numbers, the exact CapabilityContractManifest shape, completeness,
// every contractHash, unique and sorted ids, the manifestHash, and every contract a valid
// definition. The first refusal wins, in that order, with the Rust kind, message and contract.

import { CapabilityAuthorityError } from "../errors.js";
import type { AgentSurfaceLimits, CapabilityAuthorityErrorKind, CapabilityContractManifest, ManifestContract } from "../types.js";
import { AUDITS, CONFIRMATIONS, EFFECTS } from "./effects.js";
import { checkInteger, debugString, deepFreeze, isPlainObject, jsonCopy, oneOf, rustFloat, rustKeys, rustNumber, unexpected } from "./json.js";
import { DEFAULT_LIMITS } from "./limits.js";
import { manifestHashes } from "./manifest-hash.js";
import { validateContract } from "./rules.js";

/** A manifest that passed every check: a deeply frozen copy, and its contracts by id. */
export interface VerifiedManifest {
  readonly manifest: CapabilityContractManifest;
  readonly contracts: ReadonlyMap<string, ManifestContract>;
  /** The limits every contract was verified against. */
  readonly limits: Readonly<AgentSurfaceLimits>;
}

type Obj = Record<string, unknown>;
/** null when a value deserializes, else serde's message. */
type De = (v: unknown) => string | null;

/** serde_json's `{:?}` of a JSON value (`Number(2)`, `String("1")`, `Array [Null]`, `Object {"a": Bool(true)}`). */
function debugValue(v: unknown): string {
  if (v === null) return "Null";
  if (typeof v === "boolean") return `Bool(${v})`;
  if (typeof v === "number") return `Number(${rustNumber(v).int ? rustNumber(v).text : rustFloat(v)})`;
  if (typeof v === "string") return `String(${debugString(v)})`;
  if (Array.isArray(v)) return `Array [${v.map(debugValue).join(", ")}]`;
  const o = v as Obj;
  return `Object {${rustKeys(o)
    .map((k) => `${debugString(k)}: ${debugValue(o[k])}`)
    .join(", ")}}`;
}

/**
 * What serde_json refuses in the text JSON.stringify writes for a value, the first in text order:
 * more than 127 nested arrays and objects, a lone surrogate (written as a `\u` escape).
 */
function notJson(v: unknown, depth = 0): string | undefined {
  if (typeof v === "string") {
    const at = v.search(/\p{Cs}/u);
    if (at < 0) return undefined;
    // A lone leading one is an error at what follows: another `\u` escape, or anything else.
    const next = v.charCodeAt(at + 1);
    const escaped = next >= 0xd800 ? next <= 0xdfff : next < 0x20 && !"\b\f\n\r\t".includes(v[at + 1]!);
    return v.charCodeAt(at) < 0xdc00 && !escaped ? "unexpected end of hex escape" : "lone leading surrogate in hex escape";
  }
  if (v === null || typeof v !== "object") return undefined;
  if (depth === 127) return "recursion limit exceeded";
  for (const [k, x] of Array.isArray(v) ? v.map((x) => ["", x] as const) : Object.entries(v)) {
    const e = notJson(k) ?? notJson(x, depth + 1);
    if (e) return e;
  }
  return undefined;
}

/**
 * The first number (depth-first, keys in Rust's order) whose JSON text a double does not hold
 * exactly: an integer beyond 2^53 that JavaScript writes rounded (2^60 as 1152921504606847000).
 */
function inexactNumber(v: unknown, ordered = false): string | undefined {
  if (typeof v === "number") {
    const n = Math.abs(v) > 2 ** 53 ? rustNumber(v) : undefined;
    return n?.int && BigInt(n.text) !== BigInt(v) ? n.text : undefined;
  }
  if (v === null || typeof v !== "object") return undefined;
  for (const x of Array.isArray(v) ? v : (ordered ? rustKeys(v) : Object.keys(v)).map((k) => (v as Obj)[k])) {
    const found = inexactNumber(x, ordered);
    // Found in some order: the first one in Rust's order is what the message names.
    if (found !== undefined) return ordered ? found : inexactNumber(v, true);
  }
  return undefined;
}

/**
 * serde's reading of a manifest into the typed Rust model, as a checker: the first error in
 * serde's order (members in key order, then missing fields in declaration order), and whether the
 * value would not come back as itself (`shapeDiffers`: an absent optional field, a struct written
 * as an array), which the Rust verifier refuses after reading.
 */
function shape(manifest: Obj): { error: string | null; shapeDiffers: boolean } {
  let shapeDiffers = false;
  const any: De = () => null;
  const type = (v: unknown, expected: string) => `invalid type: ${unexpected(v)}, expected ${expected}`;
  const str: De = (v) => (typeof v === "string" ? null : type(v, "a string"));
  const bool: De = (v) => (typeof v === "boolean" ? null : type(v, "a boolean"));
  const int = (ty: string): De => (v) => checkInteger(v, ty);
  const map: De = (v) => (isPlainObject(v) ? null : type(v, "a map"));
  const first = (items: unknown[], de: De) => items.reduce<string | null>((e, x) => e ?? de(x), null);
  const seq =
    (de: De): De =>
    (v) =>
      Array.isArray(v) ? first(v, de) : type(v, "a sequence");
  const mapOf =
    (de: De): De =>
    (v) =>
      isPlainObject(v) ? first(rustKeys(v).map((k) => v[k]), de) : type(v, "a map");
  const variant = (names: readonly string[], v: string) => (names.includes(v) ? null : `unknown variant \`${v}\`, expected ${oneOf(names)}`);
  const unitEnum =
    (names: readonly string[]): De =>
    (v) => {
      if (typeof v === "string") return variant(names, v);
      if (!isPlainObject(v)) return type(v, "string or map");
      const keys = Object.keys(v);
      if (keys.length !== 1) return "invalid value: map, expected map with a single key";
      const e = variant(names, keys[0]!) ?? (v[keys[0]!] === null ? null : type(v[keys[0]!], "unit"));
      shapeDiffers ||= e === null;
      return e;
    };
  /**
   * Fields in declaration order; a `?` suffix marks an Option (absent reads as null). serde also
   * reads a struct from an array, positionally (`buffered`: inside a contract, which serde reads
   * from its buffer, whose word for extra elements differs); it then does not come back the same.
   */
  const struct =
    (name: string, fields: [string, De][], buffered = false): De =>
    (v) => {
      if (Array.isArray(v)) {
        const n = fields.length;
        for (let i = 0; i < n; i++) {
          const e = i < v.length ? fields[i]![1](v[i]) : `invalid length ${i}, expected ${name} with ${n} elements`;
          if (e) return e;
        }
        if (v.length > n) return `invalid length ${v.length}, expected ${buffered ? `${n} elements in sequence` : "fewer elements in array"}`;
        return ((shapeDiffers = true), null);
      }
      if (!isPlainObject(v)) return type(v, name);
      const names = fields.map(([f]) => f.replace("?", ""));
      for (const k of rustKeys(v)) {
        const i = names.indexOf(k);
        if (i < 0) return `unknown field \`${k}\`, expected ${oneOf(names)}`;
        const e = fields[i]![1](v[k]);
        if (e) return e;
      }
      for (const [f] of fields) {
        const k = f.replace("?", "");
        if (Object.hasOwn(v, k)) continue;
        if (k === f) return `missing field \`${k}\``;
        shapeDiffers = true;
      }
      return null;
    };
  const effect = unitEnum(EFFECTS);
  const confirmation = unitEnum(CONFIRMATIONS);
  const audit = unitEnum(AUDITS);
  const u32 = int("u32");
  const source = struct(
    "struct SourceLocation",
    [
      ["file", str],
      ["line", u32],
      ["column", u32],
    ],
    true,
  );
  const governance: [string, De][] = [
    ["effect", effect],
    ["idempotent", bool],
    ["reversible", bool],
    ["confirmation", confirmation],
    ["audit", audit],
  ];
  const component = struct("struct ComponentContract", [
    ["id", str],
    ["type", str],
    ["description", str],
    ["meta", map],
    ["origin", str],
    ["priority", int("i64")],
    ["policies", seq(any)],
    ["tags", seq(str)],
    [
      "observations",
      mapOf(
        struct(
          "struct ObservationContract",
          [
            ["description", str],
            ["outputSchema", any],
            ["meta", map],
          ],
          true,
        ),
      ),
    ],
    ["actions", mapOf(struct("struct ActionContract", [["description", str], ["inputSchema", any], ["outputSchema?", any], ...governance, ["meta", map]], true))],
    ["source", source],
    ["contractHash", str],
  ], true);
  const operation = struct("struct OperationContract", [
    ["id", str],
    ["description", str],
    ["inputSchema", any],
    ["outputSchema?", any],
    ...governance,
    ["policies", seq(any)],
    ["meta", map],
    ["tags", seq(str)],
    ["source", source],
    ["contractHash", str],
  ], true);
  /**
   * `#[serde(tag = "kind")]`: the tag is read while the members are buffered (from an array: the
   * first element), then the variant's struct from the rest.
   */
  const contract: De = (v) => {
    const array = Array.isArray(v);
    if (!array && !isPlainObject(v)) return type(v, "internally tagged enum ManifestContract");
    if (array ? v.length === 0 : !Object.hasOwn(v, "kind")) return "missing field `kind`";
    const kind = array ? v[0] : v.kind;
    if (typeof kind !== "string") return type(kind, "variant identifier");
    const e = variant(["component", "procedure", "external-tool"], kind);
    if (e) return e;
    const { kind: _, ...rest } = v as Obj;
    return (kind === "component" ? component : operation)(array ? v.slice(1) : rest);
  };
  const error = struct("struct CapabilityContractManifest", [
    ["formatVersion", u32],
    [
      "generator",
      struct("struct Generator", [
        ["name", str],
        ["version", str],
      ]),
    ],
    [
      "completeness",
      struct("struct Completeness", [
        ["status", unitEnum(["complete", "incomplete"])],
        ["contracts", u32],
        ["failed", u32],
      ]),
    ],
    ["contracts", seq(contract)],
    ["manifestHash", str],
  ])(manifest);
  return { error, shapeDiffers };
}

function refuse(kind: CapabilityAuthorityErrorKind, message: string, details?: Obj): never {
  throw new CapabilityAuthorityError(kind, message, details);
}

const malformed = (why: string): never => refuse("malformed", `the manifest does not match the CapabilityContractManifest format: ${why}`);

/**
 * Verifies a CapabilityContractManifest (a JSON value, read once into a private copy) against
 * `limits`, and returns the copy deeply frozen with its contracts by id. Throws
 * CapabilityAuthorityError with the Rust verifier's `kind`, message and `contract`; values that
 * are not JSON (functions, cycles, NaN...) are `malformed`.
 */
export function verifyManifest(value: unknown, limits: Readonly<AgentSurfaceLimits> = DEFAULT_LIMITS): VerifiedManifest {
  let copy: unknown;
  try {
    copy = jsonCopy(value);
  } catch (e) {
    malformed((e as Error).message);
  }
  const unreadable = notJson(copy);
  if (unreadable) refuse("not-json", `the manifest is not JSON: ${unreadable}`);
  if (!isPlainObject(copy)) return malformed("the manifest must be a JSON object");
  const m = copy;
  if (m.formatVersion !== 1) {
    const found = Object.hasOwn(m, "formatVersion") ? m.formatVersion : undefined;
    refuse(
      "unsupported-format-version",
      `unsupported manifest formatVersion ${found === undefined ? "None" : `Some(${debugValue(found)})`} (this runtime reads 1)`,
      { found: found ?? null },
    );
  }
  const inexact = inexactNumber(m);
  if (inexact !== undefined) {
    malformed(`the number ${inexact} cannot be represented exactly as a double (as JavaScript and the canonical form read it), so the hashes cannot pin it`);
  }
  const { error, shapeDiffers } = shape(m);
  if (error) malformed(error);
  if (shapeDiffers) malformed("the manifest is not in the canonical CapabilityContractManifest shape (e.g. an object written as an array)");
  const manifest = m as unknown as CapabilityContractManifest;
  const { completeness, contracts } = manifest;
  if (completeness.status !== "complete" || completeness.failed > 0) {
    refuse("incomplete", `the manifest is incomplete (${completeness.failed} contract(s) failed to compile): fix the compile errors first`, {
      failed: completeness.failed,
    });
  }
  if (completeness.contracts !== contracts.length) {
    refuse("count-mismatch", `completeness.contracts says ${completeness.contracts} but the manifest holds ${contracts.length} contracts`, {
      declared: completeness.contracts,
      actual: contracts.length,
    });
  }
  const hashes = manifestHashes(manifest);
  for (const [i, c] of contracts.entries()) {
    const expected = hashes.contracts[i]!;
    if (c.contractHash !== expected) {
      refuse("contract-hash-mismatch", `contractHash of "${c.id}" does not match its contents (expected ${expected}, found ${c.contractHash})`, {
        contract: c.id,
        expected,
        found: c.contractHash,
      });
    }
  }
  const byId = new Map<string, ManifestContract>();
  let previous: string | undefined;
  for (const c of contracts) {
    if (byId.has(c.id)) refuse("duplicate-id", `contract id "${c.id}" is declared twice`, { contract: c.id });
    byId.set(c.id, c);
    // Order carries no meaning, but the compiler always sorts: anything else was edited.
    if (previous !== undefined && previous > c.id) {
      refuse("not-sorted", `contracts are not sorted by id: "${c.id}" comes after "${previous}"`, { contract: c.id, previous });
    }
    previous = c.id;
  }
  const expected = hashes.manifest;
  if (manifest.manifestHash !== expected) {
    refuse("manifest-hash-mismatch", `manifestHash does not match the manifest (expected ${expected}, found ${manifest.manifestHash})`, {
      expected,
      found: manifest.manifestHash,
    });
  }
  for (const c of contracts) {
    const v = validateContract(c, limits)[0];
    if (v) {
      refuse("invalid-contract", `contract "${c.id}" is not a valid definition at ${v.pointer}: ${v.message}`, {
        contract: c.id,
        pointer: v.pointer,
        detail: v.message,
      });
    }
  }
  return Object.freeze({ manifest: deepFreeze(manifest), contracts: byId, limits });
}
