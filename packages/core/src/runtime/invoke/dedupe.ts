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

/** The idempotency window: runs in flight, and terminal results oldest first (dedupeCacheSize / dedupeCacheTtlMs). */
export interface Dedupe {
  readonly running: Map<string, Running>;
  readonly done: Map<string, Done>;
}

export const createDedupe = (): Dedupe => ({ running: new Map(), done: new Map() });

function expire(parts: Parts): void {
  const { done } = parts.inflight.dedupe;
  const { dedupeCacheSize: size, dedupeCacheTtlMs: ttl } = parts.surface.options.limits;
  const now = parts.surface.now();
  for (const [key, d] of done) {
    if (done.size > size || now - d.at > ttl) done.delete(key);
    else break;
  }
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
      done.set(key, d);
    }
    expire(parts);
  });
  return entry.promise;
}
