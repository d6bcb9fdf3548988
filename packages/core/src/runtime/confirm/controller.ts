// `registry.confirmations`: the host UI's side of confirmations (list, resolve, wait, subscribe)
// over the registry's store (crates/engine/src/confirm/controller.rs).

import type { ConfirmationController, PendingConfirmation, Unsubscribe } from "../../types.js";
import type { Parts } from "../parts.js";
import { iso } from "../invoke/request.js";
import { later } from "../invoke/timer.js";
import type { Outcome } from "./store.js";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The AbortError a `waitFor` stopped by its signal rejects with (the confirmation stays pending). */
const aborted = (id: string) => new DOMException(`confirmations.waitFor: stopped waiting for "${id}" (the confirmation is still pending)`, "AbortError");

export function confirmationController(parts: Parts): ConfirmationController {
  const c = parts.confirmations;
  return Object.freeze({
    /** Requests awaiting the user, oldest first. */
    pending(): PendingConfirmation[] {
      c.expireNow();
      return c.pendingList();
    },

    /** Approves or denies a pending request; a denial's reason goes to the denied invocation (`details.reason`). */
    resolve(confirmationId: string, resolution: { approved: boolean; reason?: string }): void {
      if (typeof confirmationId !== "string") throw new TypeError("confirmations.resolve: confirmationId must be a string");
      if (!isObject(resolution) || typeof resolution.approved !== "boolean") throw new TypeError("confirmations.resolve: pass { approved: boolean, reason?: string }");
      const { approved, reason } = resolution;
      if (reason !== undefined && typeof reason !== "string") throw new TypeError("confirmations.resolve: reason must be a string");
      const changed = c.expireDue();
      const r = c.records.get(confirmationId);
      if (!r || r.state.s !== "pending") {
        c.surface.flush();
        if (changed) c.notify();
        throw Object.assign(new Error(`confirmations.resolve: no pending confirmation "${confirmationId}"`), { code: "not-pending" });
      }
      c.settle(r, approved ? { s: "approved", at: iso(c.surface.now()) } : reason === undefined ? { s: "denied" } : { s: "denied", reason });
      c.surface.events.push({ type: "confirmation-resolved", confirmationId, outcome: approved ? "approved" : "denied" });
      c.surface.flush();
      c.notify();
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
      const r = c.records.get(id);
      const now = c.settled(id);
      if (!r || now !== undefined) return Promise.resolve(now ?? "expired");
      return new Promise<Outcome>((resolve, reject) => {
        const done = (o: Outcome) => {
          stop();
          signal?.removeEventListener("abort", onAbort);
          r.waiters = r.waiters.filter((w) => w !== done);
          resolve(o);
        };
        const onAbort = () => {
          stop();
          r.waiters = r.waiters.filter((w) => w !== done);
          reject(aborted(id));
        };
        // Expired by time: settle it so everyone sees the same outcome.
        const stop = later(Math.max(0, r.expiresMs - c.surface.now()), () => {
          c.expireNow();
          done(c.settled(id) ?? "expired");
        });
        r.waiters.push(done);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },

    /** Called with the pending list whenever it changes (also at TTL expiry). */
    subscribe(listener: (pending: PendingConfirmation[]) => void): Unsubscribe {
      if (typeof listener !== "function") throw new TypeError("confirmations.subscribe: the listener must be a function");
      c.listeners = [...c.listeners, listener];
      return () => {
        c.listeners = c.listeners.filter((l) => l !== listener);
      };
    },
  });
}
