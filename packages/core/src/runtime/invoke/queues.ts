// Step 8, admission (crates/engine/src/invoke/queues.rs): an execution slot in the target's
// action group (per the binding's concurrency) or in the consumer's observation gate; FIFO,
// bounded (a full queue is RATE_LIMITED), cancellable while waiting. Groups exist only while
// contended.

import type { AgentConcurrency, AgentSurfaceLimits } from "../../types.js";
import { fail, type Fail } from "./request.js";

interface Waiter {
  /** Admits this waiter (its slot is already counted). */
  wake: () => void;
}

interface Group {
  running: number;
  readonly max: number;
  readonly depth: number;
  readonly queue: Waiter[];
}

/** The action groups and the observation gates. */
export interface Queues {
  readonly groups: Map<string, Group>;
  /** Observations running per consumer key, and in total. */
  readonly running: Map<string, number>;
  total: number;
  /** Observations queued per consumer key. */
  readonly waiting: Map<string, Waiter[]>;
}

export const createQueues = (): Queues => ({ groups: new Map(), running: new Map(), total: 0, waiting: new Map() });

/** An admission slot: a group (key, max, depth) or a consumer's observation gate. */
export type Slot = { readonly group: string; readonly max: number; readonly depth: number } | { readonly gate: string };

/**
 * The slot of a target: observations go to the consumer's gate; actions, procedures and
 * external tools to a group per their concurrency.
 */
export function slotFor(kind: "observation" | "action" | "procedure" | "external", registrationId: string, name: string, c: AgentConcurrency | undefined, consumerKey: string, limits: AgentSurfaceLimits): Slot {
  if (kind === "observation" || !c) return { gate: consumerKey };
  const depth = c.queueDepth ?? limits.actionQueueDepth;
  if (c.mode === "key") return { group: `key ${c.key}`, max: 1, depth };
  // A procedure reference (an external tool) has one group per identity per registration (per exposure).
  if (kind !== "action") return { group: `${registrationId} proc ${name}`, max: c.mode === "parallel" ? c.max : 1, depth };
  if (c.mode === "instance") return { group: `${registrationId} instance`, max: 1, depth };
  if (c.mode === "capability") return { group: `${registrationId} cap ${name}`, max: 1, depth };
  return { group: `${registrationId} par ${name}`, max: c.max, depth };
}

const full = (gate: boolean): Fail =>
  fail("RATE_LIMITED", "too many invocations are queued; retry after a moment", gate ? { reason: "queue-full", retryAfterMs: 250 } : { reason: "queue-full" });

/**
 * Takes a slot: null when admitted now, a Fail when the queue is full, else a promise of either
 * (FIFO; the caller's signal aborting while queued → CANCELLED, its place freed).
 */
export function admit(q: Queues, slot: Slot, limits: AgentSurfaceLimits, signal: AbortSignal | undefined): Fail | null | Promise<Fail | null> {
  let queue: Waiter[];
  let forget: () => void;
  if ("group" in slot) {
    let g = q.groups.get(slot.group);
    if (!g) q.groups.set(slot.group, (g = { running: 0, max: slot.max, depth: slot.depth, queue: [] }));
    if (g.running < g.max) {
      g.running++;
      return null;
    }
    if (g.queue.length >= g.depth) return full(false);
    queue = g.queue;
    forget = () => {
      if (g.running === 0 && g.queue.length === 0) q.groups.delete(slot.group);
    };
  } else {
    const c = slot.gate;
    const mine = q.running.get(c) ?? 0;
    const queued = q.waiting.get(c);
    if (mine < limits.maxConcurrentObservationsPerConsumer && q.total < limits.maxConcurrentObservationsTotal && !queued?.length) {
      q.running.set(c, mine + 1);
      q.total++;
      return null;
    }
    if ((queued?.length ?? 0) >= limits.maxQueuedObservationsPerConsumer) return full(true);
    if (!queued) q.waiting.set(c, (queue = []));
    else queue = queued;
    forget = () => {
      if (queue.length === 0 && q.waiting.get(c) === queue) q.waiting.delete(c);
    };
  }
  return new Promise<Fail | null>((resolve) => {
    const w: Waiter = {
      wake() {
        signal?.removeEventListener("abort", cancel);
        resolve(null);
      },
    };
    const cancel = () => {
      const i = queue.indexOf(w);
      if (i >= 0) queue.splice(i, 1);
      forget();
      resolve(fail("CANCELLED", "the invocation was cancelled"));
    };
    queue.push(w);
    if (signal?.aborted) cancel();
    else signal?.addEventListener("abort", cancel, { once: true });
  });
}

/** Gives a slot back and admits who waits for it. */
export function release(q: Queues, slot: Slot, limits: AgentSurfaceLimits): void {
  if ("group" in slot) {
    const g = q.groups.get(slot.group);
    if (!g) return;
    const next = g.queue.shift();
    if (next) next.wake();
    else if (--g.running <= 0) q.groups.delete(slot.group);
    return;
  }
  const c = slot.gate;
  const n = (q.running.get(c) ?? 1) - 1;
  if (n > 0) q.running.set(c, n);
  else q.running.delete(c);
  q.total = Math.max(0, q.total - 1);
  // Admit queued observations FIFO per consumer while both gates have room.
  for (const [k, queue] of q.waiting) {
    while (queue.length && (q.running.get(k) ?? 0) < limits.maxConcurrentObservationsPerConsumer && q.total < limits.maxConcurrentObservationsTotal) {
      q.running.set(k, (q.running.get(k) ?? 0) + 1);
      q.total++;
      queue.shift()!.wake();
    }
    if (queue.length === 0) q.waiting.delete(k);
  }
}

/** (groups, observations running or queued at the gates). */
export function queueStats(q: Queues): [number, number] {
  let queued = 0;
  for (const w of q.waiting.values()) queued += w.length;
  return [q.groups.size, q.total + queued];
}
