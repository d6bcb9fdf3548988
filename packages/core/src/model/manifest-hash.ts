// contractHash and manifestHash (DECISIONS §4, crates/model/src/manifest/hashing.rs): blake3 of
// the canonical JSON of a contract without its `contractHash`, and of the manifest without its
// own `manifestHash`. Format 2 manifests hold no source locations (they are in the locations
// sidecar), so moving code changes neither hash.

import { canonicalText } from "./canonical.js";
import { blake3Hex, blake3HexOfText } from "./hash.js";

/** The hash a manifest contract (JSON, with `kind`) should carry. */
export function contractHash(contract: object): string {
  const { contractHash: _h, ...rest } = contract as Record<string, unknown>;
  return blake3Hex(rest);
}

/** The hash a manifest document should carry. */
export function manifestHash(manifest: object): string {
  const { manifestHash: _h, ...rest } = manifest as Record<string, unknown>;
  return blake3Hex(rest);
}

/**
 * The contractHash each contract of a well-shaped manifest should carry, and its manifestHash,
 * with every contract serialized once (its members' texts serve both hashes).
 */
export function manifestHashes(manifest: { contracts: readonly object[] }): { contracts: string[]; manifest: string } {
  const member = (o: Record<string, unknown>, k: string) => `${JSON.stringify(k)}:${canonicalText(o[k])}`;
  const sortedKeys = (o: object) => Object.keys(o).filter((k) => (o as Record<string, unknown>)[k] !== undefined).sort();
  const contracts: string[] = [];
  const texts = manifest.contracts.map((c) => {
    const o = c as Record<string, unknown>;
    const keys = sortedKeys(o);
    const members = keys.map((k) => member(o, k));
    contracts.push(blake3HexOfText(`{${members.filter((_, i) => keys[i] !== "contractHash").join(",")}}`));
    return `{${members.join(",")}}`;
  });
  const m = manifest as unknown as Record<string, unknown>;
  const text = sortedKeys(m)
    .filter((k) => k !== "manifestHash")
    .map((k) => (k === "contracts" ? `"contracts":[${texts.join(",")}]` : member(m, k)))
    .join(",");
  return { contracts, manifest: blake3HexOfText(`{${text}}`) };
}
