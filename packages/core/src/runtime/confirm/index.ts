// Confirmations (crates/engine/src/confirm): evidence bound to capability, registration,
// consumer and the fingerprint of the effective input; single use; expiring after
// `confirmationTtlMs`; at most `maxPendingConfirmations` pending.
//
// - store.ts: the pending records and the check the pipeline runs (step 7);
// - controller.ts: the public controller a host UI drives (`registry.confirmations`).

import type { Surface } from "../surface.js";
import { Confirmations } from "./store.js";

export { Confirmations, type ConfirmationRequest, type Evidence, type Outcome } from "./store.js";
export { confirmationController } from "./controller.js";

/** A registry's confirmation store (`expireAll()` at dispose). */
export function createConfirmations(surface: Surface): Confirmations {
  return new Confirmations(surface);
}
