// Small JSON helpers of the runtime, over the model's (../model/json.ts): shape checks, deep
// freezing, and copying a caller's value into plain JSON.

import { jsonCopy as copy } from "../model/json.js";

export { deepFreeze, isPlainObject } from "../model/json.js";

/** Any non-null, non-array object. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Whether `v` is thenable (a promise from any realm or library). */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (typeof v === "object" || typeof v === "function") && v !== null && typeof (v as { then?: unknown }).then === "function";
}

/**
 * A plain-JSON copy of `value`, reading every property once: the caller's later mutation,
 * getters or proxies cannot change what was checked. Refuses functions, symbols, bigints,
 * non-finite numbers, `undefined` outside an object property, class instances and cycles with a
 * TypeError naming the JSON pointer; `undefined` properties are dropped; `-0` becomes `0`.
 */
export const jsonCopy = copy as <T = unknown>(value: unknown) => T;
