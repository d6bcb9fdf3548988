//! The pending-confirmation store. Confirmations: evidence bound to capability, registration, consumer and the fingerprint of
//! the effective input; single use; expiring after `confirmationTtlMs`; at most
//! `maxPendingConfirmations` pending (overflow is RATE_LIMITED and creates no record).

use crate::events::{AgentSurfaceEvent, ConfirmationOutcome};
use crate::host::entropy::base62;
use crate::host::{MaybeSend, MaybeSync};
use crate::request::AgentInvocation;
use crate::snapshot::iso8601;
use crate::surface::state::Surface;
use agent_surface_model::effects::Effect;
use agent_surface_model::errors::{AgentCapabilityError, ErrorCode};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::task::{Context, Poll, Waker};

/// What the expiry task needs of its registry (the registry implements it).
pub(crate) trait ConfirmationHost: MaybeSend + MaybeSync {
    fn surface(&self) -> &Surface;
    fn confirmations(&self) -> &Confirmations;
}

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
pub(super) enum State {
    Pending,
    Approved {
        at: String,
    },
    /// Denied, with the user's reason (if they gave one).
    Denied {
        reason: Option<String>,
    },
    /// Presented by an invocation (single use). `at` is kept so that an invocation turned away
    /// before it ran (RATE_LIMITED at admission) can give the evidence back.
    Used {
        at: String,
    },
    Expired,
}

pub(super) struct Record {
    pub(super) info: PendingConfirmation,
    pub(super) input_fp: String,
    pub(super) expires_ms: u64,
    pub(super) state: State,
    pub(super) wakers: Vec<Waker>,
    /// The order requests were opened in (ids are random; `pending()` lists in request order).
    pub(super) seq: u64,
}

/// Request order across the process (only its order within one registry matters).
static NEXT_SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

pub type ConfirmationListener = Arc<crate::dyn_send_sync!(Fn(&[PendingConfirmation]))>;

#[derive(Default)]
pub(crate) struct Confirmations {
    pub(super) records: Mutex<HashMap<String, Record>>,
    pub(super) listeners: Mutex<Vec<(u64, ConfirmationListener)>>,
    pub(super) next_listener: Mutex<u64>,
    /// The registry these confirmations belong to, for the expiry task (set once at
    /// construction; weak, so a pending confirmation never keeps a registry alive).
    pub(crate) host: OnceLock<Weak<dyn ConfirmationHost>>,
}

/// The request a confirmation is checked for (or opened for): evidence is bound to all of it.
pub(crate) struct ConfirmationRequest<'a> {
    pub req: &'a AgentInvocation,
    pub registration_id: &'a str,
    pub consumer_key: &'a str,
    pub effect: Effect,
    pub description: &'a str,
    pub input: &'a Value,
    /// The fingerprint of the effective input.
    pub input_fp: &'a str,
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
    pub(super) fn expire_due(&self, surface: &Surface, records: &mut HashMap<String, Record>) -> bool {
        let now = surface.now();
        let mut changed = false;
        for r in records.values_mut() {
            if r.state == State::Pending && now >= r.expires_ms {
                r.state = State::Expired;
                surface.events.push(AgentSurfaceEvent::ConfirmationResolved {
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
        records.retain(|_, r| {
            r.state == State::Pending || now < r.expires_ms + surface.options.limits.confirmation_ttl_ms
        });
        changed
    }

    /// Expires what is due, then dispatches the events and tells the listeners (when the
    /// pending list changed).
    pub(crate) fn expire_now(&self, surface: &Surface) {
        let list = {
            let mut records = self.records.lock().unwrap_or_else(|e| e.into_inner());
            self.expire_due(surface, &mut records).then(|| Self::pending_list(&records))
        };
        surface.flush();
        if let Some(list) = list {
            self.notify(list);
        }
    }

    /// Starts the expiry task of a just-opened confirmation: at its TTL (the registry's
    /// timer), unless it was resolved first, it expires by itself. Without a timer or a
    /// spawner (wasm32 without host seams) nothing is started and expiry stays lazy.
    fn arm(&self, surface: &Surface, confirmation_id: String, ttl_ms: u64) {
        let (Some(timer), Some(spawn), Some(weak)) = (&surface.options.timer, &surface.options.spawn, self.host.get())
        else {
            return;
        };
        let sleep = timer.sleep(ttl_ms);
        let settled = Settled { host: weak.clone(), id: confirmation_id };
        let weak = weak.clone();
        spawn.spawn(Box::pin(async move {
            futures::future::select(sleep, settled).await;
            if let Some(parts) = weak.upgrade() {
                parts.confirmations().expire_now(parts.surface());
            }
        }));
    }

    /// Ready with the outcome once confirmation `id` is no longer pending (an unknown id is
    /// `Expired`); otherwise registers the waker.
    pub(super) fn poll_settled(&self, id: &str, cx: &mut Context<'_>) -> Poll<ConfirmationOutcome> {
        let mut records = self.records.lock().unwrap_or_else(|e| e.into_inner());
        match records.get_mut(id) {
            None => Poll::Ready(ConfirmationOutcome::Expired),
            Some(r) => match &r.state {
                State::Pending => {
                    r.wakers.push(cx.waker().clone());
                    Poll::Pending
                }
                State::Approved { .. } | State::Used { .. } => Poll::Ready(ConfirmationOutcome::Approved),
                State::Denied { .. } => Poll::Ready(ConfirmationOutcome::Denied),
                State::Expired => Poll::Ready(ConfirmationOutcome::Expired),
            },
        }
    }

    /// The pending requests, oldest first (in the order they were opened).
    pub(super) fn pending_list(records: &HashMap<String, Record>) -> Vec<PendingConfirmation> {
        let mut v: Vec<&Record> = records.values().filter(|r| r.state == State::Pending).collect();
        v.sort_by_key(|r| r.seq);
        v.into_iter().map(|r| r.info.clone()).collect()
    }

    pub(super) fn notify(&self, list: Vec<PendingConfirmation>) {
        let listeners: Vec<ConfirmationListener> =
            self.listeners.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|(_, l)| l.clone()).collect();
        for l in listeners {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| l(&list)));
        }
    }

    /// Step 7 of the pipeline: with `needed`, the request must present approved evidence for
    /// exactly this request, or a pending confirmation is opened (CONFIRMATION_REQUIRED).
    pub(crate) fn check(&self, surface: &Surface, r: &ConfirmationRequest<'_>, needed: bool) -> ConfirmationCheck {
        let mut notify = None;
        let mut opened_id = None;
        let result = {
            let mut records = self.records.lock().unwrap_or_else(|e| e.into_inner());
            if self.expire_due(surface, &mut records) {
                notify = Some(Self::pending_list(&records));
            }
            if !needed {
                ConfirmationCheck::Proceed(None)
            } else if let Some(id) = &r.req.confirmation_id {
                Self::present(surface, &mut records, r, id)
            } else {
                let opened = Self::open(surface, &mut records, r);
                if opened.1 {
                    notify = Some(Self::pending_list(&records));
                    if let ConfirmationCheck::Fail(e) = &opened.0 {
                        opened_id = e
                            .details
                            .as_ref()
                            .and_then(|d| d.get("confirmationId"))
                            .and_then(|v| v.as_str())
                            .map(str::to_string);
                    }
                }
                opened.0
            }
        };
        surface.flush();
        if let Some(list) = notify {
            self.notify(list);
        }
        if let Some(id) = opened_id {
            self.arm(surface, id, surface.options.limits.confirmation_ttl_ms);
        }
        result
    }

    /// The request presents confirmation `id`: approved evidence for this very request is used
    /// (single use); anything else fails.
    fn present(
        surface: &Surface,
        records: &mut HashMap<String, Record>,
        r: &ConfirmationRequest<'_>,
        id: &str,
    ) -> ConfirmationCheck {
        match records.get_mut(id) {
            None => ConfirmationCheck::Fail(err(
                ErrorCode::ConfirmationExpired,
                "the confirmation is unknown or has expired; invoke again without it",
            )),
            Some(rec)
                if rec.info.capability_id != r.req.capability_id
                    || rec.info.registration_id != r.registration_id
                    || rec.info.consumer_key != r.consumer_key
                    || rec.input_fp != r.input_fp =>
            {
                ConfirmationCheck::Fail(err(
                    ErrorCode::ConfirmationExpired,
                    "the confirmation was given for a different request; invoke again without it",
                ))
            }
            Some(rec) => match rec.state.clone() {
                State::Pending => ConfirmationCheck::Fail(required(&rec.info)),
                // The evidence lives as long as the request it approves: until expiresAt.
                State::Approved { .. } if surface.now() >= rec.expires_ms => ConfirmationCheck::Fail(err(
                    ErrorCode::ConfirmationExpired,
                    "the confirmation has expired; invoke again without it",
                )),
                State::Approved { at } => {
                    rec.state = State::Used { at: at.clone() };
                    ConfirmationCheck::Proceed(Some((id.to_string(), at)))
                }
                State::Denied { reason } => {
                    let mut e = err(ErrorCode::ConfirmationDenied, "the user denied this operation");
                    // The user's own words, for the agent: agent-safe by construction.
                    if let Some(reason) = reason {
                        e = e.detail("reason", reason);
                    }
                    ConfirmationCheck::Fail(e)
                }
                State::Used { .. } | State::Expired => ConfirmationCheck::Fail(err(
                    ErrorCode::ConfirmationExpired,
                    "the confirmation was already used or has expired; invoke again without it",
                )),
            },
        }
    }

    /// Opens a pending confirmation for the request (or refuses: too many pending). The flag:
    /// whether the pending list changed.
    fn open(
        surface: &Surface,
        records: &mut HashMap<String, Record>,
        r: &ConfirmationRequest<'_>,
    ) -> (ConfirmationCheck, bool) {
        let pending = records.values().filter(|rec| rec.state == State::Pending).count();
        if pending >= surface.options.limits.max_pending_confirmations {
            return (
                ConfirmationCheck::Fail(
                    err(ErrorCode::RateLimited, "too many confirmations are waiting for the user")
                        .detail("reason", "too-many-pending-confirmations"),
                ),
                false,
            );
        }
        let now = surface.now();
        let ttl = surface.options.limits.confirmation_ttl_ms;
        let info = PendingConfirmation {
            confirmation_id: format!("cnf_{}", base62(20)),
            capability_id: r.req.capability_id.clone(),
            registration_id: r.registration_id.to_string(),
            consumer_key: r.consumer_key.to_string(),
            effect: r.effect,
            summary: summary(r.description, r.input),
            input: r.input.clone(),
            requested_at: iso8601(now),
            expires_at: iso8601(now + ttl),
        };
        surface.events.push(AgentSurfaceEvent::ConfirmationRequested {
            confirmation_id: info.confirmation_id.clone(),
            capability_id: info.capability_id.clone(),
            expires_at: info.expires_at.clone(),
        });
        let e = required(&info);
        records.insert(
            info.confirmation_id.clone(),
            Record {
                info,
                input_fp: r.input_fp.to_string(),
                expires_ms: now + ttl,
                state: State::Pending,
                wakers: Vec::new(),
                seq: NEXT_SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            },
        );
        (ConfirmationCheck::Fail(e), true)
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

    pub(crate) fn expire_all(&self, surface: &Surface) {
        let list = {
            let mut records = self.records.lock().unwrap_or_else(|e| e.into_inner());
            for r in records.values_mut() {
                if r.state == State::Pending {
                    r.state = State::Expired;
                    surface.events.push(AgentSurfaceEvent::ConfirmationResolved {
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

/// The expiry task's early exit: ready once the confirmation is no longer pending.
struct Settled {
    host: Weak<dyn ConfirmationHost>,
    id: String,
}

impl Future for Settled {
    type Output = ConfirmationOutcome;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ConfirmationOutcome> {
        match self.host.upgrade() {
            Some(host) => host.confirmations().poll_settled(&self.id, cx),
            None => Poll::Ready(ConfirmationOutcome::Expired),
        }
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
