// createCapabilityAuthority: the engine's CapabilityAuthority (crates/engine/src/authority.rs,
// through the wasm) verifies the manifest; this module keeps what must be JavaScript: the brand
// (a module-private WeakMap of the objects it minted) and the deeply frozen private copy.

import { Authority, engineError } from "./engine.js";
import { CapabilityAuthorityError } from "./errors.js";
import { deepFreeze, jsonText } from "./json.js";

/**
 * Objects minted by createCapabilityAuthority -> the engine's verified authority (freed with
 * them). Module-private: nothing else can add to it.
 */
const minted = new WeakMap();

function fail(kind, message, details) {
  throw new CapabilityAuthorityError(kind, message, details);
}

/**
 * Verifies a CapabilityContractManifest (a parsed JSON value) with the engine, exactly as the
 * Rust runtime's `CapabilityAuthority::from_json_str` does with the value's JSON text, then
 * returns a frozen authority whose `manifest` is a deeply frozen copy. Throws
 * CapabilityAuthorityError (`kind` and `contract` are the engine's).
 */
export function createCapabilityAuthority(manifest) {
  // The value is read once, into text: getters, proxies or later mutation of the caller's object
  // cannot change what was verified, and the copy below is parsed from the same text.
  let text;
  try {
    text = jsonText(manifest);
  } catch (e) {
    fail("malformed", `the manifest does not match the CapabilityContractManifest format: ${e.message}`);
  }
  let engine;
  try {
    engine = new Authority(text);
  } catch (thrown) {
    const e = engineError(thrown);
    fail(e.kind, e.message, { ...e.details, contract: e.contract });
  }
  const m = deepFreeze(JSON.parse(text));
  const byId = new Map(m.contracts.map((c) => [c.id, c]));
  const authority = Object.freeze({
    manifest: m,
    /** The verified, frozen contract JSON with this id, or undefined. */
    contract(id) {
      return byId.get(id);
    },
  });
  minted.set(authority, engine);
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
