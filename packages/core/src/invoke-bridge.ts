// The JavaScript end of a handler call from the engine. The engine (crates/wasm) calls total
// functions only: whatever a handler does — returns a value, a promise, throws, returns
// something that is not JSON — becomes JSON text (or a promise of it) in one of three shapes:
//
//   {"ok": value}                       the handler's value (undefined -> null)
//   {"failed": message}                 EXECUTION_FAILED (the message is logged, never shown)
//   {"precondition": {message, details}} PRECONDITION_FAILED (agent-safe)
//
// Output defects (functions, cycles, bigints, class instances): EXECUTION_FAILED as in
// production, and in development the defect is reported with console.error naming the JSON
// pointer of the bad value.

import { jsonText } from "./json.js";

export type Answer = string | Promise<string>;

/** Whether `v` is thenable (a promise from any realm or library). */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (typeof v === "object" || typeof v === "function") && v !== null && typeof (v as { then?: unknown }).then === "function";
}

/**
 * A thrown `PreconditionFailure` is a plain object `{ message, details? }` — not an Error, whose
 * message may carry internal state.
 */
export function asPreconditionFailure(thrown: unknown): { message: string; details?: unknown } | undefined {
  if (thrown === null || typeof thrown !== "object" || thrown instanceof Error) return undefined;
  const message = (thrown as { message?: unknown }).message;
  if (typeof message !== "string") return undefined;
  return { message, details: (thrown as { details?: unknown }).details };
}

function preconditionText(p: { message: string; details?: unknown }, what: string, development: boolean): string {
  let details: string | undefined;
  if (p.details !== undefined) {
    try {
      details = jsonText(p.details);
    } catch (e) {
      if (development) console.error(`agent-surface: ${what}: the precondition failure's details are not JSON: ${(e as Error).message}`);
    }
  }
  return `{"precondition":{"message":${JSON.stringify(p.message)}${details === undefined ? "" : `,"details":${details}`}}}`;
}

function failedText(thrown: unknown): string {
  const message = thrown instanceof Error ? thrown.message : typeof thrown === "string" ? thrown : "the handler threw";
  return JSON.stringify({ failed: message });
}

/** The answer for a settled value. */
export function okText(value: unknown, what: string, development: boolean): string {
  if (value === undefined) return '{"ok":null}';
  try {
    return `{"ok":${jsonText(value)}}`;
  } catch (e) {
    if (development) console.error(`agent-surface: ${what} returned a value that is not JSON: ${(e as Error).message}`);
    return JSON.stringify({ failed: `${what} returned a value that is not JSON` });
  }
}

function thrownText(thrown: unknown, what: string, development: boolean): string {
  const p = asPreconditionFailure(thrown);
  return p ? preconditionText(p, what, development) : failedText(thrown);
}

/**
 * Runs a handler and encodes its outcome: synchronously when it returned a plain value (the
 * common `read: () => state` case costs no promise), else as a promise that never rejects.
 */
export function answer(run: () => unknown, what: string, development: boolean): Answer {
  let value: unknown;
  try {
    value = run();
  } catch (thrown) {
    return thrownText(thrown, what, development);
  }
  if (!isThenable(value)) return okText(value, what, development);
  return Promise.resolve(value).then(
    (v) => okText(v, what, development),
    (thrown) => thrownText(thrown, what, development),
  );
}

/** The abort reason for the engine's reason ("timeout", "cancelled", "unmounted", "disposed"). */
export function abortReason(reason: string): unknown {
  const name = reason === "timeout" ? "TimeoutError" : "AbortError";
  const message = `agent-surface: the invocation was ${reason === "timeout" ? "timed out" : reason}`;
  return typeof DOMException === "function" ? new DOMException(message, name) : Object.assign(new Error(message), { name });
}

/**
 * The handler calls in flight, by the engine's call serial: their AbortController, created only
 * when the handler reads `ctx.signal` (most never do, and an AbortController is a good part of a
 * trivial invocation's cost), or the abort reason if the engine aborted before that.
 */
const inFlight = new Map<number, { controller?: AbortController; reason?: unknown }>();

/** A lazily created signal for one call; `settle` forgets it when the answer is known. */
export function callSignal(serial: number): { signal: () => AbortSignal; settle: () => void } {
  const entry: { controller?: AbortController; reason?: unknown } = {};
  inFlight.set(serial, entry);
  const signal = () => {
    if (!entry.controller) {
      entry.controller = new AbortController();
      if (entry.reason !== undefined) entry.controller.abort(entry.reason);
    }
    return entry.controller.signal;
  };
  return { signal, settle: () => inFlight.delete(serial) };
}

/** The engine aborted call `serial` (timeout, cancellation, unmount, dispose). */
export function abortCall(serial: number, reason: string): void {
  const entry = inFlight.get(serial);
  if (!entry) return;
  inFlight.delete(serial);
  entry.reason = abortReason(reason);
  entry.controller?.abort(entry.reason);
}

/** A handler context whose `signal` is created on first read (a prototype getter: cheaper than a per-object property). */
class LazySignalContext {
  readonly #signal: () => AbortSignal;
  constructor(fields: object, signal: () => AbortSignal) {
    Object.assign(this, fields);
    this.#signal = signal;
  }
  get signal(): AbortSignal {
    return this.#signal();
  }
}

/** `ctx` (frozen) with `signal` over a call's lazy signal. */
export function withSignal<T extends object>(ctx: T, signal: () => AbortSignal): T & { signal: AbortSignal } {
  return Object.freeze(new LazySignalContext(ctx, signal)) as unknown as T & { signal: AbortSignal };
}

/** `answer`, forgetting the call's signal once it settled. */
export function answerCall(run: () => unknown, what: string, development: boolean, settle: () => void): Answer {
  const a = answer(run, what, development);
  if (typeof a === "string") {
    settle();
    return a;
  }
  return a.finally(settle);
}
