// Confirmations (crates/engine/src/confirm): evidence bound to capability, registration,
// consumer and the fingerprint of the effective input; single use; expiring after
// `confirmationTtlMs` (a timer per open request expires it by itself); at most
// `maxPendingConfirmations` pending (overflow is RATE_LIMITED and creates no record). The store
// answers the pipeline's step 7 (`check`); its controller is the host UI's side
// (`registry.confirmations`: list, resolve, wait, subscribe; crates/engine/src/confirm/controller.rs).

import type { AgentEffect, ConfirmationController, JsonValue, PendingConfirmation } from "../../types.js";
import { canonicalText } from "../../model/canonical.js";
import { randomId } from "../entropy.js";
import type { Surface } from "../surface.js";
import { fail, iso, type Fail } from "../invoke/request.js";
import { later } from "../invoke/timer.js";

export type Outcome = "approved" | "denied" | "expired";

type State =
  | { s: "pending" }
  | { s: "approved"; at: string }
  | { s: "denied"; reason?: string }
  /** Presented by an invocation (single use); `at` kept so a turned-away invocation can give it back. */
  | { s: "used"; at: string }
  | { s: "expired" };

interface Rec {
  readonly info: PendingConfirmation;
  readonly inputFp: string;
  readonly expiresMs: number;
  state: State;
  /** Called once with the outcome when it stops being pending. */
  waiters: Array<(o: Outcome) => void>;
  /** Clears the expiry timer. */
  disarm?: () => void;
}

/** The request a confirmation is checked (or opened) for: evidence is bound to all of it. */
export interface ConfirmationRequest {
  capabilityId: string;
  confirmationId?: string;
  registrationId: string;
  consumerKey: string;
  effect: AgentEffect;
  description: string;
  /** The effective input. */
  input: JsonValue;
  /** fnv1a64 of its canonical JSON. */
  inputFp: string;
}

/** Evidence an invocation presented: `ctx.confirmation`. */
export interface Evidence {
  id: string;
  approvedAt: string;
}

/** A registry's (or gateway's) confirmations. */
export interface Confirmations {
  /**
   * Step 7 of the pipeline: with `needed`, the request must present approved evidence for
   * exactly this request, or a pending confirmation is opened (CONFIRMATION_REQUIRED).
   */
  check(r: ConfirmationRequest, needed: boolean): Evidence | undefined | Fail;
  /** Gives back evidence used by an invocation turned away before it ran (RATE_LIMITED at admission). */
  restore(id: string): void;
  /** `dispose()`: every pending confirmation expires (events, waiters, listeners). */
  expireAll(): void;
  /** `registry.confirmations`. */
  readonly controller: ConfirmationController;
}

const outcomeOf = (st: State): Outcome => (st.s === "approved" || st.s === "used" ? "approved" : st.s === "denied" ? "denied" : "expired");

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The AbortError a `waitFor` stopped by its signal rejects with (the confirmation stays pending). */
const aborted = (id: string) => new DOMException(`confirmations.waitFor: stopped waiting for "${id}" (the confirmation is still pending)`, "AbortError");

function required(info: PendingConfirmation): Fail {
  return fail("CONFIRMATION_REQUIRED", "the user must confirm this operation; retry with the same invocationId and this confirmationId once approved", {
    confirmationId: info.confirmationId,
    expiresAt: info.expiresAt,
    summary: info.summary,
  });
}

/** "<description> — <input>", the input as compact JSON bounded for a dialog (300 characters). */
function summary(description: string, input: JsonValue): string {
  let text = canonicalText(input);
  const chars = Array.from(text);
  if (chars.length > 300) text = chars.slice(0, 297).join("") + "...";
  return text === "{}" || text === "null" ? description : `${description} — ${text}`;
}

export function createConfirmations(surface: Surface): Confirmations {
  const records = new Map<string, Rec>();
  let listeners: Array<(pending: PendingConfirmation[]) => void> = [];
  const limits = () => surface.options.limits;

  /** Marks `r` settled with `state`: wakes its waiters, stops its timer. */
  const settle = (r: Rec, state: State) => {
    r.state = state;
    r.disarm?.();
    const waiters = r.waiters;
    r.waiters = [];
    for (const w of waiters) w(outcomeOf(state));
  };
  const expireOne = (r: Rec) => {
    settle(r, { s: "expired" });
    surface.events.push({ type: "confirmation-resolved", confirmationId: r.info.confirmationId, outcome: "expired" });
  };
  /** Expires what is due; true when the pending list changed. */
  const expireDue = (): boolean => {
    const now = surface.now();
    let changed = false;
    for (const [id, r] of records) {
      if (r.state.s === "pending" && now >= r.expiresMs) {
        expireOne(r);
        changed = true;
      }
      // Settled records are kept only while their evidence could still be presented.
      if (r.state.s !== "pending" && now >= r.expiresMs + limits().confirmationTtlMs) records.delete(id);
    }
    return changed;
  };
  /** The pending requests, in the order they were opened (frozen). */
  const pendingList = (): PendingConfirmation[] => Object.freeze([...records.values()].filter((r) => r.state.s === "pending").map((r) => r.info)) as PendingConfirmation[];
  const notify = () => {
    if (listeners.length === 0) return;
    const list = pendingList();
    for (const l of listeners) {
      try {
        l(list);
      } catch (e) {
        console.error(`agent-surface: a confirmations listener threw: ${(e as Error)?.message ?? e}`);
      }
    }
  };
  /** Dispatches the events, tells the listeners when the list changed. */
  const done = (changed: boolean) => {
    surface.flush();
    if (changed) notify();
  };
  /** Expires what is due, dispatches the events, tells the listeners when the list changed. */
  const expireNow = () => done(expireDue());
  /** The outcome once `id` is no longer pending; undefined while it is (an unknown id is expired). */
  const settled = (id: string): Outcome | undefined => {
    const r = records.get(id);
    return !r ? "expired" : r.state.s === "pending" ? undefined : outcomeOf(r.state);
  };

  /** The request presents confirmation `id`: approved evidence for this very request is used (single use). */
  const present = (r: ConfirmationRequest, id: string): Evidence | Fail => {
    const rec = records.get(id);
    if (!rec) return fail("CONFIRMATION_EXPIRED", "the confirmation is unknown or has expired; invoke again without it");
    const i = rec.info;
    if (i.capabilityId !== r.capabilityId || i.registrationId !== r.registrationId || i.consumerKey !== r.consumerKey || rec.inputFp !== r.inputFp) {
      return fail("CONFIRMATION_EXPIRED", "the confirmation was given for a different request; invoke again without it");
    }
    const st = rec.state;
    switch (st.s) {
      case "pending":
        return required(i);
      case "approved":
        // The evidence lives as long as the request it approves: until expiresAt.
        if (surface.now() >= rec.expiresMs) return fail("CONFIRMATION_EXPIRED", "the confirmation has expired; invoke again without it");
        rec.state = { s: "used", at: st.at };
        return { id, approvedAt: st.at };
      case "denied":
        // The user's own words, for the agent: agent-safe by construction.
        return fail("CONFIRMATION_DENIED", "the user denied this operation", st.reason === undefined ? undefined : { reason: st.reason });
      default:
        return fail("CONFIRMATION_EXPIRED", "the confirmation was already used or has expired; invoke again without it");
    }
  };

  /** Opens a pending confirmation (undefined: too many are pending). */
  const open = (r: ConfirmationRequest): Rec | undefined => {
    const { maxPendingConfirmations, confirmationTtlMs } = limits();
    if (pendingList().length >= maxPendingConfirmations) return undefined;
    const now = surface.now();
    const expiresMs = now + confirmationTtlMs;
    const info: PendingConfirmation = Object.freeze({
      confirmationId: randomId("cnf_", 20),
      capabilityId: r.capabilityId,
      registrationId: r.registrationId,
      consumerKey: r.consumerKey,
      effect: r.effect,
      summary: summary(r.description, r.input),
      input: r.input,
      requestedAt: iso(now),
      expiresAt: iso(expiresMs),
    });
    surface.events.push({ type: "confirmation-requested", confirmationId: info.confirmationId, capabilityId: info.capabilityId, expiresAt: info.expiresAt });
    const rec: Rec = { info, inputFp: r.inputFp, expiresMs, state: { s: "pending" }, waiters: [] };
    records.set(info.confirmationId, rec);
    return rec;
  };

  const controller: ConfirmationController = Object.freeze({
    /** Requests awaiting the user, oldest first. */
    pending(): PendingConfirmation[] {
      expireNow();
      return pendingList();
    },

    /** Approves or denies a pending request; a denial's reason goes to the denied invocation (`details.reason`). */
    resolve(confirmationId: string, resolution: { approved: boolean; reason?: string }): void {
      if (typeof confirmationId !== "string") throw new TypeError("confirmations.resolve: confirmationId must be a string");
      if (!isObject(resolution) || typeof resolution.approved !== "boolean") throw new TypeError("confirmations.resolve: pass { approved: boolean, reason?: string }");
      const { approved, reason } = resolution;
      if (reason !== undefined && typeof reason !== "string") throw new TypeError("confirmations.resolve: reason must be a string");
      const changed = expireDue();
      const r = records.get(confirmationId);
      if (!r || r.state.s !== "pending") {
        done(changed);
        throw Object.assign(new Error(`confirmations.resolve: no pending confirmation "${confirmationId}"`), { code: "not-pending" });
      }
      settle(r, approved ? { s: "approved", at: iso(surface.now()) } : reason === undefined ? { s: "denied" } : { s: "denied", reason });
      surface.events.push({ type: "confirmation-resolved", confirmationId, outcome: approved ? "approved" : "denied" });
      done(true);
    },

    /**
     * Resolves when the confirmation settles (approved, denied or expired; an unknown id is
     * expired). Aborting `signal` rejects with an AbortError and leaves the confirmation pending.
     */
    waitFor(confirmationId: string, opts?: { signal?: AbortSignal }): Promise<Outcome> {
      if (opts !== undefined && !isObject(opts)) return Promise.reject(new TypeError("confirmations.waitFor: the options must be an object { signal? }"));
      const signal = opts?.signal;
      if (signal !== undefined && !(isObject(signal) && typeof signal.addEventListener === "function")) {
        return Promise.reject(new TypeError("confirmations.waitFor: options.signal must be an AbortSignal"));
      }
      const id = String(confirmationId);
      if (signal?.aborted) return Promise.reject(aborted(id));
      const r = records.get(id);
      const now = settled(id);
      if (!r || now !== undefined) return Promise.resolve(now ?? "expired");
      return new Promise<Outcome>((resolve, reject) => {
        const stopWaiting = () => {
          stop();
          r.waiters = r.waiters.filter((w) => w !== finish);
        };
        const finish = (o: Outcome) => {
          stopWaiting();
          signal?.removeEventListener("abort", onAbort);
          resolve(o);
        };
        const onAbort = () => {
          stopWaiting();
          reject(aborted(id));
        };
        // Expired by time: settle it so everyone sees the same outcome.
        const stop = later(Math.max(0, r.expiresMs - surface.now()), () => {
          expireNow();
          finish(settled(id) ?? "expired");
        });
        r.waiters.push(finish);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },

    /** Called with the pending list whenever it changes (also at TTL expiry). */
    subscribe(listener: (pending: PendingConfirmation[]) => void): () => void {
      if (typeof listener !== "function") throw new TypeError("confirmations.subscribe: the listener must be a function");
      listeners = [...listeners, listener];
      return () => {
        listeners = listeners.filter((l) => l !== listener);
      };
    },
  });

  return {
    controller,
    check(r, needed) {
      let changed = expireDue();
      let result: Evidence | undefined | Fail;
      let opened: Rec | undefined;
      if (!needed) result = undefined;
      else if (r.confirmationId !== undefined) result = present(r, r.confirmationId);
      else {
        opened = open(r);
        if (opened) {
          changed = true;
          result = required(opened.info);
        } else {
          result = fail("RATE_LIMITED", "too many confirmations are waiting for the user", { reason: "too-many-pending-confirmations" });
        }
      }
      done(changed);
      if (opened && opened.state.s === "pending") {
        // Expires by itself at its TTL (unless resolved first).
        opened.disarm = later(limits().confirmationTtlMs, expireNow);
      }
      return result;
    },
    restore(id) {
      const r = records.get(id);
      if (r && r.state.s === "used") r.state = { s: "approved", at: r.state.at };
    },
    expireAll() {
      for (const r of records.values()) if (r.state.s === "pending") expireOne(r);
      done(true);
    },
  };
}
