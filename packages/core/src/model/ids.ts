// The id grammar (DECISIONS §2, crates/model/src/ids.rs), checked by hand so that every message
// names the offending character and its position (a code point index into the whole id, prefix
// included). Each check returns null for a valid id, else the Rust model's message.

import { escapeDebug } from "./json.js";

/** null when `s` is a valid id of this kind, else the grammar's message. */
export type IdCheck = (s: unknown) => string | null;

const MAX_SEGMENT_LEN = 32;
const MAX_SEGMENTS = 8;
const lower = (c: string | undefined) => c !== undefined && c >= "a" && c <= "z";
const alnum = (c: string) => /^[A-Za-z0-9]$/.test(c);
const found = (c: string, pos: number) => `(found '${escapeDebug(c)}' at position ${pos})`;

/** `[a-z][a-zA-Z0-9_-]{0,31}`; `offset` is the position of the segment in the whole id. */
function segment(kind: string, seg: string, offset: number): string | null {
  const chars = Array.from(seg);
  const first = chars[0];
  if (first === undefined) {
    return `${kind} has an empty segment at position ${offset} (a leading or trailing '.', or two dots in a row)`;
  }
  if (!lower(first)) return `segment "${seg}" must start with a lowercase letter a-z ${found(first, offset)}`;
  for (let i = 1; i < chars.length; i++) {
    const c = chars[i]!;
    if (!alnum(c) && c !== "_" && c !== "-") {
      return `character '${escapeDebug(c)}' at position ${offset + i} is not allowed in a segment (allowed: a-z A-Z 0-9 _ -)`;
    }
  }
  return chars.length > MAX_SEGMENT_LEN ? `segment "${seg}" is ${chars.length} characters long; at most ${MAX_SEGMENT_LEN} are allowed` : null;
}

/** `min..=8` dot-separated segments starting at position `offset` of the whole id. */
function segments(kind: string, s: string, offset: number, min: number, example: string): string | null {
  const parts = s.split(".");
  let pos = offset;
  for (let i = 0; i < parts.length; i++) {
    if (i >= MAX_SEGMENTS) {
      return `${kind} has ${parts.length} segments; at most ${MAX_SEGMENTS} are allowed (the extra one starts at position ${pos})`;
    }
    const e = segment(kind, parts[i]!, pos);
    if (e) return e;
    pos += Array.from(parts[i]!).length + 1;
  }
  return parts.length < min
    ? `${kind} needs at least ${min} segment${min === 1 ? "" : "s"} separated by '.' (e.g. "${example}")`
    : null;
}

function componentTypeAt(kind: string, s: string, offset: number): string | null {
  if (s === "") return `${kind} has an empty component type`;
  const e = segments(kind, s, offset, 1, "devices.table");
  if (e) return e;
  const len = Array.from(s).length;
  return len > 96 ? `component type is ${len} characters long; at most 96 are allowed` : null;
}

/** The checks take any value: a non-string or empty one is "<noun> is empty". */
const grammar =
  (noun: string, check: (s: string) => string | null): IdCheck =>
  (s) =>
    typeof s !== "string" || s === "" ? `${noun} is empty` : check(s);

/** `domain:`/`external:` + `min..=8` segments. */
const prefixed = (noun: string, prefix: string, min: number, example: string): IdCheck =>
  grammar(noun, (s) =>
    s.startsWith(prefix) ? segments(noun, s.slice(prefix.length), prefix.length, min, example) : `${noun} needs the prefix "${prefix}"`,
  );

/** Component type: 1–8 segments joined by `.`, at most 96 characters (`devices.table`). */
export const checkComponentType: IdCheck = grammar("component type", (s) => componentTypeAt("component type", s, 0));

/** Observation or action key: `[a-z][a-zA-Z0-9_]{0,47}`. */
export const checkCapabilityName: IdCheck = grammar("capability name", (s) => {
  const chars = Array.from(s);
  if (!lower(chars[0])) return `capability name "${s}" must start with a lowercase letter a-z ${found(chars[0]!, 0)}`;
  for (let i = 1; i < chars.length; i++) {
    const c = chars[i]!;
    if (!alnum(c) && c !== "_") {
      return `character '${escapeDebug(c)}' at position ${i} is not allowed in a capability name (allowed: a-z A-Z 0-9 _)`;
    }
  }
  return chars.length > 48 ? `capability name "${s}" is ${chars.length} characters long; at most 48 are allowed` : null;
});

/** Domain procedure id: `domain:` + 2–8 segments (`domain:devices.delete`). */
export const checkProcedureId: IdCheck = prefixed("procedure id", "domain:", 2, "domain:devices.delete");

/** External tool id: `external:` + 1–8 segments (`external:crm.export`). */
export const checkExternalToolId: IdCheck = prefixed("external tool id", "external:", 1, "external:crm.export");

/** Instance id: `[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}` (default `default`). */
export const checkInstanceId: IdCheck = grammar("instance id", (s) => {
  const chars = Array.from(s);
  if (!alnum(chars[0]!)) return `instance id "${s}" must start with a letter or digit ${found(chars[0]!, 0)}`;
  for (let i = 1; i < chars.length; i++) {
    const c = chars[i]!;
    if (!alnum(c) && !"_.:-".includes(c)) {
      return `character '${escapeDebug(c)}' at position ${i} is not allowed in an instance id (allowed: A-Z a-z 0-9 _ . : -)`;
    }
  }
  return chars.length > 128 ? `instance id is ${chars.length} characters long; at most 128 are allowed` : null;
});
