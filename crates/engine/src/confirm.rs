//! Confirmations: evidence bound to capability, registration, consumer and the fingerprint of
//! the effective input; single use; expiring after `confirmationTtlMs`; at most
//! `maxPendingConfirmations` pending (overflow is RATE_LIMITED and creates no record).

use crate::events::{AgentSurfaceEvent, ConfirmationOutcome};
use crate::invoke::AgentInvocation;
use crate::registry::Shared;
use crate::signal::AbortSignal;
use crate::snapshot::iso8601;
use agent_surface_model::effects::Effect;
use agent_surface_model::errors::{AgentCapabilityError, ErrorCode};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Waker};

/// A request awaiting the user (the spec's `PendingConfirmation`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingConfirmation {
    pub confirmation_id: String,
    pub capability_id: String,
    pub registration_id: String,
    pub consumer_key: String,
    pub effect: Effect,
    pub summary: String,
    pub input: Value,
    pub requested_at: String,
    pub expires_at: String,
}

#[derive(Clone, Debug, PartialEq)]
enum State {
    Pending,
    Approved {
        at: String,
    },
    Denied,
    /// Presented by an invocation (single use). `at` is kept so that an invocation turned away
    /// before it ran (RATE_LIMITED at admission) can give the evidence back.
    Used {
        at: String,
    },
    Expired,
}

struct Record {
    info: PendingConfirmation,
    input_fp: String,
    expires_ms: u64,
    state: State,
    wakers: Vec<Waker>,
}

pub type ConfirmationListener = Arc<dyn Fn(&[PendingConfirmation]) + Send + Sync>;

#[derive(Default)]
pub(crate) struct Confirmations {
    records: Mutex<HashMap<String, Record>>,
    listeners: Mutex<Vec<(u64, ConfirmationListener)>>,
    next_listener: Mutex<u64>,
}

pub(crate) enum ConfirmationCheck {
    /// Go on; with the evidence (id, approvedAt) when one was used.
    Proceed(Option<(String, String)>),
    Fail(AgentCapabilityError),
}

fn err(code: ErrorCode, m: &str) -> AgentCapabilityError {
    AgentCapabilityError::new(code, m)
}

impl Confirmations {
    fn expire_due(&self, shared: &Shared, records: &mut HashMap<String, Record>) -> bool {
        let now = shared.now();
        let mut changed = false;
        for r in records.values_mut() {
            if r.state == State::Pending && now >= r.expires_ms {
                r.state = State::Expired;
                shared.events.push(AgentSurfaceEvent::ConfirmationResolved {
                    confirmation_id: r.info.confirmation_id.clone(),
                    outcome: ConfirmationOutcome::Expired,
                });
                for w in r.wakers.drain(..) {
                    w.wake();
                }
                changed = true;
            }
        }
        // Settled records are kept only while their evidence could still be presented.
        records
            .retain(|_, r| r.state == State::Pending || now < r.expires_ms + shared.options.limits.confirmation_ttl_ms);
        changed
    }

    fn pending_list(records: &HashMap<String, Record>) -> Vec<PendingConfirmation> {
        let mut v: Vec<PendingConfirmation> =
            records.values().filter(|r| r.state == State::Pending).map(|r| r.info.clone()).collect();
        v.sort_by(|a, b| a.requested_at.cmp(&b.requested_at).then_with(|| a.confirmation_id.cmp(&b.confirmation_id)));
        v
    }

    fn notify(&self, list: Vec<PendingConfirmation>) {
        let listeners: Vec<ConfirmationListener> =
            self.listeners.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|(_, l)| l.clone()).collect();
        for l in listeners {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| l(&list)));
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check(
        &self,
        shared: &Shared,
        req: &AgentInvocation,
        registration_id: &str,
        consumer_key: &str,
        effect: Effect,
        description: &str,
        input: &Value,
        input_fp: &str,
        needed: bool,
    ) -> ConfirmationCheck {
        let mut notify = None;
        let result = {
            let mut records = self.records.lock().unwrap_or_else(|e| e.into_inner());
            if self.expire_due(shared, &mut records) {
                notify = Some(Self::pending_list(&records));
            }
            if !needed {
                ConfirmationCheck::Proceed(None)
            } else if let Some(id) = &req.confirmation_id {
                match records.get_mut(id) {
                    None => ConfirmationCheck::Fail(err(
                        ErrorCode::ConfirmationExpired,
                        "the confirmation is unknown or has expired; invoke again without it",
                    )),
                    Some(r)
                        if r.info.capability_id != req.capability_id
                            || r.info.registration_id != registration_id
                            || r.info.consumer_key != consumer_key
                            || r.input_fp != input_fp =>
                    {
                        ConfirmationCheck::Fail(err(
                            ErrorCode::ConfirmationExpired,
                            "the confirmation was given for a different request; invoke again without it",
                        ))
                    }
                    Some(r) => match r.state.clone() {
                        State::Pending => ConfirmationCheck::Fail(required(&r.info)),
                        // The evidence lives as long as the request it approves: until expiresAt.
                        State::Approved { .. } if shared.now() >= r.expires_ms => ConfirmationCheck::Fail(err(
                            ErrorCode::ConfirmationExpired,
                            "the confirmation has expired; invoke again without it",
                        )),
                        State::Approved { at } => {
                            r.state = State::Used { at: at.clone() };
                            ConfirmationCheck::Proceed(Some((id.clone(), at)))
                        }
                        State::Denied => ConfirmationCheck::Fail(err(
                            ErrorCode::ConfirmationDenied,
                            "the user denied this operation",
                        )),
                        State::Used { .. } | State::Expired => ConfirmationCheck::Fail(err(
                            ErrorCode::ConfirmationExpired,
                            "the confirmation was already used or has expired; invoke again without it",
                        )),
                    },
                }
            } else {
                let pending = records.values().filter(|r| r.state == State::Pending).count();
                if pending >= shared.options.limits.max_pending_confirmations {
                    ConfirmationCheck::Fail(
                        err(ErrorCode::RateLimited, "too many confirmations are waiting for the user")
                            .detail("reason", "too-many-pending-confirmations"),
                    )
                } else {
                    let now = shared.now();
                    let ttl = shared.options.limits.confirmation_ttl_ms;
                    let info = PendingConfirmation {
                        confirmation_id: format!("cnf_{}", crate::registry::base62(20)),
                        capability_id: req.capability_id.clone(),
                        registration_id: registration_id.to_string(),
                        consumer_key: consumer_key.to_string(),
                        effect,
                        summary: summary(description, input),
                        input: input.clone(),
                        requested_at: iso8601(now),
                        expires_at: iso8601(now + ttl),
                    };
                    shared.events.push(AgentSurfaceEvent::ConfirmationRequested {
                        confirmation_id: info.confirmation_id.clone(),
                        capability_id: info.capability_id.clone(),
                        expires_at: info.expires_at.clone(),
                    });
                    let e = required(&info);
                    records.insert(
                        info.confirmation_id.clone(),
                        Record {
                            info,
                            input_fp: input_fp.to_string(),
                            expires_ms: now + ttl,
                            state: State::Pending,
                            wakers: Vec::new(),
                        },
                    );
                    notify = Some(Self::pending_list(&records));
                    ConfirmationCheck::Fail(e)
                }
            }
        };
        shared.flush();
        if let Some(list) = notify {
            self.notify(list);
        }
        result
    }

    /// Gives back evidence consumed by an invocation that was turned away before it ran
    /// (RATE_LIMITED: an expected retry, which presents the same evidence).
    pub(crate) fn restore(&self, confirmation_id: &str) {
        let mut records = self.records.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = records.get_mut(confirmation_id) {
            if let State::Used { at } = &r.state {
                r.state = State::Approved { at: at.clone() };
            }
        }
    }

    pub(crate) fn expire_all(&self, shared: &Shared) {
        let list = {
            let mut records = self.records.lock().unwrap_or_else(|e| e.into_inner());
            for r in records.values_mut() {
                if r.state == State::Pending {
                    r.state = State::Expired;
                    shared.events.push(AgentSurfaceEvent::ConfirmationResolved {
                        confirmation_id: r.info.confirmation_id.clone(),
                        outcome: ConfirmationOutcome::Expired,
                    });
                    for w in r.wakers.drain(..) {
                        w.wake();
                    }
                }
            }
            Self::pending_list(&records)
        };
        self.notify(list);
    }
}

fn required(info: &PendingConfirmation) -> AgentCapabilityError {
    AgentCapabilityError::new(
        ErrorCode::ConfirmationRequired,
        "the user must confirm this operation; retry with the same invocationId and this confirmationId once approved",
    )
    .detail("confirmationId", info.confirmation_id.clone())
    .detail("expiresAt", info.expires_at.clone())
    .detail("summary", info.summary.clone())
}

/// "<description> — <input>" with the input as compact JSON, bounded for a dialog.
fn summary(description: &str, input: &Value) -> String {
    let mut text = serde_json::to_string(input).unwrap_or_default();
    if text.chars().count() > 300 {
        text = text.chars().take(297).collect::<String>() + "...";
    }
    if text == "{}" || text == "null" {
        description.to_string()
    } else {
        format!("{description} — {text}")
    }
}

/// Why `resolve` was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ResolveError {
    #[error("no pending confirmation \"{0}\"")]
    NotPending(String),
    #[error("the registry was disposed")]
    Disposed,
}

/// `registry.confirmations()`: the host UI's side of confirmations.
#[derive(Clone)]
pub struct ConfirmationController {
    pub(crate) shared: Weak<Shared>,
}

impl ConfirmationController {
    /// Requests awaiting the user, oldest first.
    pub fn pending(&self) -> Vec<PendingConfirmation> {
        let Some(shared) = self.shared.upgrade() else { return Vec::new() };
        let mut records = shared.confirmations.records.lock().unwrap_or_else(|e| e.into_inner());
        shared.confirmations.expire_due(&shared, &mut records);
        Confirmations::pending_list(&records)
    }

    /// Approves or denies a pending request.
    pub fn resolve(&self, confirmation_id: &str, approved: bool) -> Result<(), ResolveError> {
        let shared = self.shared.upgrade().ok_or(ResolveError::Disposed)?;
        let c = &shared.confirmations;
        let list = {
            let mut records = c.records.lock().unwrap_or_else(|e| e.into_inner());
            c.expire_due(&shared, &mut records);
            let r = records
                .get_mut(confirmation_id)
                .filter(|r| r.state == State::Pending)
                .ok_or_else(|| ResolveError::NotPending(confirmation_id.to_string()))?;
            r.state = if approved { State::Approved { at: iso8601(shared.now()) } } else { State::Denied };
            shared.events.push(AgentSurfaceEvent::ConfirmationResolved {
                confirmation_id: confirmation_id.to_string(),
                outcome: if approved { ConfirmationOutcome::Approved } else { ConfirmationOutcome::Denied },
            });
            for w in r.wakers.drain(..) {
                w.wake();
            }
            Confirmations::pending_list(&records)
        };
        shared.flush();
        c.notify(list);
        Ok(())
    }

    /// Resolves when the confirmation settles (approved, denied or expired). An unknown id is
    /// `Expired`. Cancelling `signal` stops waiting (also `Expired`).
    pub async fn wait_for(&self, confirmation_id: &str, signal: Option<AbortSignal>) -> ConfirmationOutcome {
        let Some(shared) = self.shared.upgrade() else { return ConfirmationOutcome::Expired };
        let expires_in = {
            let records = shared.confirmations.records.lock().unwrap_or_else(|e| e.into_inner());
            records.get(confirmation_id).map(|r| r.expires_ms.saturating_sub(shared.now()))
        };
        let Some(expires_in) = expires_in else { return ConfirmationOutcome::Expired };
        let wait = Wait { shared: Arc::downgrade(&shared), id: confirmation_id.to_string() };
        let timer: crate::binding::BoxFuture<()> = match &shared.options.runtime {
            Some(rt) => rt.sleep(expires_in),
            None => Box::pin(futures::future::pending()),
        };
        let cancel: crate::binding::BoxFuture<()> = match signal {
            Some(s) => Box::pin(async move {
                s.aborted().await;
            }),
            None => Box::pin(futures::future::pending()),
        };
        drop(shared);
        use futures::FutureExt;
        futures::select_biased! {
            o = wait.fuse() => o,
            _ = timer.fuse() => {
                // Expired by time: settle it so everyone sees the same outcome.
                match self.shared.upgrade() {
                    Some(shared) => {
                        let mut records = shared.confirmations.records.lock().unwrap_or_else(|e| e.into_inner());
                        shared.confirmations.expire_due(&shared, &mut records);
                        let outcome = match records.get(confirmation_id).map(|r| r.state.clone()) {
                            Some(State::Approved { .. }) | Some(State::Used { .. }) => ConfirmationOutcome::Approved,
                            Some(State::Denied) => ConfirmationOutcome::Denied,
                            _ => ConfirmationOutcome::Expired,
                        };
                        drop(records);
                        shared.flush();
                        outcome
                    }
                    None => ConfirmationOutcome::Expired,
                }
            },
            _ = cancel.fuse() => ConfirmationOutcome::Expired,
        }
    }

    /// Called with the pending list whenever it changes.
    pub fn subscribe(&self, f: impl Fn(&[PendingConfirmation]) + Send + Sync + 'static) -> ConfirmationSubscription {
        let Some(shared) = self.shared.upgrade() else {
            return ConfirmationSubscription { shared: Weak::new(), id: 0 };
        };
        let c = &shared.confirmations;
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
    shared: Weak<Shared>,
    id: u64,
}

impl Drop for ConfirmationSubscription {
    fn drop(&mut self) {
        if let Some(s) = self.shared.upgrade() {
            s.confirmations.listeners.lock().unwrap_or_else(|e| e.into_inner()).retain(|(i, _)| *i != self.id);
        }
    }
}

struct Wait {
    shared: Weak<Shared>,
    id: String,
}

impl Future for Wait {
    type Output = ConfirmationOutcome;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ConfirmationOutcome> {
        let Some(shared) = self.shared.upgrade() else { return Poll::Ready(ConfirmationOutcome::Expired) };
        let mut records = shared.confirmations.records.lock().unwrap_or_else(|e| e.into_inner());
        match records.get_mut(&self.id) {
            None => Poll::Ready(ConfirmationOutcome::Expired),
            Some(r) => match &r.state {
                State::Pending => {
                    r.wakers.push(cx.waker().clone());
                    Poll::Pending
                }
                State::Approved { .. } | State::Used { .. } => Poll::Ready(ConfirmationOutcome::Approved),
                State::Denied => Poll::Ready(ConfirmationOutcome::Denied),
                State::Expired => Poll::Ready(ConfirmationOutcome::Expired),
            },
        }
    }
}
