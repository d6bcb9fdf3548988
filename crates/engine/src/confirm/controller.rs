//! `registry.confirmations()`: the host UI's side of confirmations (list, resolve, wait,
//! subscribe) over the registry's store.

use super::store::{Confirmations, PendingConfirmation, State};
use super::ConfirmParts;
use crate::events::{AgentSurfaceEvent, ConfirmationOutcome};
use crate::host::{BoxFuture, MaybeSend, MaybeSync};
use crate::signal::AbortSignal;
use crate::snapshot::iso8601;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};

/// Why `resolve` was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ResolveError {
    #[error("no pending confirmation \"{0}\"")]
    NotPending(String),
    #[error("the registry was disposed")]
    Disposed,
}

/// `wait_for` gave up because its signal was aborted (the page's `waitFor` rejects with an
/// `AbortError`). Only the wait ends: the confirmation stays pending.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("waiting for the confirmation was aborted; the confirmation is still pending")]
pub struct WaitAborted;

/// The spec's `resolution: { approved: boolean; reason?: string }`. A denial's reason is the
/// user's words: the denied invocation carries it as `details.reason` of CONFIRMATION_DENIED.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resolution {
    pub approved: bool,
    pub reason: Option<String>,
}

impl Resolution {
    pub fn approved() -> Self {
        Resolution { approved: true, reason: None }
    }
    pub fn denied() -> Self {
        Resolution { approved: false, reason: None }
    }
    pub fn reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }
}

impl From<bool> for Resolution {
    fn from(approved: bool) -> Self {
        Resolution { approved, reason: None }
    }
}

/// `registry.confirmations()`: the host UI's side of confirmations.
#[derive(Clone)]
pub struct ConfirmationController {
    pub(crate) parts: Weak<dyn ConfirmParts>,
}

impl ConfirmationController {
    /// Requests awaiting the user, oldest first.
    pub fn pending(&self) -> Vec<PendingConfirmation> {
        let Some(shared) = self.parts.upgrade() else { return Vec::new() };
        shared.confirmations().expire_now(shared.surface());
        let records = shared.confirmations().records.lock().unwrap_or_else(|e| e.into_inner());
        Confirmations::pending_list(&records)
    }

    /// Approves or denies a pending request (without a reason; see [`Self::resolve_with`]).
    pub fn resolve(&self, confirmation_id: &str, approved: bool) -> Result<(), ResolveError> {
        self.resolve_with(confirmation_id, Resolution::from(approved))
    }

    /// The spec's `resolve(confirmationId, { approved, reason? })`. The `confirmation-resolved`
    /// event has no reason field in the spec's event union, so the reason goes only to the
    /// denied invocation (`details.reason` of CONFIRMATION_DENIED).
    pub fn resolve_with(&self, confirmation_id: &str, resolution: Resolution) -> Result<(), ResolveError> {
        let Resolution { approved, reason } = resolution;
        let shared = self.parts.upgrade().ok_or(ResolveError::Disposed)?;
        let c = shared.confirmations();
        let list = {
            let mut records = c.records.lock().unwrap_or_else(|e| e.into_inner());
            c.expire_due(shared.surface(), &mut records);
            let r = records
                .get_mut(confirmation_id)
                .filter(|r| r.state == State::Pending)
                .ok_or_else(|| ResolveError::NotPending(confirmation_id.to_string()))?;
            r.state = if approved {
                State::Approved { at: iso8601(shared.surface().now()) }
            } else {
                State::Denied { reason }
            };
            shared.surface().events.push(AgentSurfaceEvent::ConfirmationResolved {
                confirmation_id: confirmation_id.to_string(),
                outcome: if approved { ConfirmationOutcome::Approved } else { ConfirmationOutcome::Denied },
            });
            for w in r.wakers.drain(..) {
                w.wake();
            }
            Confirmations::pending_list(&records)
        };
        shared.surface().flush();
        c.notify(list);
        Ok(())
    }

    /// Resolves when the confirmation settles (approved, denied or expired). An unknown id is
    /// `Expired`. Aborting `signal` (or passing one already aborted) ends the wait with
    /// [`WaitAborted`] and leaves the confirmation pending: it is still in
    /// [`pending`](Self::pending), and may still be resolved.
    pub async fn wait_for(
        &self,
        confirmation_id: &str,
        signal: Option<AbortSignal>,
    ) -> Result<ConfirmationOutcome, WaitAborted> {
        if signal.as_ref().is_some_and(AbortSignal::is_aborted) {
            return Err(WaitAborted);
        }
        let Some(shared) = self.parts.upgrade() else { return Ok(ConfirmationOutcome::Expired) };
        let expires_in = {
            let records = shared.confirmations().records.lock().unwrap_or_else(|e| e.into_inner());
            records.get(confirmation_id).map(|r| r.expires_ms.saturating_sub(shared.surface().now()))
        };
        let Some(expires_in) = expires_in else { return Ok(ConfirmationOutcome::Expired) };
        let wait = Wait { shared: Arc::downgrade(&shared), id: confirmation_id.to_string() };
        let timer: BoxFuture<()> = match &shared.surface().options.timer {
            Some(rt) => rt.sleep(expires_in),
            None => Box::pin(futures::future::pending()),
        };
        let cancel: BoxFuture<()> = match signal {
            Some(s) => Box::pin(async move {
                s.aborted().await;
            }),
            None => Box::pin(futures::future::pending()),
        };
        drop(shared);
        use futures::FutureExt;
        futures::select_biased! {
            o = wait.fuse() => Ok(o),
            _ = timer.fuse() => {
                // Expired by time: settle it so everyone sees the same outcome.
                match self.parts.upgrade() {
                    Some(shared) => {
                        shared.confirmations().expire_now(shared.surface());
                        let records = shared.confirmations().records.lock().unwrap_or_else(|e| e.into_inner());
                        let outcome = match records.get(confirmation_id).map(|r| r.state.clone()) {
                            Some(State::Approved { .. }) | Some(State::Used { .. }) => ConfirmationOutcome::Approved,
                            Some(State::Denied { .. }) => ConfirmationOutcome::Denied,
                            _ => ConfirmationOutcome::Expired,
                        };
                        drop(records);
                        Ok(outcome)
                    }
                    None => Ok(ConfirmationOutcome::Expired),
                }
            },
            _ = cancel.fuse() => Err(WaitAborted),
        }
    }

    /// Called with the pending list whenever it changes.
    pub fn subscribe(
        &self,
        f: impl Fn(&[PendingConfirmation]) + MaybeSend + MaybeSync + 'static,
    ) -> ConfirmationSubscription {
        let Some(shared) = self.parts.upgrade() else {
            return ConfirmationSubscription { shared: self.parts.clone(), id: 0 };
        };
        let c = shared.confirmations();
        let id = {
            let mut n = c.next_listener.lock().unwrap_or_else(|e| e.into_inner());
            *n += 1;
            *n
        };
        c.listeners.lock().unwrap_or_else(|e| e.into_inner()).push((id, Arc::new(f)));
        ConfirmationSubscription { shared: Arc::downgrade(&shared), id }
    }
}

/// Ends a confirmation subscription when dropped.
pub struct ConfirmationSubscription {
    shared: Weak<dyn ConfirmParts>,
    id: u64,
}

impl Drop for ConfirmationSubscription {
    fn drop(&mut self) {
        if let Some(s) = self.shared.upgrade() {
            s.confirmations().listeners.lock().unwrap_or_else(|e| e.into_inner()).retain(|(i, _)| *i != self.id);
        }
    }
}

/// Resolves when the confirmation is no longer pending.
struct Wait {
    shared: Weak<dyn ConfirmParts>,
    id: String,
}

impl Future for Wait {
    type Output = ConfirmationOutcome;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ConfirmationOutcome> {
        match self.shared.upgrade() {
            Some(shared) => shared.confirmations().poll_settled(&self.id, cx),
            None => Poll::Ready(ConfirmationOutcome::Expired),
        }
    }
}
