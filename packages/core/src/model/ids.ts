// The id grammar (DECISIONS §2, crates/model/src/ids.rs), checked by hand so that every message
// names the offending character and its position (a code point index into the whole id, prefix
// included). Each check returns null for a valid id, else the Rust model's message.

import { escapeDebug } from "./json.js";

/** null when `s` is a valid id of this kind, else the grammar's message. */
export type IdCheck = (s: unknown) => string | null;

/**
 * A run of characters at position `offset` of the id: its first must match `first` (`start` says
 * how), the others `rest` (`where` says what is allowed), at most `max` of them (`long` names it).
 */
function word(s: string, offset: number, name: string, first: RegExp, start: string, rest: RegExp, where: string, max: number, long = name): string | null {
  const chars = Array.from(s);
  if (!first.test(chars[0]!)) return `${name} must start with ${start} (found '${escapeDebug(chars[0]!)}' at position ${offset})`;
  const i = chars.findIndex((c, i) => i > 0 && !rest.test(c));
  if (i > 0) return `character '${escapeDebug(chars[i]!)}' at position ${offset + i} is not allowed in ${where}`;
  return chars.length > max ? `${long} is ${chars.length} characters long; at most ${max} are allowed` : null;
}

/** `min..=8` dot-separated segments `[a-z][a-zA-Z0-9_-]{0,31}` starting at position `offset` of the whole id. */
function segments(kind: string, s: string, offset: number, min: number, example: string): string | null {
  const parts = s.split(".");
  for (let i = 0, pos = offset; i < parts.length; pos += Array.from(parts[i++]!).length + 1) {
    if (i >= 8) return `${kind} has ${parts.length} segments; at most 8 are allowed (the extra one starts at position ${pos})`;
    const p = parts[i]!;
    const e =
      p === ""
        ? `${kind} has an empty segment at position ${pos} (a leading or trailing '.', or two dots in a row)`
        : word(p, pos, `segment "${p}"`, /^[a-z]$/, "a lowercase letter a-z", /^[\w-]$/, "a segment (allowed: a-z A-Z 0-9 _ -)", 32);
    if (e) return e;
  }
  // At least 1 always holds: only a procedure id (2) can have too few.
  return parts.length < min ? `${kind} needs at least ${min} segments separated by '.' (e.g. "${example}")` : null;
}

/** The checks take any value: a non-string or empty one is "<noun> is empty". */
const grammar =
  (noun: string, check: (s: string) => string | null): IdCheck =>
  (s) =>
    typeof s !== "string" || s === "" ? `${noun} is empty` : check(s);

/** `domain:`/`external:` + `min..=8` segments. */
const prefixed = (noun: string, prefix: string, min: number, example: string): IdCheck =>
  grammar(noun, (s) => (s.startsWith(prefix) ? segments(noun, s.slice(prefix.length), prefix.length, min, example) : `${noun} needs the prefix "${prefix}"`));

/** Component type: 1–8 segments joined by `.`, at most 96 characters (`devices.table`). */
export const checkComponentType: IdCheck = grammar("component type", (s) => {
  const len = Array.from(s).length;
  return segments("component type", s, 0, 1, "") ?? (len > 96 ? `component type is ${len} characters long; at most 96 are allowed` : null);
});

/** Observation or action key: `[a-z][a-zA-Z0-9_]{0,47}`. */
export const checkCapabilityName: IdCheck = grammar("capability name", (s) =>
  word(s, 0, `capability name "${s}"`, /^[a-z]$/, "a lowercase letter a-z", /^\w$/, "a capability name (allowed: a-z A-Z 0-9 _)", 48),
);

/** Domain procedure id: `domain:` + 2–8 segments (`domain:devices.delete`). */
export const checkProcedureId: IdCheck = prefixed("procedure id", "domain:", 2, "domain:devices.delete");

/** External tool id: `external:` + 1–8 segments (`external:crm.export`). */
export const checkExternalToolId: IdCheck = prefixed("external tool id", "external:", 1, "external:crm.export");

/** Instance id: `[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}` (default `default`). */
export const checkInstanceId: IdCheck = grammar("instance id", (s) =>
  word(s, 0, `instance id "${s}"`, /^[A-Za-z\d]$/, "a letter or digit", /^[\w.:-]$/, "an instance id (allowed: A-Z a-z 0-9 _ . : -)", 128, "instance id"),
);
