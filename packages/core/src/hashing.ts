// canonicalJson and blake3Hex for the package root (the model's, ./model/canonical.ts and
// ./model/hash.ts).

import { canonicalJson as canonical } from "./model/canonical.js";
import { blake3Hex as hash } from "./model/hash.js";

/** RFC 8785 canonical JSON (keys by UTF-16 code units, ECMAScript numbers, JSON.stringify strings). Throws TypeError on non-JSON values. */
export function canonicalJson(value: unknown): string {
  return canonical(value);
}

/** `"blake3:" + 64 hex` of blake3 over the UTF-8 bytes of canonicalJson(value). */
export function blake3Hex(value: unknown): string {
  return hash(value);
}
