// Small JSON helpers of the runtime: shape checks, deep freezing, and copying a caller's value
// into plain JSON (refusing what JSON cannot carry, naming the JSON pointer).

/** True for `{}`-like objects (any realm, or a null prototype); false for arrays, Dates, Maps... */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/** Any non-null, non-array object. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Freezes a value and everything reachable from it. */
export function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}

/** Whether `v` is thenable (a promise from any realm or library). */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (typeof v === "object" || typeof v === "function") && v !== null && typeof (v as { then?: unknown }).then === "function";
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

function append(pointer: string, key: string | number): string {
  return `${pointer}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

/**
 * A plain-JSON copy of `value`, reading every property once: the caller's later mutation,
 * getters or proxies cannot change what was checked. Refuses functions, symbols, bigints,
 * non-finite numbers, `undefined` outside an object property, class instances and cycles with a
 * TypeError naming the JSON pointer; `undefined` properties are dropped; `-0` becomes `0`.
 */
export function jsonCopy<T = unknown>(value: unknown): T {
  const ancestors = new Set<object>();
  const fail = (pointer: string, what: unknown): never => {
    throw new TypeError(`not a JSON value at "${pointer}": ${what}`);
  };
  const walk = (v: unknown, pointer: string): unknown => {
    switch (typeof v) {
      case "string":
      case "boolean":
        return v;
      case "number":
        if (!Number.isFinite(v)) fail(pointer, v);
        return v === 0 ? 0 : v;
      case "object":
        break;
      default:
        fail(pointer, describe(v));
    }
    if (v === null) return null;
    if (ancestors.has(v as object)) fail(pointer, "cyclic structure");
    ancestors.add(v as object);
    let out: unknown;
    if (Array.isArray(v)) {
      const list: unknown[] = [];
      for (let i = 0; i < v.length; i++) {
        const item = v[i];
        if (item === undefined) fail(append(pointer, i), "undefined");
        list.push(walk(item, append(pointer, i)));
      }
      out = list;
    } else if (isPlainObject(v)) {
      const o: Record<string, unknown> = {};
      for (const key of Object.keys(v)) {
        const item = v[key];
        if (item === undefined) continue;
        const copy = walk(item, append(pointer, key));
        if (key === "__proto__") Object.defineProperty(o, key, { value: copy, enumerable: true, writable: true, configurable: true });
        else o[key] = copy;
      }
      out = o;
    } else {
      fail(pointer, describe(v));
    }
    ancestors.delete(v as object);
    return out;
  };
  return walk(value, "") as T;
}
