// Hashes over canonical JSON (crates/model/src/canonical.rs), the request fingerprint of dedupe
// (crates/engine/src/invoke/request.rs) and the base32 digest suffix of wire names
// (crates/engine/src/expose/catalog.rs `wire_name`).

import { canonicalJson } from "./canonical.js";

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

const IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
/** (a, b, c, d) of the 8 G steps of a round: the four columns, then the four diagonals. */
const G = [0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 5, 10, 15, 1, 6, 11, 12, 2, 7, 8, 13, 3, 4, 9, 14];
/** The message word each of the 7 rounds' 16 G inputs reads (the permutation applied round by round), built on first use. */
let schedule: number[] | undefined;
/** The compression state, the message block and its bytes (the page is single-threaded; nothing re-enters). */
const v = new Uint32Array(16);
const m = new Uint32Array(16);
const block = new Uint8Array(64);
const words = new DataView(block.buffer);

/**
 * BLAKE3's compression function over the block in `m`, truncated to the chaining value: `cv`,
 * chunk counter `t`, block length and flags (CHUNK_START 1, CHUNK_END 2, PARENT 4, ROOT 8).
 */
function compress(cv: readonly number[], t: number, len: number, flags: number): number[] {
  if (!schedule) {
    schedule = [];
    for (let r = 0, p = [...Array(16).keys()]; r < 7; r++, p = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8].map((j) => p[j]!)) schedule.push(...p);
  }
  for (let i = 0; i < 8; i++) v[i] = cv[i]!;
  for (let i = 0; i < 4; i++) v[8 + i] = IV[i]!;
  v[12] = t;
  v[13] = 0;
  v[14] = len;
  v[15] = flags;
  for (let k = 0; k < 112; k += 2) {
    const q = (k & 15) << 1;
    const a = G[q]!;
    const b = G[q + 1]!;
    const c = G[q + 2]!;
    const d = G[q + 3]!;
    let x = v[d]! ^ (v[a]! += v[b]! + m[schedule[k]!]!);
    v[d] = (x >>> 16) | (x << 16);
    x = v[b]! ^ (v[c]! += v[d]!);
    v[b] = (x >>> 12) | (x << 20);
    x = v[d]! ^ (v[a]! += v[b]! + m[schedule[k + 1]!]!);
    v[d] = (x >>> 8) | (x << 24);
    x = v[b]! ^ (v[c]! += v[d]!);
    v[b] = (x >>> 7) | (x << 25);
  }
  return cv.map((_, i) => v[i]! ^ v[i + 8]!);
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
    block.fill(0);
    block.set(bytes.subarray(at, at + len));
    for (let i = 0; i < 16; i++) m[i] = words.getUint32(4 * i, true);
    at += len;
    cv = compress(cv, start / 1024, len, flags | (at < end ? 0 : 2 | root));
    flags = 0;
  } while (at < end);
  return cv;
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
