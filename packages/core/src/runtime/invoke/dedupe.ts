// Step 1, dedupe (crates/engine/src/invoke/dedupe.rs): the bounded idempotency window keyed by
// (consumer, invocation id). A repeat of a settled request gets the cached result; a repeat of
// a running one joins it; the same id with a different request is INVOCATION_CONFLICT.
// Otherwise a run starts.

import type { AgentInvocationResult } from "../../types.js";
import { fingerprint } from "../../model/hash.js";
import type { Parts } from "../parts.js";
import { run, type Route } from "./pipeline.js";
import { capabilityError, errorResult, type Opts, type Req } from "./request.js";

interface Running {
  readonly fp: string;
  promise?: Promise<AgentInvocationResult>;
}

interface Done {
  readonly fp: string;
  readonly result: AgentInvocationResult;
  readonly at: number;
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
  const fp = fingerprint(req);
  const key = `${opts.key} ${req.invocationId}`;
  expire(parts);
  const found = running.get(key) ?? done.get(key);
  if (found) {
    if (found.fp === fp) return "result" in found ? Promise.resolve(found.result) : found.promise!;
    const e = capabilityError("INVOCATION_CONFLICT", "this invocation id was already used for a different request; use a fresh invocation id if the new request is intentional");
    return Promise.resolve(Object.freeze(errorResult(req.invocationId, req.capabilityId, Object.freeze(e), parts.surface.state.version, false)));
  }
  const entry: Running = { fp };
  running.set(key, entry);
  entry.promise = run(parts, req, opts, route, (result) => {
    if (running.get(key) !== entry) return;
    running.delete(key);
    if (cacheable(result)) done.set(key, { fp, result, at: parts.surface.now() });
    expire(parts);
  });
  return entry.promise;
}
