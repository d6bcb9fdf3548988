//! Confirmations: evidence bound to capability, registration, consumer and the fingerprint of
//! the effective input; single use; expiring after `confirmationTtlMs`; at most
//! `maxPendingConfirmations` pending (overflow is RATE_LIMITED and creates no record).
//!
//! - [`store`]: the pending records and the check the pipeline runs (step 7).
//! - [`controller`]: the public controller a host UI drives.

pub mod controller;
pub mod store;

pub use controller::{ConfirmationController, ConfirmationSubscription, Resolution, ResolveError, WaitAborted};
pub use store::{ConfirmationListener, PendingConfirmation};
