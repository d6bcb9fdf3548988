// The pending-confirmation store (crates/engine/src/confirm/store.rs). Evidence is bound to
// capability, registration, consumer and the fingerprint of the effective input; single use;
// expiring after `confirmationTtlMs` (a timer per open request expires it by itself); at most
// `maxPendingConfirmations` pending (overflow is RATE_LIMITED and creates no record).

import type { AgentEffect, JsonValue, PendingConfirmation } from "../../types.js";
import { canonicalJson } from "../../model/canonical.js";
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

export interface Rec {
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

export type Listener = (pending: PendingConfirmation[]) => void;

const outcomeOf = (st: State): Outcome => (st.s === "approved" || st.s === "used" ? "approved" : st.s === "denied" ? "denied" : "expired");

/** A registry's confirmations. */
export class Confirmations {
  readonly records = new Map<string, Rec>();
  listeners: Listener[] = [];

  constructor(readonly surface: Surface) {}

  /** Marks `r` settled with `state`: wakes its waiters, stops its timer. */
  settle(r: Rec, state: State): void {
    r.state = state;
    r.disarm?.();
    const waiters = r.waiters;
    r.waiters = [];
    for (const w of waiters) w(outcomeOf(state));
  }

  private expireOne(r: Rec): void {
    this.settle(r, { s: "expired" });
    this.surface.events.push({ type: "confirmation-resolved", confirmationId: r.info.confirmationId, outcome: "expired" });
  }

  /** Expires what is due; true when the pending list changed. */
  expireDue(): boolean {
    const now = this.surface.now();
    const ttl = this.surface.options.limits.confirmationTtlMs;
    let changed = false;
    for (const [id, r] of this.records) {
      if (r.state.s === "pending" && now >= r.expiresMs) {
        this.expireOne(r);
        changed = true;
      }
      // Settled records are kept only while their evidence could still be presented.
      if (r.state.s !== "pending" && now >= r.expiresMs + ttl) this.records.delete(id);
    }
    return changed;
  }

  /** Expires what is due, dispatches the events, tells the listeners when the list changed. */
  expireNow(): void {
    const changed = this.expireDue();
    this.surface.flush();
    if (changed) this.notify();
  }

  /** The pending requests, in the order they were opened (frozen). */
  pendingList(): PendingConfirmation[] {
    const list: PendingConfirmation[] = [];
    for (const r of this.records.values()) if (r.state.s === "pending") list.push(r.info);
    return Object.freeze(list) as PendingConfirmation[];
  }

  notify(): void {
    if (this.listeners.length === 0) return;
    const list = this.pendingList();
    for (const l of this.listeners) {
      try {
        l(list);
      } catch (e) {
        console.error(`agent-surface: a confirmations listener threw: ${(e as Error)?.message ?? e}`);
      }
    }
  }

  /**
   * Step 7 of the pipeline: with `needed`, the request must present approved evidence for
   * exactly this request, or a pending confirmation is opened (CONFIRMATION_REQUIRED).
   */
  check(r: ConfirmationRequest, needed: boolean): Evidence | undefined | Fail {
    let changed = this.expireDue();
    let result: Evidence | undefined | Fail;
    let opened: Rec | undefined;
    if (!needed) result = undefined;
    else if (r.confirmationId !== undefined) result = this.present(r, r.confirmationId);
    else {
      opened = this.open(r);
      if (opened) {
        changed = true;
        result = required(opened.info);
      } else {
        result = fail("RATE_LIMITED", "too many confirmations are waiting for the user", { reason: "too-many-pending-confirmations" });
      }
    }
    this.surface.flush();
    if (changed) this.notify();
    if (opened && opened.state.s === "pending") {
      // Expires by itself at its TTL (unless resolved first).
      opened.disarm = later(this.surface.options.limits.confirmationTtlMs, () => this.expireNow());
    }
    return result;
  }

  /** The request presents confirmation `id`: approved evidence for this very request is used (single use). */
  private present(r: ConfirmationRequest, id: string): Evidence | Fail {
    const rec = this.records.get(id);
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
        if (this.surface.now() >= rec.expiresMs) return fail("CONFIRMATION_EXPIRED", "the confirmation has expired; invoke again without it");
        rec.state = { s: "used", at: st.at };
        return { id, approvedAt: st.at };
      case "denied":
        // The user's own words, for the agent: agent-safe by construction.
        return fail("CONFIRMATION_DENIED", "the user denied this operation", st.reason === undefined ? undefined : { reason: st.reason });
      default:
        return fail("CONFIRMATION_EXPIRED", "the confirmation was already used or has expired; invoke again without it");
    }
  }

  /** Opens a pending confirmation (undefined: too many are pending). */
  private open(r: ConfirmationRequest): Rec | undefined {
    const { surface } = this;
    const limits = surface.options.limits;
    let pending = 0;
    for (const x of this.records.values()) if (x.state.s === "pending") pending++;
    if (pending >= limits.maxPendingConfirmations) return undefined;
    const now = surface.now();
    const expiresMs = now + limits.confirmationTtlMs;
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
    this.records.set(info.confirmationId, rec);
    return rec;
  }

  /** Gives back evidence used by an invocation turned away before it ran (RATE_LIMITED at admission). */
  restore(id: string): void {
    const r = this.records.get(id);
    if (r && r.state.s === "used") r.state = { s: "approved", at: r.state.at };
  }

  /** `dispose()`: every pending confirmation expires (events, waiters, listeners). */
  expireAll(): void {
    for (const r of this.records.values()) if (r.state.s === "pending") this.expireOne(r);
    this.surface.flush();
    this.notify();
  }

  /** The outcome once `id` is no longer pending; undefined while it is (an unknown id is expired). */
  settled(id: string): Outcome | undefined {
    const r = this.records.get(id);
    return !r ? "expired" : r.state.s === "pending" ? undefined : outcomeOf(r.state);
  }
}

function required(info: PendingConfirmation): Fail {
  return fail("CONFIRMATION_REQUIRED", "the user must confirm this operation; retry with the same invocationId and this confirmationId once approved", {
    confirmationId: info.confirmationId,
    expiresAt: info.expiresAt,
    summary: info.summary,
  });
}

/** "<description> — <input>", the input as compact JSON bounded for a dialog (300 characters). */
function summary(description: string, input: JsonValue): string {
  let text = canonicalJson(input);
  const chars = Array.from(text);
  if (chars.length > 300) text = chars.slice(0, 297).join("") + "...";
  return text === "{}" || text === "null" ? description : `${description} — ${text}`;
}
