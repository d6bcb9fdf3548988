// createCapabilityAuthority: the manifest verified by the TypeScript model (./model/verify.ts, the
// same checks, kinds and messages as the Rust runtime's CapabilityAuthority), as a frozen object
// whose genuineness is a module-private WeakMap of the objects this module minted.

import { CapabilityAuthorityError } from "./errors.js";
import { verifyManifest, type VerifiedManifest } from "./model/verify.js";
import type { CapabilityAuthority, ManifestContract } from "./types.js";

/** Objects minted by createCapabilityAuthority -> their verified manifest. Module-private: nothing else can add to it. */
const minted = new WeakMap<object, VerifiedManifest>();

/**
 * Verifies a CapabilityContractManifest (a parsed JSON value, read once into a private copy)
 * exactly as the Rust runtime's `CapabilityAuthority` does, then returns a frozen authority whose
 * `manifest` is the deeply frozen copy. Throws CapabilityAuthorityError (`kind`, `contract` and
 * message as the Rust runtime's).
 */
export function createCapabilityAuthority(manifest: unknown): CapabilityAuthority {
  const verified = verifyManifest(manifest);
  const byId = verified.contracts;
  const authority = Object.freeze({
    manifest: verified.manifest,
    /** The verified, frozen contract JSON with this id, or undefined. */
    contract(id: string): ManifestContract | undefined {
      return byId.get(id);
    },
  });
  minted.set(authority, verified);
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
    throw new CapabilityAuthorityError("not-an-authority", "not a CapabilityAuthority: only objects returned by createCapabilityAuthority are accepted");
  }
}

/** @internal
 * The verified manifest behind a minted authority, for the registry and the gateway of this
 * package (not exported from the package root). Anything else is refused with a
 * CapabilityAuthorityError `not-an-authority` (prefixed by `who`, the refusing API).
 */
export function verifiedOf(authority: unknown, who = "createAgentSurfaceRegistry"): VerifiedManifest {
  const verified = typeof authority === "object" && authority !== null ? minted.get(authority) : undefined;
  if (!verified) {
    throw new CapabilityAuthorityError(
      "not-an-authority",
      `${who}: not a CapabilityAuthority: only objects returned by createCapabilityAuthority (or virtual:agent-surface/authority) are accepted`,
    );
  }
  return verified;
}
