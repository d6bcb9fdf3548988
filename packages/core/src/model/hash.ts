// Hashes over canonical JSON (crates/model/src/canonical.rs), the request fingerprint of dedupe
// (crates/engine/src/invoke/request.rs) and the base32 digest suffix of wire names
// (crates/engine/src/expose/catalog.rs `wire_name`).

import { canonicalJson } from "./canonical.js";

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** True where a Uint32Array reads bytes little-endian, as BLAKE3 does (every browser's CPU). */
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/**
 * BLAKE3's compression of `count` consecutive 64-byte blocks of `words` from word `at` (one
 * chunk's blocks, or one parent's) into the chaining value `cv`: chunk counter `t`, the first
 * block's `flags` (CHUNK_START 1 or PARENT 4), the last block's length `len` and extra flags
 * `last` (CHUNK_END 2, ROOT 8). A page verifies its manifest cold, so this is written for the
 * interpreter and the first JIT tiers: state and message in locals, a round written out with the
 * message permutation applied between rounds, and a whole chunk per call, so the loop over its
 * blocks tiers up on the stack (OSR) instead of waiting for hundreds of calls.
 */
function compress(cv: readonly number[], words: Uint32Array, at: number, count: number, t: number, flags: number, len: number, last: number): number[] {
  let h0 = cv[0]!, h1 = cv[1]!, h2 = cv[2]!, h3 = cv[3]!, h4 = cv[4]!, h5 = cv[5]!, h6 = cv[6]!, h7 = cv[7]!;
  for (let b = 1; b <= count; b++, at += 16, flags = 0) {
    let m0 = words[at]!, m1 = words[at + 1]!, m2 = words[at + 2]!, m3 = words[at + 3]!, m4 = words[at + 4]!, m5 = words[at + 5]!, m6 = words[at + 6]!, m7 = words[at + 7]!;
    let m8 = words[at + 8]!, m9 = words[at + 9]!, m10 = words[at + 10]!, m11 = words[at + 11]!, m12 = words[at + 12]!, m13 = words[at + 13]!, m14 = words[at + 14]!, m15 = words[at + 15]!;
    let v0 = h0, v1 = h1, v2 = h2, v3 = h3, v4 = h4, v5 = h5, v6 = h6, v7 = h7;
    let v8 = 0x6a09e667, v9 = 0xbb67ae85 | 0, v10 = 0x3c6ef372, v11 = 0xa54ff53a | 0;
    let v12 = t, v13 = 0, v14 = b < count ? 64 : len, v15 = b < count ? flags : flags | last;
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
    h0 = v0 ^ v8; h1 = v1 ^ v9; h2 = v2 ^ v10; h3 = v3 ^ v11; h4 = v4 ^ v12; h5 = v5 ^ v13; h6 = v6 ^ v14; h7 = v7 ^ v15;
  }
  return [h0, h1, h2, h3, h4, h5, h6, h7];
}

/** As signed 32-bit integers, like every word of the state (the JIT keeps them untagged). */
const IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19].map((w) => w | 0);
/** A parent's block: the left and the right child's chaining values. */
const parentBlock = new Uint32Array(16);

/**
 * The chaining value of bytes `[start, end)` of the input, whose little-endian words are `words`
 * (zero past the input's end), `root` 8 for the whole input, else 0: one chunk of at most 1024
 * bytes, or the parent of a left subtree of the largest power of two chunks that leaves the right
 * one at least a byte.
 */
function node(words: Uint32Array, start: number, end: number, root: number): number[] {
  if (end - start > 1024) {
    let left = 1024;
    while (2 * left < end - start) left *= 2;
    const l = node(words, start, start + left, 0);
    parentBlock.set(node(words, start + left, end, 0), 8);
    parentBlock.set(l);
    return compress(IV, parentBlock, 0, 1, 0, 4, 64, root);
  }
  const blocks = Math.max(1, Math.ceil((end - start) / 64));
  return compress(IV, words, start / 4, blocks, start / 1024, 1, end - start - 64 * (blocks - 1), 2 | root);
}

/**
 * BLAKE3 of `length` bytes held in `buffer`, which is zero from `length` to its end, a multiple of
 * 64 bytes long: read as little-endian words in place (byte-swapped on a big-endian machine).
 */
function digest(buffer: Uint8Array, length: number): number[] {
  if (!LITTLE_ENDIAN) for (let i = 0; i < buffer.length; i += 4) buffer.subarray(i, i + 4).reverse();
  return node(new Uint32Array(buffer.buffer, buffer.byteOffset, buffer.length / 4), 0, length, 8).flatMap((w) => [w & 255, (w >>> 8) & 255, (w >>> 16) & 255, w >>> 24]);
}

/** A zeroed buffer for `n` bytes, rounded up to whole blocks (at least one). */
const blockBuffer = (n: number): Uint8Array => new Uint8Array(Math.max(64, Math.ceil(n / 64) * 64));

/** The 32-byte BLAKE3 digest of `bytes`. */
export function blake3(bytes: Uint8Array): number[] {
  const buffer = blockBuffer(bytes.length);
  buffer.set(bytes);
  return digest(buffer, bytes.length);
}

/** BLAKE3 of the UTF-8 bytes of `text`, encoded straight into a block buffer. */
function blake3OfText(text: string): number[] {
  // UTF-8 takes at most 3 bytes per UTF-16 code unit.
  const buffer = blockBuffer(text.length * 3);
  return digest(buffer, new TextEncoder().encodeInto(text, buffer).written);
}

/** `"blake3:" + 64 lowercase hex` of blake3 over the UTF-8 bytes of already-canonical text. */
export function blake3HexOfText(canonical: string): string {
  let hex = "blake3:";
  for (const b of blake3OfText(canonical)) hex += (b < 16 ? "0" : "") + b.toString(16);
  return hex;
}

/** `"blake3:" + 64 lowercase hex` of blake3 over the UTF-8 bytes of canonicalJson(value). */
export const blake3Hex = (value: unknown): string => blake3HexOfText(canonicalJson(value));

/**
 * `n` characters of `a-z2-7` base32 of blake3 over the UTF-8 of `text`: the digest read as a
 * little-endian integer, 5 bits at a time from the low end (`wire_name`'s suffix, n = 8).
 */
export function blake3Base32(text: string, n: number): string {
  const bytes = blake3OfText(text);
  let out = "";
  for (let i = 0, acc = 0, bits = 0; out.length < n; acc >>>= 5, bits -= 5) {
    for (; bits < 5; bits += 8) acc |= bytes[i++]! << bits;
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
