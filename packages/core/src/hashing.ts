// canonicalJson and blake3Hex for the package root. A module of its own so that the public
// declarations (dist/index.d.ts -> dist/hashing.d.ts) never import the wasm glue's types.

import { blake3Hex as engineBlake3Hex, canonicalJson as engineCanonicalJson } from "./engine.js";

/** RFC 8785 canonical JSON (keys by UTF-16 code units, ECMAScript numbers, JSON.stringify strings). Throws TypeError on non-JSON values. */
export function canonicalJson(value: unknown): string {
  return engineCanonicalJson(value);
}

/** `"blake3:" + 64 hex` of blake3 over the UTF-8 bytes of canonicalJson(value). */
export function blake3Hex(value: unknown): string {
  return engineBlake3Hex(value);
}
