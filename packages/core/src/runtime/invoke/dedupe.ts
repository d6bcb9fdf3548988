// Step 1, dedupe (crates/engine/src/invoke/dedupe.rs): the bounded idempotency window keyed by
// (consumer, invocation id). A repeat of a settled request gets the cached result; a repeat of
// a running one joins it; the same id with a different request is INVOCATION_CONFLICT.
// Otherwise a run starts.

import type { AgentInvocationResult } from "../../types.js";
import { fingerprint } from "../../model/hash.js";
import type { Parts } from "../parts.js";
import { run, type Route } from "./pipeline.js";
import { capabilityError, errorResult, type Opts, type Req } from "./request.js";

/**
 * A key's record. Its fingerprint is computed when a repeat of the key asks for it (the request
 * is a private copy, so the fingerprint is the one it had when issued): most keys are never
 * repeated, and hashing every request was a good part of a trivial invoke.
 */
interface Entry {
  req?: Req;
  fp?: string;
}

interface Running extends Entry {
  promise?: Promise<AgentInvocationResult>;
}

/** A settled run's entry, moved to the window. */
interface Done extends Entry {
  result: AgentInvocationResult;
  at: number;
}

function fpOf(e: Entry): string {
  if (e.fp === undefined) {
    e.fp = fingerprint(e.req!);
    e.req = undefined;
  }
  return e.fp;
}

/**
 * The idempotency window: runs in flight, and terminal results (dedupeCacheSize /
 * dedupeCacheTtlMs) with their settlement order in a queue of its own — iterating the Map from
 * its front after many deletions walks every deleted slot V8 keeps until a rehash.
 */
export interface Dedupe {
  readonly running: Map<string, Running>;
  readonly done: Map<string, Done>;
  readonly order: Array<[string, Done]>;
  head: number;
}

export const createDedupe = (): Dedupe => ({ running: new Map(), done: new Map(), order: [], head: 0 });

function expire(parts: Parts): void {
  const d = parts.inflight.dedupe;
  const { done, order } = d;
  const { dedupeCacheSize: size, dedupeCacheTtlMs: ttl } = parts.surface.options.limits;
  const now = parts.surface.now();
  for (; d.head < order.length; d.head++) {
    const [key, e] = order[d.head]!;
    if (done.get(key) !== e) continue; // replaced or gone: a stale place in the queue
    if (done.size > size || now - e.at > ttl) done.delete(key);
    else break;
  }
  if (d.head > 64 && d.head * 2 > order.length) order.splice(0, d.head), (d.head = 0);
}

/** Terminal results are cached; expected retries (and conflicts, which describe the collision) are not. */
const cacheable = (r: AgentInvocationResult) =>
  r.status === "ok" || (r.error.code !== "CONFIRMATION_REQUIRED" && r.error.code !== "RATE_LIMITED" && r.error.code !== "INVOCATION_CONFLICT");

/** Runs `req` deduplicated (checked request and options). */
export function dedupe(parts: Parts, req: Req, opts: Opts, route: Route): Promise<AgentInvocationResult> {
  const { running, done } = parts.inflight.dedupe;
  const key = `${opts.key} ${req.invocationId}`;
  expire(parts);
  const found = running.get(key) ?? done.get(key);
  if (found) {
    if (fpOf(found) === fingerprint(req)) return (found as Running).promise ?? Promise.resolve((found as Done).result);
    const e = capabilityError("INVOCATION_CONFLICT", "this invocation id was already used for a different request; use a fresh invocation id if the new request is intentional");
    return Promise.resolve(Object.freeze(errorResult(req.invocationId, req.capabilityId, Object.freeze(e), parts.surface.state.version, false)));
  }
  const entry: Running = { req };
  running.set(key, entry);
  entry.promise = run(parts, req, opts, route, (result) => {
    if (running.get(key) !== entry) return;
    running.delete(key);
    if (cacheable(result)) {
      const d = entry as Done;
      d.result = result;
      d.at = parts.surface.now();
      entry.promise = undefined;
      done.delete(key); // a key settles at the back of the window
      done.set(key, d);
      parts.inflight.dedupe.order.push([key, d]);
    }
    expire(parts);
  });
  return entry.promise;
}
