//! Confirmations: evidence bound to capability, registration, consumer and the fingerprint of
//! the effective input; single use; expiring after `confirmationTtlMs`; at most
//! `maxPendingConfirmations` pending (overflow is RATE_LIMITED and creates no record).
//!
//! - [`store`]: the pending records and the check the pipeline runs (step 7).
//! - [`controller`]: the public controller a host UI drives.

pub mod controller;
pub mod store;

use crate::host::{BoxFuture, MaybeSend, MaybeSync};
use crate::surface::state::Surface;
use serde_json::Value;
use std::sync::Arc;
use store::Confirmations;

/// Asks the host's user to confirm (wait semantics): `true` to run. Called with the capability
/// id and the effective input while the request is pending (listed by
/// [`crate::gateway::ExposedTools::confirmations`]); `false`, or a panic, denies. The gateway's
/// option; the pipeline's admission calls it.
pub type ConfirmFn = Arc<crate::dyn_send_sync!(Fn(&str, &Value) -> BoxFuture<bool>)>;

/// What the controller needs of a registry: the live surface and the confirmation store (the
/// pipeline's [`crate::invoke`] `Parts` adds what is in flight).
pub(crate) trait ConfirmParts: MaybeSend + MaybeSync {
    fn surface(&self) -> &Surface;
    fn confirmations(&self) -> &Confirmations;
}

pub use controller::{ConfirmationController, ConfirmationSubscription, Resolution, ResolveError, WaitAborted};
pub use store::{ConfirmationListener, PendingConfirmation};
