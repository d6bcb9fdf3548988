// Numbers and equality (crates/schema/src/validate/number.rs, equality.rs). Every JavaScript
// number is a double, so comparisons are exact as they are; `multipleOf` is decided on the
// decimal values, as the Rust validator does.

import { canonicalText } from "../model/canonical.js";

/**
 * `|n|` as `[mantissa, exponent]` (no trailing zeros in the mantissa): the exact integer for an
 * integer the JSON text writes as one that the Rust side reads as i64/u64, else the shortest
 * decimal that round-trips (the number as written).
 */
function decimal(n: number): [bigint, number] {
  let m: bigint;
  let e = 0;
  if (Number.isInteger(n) && n >= -(2 ** 63) && n < 2 ** 64) {
    m = BigInt(Math.abs(n));
  } else {
    const [digits, exp] = Math.abs(n).toExponential().split("e") as [string, string];
    const [int, frac = ""] = digits.split(".") as [string, string?];
    m = BigInt(int + frac);
    e = Number(exp) - frac.length;
  }
  if (m === 0n) return [0n, 0];
  while (m % 10n === 0n) {
    m /= 10n;
    e++;
  }
  return [m, e];
}

/** Exact: `x / by` is an integer (`by` > 0, as the subset requires). */
export function isMultipleOf(x: number, by: number): boolean {
  if (Number.isSafeInteger(x) && Number.isSafeInteger(by)) return x % by === 0;
  const [a, ea] = decimal(x);
  const [b, eb] = decimal(by);
  if (a === 0n) return true;
  if (b === 0n || ea < eb) return false;
  let r = a % b;
  for (let steps = ea - eb; steps > 0 && r !== 0n; steps--) r = (r * 10n) % b;
  return r === 0n;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** JSON Schema equality (`enum`, `const`, `uniqueItems`): objects ignore key order, `1 == 1.0`. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}

/** Indices of the first pair of equal items (the smallest later index, then the smallest earlier one). */
export function firstDuplicate(items: readonly unknown[]): [number, number] | null {
  if (items.length <= 16) {
    for (let j = 1; j < items.length; j++) for (let i = 0; i < j; i++) if (jsonEqual(items[i], items[j])) return [i, j];
    return null;
  }
  // Equal values share their canonical JSON: compare within a bucket only.
  const buckets = new Map<string, number[]>();
  for (let j = 0; j < items.length; j++) {
    const key = canonicalText(items[j]);
    const bucket = buckets.get(key);
    if (bucket === undefined) buckets.set(key, [j]);
    else {
      const i = bucket.find((i) => jsonEqual(items[i], items[j]));
      if (i !== undefined) return [i, j];
      bucket.push(j);
    }
  }
  return null;
}
