//! The invocation pipeline, in the fixed order of DECISIONS §7:
//! 1 dedupe → 2 resolve → 3 availability → 4 authorize → 5 effective input → 6 precondition and
//! invoke policies → 7 confirmation → 8 admission → 9 execute → 10 output checks → 11 settle.
//! `invoke` returns a result envelope, never an error (misuse after `dispose` aside).
//!
//! - [`request`]: the request, its options and the result envelope (they live in
//!   [`crate::request`], below the confirmations that record them).
//! - `dedupe` (step 1), `admission` (2 to 7), `queues` (8), `pipeline` (the order; 9 and 10),
//!   `settle` (11).
//!
//! The registry runs it ([`crate::registry::AgentSurfaceRegistry::invoke`]) on its [`Parts`]:
//! the live surface, what is in flight and the confirmation store, nothing else.

mod admission;
mod dedupe;
mod pipeline;
mod queues;
mod settle;

pub use crate::request;
pub use crate::request::{
    fingerprint, fnv1a64, AgentInvocation, AgentInvocationResult, InvocationStatus, InvokeOptions, RegistryDisposed,
};
pub(crate) use admission::Confirmer;
pub(crate) use dedupe::invoke;

pub(crate) use crate::confirm::ConfirmParts;
use std::sync::Mutex;

/// A registry's parts as the pipeline (and the confirmation controller) see them. The registry
/// implements it; held as `Arc<dyn Parts>` / `Weak<dyn Parts>`.
pub(crate) trait Parts: ConfirmParts {
    fn inflight(&self) -> &Inflight;
}

/// Everything in flight: the dedupe window, the admission queues, the running executions.
#[derive(Default)]
pub(crate) struct Inflight {
    dedupe: Mutex<dedupe::Dedupe>,
    queues: queues::Queues,
    executions: pipeline::Executions,
}

impl Inflight {
    /// Aborts and settles every non-navigation execution of an unmounted registration.
    pub(crate) fn unmounted(&self, registration_id: &str) {
        self.executions.unmounted(registration_id);
    }

    /// `dispose()`: everything in flight settles CANCELLED (the registry then expires the
    /// pending confirmations).
    pub(crate) fn cancel_all(&self) {
        self.executions.cancel_all();
    }

    /// (dedupe entries, admission groups, running executions, observation slots).
    pub(crate) fn stats(&self) -> (usize, usize, usize, usize) {
        let dedupe = self.dedupe.lock().unwrap_or_else(|e| e.into_inner()).entries.len();
        let (groups, gates) = self.queues.stats();
        (dedupe, groups, self.executions.len(), gates)
    }
}
