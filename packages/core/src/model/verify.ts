// Manifest verification (crates/model/src/verify.rs, what the Rust CapabilityAuthority runs):
// what its JSON parser refuses, the format version, exact numbers, the exact CapabilityContractManifest shape, completeness,
// every contractHash, unique and sorted ids, the manifestHash, and every contract a valid
// definition. The first refusal wins, in that order, with the Rust kind, message and contract.

import { CapabilityAuthorityError } from "../errors.js";
import type { AgentSurfaceLimits, CapabilityAuthorityErrorKind, CapabilityContractManifest, ManifestContract } from "../types.js";
import { AUDITS, CONFIRMATIONS, EFFECTS } from "./effects.js";
import { appendPointer, checkInteger, debugString, deepFreeze, isPlainObject, jsonCopy, rustFloat, rustKeys, rustNumber } from "./json.js";
import { DEFAULT_LIMITS } from "./limits.js";
import { manifestHashes } from "./manifest-hash.js";
import { firstViolation } from "./rules.js";

/** A manifest that passed every check: a deeply frozen copy, and its contracts by id. */
export interface VerifiedManifest {
  readonly manifest: CapabilityContractManifest;
  readonly contracts: ReadonlyMap<string, ManifestContract>;
  /** The limits every contract was verified against. */
  readonly limits: Readonly<AgentSurfaceLimits>;
}

type Obj = Record<string, unknown>;

/** The manifest format this runtime reads (crates/model FORMAT_VERSION). Format 2 has no `source` in contracts. */
export const FORMAT_VERSION = 2;

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

/** A shape: a scalar type's letter, `[shape]` (a sequence), a struct (its fields, all required), or a check. */
type Shape = string | Shape[] | { [field: string]: Shape } | ((v: unknown, at: string) => string | null);

/** What each scalar letter accepts, and its name: u32, i64, string, boolean, map (object), any. */
const SCALARS: Record<string, [(v: unknown) => boolean, string?]> = {
  u: [(v) => checkInteger(v, "u32") === null, "a u32"],
  i: [(v) => checkInteger(v, "i64") === null, "an i64"],
  s: [(v) => typeof v === "string", "a string"],
  b: [(v) => typeof v === "boolean", "a boolean"],
  m: [isPlainObject, "a map"],
  a: [() => true],
};

const mismatch = (at: string, what: string) => `${what} at ${at || "the root"}`;

const unit =
  (names: readonly string[]): Shape =>
  (v, at) =>
    names.includes(v as string) ? null : mismatch(at, `expected one of ${names.join(", ")}`);

const GOVERNANCE: Record<string, Shape> = { effect: unit(EFFECTS), idempotent: "b", reversible: "b", confirmation: unit(CONFIRMATIONS), audit: unit(AUDITS) };
const CONTRACT: Record<string, Shape> = { kind: "a", id: "s", description: "s", meta: "m", policies: ["a"], tags: ["s"], contractHash: "s" };
const OPERATION: Shape = { ...CONTRACT, ...GOVERNANCE, inputSchema: "a", outputSchema: "a" };
/** Every value of a map (capabilities by name) has `shape`. */
const values =
  (shape: Shape): Shape =>
  (v, at) =>
    isPlainObject(v) ? first(Object.keys(v), (k) => shapeError(v[k], shape, appendPointer(at, k))) : mismatch(at, "expected a map");
const COMPONENT: Shape = {
  ...CONTRACT,
  type: "s",
  origin: "s",
  priority: "i",
  observations: values({ description: "s", outputSchema: "a", meta: "m" }),
  actions: values({ description: "s", inputSchema: "a", outputSchema: "a", ...GOVERNANCE, meta: "m" }),
};
const MANIFEST: Shape = {
  formatVersion: "u",
  generator: { name: "s", version: "s" },
  completeness: { status: unit(["complete", "incomplete"]), contracts: "u", failed: "u" },
  contracts: [(v, at) => (isPlainObject(v) && (v.kind === "component" || v.kind === "procedure" || v.kind === "external-tool") ? shapeError(v, v.kind === "component" ? COMPONENT : OPERATION, at) : mismatch(at, "expected a contract of kind component, procedure or external-tool"))],
  manifestHash: "s",
};

const first = <T>(items: readonly T[], f: (x: T, i: number) => string | null): string | null => {
  for (let i = 0; i < items.length; i++) {
    const e = f(items[i]!, i);
    if (e) return e;
  }
  return null;
};

/**
 * Where `v` departs from the exact shape the Rust model writes back (every field present, no
 * other field, objects as objects, enum variants as strings): what serde refuses, or reads into
 * something that would not come back as itself. null when it has that shape.
 */
function shapeError(v: unknown, shape: Shape, at: string): string | null {
  if (typeof shape === "function") return shape(v, at);
  if (typeof shape === "string") {
    const [ok, name] = SCALARS[shape]!;
    return ok(v) ? null : mismatch(at, `expected ${name}`);
  }
  if (Array.isArray(shape)) return Array.isArray(v) ? first(v, (x, i) => shapeError(x, shape[0]!, appendPointer(at, i))) : mismatch(at, "expected a sequence");
  if (!isPlainObject(v)) return mismatch(at, "expected an object");
  return (
    first(Object.keys(v), (k) => (Object.hasOwn(shape, k) ? shapeError(v[k], shape[k]!, appendPointer(at, k)) : mismatch(at, `unknown field \`${k}\``))) ??
    first(Object.keys(shape), (k) => (Object.hasOwn(v, k) ? null : mismatch(at, `missing field \`${k}\``)))
  );
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
  if (m.formatVersion !== FORMAT_VERSION) {
    const found = Object.hasOwn(m, "formatVersion") ? m.formatVersion : undefined;
    refuse(
      "unsupported-format-version",
      `unsupported manifest formatVersion ${found === undefined ? "None" : `Some(${debugValue(found)})`} (this runtime reads ${FORMAT_VERSION})`,
      { found: found ?? null },
    );
  }
  const inexact = inexactNumber(m);
  if (inexact !== undefined) {
    malformed(`the number ${inexact} cannot be represented exactly as a double (as JavaScript and the canonical form read it), so the hashes cannot pin it`);
  }
  const error = shapeError(m, MANIFEST, "");
  if (error) malformed(error);
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
    const v = firstViolation(c, limits);
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
