// Step 7 for an exposure gateway (./checks.ts `Confirmer`): a call that needs a confirmation is
// denied when nobody can be asked (no `confirm`), else asked while its confirmation is pending.
// Only the gateway imports this: a registry answers CONFIRMATION_REQUIRED instead.

import type { JsonValue } from "../../types.js";
import type { Evidence } from "../confirm/index.js";
import { jsonCopy } from "../json.js";
import { confirmationGate, type Confirmer } from "./checks.js";
import { Fail, fail } from "./request.js";

/**
 * The gateway's confirmer: without `ask`, CONFIRMATION_DENIED, nothing opened. With it, a pending
 * confirmation like any other (`confirmation-requested`, listed by the controller), answered by
 * `ask` or by the host through the controller, whichever comes first; then the evidence is
 * presented (single use): a denial is CONFIRMATION_DENIED, an expiry CONFIRMATION_EXPIRED. The
 * caller's signal while waiting: CANCELLED, the request closed.
 */
export const asking =
  (ask?: (capabilityId: string, input: JsonValue) => unknown): Confirmer =>
  async (parts, a, input, signal): Promise<Evidence> => {
    if (!ask) throw fail("CONFIRMATION_DENIED", "this operation needs the user's confirmation and nobody can be asked for it here");
    let cid: string;
    try {
      confirmationGate(parts, a, input, true);
      throw fail("EXECUTION_FAILED", "the confirmation could not be opened");
    } catch (f) {
      if (!(f instanceof Fail) || f.error.code !== "CONFIRMATION_REQUIRED") throw f;
      cid = f.error.details!.confirmationId as string;
    }
    const { controller } = parts.confirmations;
    const value = input ?? null;
    const answer = (approved: boolean) => {
      try {
        controller.resolve(cid, { approved });
      } catch {
        // already settled (the host resolved it, or it expired): the first answer stands
      }
    };
    // A throwing or rejecting `confirm` answers "no"; only `true` approves.
    new Promise((resolve) => resolve(ask(a.req.capabilityId, typeof value === "object" && value !== null ? jsonCopy<JsonValue>(value) : value))).then(
      (v) => answer(v === true),
      () => answer(false),
    );
    try {
      await controller.waitFor(cid, signal ? { signal } : undefined);
    } catch {
      try {
        controller.resolve(cid, { approved: false, reason: "the call was cancelled while waiting for the confirmation" });
      } catch {
        // already settled
      }
      throw fail("CANCELLED", "the invocation was cancelled while waiting for the user's confirmation");
    }
    const evidence = confirmationGate(parts, { ...a, req: { ...a.req, confirmationId: cid } }, input, true);
    if (!evidence) throw fail("CONFIRMATION_EXPIRED", "the confirmation is unknown or has expired");
    return evidence;
  };
