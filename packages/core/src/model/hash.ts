// Hashes over canonical JSON (crates/model/src/canonical.rs), the request fingerprint of dedupe
// (crates/engine/src/invoke/request.rs) and the base32 digest suffix of wire names
// (crates/engine/src/expose/catalog.rs `wire_name`).

import { blake3 } from "@noble/hashes/blake3.js";
import { canonicalJson } from "./canonical.js";

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** `"blake3:" + 64 lowercase hex` of blake3 over the UTF-8 bytes of already-canonical text. */
export function blake3HexOfText(canonical: string): string {
  let hex = "blake3:";
  for (const b of blake3(utf8(canonical))) hex += (b < 16 ? "0" : "") + b.toString(16);
  return hex;
}

/** `"blake3:" + 64 lowercase hex` of blake3 over the UTF-8 bytes of canonicalJson(value). */
export const blake3Hex = (value: unknown): string => blake3HexOfText(canonicalJson(value));

/**
 * `n` characters of `a-z2-7` base32 of blake3 over the UTF-8 of `text`: the digest read as a
 * little-endian integer, 5 bits at a time from the low end (`wire_name`'s suffix, n = 8).
 */
export function blake3Base32(text: string, n: number): string {
  const digest = blake3(utf8(text));
  let out = "";
  for (let i = 0, acc = 0, bits = 0; out.length < n; acc >>>= 5, bits -= 5) {
    for (; bits < 5; bits += 8) acc |= digest[i++]! << bits;
    out += "abcdefghijklmnopqrstuvwxyz234567"[acc & 31];
  }
  return out;
}

/** FNV-1a 64 over the UTF-8 bytes of `text`, as 16 lowercase hex digits. */
export function fnv1a64(text: string): string {
  // The 64-bit state as two 32-bit halves; the prime is 2^40 + 0x1b3.
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (const b of utf8(text)) {
    lo = (lo ^ b) >>> 0;
    const low = lo * 0x1b3;
    hi = (hi * 0x1b3 + (lo & 0xffffff) * 256 + Math.floor(low / 2 ** 32)) >>> 0;
    lo = low >>> 0;
  }
  return hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0");
}

/** What a request fingerprint covers: the invocation as issued (`AgentInvocation` fields). */
export interface FingerprintedRequest {
  capabilityId: string;
  registrationId?: string | null;
  instanceId?: string | null;
  surfaceVersion?: string | null;
  confirmationId?: string | null;
  input?: unknown;
}

/**
 * FNV-1a 64 of the canonical JSON of the request as issued (`capabilityId`, and those of
 * `registrationId`, `instanceId`, `surfaceVersion`, `confirmationId` and `input` that are present;
 * `null` counts as absent, as the Rust wire types read it). Dedupe compares these.
 */
export function fingerprint(inv: FingerprintedRequest): string {
  const m: Record<string, unknown> = { capabilityId: inv.capabilityId };
  for (const k of ["registrationId", "instanceId", "surfaceVersion", "confirmationId", "input"] as const) {
    if (inv[k] != null) m[k] = inv[k];
  }
  return fnv1a64(canonicalJson(m));
}
