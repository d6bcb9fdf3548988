// RFC 8785 canonical JSON (crates/schema/src/canonical.rs): keys sorted by UTF-16 code units, no
// whitespace, ECMAScript number and string formatting (JSON.stringify's). Hashes are computed over
// these bytes; conformance/hashing-vectors.json pins them.

import { jsonCopy } from "./json.js";

/**
 * True when every object in `v` already has its members in canonical order (sorted by UTF-16
 * code units, as a compiled manifest's are) and holds no `undefined`: JSON.stringify then writes
 * the canonical text itself, natively and without a string per member. Integer-like keys, which
 * JavaScript enumerates first in numeric order ("2" before "10"), fail the check when that order
 * is not the canonical one.
 */
function inOrder(v: unknown): boolean {
  if (v === undefined) return false;
  if (typeof v !== "object" || v === null) return true;
  if (Array.isArray(v)) return v.every(inOrder);
  const keys = Object.keys(v);
  for (let i = 0; i < keys.length; i++) {
    if ((i > 0 && !(keys[i - 1]! < keys[i]!)) || !inOrder((v as Record<string, unknown>)[keys[i]!])) return false;
  }
  return true;
}

/** The canonical text of a value already plain JSON (a copy, a parsed or verified document). */
export const canonicalText = (v: unknown): string =>
  inOrder(v)
    ? JSON.stringify(v)
    : typeof v !== "object" || v === null
      ? JSON.stringify(v)
      : Array.isArray(v)
        ? `[${v.map(canonicalText)}]`
        : `{${Object.keys(v)
            .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
            .sort()
            .map((k) => `${JSON.stringify(k)}:${canonicalText((v as Record<string, unknown>)[k])}`)}}`;

/**
 * The canonical JSON text of a JSON value. Throws a TypeError naming the JSON pointer for
 * anything that is not JSON (functions, symbols, bigints, non-finite numbers, class instances,
 * cycles); `undefined` object members are skipped, as JSON.stringify does.
 */
export const canonicalJson = (value: unknown): string => canonicalText(jsonCopy(value));
