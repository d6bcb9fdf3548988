// JavaScript values -> JSON text for the engine. Not a model: the engine reads the text; this
// only refuses what JSON cannot carry, which the engine (seeing text) could never notice.

/** True for `{}`-like objects (any realm, or a null prototype); false for arrays, Dates, Maps... */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") {
    const name = (v as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === "string" && name !== "" ? `${name} object` : "object";
  }
  if (typeof v === "number") return String(v);
  return typeof v;
}

function pointerAppend(pointer: string, key: string | number): string {
  return `${pointer}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

/**
 * The JSON text of a JSON value, reading every property exactly once (a getter cannot show the
 * engine one value and the caller's copy another: callers re-parse this text for their copy).
 * Refuses anything that is not JSON: functions, symbols, bigints, non-finite numbers, `undefined`
 * outside an object property, class instances (Date, Map, ...), cycles. Object properties whose
 * value is `undefined` are dropped (JSON semantics). Throws a TypeError naming the JSON pointer.
 */
export function jsonText(value: unknown): string {
  const out: string[] = [];
  const ancestors = new Set<object>();
  // Annotated, so that control flow knows a call never returns.
  const fail: (pointer: string, what: unknown) => never = (pointer, what) => {
    throw new TypeError(`not a JSON value at "${pointer}": ${what}`);
  };
  const walk = (v: unknown, pointer: string): void => {
    switch (typeof v) {
      case "string":
        out.push(JSON.stringify(v));
        return;
      case "boolean":
        out.push(v ? "true" : "false");
        return;
      case "number":
        if (!Number.isFinite(v)) fail(pointer, v);
        out.push(JSON.stringify(v)); // -0 -> "0", as ECMAScript and the canonical form write it
        return;
      case "object":
        break;
      default:
        fail(pointer, describe(v));
    }
    if (v === null) {
      out.push("null");
      return;
    }
    if (ancestors.has(v)) fail(pointer, "cyclic structure");
    ancestors.add(v);
    if (Array.isArray(v)) {
      out.push("[");
      const n = v.length;
      for (let i = 0; i < n; i++) {
        const item = v[i];
        if (i > 0) out.push(",");
        if (item === undefined) fail(pointerAppend(pointer, i), "undefined");
        walk(item, pointerAppend(pointer, i));
      }
      out.push("]");
    } else if (isPlainObject(v)) {
      out.push("{");
      let first = true;
      for (const key of Object.keys(v)) {
        const item = v[key];
        if (item === undefined) continue;
        if (!first) out.push(",");
        first = false;
        out.push(JSON.stringify(key), ":");
        walk(item, pointerAppend(pointer, key));
      }
      out.push("}");
    } else {
      fail(pointer, describe(v));
    }
    ancestors.delete(v);
  };
  walk(value, "");
  return out.join("");
}

/** Freezes a value and everything reachable from it. */
export function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}
