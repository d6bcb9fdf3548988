// Hashes over canonical JSON (crates/model/src/canonical.rs), the request fingerprint of dedupe
// (crates/engine/src/invoke/request.rs) and the base32 digest suffix of wire names
// (crates/engine/src/expose/catalog.rs `wire_name`).

import { canonicalJson } from "./canonical.js";

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

const IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
/** The message block being compressed, as 16 little-endian words (the page is single-threaded). */
const m = new Uint32Array(16);

/**
 * BLAKE3's compression function over the block in `m`, truncated to the chaining value: `cv`,
 * chunk counter `t`, block length and flags (CHUNK_START 1, CHUNK_END 2, PARENT 4, ROOT 8).
 * Written out over locals, a round at a time with the message permutation applied between rounds,
 * because a page verifies its manifest cold: the interpreter and the first JIT tier run this, and
 * locals cost them far less than indexed state (about half the instructions of a table-driven loop).
 */
function compress(cv: readonly number[], t: number, len: number, flags: number): number[] {
  let v0 = cv[0]!, v1 = cv[1]!, v2 = cv[2]!, v3 = cv[3]!, v4 = cv[4]!, v5 = cv[5]!, v6 = cv[6]!, v7 = cv[7]!;
  let v8 = IV[0]!, v9 = IV[1]!, v10 = IV[2]!, v11 = IV[3]!, v12 = t, v13 = 0, v14 = len, v15 = flags;
  let m0 = m[0]!, m1 = m[1]!, m2 = m[2]!, m3 = m[3]!, m4 = m[4]!, m5 = m[5]!, m6 = m[6]!, m7 = m[7]!;
  let m8 = m[8]!, m9 = m[9]!, m10 = m[10]!, m11 = m[11]!, m12 = m[12]!, m13 = m[13]!, m14 = m[14]!, m15 = m[15]!;
  for (let r = 0; ; ) {
    // Columns.
    v0 = (v0 + v4 + m0) | 0; v12 ^= v0; v12 = (v12 >>> 16) | (v12 << 16); v8 = (v8 + v12) | 0; v4 ^= v8; v4 = (v4 >>> 12) | (v4 << 20);
    v0 = (v0 + v4 + m1) | 0; v12 ^= v0; v12 = (v12 >>> 8) | (v12 << 24); v8 = (v8 + v12) | 0; v4 ^= v8; v4 = (v4 >>> 7) | (v4 << 25);
    v1 = (v1 + v5 + m2) | 0; v13 ^= v1; v13 = (v13 >>> 16) | (v13 << 16); v9 = (v9 + v13) | 0; v5 ^= v9; v5 = (v5 >>> 12) | (v5 << 20);
    v1 = (v1 + v5 + m3) | 0; v13 ^= v1; v13 = (v13 >>> 8) | (v13 << 24); v9 = (v9 + v13) | 0; v5 ^= v9; v5 = (v5 >>> 7) | (v5 << 25);
    v2 = (v2 + v6 + m4) | 0; v14 ^= v2; v14 = (v14 >>> 16) | (v14 << 16); v10 = (v10 + v14) | 0; v6 ^= v10; v6 = (v6 >>> 12) | (v6 << 20);
    v2 = (v2 + v6 + m5) | 0; v14 ^= v2; v14 = (v14 >>> 8) | (v14 << 24); v10 = (v10 + v14) | 0; v6 ^= v10; v6 = (v6 >>> 7) | (v6 << 25);
    v3 = (v3 + v7 + m6) | 0; v15 ^= v3; v15 = (v15 >>> 16) | (v15 << 16); v11 = (v11 + v15) | 0; v7 ^= v11; v7 = (v7 >>> 12) | (v7 << 20);
    v3 = (v3 + v7 + m7) | 0; v15 ^= v3; v15 = (v15 >>> 8) | (v15 << 24); v11 = (v11 + v15) | 0; v7 ^= v11; v7 = (v7 >>> 7) | (v7 << 25);
    // Diagonals.
    v0 = (v0 + v5 + m8) | 0; v15 ^= v0; v15 = (v15 >>> 16) | (v15 << 16); v10 = (v10 + v15) | 0; v5 ^= v10; v5 = (v5 >>> 12) | (v5 << 20);
    v0 = (v0 + v5 + m9) | 0; v15 ^= v0; v15 = (v15 >>> 8) | (v15 << 24); v10 = (v10 + v15) | 0; v5 ^= v10; v5 = (v5 >>> 7) | (v5 << 25);
    v1 = (v1 + v6 + m10) | 0; v12 ^= v1; v12 = (v12 >>> 16) | (v12 << 16); v11 = (v11 + v12) | 0; v6 ^= v11; v6 = (v6 >>> 12) | (v6 << 20);
    v1 = (v1 + v6 + m11) | 0; v12 ^= v1; v12 = (v12 >>> 8) | (v12 << 24); v11 = (v11 + v12) | 0; v6 ^= v11; v6 = (v6 >>> 7) | (v6 << 25);
    v2 = (v2 + v7 + m12) | 0; v13 ^= v2; v13 = (v13 >>> 16) | (v13 << 16); v8 = (v8 + v13) | 0; v7 ^= v8; v7 = (v7 >>> 12) | (v7 << 20);
    v2 = (v2 + v7 + m13) | 0; v13 ^= v2; v13 = (v13 >>> 8) | (v13 << 24); v8 = (v8 + v13) | 0; v7 ^= v8; v7 = (v7 >>> 7) | (v7 << 25);
    v3 = (v3 + v4 + m14) | 0; v14 ^= v3; v14 = (v14 >>> 16) | (v14 << 16); v9 = (v9 + v14) | 0; v4 ^= v9; v4 = (v4 >>> 12) | (v4 << 20);
    v3 = (v3 + v4 + m15) | 0; v14 ^= v3; v14 = (v14 >>> 8) | (v14 << 24); v9 = (v9 + v14) | 0; v4 ^= v9; v4 = (v4 >>> 7) | (v4 << 25);
    if (++r === 7) break;
    // The message permutation (2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8): two cycles of 8.
    let w = m0;
    m0 = m2; m2 = m3; m3 = m10; m10 = m12; m12 = m9; m9 = m11; m11 = m5; m5 = w;
    w = m1;
    m1 = m6; m6 = m4; m4 = m7; m7 = m13; m13 = m14; m14 = m15; m15 = m8; m8 = w;
  }
  return [v0 ^ v8, v1 ^ v9, v2 ^ v10, v3 ^ v11, v4 ^ v12, v5 ^ v13, v6 ^ v14, v7 ^ v15].map((w) => w >>> 0);
}

/**
 * The chaining value of `bytes[start..end)` (`root`: 8 for the whole input, else 0): one chunk of
 * at most 1024 bytes in 64-byte blocks, or the parent of a left subtree of the largest power of two
 * chunks that leaves the right one at least a byte.
 */
function node(bytes: Uint8Array, start: number, end: number, root: number): number[] {
  if (end - start > 1024) {
    let left = 1024;
    while (2 * left < end - start) left *= 2;
    const l = node(bytes, start, start + left, 0);
    m.set(node(bytes, start + left, end, 0), 8);
    m.set(l);
    return compress(IV, 0, 64, 4 | root);
  }
  let cv = IV;
  let flags = 1;
  let at = start;
  do {
    const len = Math.min(64, end - at);
    // Little-endian words; a short last block is zero-padded.
    for (let i = 0, b = at; i < 16; i++, b += 4) m[i] = b + 4 <= at + len ? bytes[b]! | (bytes[b + 1]! << 8) | (bytes[b + 2]! << 16) | (bytes[b + 3]! << 24) : word(bytes, b, at + len);
    at += len;
    cv = compress(cv, start / 1024, len, flags | (at < end ? 0 : 2 | root));
    flags = 0;
  } while (at < end);
  return cv;
}

/** The little-endian word at `b` of bytes that end at `end` (zero past it). */
function word(bytes: Uint8Array, b: number, end: number): number {
  let w = 0;
  for (let k = 3; k >= 0; k--) w = (w << 8) | (b + k < end ? bytes[b + k]! : 0);
  return w;
}

/** The 32-byte BLAKE3 digest of `bytes`. */
export function blake3(bytes: Uint8Array): number[] {
  return node(bytes, 0, bytes.length, 8).flatMap((w) => [w & 255, (w >>> 8) & 255, (w >>> 16) & 255, w >>> 24]);
}

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
