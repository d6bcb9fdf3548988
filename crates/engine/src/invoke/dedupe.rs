//! Step 1, dedupe: the bounded idempotency window keyed by (consumer, invocation id). A repeat
//! of a settled request gets the cached result; a repeat of a running one joins it; the same
//! id with a different request is INVOCATION_CONFLICT. Otherwise a run starts.

use super::admission::Confirmer;
use super::pipeline::run;
use super::Parts;
use crate::host::entropy::base62;
use crate::host::BoxFuture;
use crate::request::{error_result, fingerprint, AgentInvocation, AgentInvocationResult, InvokeOptions};
use agent_surface_model::errors::{AgentCapabilityError, ErrorCode};
use futures::future::{FutureExt, Shared as SharedFuture, WeakShared};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

type Pending = SharedFuture<BoxFuture<AgentInvocationResult>>;

pub(super) enum DedupeEntry {
    /// Held weakly: the callers own the run. When every caller has stopped waiting (dropped its
    /// future) the run is dropped, settles CANCELLED and releases what it held; a strong handle
    /// here would keep an unpolled run, and its queue slot, alive forever.
    InFlight {
        fingerprint: String,
        future: WeakShared<BoxFuture<AgentInvocationResult>>,
        serial: u64,
    },
    Done {
        fingerprint: String,
        result: AgentInvocationResult,
        at_ms: u64,
        serial: u64,
    },
}

/// The bounded idempotency window (dedupeCacheSize / dedupeCacheTtlMs). `order` lists the
/// terminal entries oldest first, so expiry and eviction are amortized O(1) however many
/// invocations are in flight.
#[derive(Default)]
pub(crate) struct Dedupe {
    pub(super) entries: HashMap<String, DedupeEntry>,
    order: VecDeque<(String, u64)>,
    done: usize,
    next_serial: u64,
}

impl Dedupe {
    pub(super) fn serial(&mut self) -> u64 {
        self.next_serial += 1;
        self.next_serial
    }

    pub(super) fn expire(&mut self, now: u64, size: usize, ttl: u64) {
        while let Some((key, serial)) = self.order.front() {
            let drop_it = match self.entries.get(key) {
                Some(DedupeEntry::Done { at_ms, serial: s, .. }) if s == serial => {
                    self.done > size || now.saturating_sub(*at_ms) > ttl
                }
                // Not the entry this slot was recorded for (cannot happen today; harmless).
                _ => {
                    self.order.pop_front();
                    continue;
                }
            };
            if !drop_it {
                break;
            }
            let (key, _) = self.order.pop_front().expect("front");
            self.entries.remove(&key);
            self.done -= 1;
        }
    }

    /// Records the terminal result of the run `serial` (if the key is still that run's).
    pub(super) fn finish(
        &mut self,
        key: &str,
        serial: u64,
        fingerprint: String,
        result: &AgentInvocationResult,
        now: u64,
    ) {
        if !matches!(self.entries.get(key), Some(DedupeEntry::InFlight { serial: s, .. }) if *s == serial) {
            return;
        }
        if cacheable(result) {
            let serial = self.serial();
            self.entries
                .insert(key.to_string(), DedupeEntry::Done { fingerprint, result: result.clone(), at_ms: now, serial });
            self.order.push_back((key.to_string(), serial));
            self.done += 1;
        } else {
            self.entries.remove(key);
        }
    }
}

/// Whether a settled result is cached as terminal.
fn cacheable(r: &AgentInvocationResult) -> bool {
    !matches!(r.code(), Some(ErrorCode::ConfirmationRequired | ErrorCode::RateLimited | ErrorCode::InvocationConflict))
}

/// Runs `request` on a registry's parts, deduplicated (the caller checked it is not disposed).
/// `confirmer`: how a needed confirmation is answered (see [`Confirmer`]).
pub(crate) async fn invoke(
    parts: Arc<dyn Parts>,
    request: AgentInvocation,
    options: InvokeOptions,
    confirmer: Confirmer,
) -> AgentInvocationResult {
    let consumer = options.consumer.clone().unwrap_or_default();
    let invocation_id = request.invocation_id.clone().unwrap_or_else(|| format!("inv_{}", base62(16)));
    let mut request = request;
    let fp = fingerprint(&request);
    request.invocation_id = Some(invocation_id.clone());
    let key = format!("{} {}", consumer.key(), invocation_id);

    enum Found {
        Join(Pending),
        Conflict,
    }
    let surface = parts.surface();
    let found = {
        let mut d = parts.inflight().dedupe.lock().unwrap_or_else(|e| e.into_inner());
        let l = &surface.options.limits;
        d.expire(surface.now(), l.dedupe_cache_size, l.dedupe_cache_ttl_ms);
        let found = match d.entries.get(&key) {
            Some(DedupeEntry::InFlight { fingerprint, future, .. }) => match future.upgrade() {
                Some(f) if *fingerprint == fp => Some(Found::Join(f)),
                Some(_) => Some(Found::Conflict),
                // Every caller of that run stopped waiting; it is settling CANCELLED
                // right now. This is a new attempt.
                None => None,
            },
            Some(DedupeEntry::Done { fingerprint, result, .. }) if *fingerprint == fp => return result.clone(),
            Some(DedupeEntry::Done { .. }) => Some(Found::Conflict),
            None => None,
        };
        match found {
            Some(f) => f,
            None => {
                let serial = d.serial();
                let weak = Arc::downgrade(&parts);
                let fut: BoxFuture<AgentInvocationResult> = Box::pin(run(
                    weak,
                    request.clone(),
                    options,
                    consumer.clone(),
                    (key.clone(), fp.clone(), serial),
                    confirmer,
                ));
                let s = fut.shared();
                let future = s.downgrade().expect("a fresh shared future");
                d.entries.insert(key.clone(), DedupeEntry::InFlight { fingerprint: fp.clone(), future, serial });
                Found::Join(s)
            }
        }
    };
    match found {
        Found::Join(future) => future.await,
        Found::Conflict => {
            let version = surface.lock().version;
            let err = AgentCapabilityError::new(ErrorCode::InvocationConflict, "this invocation id was already used for a different request; use a fresh invocation id if the new request is intentional");
            error_result(&invocation_id, &request.capability_id, err, version, false)
        }
    }
}
