// createCapabilityAuthority: the engine's CapabilityAuthority (crates/engine/src/authority.rs,
// through the wasm) verifies the manifest; this module keeps what must be JavaScript: the brand
// (a module-private WeakMap of the objects it minted) and the deeply frozen private copy.

import { Authority, engineError } from "./engine.js";
import { CapabilityAuthorityError } from "./errors.js";
import { deepFreeze, jsonText } from "./json.js";
import type { CapabilityAuthority, CapabilityAuthorityErrorKind, CapabilityContractManifest, ManifestContract } from "./types.js";

/**
 * Objects minted by createCapabilityAuthority -> the engine's verified authority (freed with
 * them). Module-private: nothing else can add to it.
 */
const minted = new WeakMap<object, Authority>();

function fail(kind: CapabilityAuthorityErrorKind, message: string, details?: Record<string, unknown>): never {
  throw new CapabilityAuthorityError(kind, message, details);
}

/**
 * Verifies a CapabilityContractManifest (a parsed JSON value) with the engine, exactly as the
 * Rust runtime's `CapabilityAuthority::from_json_str` does with the value's JSON text, then
 * returns a frozen authority whose `manifest` is a deeply frozen copy. Throws
 * CapabilityAuthorityError (`kind` and `contract` are the engine's).
 */
export function createCapabilityAuthority(manifest: unknown): CapabilityAuthority {
  // The value is read once, into text: getters, proxies or later mutation of the caller's object
  // cannot change what was verified, and the copy below is parsed from the same text.
  let text: string;
  try {
    text = jsonText(manifest);
  } catch (e) {
    fail("malformed", `the manifest does not match the CapabilityContractManifest format: ${(e as Error).message}`);
  }
  let engine: Authority;
  try {
    engine = new Authority(text);
  } catch (thrown) {
    const e = engineError(thrown);
    fail(e.kind as CapabilityAuthorityErrorKind, e.message, { ...e.details, contract: e.contract });
  }
  const m = deepFreeze(JSON.parse(text) as CapabilityContractManifest);
  const byId = new Map<string, ManifestContract>(m.contracts.map((c) => [c.id, c]));
  const authority = Object.freeze({
    manifest: m,
    /** The verified, frozen contract JSON with this id, or undefined. */
    contract(id: string): ManifestContract | undefined {
      return byId.get(id);
    },
  });
  minted.set(authority, engine);
  // The brand is a type-level symbol only; the WeakMap above is what makes an authority genuine.
  return authority as unknown as CapabilityAuthority;
}

/** Whether `value` was minted by createCapabilityAuthority of this module instance. */
export function isCapabilityAuthority(value: unknown): value is CapabilityAuthority {
  return typeof value === "object" && value !== null && minted.has(value);
}

/** Throws unless `authority` was minted by createCapabilityAuthority of this module instance. */
export function assertCapabilityAuthority(authority: unknown): asserts authority is CapabilityAuthority {
  if (!isCapabilityAuthority(authority)) {
    fail("not-an-authority", "not a CapabilityAuthority: only objects returned by createCapabilityAuthority are accepted");
  }
}

/** @internal
 * The engine's verified authority behind a minted object, for the registry and the gateway of
 * this package (internal: not exported from the package root).
 */
export function engineAuthority(authority: unknown, who: string): Authority {
  const engine = typeof authority === "object" && authority !== null ? minted.get(authority) : undefined;
  if (!engine) {
    fail(
      "not-an-authority",
      `${who}: not a CapabilityAuthority: only objects returned by createCapabilityAuthority (or virtual:agent-surface/authority) are accepted`,
    );
  }
  return engine;
}
