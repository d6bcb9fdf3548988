// RFC 8785 canonical JSON and blake3, byte for byte like runtime/src/canonical.rs:
// object keys sorted by UTF-16 code units (JavaScript's default string order), no whitespace,
// numbers and strings written as JSON.stringify writes them.

import { blake3 } from "@noble/hashes/blake3.js";
import { bytesToHex } from "@noble/hashes/utils.js";

const encoder = new TextEncoder();

/** True for `{}`-like objects (any realm, or a null prototype); false for arrays, Dates, Maps... */
export function isPlainObject(v) {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

function describe(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") return v.constructor?.name ? `${v.constructor.name} object` : "object";
  if (typeof v === "number") return String(v);
  return typeof v;
}

function pointerAppend(pointer, key) {
  return `${pointer}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

/**
 * Deep-copies a JSON value, reading every property exactly once. Refuses anything that is not
 * JSON: functions, symbols, bigints, non-finite numbers, `undefined` outside an object property,
 * class instances (Date, Map, ...), cycles. Object properties whose value is `undefined` are
 * dropped (JSON semantics). Throws a TypeError naming the JSON pointer of the offending value.
 */
export function cloneJson(value) {
  const ancestors = new Set();
  const walk = (v, pointer) => {
    switch (typeof v) {
      case "string":
      case "boolean":
        return v;
      case "number":
        if (!Number.isFinite(v)) throw new TypeError(`not a JSON value at "${pointer}": ${v}`);
        return v;
      case "object":
        break;
      default:
        throw new TypeError(`not a JSON value at "${pointer}": ${describe(v)}`);
    }
    if (v === null) return null;
    if (ancestors.has(v)) throw new TypeError(`not a JSON value at "${pointer}": cyclic structure`);
    ancestors.add(v);
    let out;
    if (Array.isArray(v)) {
      out = [];
      const n = v.length;
      for (let i = 0; i < n; i++) {
        const item = v[i];
        if (item === undefined) throw new TypeError(`not a JSON value at "${pointerAppend(pointer, i)}": undefined`);
        out.push(walk(item, pointerAppend(pointer, i)));
      }
    } else if (isPlainObject(v)) {
      out = {};
      for (const key of Object.keys(v)) {
        const item = v[key];
        if (item === undefined) continue;
        // defineProperty: a "__proto__" key stays an ordinary own property, as JSON.parse makes it.
        Object.defineProperty(out, key, { value: walk(item, pointerAppend(pointer, key)), enumerable: true, writable: true, configurable: true });
      }
    } else {
      throw new TypeError(`not a JSON value at "${pointer}": ${describe(v)}`);
    }
    ancestors.delete(v);
    return out;
  };
  return walk(value, "");
}

function write(v, out, ancestors, pointer) {
  switch (typeof v) {
    case "string":
      out.push(JSON.stringify(v));
      return;
    case "boolean":
      out.push(v ? "true" : "false");
      return;
    case "number":
      if (!Number.isFinite(v)) throw new TypeError(`canonicalJson: not a JSON value at "${pointer}": ${v}`);
      // JSON.stringify is Number.prototype.toString for finite numbers, except -0 -> "0".
      out.push(JSON.stringify(v));
      return;
    case "object":
      break;
    default:
      throw new TypeError(`canonicalJson: not a JSON value at "${pointer}": ${describe(v)}`);
  }
  if (v === null) {
    out.push("null");
    return;
  }
  if (ancestors.has(v)) throw new TypeError(`canonicalJson: cyclic structure at "${pointer}"`);
  ancestors.add(v);
  if (Array.isArray(v)) {
    out.push("[");
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out.push(",");
      const item = v[i];
      if (item === undefined) throw new TypeError(`canonicalJson: not a JSON value at "${pointerAppend(pointer, i)}": undefined`);
      write(item, out, ancestors, pointerAppend(pointer, i));
    }
    out.push("]");
  } else if (isPlainObject(v)) {
    // Default sort compares UTF-16 code units: exactly RFC 8785's order.
    const keys = Object.keys(v).sort();
    out.push("{");
    let first = true;
    for (const key of keys) {
      const item = v[key];
      if (item === undefined) continue;
      if (!first) out.push(",");
      first = false;
      out.push(JSON.stringify(key), ":");
      write(item, out, ancestors, pointerAppend(pointer, key));
    }
    out.push("}");
  } else {
    throw new TypeError(`canonicalJson: not a JSON value at "${pointer}": ${describe(v)}`);
  }
  ancestors.delete(v);
}

/**
 * RFC 8785 canonical JSON of a JSON value. Throws a TypeError for anything that is not JSON
 * (see cloneJson); `undefined` object properties are skipped.
 */
export function canonicalJson(value) {
  const out = [];
  write(value, out, new Set(), "");
  return out.join("");
}

/** `"blake3:" + 64 lowercase hex` of blake3 over UTF-8 text that is already canonical. */
export function blake3HexOfCanonical(text) {
  return `blake3:${bytesToHex(blake3(encoder.encode(text)))}`;
}

/** `"blake3:" + 64 lowercase hex` of blake3 over the canonical JSON's UTF-8 bytes. */
export function blake3Hex(value) {
  return blake3HexOfCanonical(canonicalJson(value));
}

/** UTF-8 byte length (Rust's `String::len`). */
export function utf8Length(text) {
  return encoder.encode(text).length;
}
