// JSON helpers of the model: shape checks, deep freezing, a checked copy of a caller's value, key
// orders and the Rust spellings of JSON values that messages share with the Rust model.

/** True for `{}`-like objects (any realm, or a null prototype); false for arrays, Dates, Maps... */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/** Freezes a value and everything reachable from it. */
export function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}

/** RFC 6901: `pointer` + `/` + the escaped segment. */
export const appendPointer = (pointer: string, key: string | number): string =>
  `${pointer}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;

/** A value JSON cannot carry, at `path` (filled in as the copy unwinds). */
export class NotJson {
  readonly path: (string | number)[] = [];
  constructor(readonly what: string) {}
}

/** An own member `k` of `o` (an own "__proto__" member stays a member, never the prototype). */
export function setKey(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

/**
 * A plain-JSON copy of `v`, reading every property once (`undefined` members skipped, as
 * JSON.stringify does, `-0` as `0`, members in their own order); `st.n` counts its values, `st.a`
 * holds the objects being copied. Throws NotJson for what JSON cannot carry: functions, symbols,
 * bigints, non-finite numbers, `undefined` items, class instances, cycles.
 */
export function copyJson(v: unknown, st: { n: number; a: object[] }): unknown {
  st.n++;
  if (typeof v !== "object") {
    if (typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v))) return v === 0 ? 0 : v;
    throw new NotJson(typeof v === "number" ? String(v) : typeof v);
  }
  if (v === null) return null;
  if (st.a.includes(v)) throw new NotJson("cyclic structure");
  const item = (x: unknown, k: string | number) => {
    try {
      return copyJson(x, st);
    } catch (e) {
      if (e instanceof NotJson) e.path.unshift(k);
      throw e;
    }
  };
  st.a.push(v);
  let out: unknown[] | Record<string, unknown>;
  if (Array.isArray(v)) {
    out = [];
    for (let i = 0, n = v.length; i < n; i++) {
      const x: unknown = v[i];
      out.push(item(x, i));
    }
  } else if (isPlainObject(v)) {
    out = {};
    for (const k of Object.keys(v)) {
      const x = v[k];
      if (x !== undefined) setKey(out, k, item(x, k));
    }
  } else {
    const name = (v as { constructor?: { name?: unknown } }).constructor?.name;
    throw new NotJson(typeof name === "string" && name !== "" ? `${name} object` : "object");
  }
  st.a.pop();
  return out;
}

/**
 * A plain-JSON copy of `value` (see copyJson); a TypeError naming the JSON pointer of what JSON
 * cannot carry (`not a JSON value at "/a/0": NaN`).
 */
export function jsonCopy(value: unknown): unknown {
  try {
    return copyJson(value, { n: 0, a: [] });
  } catch (e) {
    throw e instanceof NotJson ? new TypeError(`not a JSON value at "${e.path.reduce<string>(appendPointer, "")}": ${e.what}`) : e;
  }
}

/**
 * Orders strings by code point, as Rust orders `str` (and serde_json's maps their keys);
 * JavaScript's default sort compares UTF-16 code units, which differs for characters above U+FFFF
 * against U+E000..U+FFFF.
 */
export function byCodePoint(a: string, b: string): number {
  for (let i = 0, n = Math.min(a.length, b.length); i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        x += x >= 0xe000 ? -0x800 : 0x2000;
        y += y >= 0xe000 ? -0x800 : 0x2000;
      }
      return x - y;
    }
  }
  return a.length - b.length;
}

/** The keys of a JSON object in Rust's map order (by code point; UTF-16 order unless a key has a character from U+D800 up). */
export function rustKeys(o: object): string[] {
  const keys = Object.keys(o).sort();
  return keys.some((k) => /[\ud800-\uffff]/.test(k)) ? keys.sort(byCodePoint) : keys;
}

/** UTF-8 length of a string (a lone surrogate counts as U+FFFD, 3 bytes, as TextEncoder writes it). */
export const utf8Length = (s: string): number =>
  // ASCII text (every manifest here) is as long in UTF-8 as in UTF-16: no encoding, no garbage.
  /^[\0-\x7f]*$/.test(s) ? s.length : new TextEncoder().encode(s).length;

/**
 * How serde_json reads a JSON number JavaScript writes: `int` when its JSON text is an integer
 * within i64/u64 (then `text` is that integer), else a float.
 */
export function rustNumber(n: number): { int: boolean; text: string } {
  const text = JSON.stringify(n);
  return { int: /^-?\d+$/.test(text) && n >= -(2 ** 63) && n < 2 ** 64, text };
}

/** Rust's shortest float formatting (serde_json's zmij): fixed notation for exponents -5..=15, `.0` on integers. */
export function rustFloat(f: number): string {
  const [m, e] = f.toExponential().split("e") as [string, string];
  const exp = Number(e);
  if (exp < -5 || exp > 15) return `${m}e${exp < 0 ? "" : "+"}${exp}`;
  const s = String(f);
  return /[.e]/.test(s) ? s : `${Object.is(f, -0) ? "-" : ""}${s}.0`;
}

const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}\p{Grapheme_Extend}]/u;

/** Rust's `char::escape_debug` (`'` escaped too unless `inString`, as `{:?}` of a string leaves it). */
export function escapeDebug(c: string, inString = false): string {
  switch (c) {
    case "\0":
      return "\\0";
    case "\t":
      return "\\t";
    case "\r":
      return "\\r";
    case "\n":
      return "\\n";
    case "'":
      return inString ? c : "\\'";
    case '"':
    case "\\":
      return `\\${c}`;
  }
  return c !== " " && NOT_PRINTABLE.test(c) ? `\\u{${c.codePointAt(0)!.toString(16)}}` : c;
}

/** Rust's `{:?}` of a string: `"…"` with escape_debug applied. */
export const debugString = (s: string): string => `"${Array.from(s, (c) => escapeDebug(c, true)).join("")}"`;

/** serde's `Unexpected` of a JSON value, worded as serde_json words it (`integer \`5\``, `null`, `map`). */
export function unexpected(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "boolean") return `boolean \`${v}\``;
  if (typeof v === "number") {
    const n = rustNumber(v);
    return n.int ? `integer \`${n.text}\`` : `floating point \`${rustFloat(v)}\``;
  }
  if (typeof v === "string") return `string ${debugString(v)}`;
  return Array.isArray(v) ? "sequence" : "map";
}

/** serde's `OneOf` list of names: `` `a` ``, `` `a` or `b` ``, `` one of `a`, `b`, `c` ``. */
export function oneOf(names: readonly string[]): string {
  const q = names.map((n) => `\`${n}\``);
  return q.length < 3 ? q.join(" or ") : `one of ${q.join(", ")}`;
}

/**
 * null when `v` is what serde reads as an integer of type `ty` (`u32`, `u64`, `usize`, `i64`), else
 * serde's message.
 */
export function checkInteger(v: unknown, ty: string): string | null {
  if (typeof v !== "number" || !rustNumber(v).int) return `invalid type: ${unexpected(v)}, expected ${ty}`;
  const max = ty === "u32" ? 2 ** 32 : ty === "i64" ? 2 ** 63 : 2 ** 64;
  return v < (ty === "i64" ? -(2 ** 63) : 0) || v >= max ? `invalid value: ${unexpected(v)}, expected ${ty}` : null;
}
