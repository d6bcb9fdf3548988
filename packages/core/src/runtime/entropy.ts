// Random ids (crates/engine/src/host/entropy.rs): base62 from crypto.getRandomValues, by
// rejection sampling (bytes ≥ 248 are dropped, so every character is equally likely), from a
// pool refilled 512 bytes at a time.

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const pool = new Uint8Array(512);
let at = pool.length;

/** `n` random base62 characters. */
export function base62(n: number): string {
  let out = "";
  while (out.length < n) {
    if (at === pool.length) {
      crypto.getRandomValues(pool);
      at = 0;
    }
    const b = pool[at]!;
    pool[at++] = 0;
    if (b < 248) out += BASE62[b % 62];
  }
  return out;
}

/** `prefix` + `n` random base62 characters ("srf_", "inv_", "cnf_" …). */
export function randomId(prefix: string, n: number): string {
  return prefix + base62(n);
}
