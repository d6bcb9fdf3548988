// contractHash and manifestHash (DECISIONS §4, crates/model/src/manifest/hashing.rs): blake3 of
// the canonical JSON of a contract without `source` and `contractHash` (moving code does not
// change it), and of the manifest without its own `manifestHash`.

import { blake3Hex } from "./hash.js";

/** The hash a manifest contract (JSON, with `kind`) should carry. */
export function contractHash(contract: object): string {
  const { source: _s, contractHash: _h, ...rest } = contract as Record<string, unknown>;
  return blake3Hex(rest);
}

/** The hash a manifest document should carry. */
export function manifestHash(manifest: object): string {
  const { manifestHash: _h, ...rest } = manifest as Record<string, unknown>;
  return blake3Hex(rest);
}
