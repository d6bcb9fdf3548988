// The invocation pipeline (crates/engine/src/invoke), in the fixed order of DECISIONS §7:
// 1 dedupe → 2 resolve → 3 availability → 4 authorize → 5 effective input → 6 precondition and
// invoke policies → 7 confirmation → 8 admission → 9 execute → 10 output checks → 11 settle.
// `invoke` resolves with a result envelope; it rejects only on misuse (a request or options
// that are not of their shape, a disposed registry).
//
// - request.ts: the request, its options, errors and the result envelope;
// - dedupe.ts (1), resolve.ts (2), checks.ts (3 to 7), queues.ts (8), execute.ts (9),
//   pipeline.ts (the order, 10 and 11).

import type { AgentInvocationResult, JsonSchema } from "../../types.js";
import type { Validator } from "../../validate/index.js";
import type { Parts } from "../parts.js";
import type { Surface } from "../surface.js";
import { createDedupe, dedupe, type Dedupe } from "./dedupe.js";
import type { Execution } from "./execute.js";
import type { Route } from "./pipeline.js";
import { createQueues, queueStats, type Queues } from "./queues.js";
import { checkOptions, checkRequest } from "./request.js";
import { resolve } from "./resolve.js";

export { capabilityError, type CapabilityError } from "./request.js";
export type { Plan } from "./resolve.js";
export type { Confirmer } from "./checks.js";
export type { Resolver, Route } from "./pipeline.js";
export { resolve } from "./resolve.js";

/** Everything in flight: the dedupe window, the admission queues, the running executions. */
export interface Inflight {
  readonly dedupe: Dedupe;
  readonly queues: Queues;
  readonly executions: Set<Execution>;
  /** The surface's validator for a schema object (cached by identity in front of its canonical-text cache). */
  validator(surface: Surface, schema: JsonSchema): Validator | undefined;
  /** Aborts and settles every non-navigation execution of an unmounted registration (COMPONENT_UNMOUNTED). */
  unmounted(registrationId: string): void;
  /** `dispose()`: everything in flight settles CANCELLED (then expire the pending confirmations). */
  cancelAll(): void;
  /** [dedupe entries, admission groups, running executions, observations running or queued]. */
  stats(): [number, number, number, number];
}

const REGISTRY: Route = { resolve, confirmer: "return" };

export function createInflight(): Inflight {
  const executions = new Set<Execution>();
  const queues = createQueues();
  const d = createDedupe();
  const validators = new WeakMap<object, Validator | null>();
  return {
    dedupe: d,
    queues,
    executions,
    validator(surface, schema) {
      let v = validators.get(schema);
      if (v === undefined) validators.set(schema, (v = surface.validator(schema) ?? null));
      return v ?? undefined;
    },
    unmounted(registrationId) {
      for (const e of [...executions]) {
        if (e.registrationId === registrationId && !e.navigation) {
          e.stop("unmounted", "COMPONENT_UNMOUNTED");
        }
      }
    },
    cancelAll() {
      for (const e of [...executions]) {
        e.stop("disposed", "CANCELLED");
      }
    },
    stats() {
      const [groups, gates] = queueStats(queues);
      return [d.running.size + d.done.size, groups, executions.size, gates];
    },
  };
}

/**
 * `registry.invoke(request, options)` on a registry's parts: a promise of the result envelope,
 * rejected only on misuse (TypeError). `route`: how step 2 resolves and step 7 confirms (the
 * exposure gateway's own); a registry's by default.
 */
export function invoke(parts: Parts, request: unknown, options?: unknown, route: Route = REGISTRY): Promise<AgentInvocationResult> {
  try {
    const req = checkRequest(request);
    const opts = checkOptions(options);
    if (parts.surface.state.disposed) throw new TypeError("invoke: invoke called on a disposed registry");
    return dedupe(parts, req, opts, route);
  } catch (e) {
    return Promise.reject(e);
  }
}
