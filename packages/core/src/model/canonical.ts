// RFC 8785 canonical JSON (crates/schema/src/canonical.rs): keys sorted by UTF-16 code units, no
// whitespace, ECMAScript number and string formatting (JSON.stringify's). Hashes are computed over
// these bytes; conformance/hashing-vectors.json pins them.

import { walkJson } from "./json.js";

/**
 * The canonical JSON text of a JSON value. Throws a TypeError naming the JSON pointer for
 * anything that is not JSON (functions, symbols, bigints, non-finite numbers, class instances,
 * cycles); `undefined` object members are skipped, as JSON.stringify does.
 */
export const canonicalJson = (value: unknown): string =>
  walkJson<string>(value, {
    leaf: (v) => JSON.stringify(v),
    array: (items) => `[${items.join(",")}]`,
    object(keys, values) {
      let s = "{";
      for (let i = 0; i < keys.length; i++) s += `${i > 0 ? "," : ""}${JSON.stringify(keys[i])}:${values[i]}`;
      return `${s}}`;
    },
  }, true);
