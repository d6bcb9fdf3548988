// RFC 8785 canonical JSON (crates/schema/src/canonical.rs): keys sorted by UTF-16 code units, no
// whitespace, ECMAScript number and string formatting (JSON.stringify's). Hashes are computed over
// these bytes; conformance/hashing-vectors.json pins them.

import { jsonCopy } from "./json.js";

/** The canonical text of a value already plain JSON (a copy, a parsed or verified document). */
export const canonicalText = (v: unknown): string =>
  typeof v !== "object" || v === null
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
