//! The invocation pipeline, in the fixed order of DECISIONS §7:
//! 1 dedupe → 2 resolve → 3 availability → 4 authorize → 5 effective input → 6 precondition and
//! invoke policies → 7 confirmation → 8 admission → 9 execute → 10 output checks → 11 settle.
//! `invoke` returns a result envelope, never an error (misuse after `dispose` aside).

use crate::audit::AuditRecord;
use crate::binding::{ActionBinding, ActionContext, BoxFuture, ConfirmationEvidence, HandlerError, ReadContext};
use crate::confirm::ConfirmationCheck;
use crate::events::{AgentSurfaceEvent, SettledStatus};
use crate::policy::{
    evaluate_discovery, DiscoveryContext, DiscoveryDecision, Policy, PolicyContext, PolicyDecision, PolicyPhase,
};
use crate::registry::{AgentSurfaceRegistry, DiscoveryScope, Dynamic, LogLevel, Reg, Shared};
use crate::signal::{AbortController, AbortReason, AbortSignal};
use crate::snapshot::{iso8601, AgentConsumer};
use agent_surface_model::canonical::canonical_json;
use agent_surface_model::effects::{Audit, Effect};
use agent_surface_model::errors::{AgentCapabilityError, ErrorCode};
use agent_surface_schema::validate::Validator;
use futures::future::{FutureExt, Shared as SharedFuture, WeakShared};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Waker};

/// The spec's `AgentInvocation`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentInvocation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocation_id: Option<String>,
    pub capability_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_id: Option<String>,
    /// The surface the consumer discovered on; another surface is stale by definition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation_id: Option<String>,
}

impl AgentInvocation {
    pub fn new(capability_id: impl Into<String>) -> Self {
        AgentInvocation { capability_id: capability_id.into(), ..Default::default() }
    }
    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.invocation_id = Some(id.into());
        self
    }
    pub fn input(mut self, v: Value) -> Self {
        self.input = Some(v);
        self
    }
    pub fn instance(mut self, id: impl Into<String>) -> Self {
        self.instance_id = Some(id.into());
        self
    }
    pub fn registration(mut self, id: impl Into<String>) -> Self {
        self.registration_id = Some(id.into());
        self
    }
    pub fn surface_version(mut self, v: impl Into<String>) -> Self {
        self.surface_version = Some(v.into());
        self
    }
    pub fn confirmation(mut self, id: impl Into<String>) -> Self {
        self.confirmation_id = Some(id.into());
        self
    }
}

/// The spec's `InvokeOptions`.
#[derive(Clone, Debug, Default)]
pub struct InvokeOptions {
    pub consumer: Option<AgentConsumer>,
    /// External cancellation → CANCELLED.
    pub signal: Option<AbortSignal>,
    /// Overrides the capability's and the limits' timeout.
    pub timeout_ms: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InvocationStatus {
    Ok,
    Error,
}

/// The spec's `AgentInvocationResult` (a discriminated union on `status`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentInvocationResult {
    pub status: InvocationStatus,
    pub invocation_id: String,
    pub capability_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<AgentCapabilityError>,
    pub surface_version: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub surface_changed: bool,
}

impl AgentInvocationResult {
    pub fn is_ok(&self) -> bool {
        self.status == InvocationStatus::Ok
    }
    pub fn code(&self) -> Option<ErrorCode> {
        self.error.as_ref().map(|e| e.code)
    }
}

/// Misuse: the registry was disposed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invoke called on a disposed registry")]
pub struct RegistryDisposed;

// ---------------------------------------------------------------------------------------------
// Identity and idempotency.

/// FNV-1a 64 of the canonical JSON of the request as issued.
pub fn fingerprint(inv: &AgentInvocation) -> String {
    let mut m = Map::new();
    m.insert("capabilityId".into(), Value::String(inv.capability_id.clone()));
    for (k, v) in [
        ("registrationId", &inv.registration_id),
        ("instanceId", &inv.instance_id),
        ("surfaceVersion", &inv.surface_version),
        ("confirmationId", &inv.confirmation_id),
    ] {
        if let Some(v) = v {
            m.insert(k.into(), Value::String(v.clone()));
        }
    }
    if let Some(i) = &inv.input {
        m.insert("input".into(), i.clone());
    }
    fnv1a64(canonical_json(&Value::Object(m)).as_bytes())
}

pub fn fnv1a64(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    format!("{h:016x}")
}

type Pending = SharedFuture<BoxFuture<AgentInvocationResult>>;

enum DedupeEntry {
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
    entries: HashMap<String, DedupeEntry>,
    order: VecDeque<(String, u64)>,
    done: usize,
    next_serial: u64,
}

impl Dedupe {
    fn serial(&mut self) -> u64 {
        self.next_serial += 1;
        self.next_serial
    }

    fn expire(&mut self, now: u64, size: usize, ttl: u64) {
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
    fn finish(&mut self, key: &str, serial: u64, fingerprint: String, result: &AgentInvocationResult, now: u64) {
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

// ---------------------------------------------------------------------------------------------
// Admission: action groups and observation gates.

#[derive(Default)]
struct WaiterState {
    granted: bool,
    cancelled: bool,
    waker: Option<Waker>,
}

type Waiter = Arc<Mutex<WaiterState>>;

struct Group {
    running: usize,
    max: usize,
    depth: usize,
    queue: VecDeque<Waiter>,
}

#[derive(Default)]
struct ObsGate {
    running: HashMap<String, usize>,
    total: usize,
    queues: HashMap<String, VecDeque<Waiter>>,
}

/// Everything in flight: dedupe window, groups, gates, running executions.
#[derive(Default)]
pub(crate) struct Inflight {
    pub(crate) dedupe: Mutex<Dedupe>,
    groups: Mutex<HashMap<String, Group>>,
    gates: Mutex<ObsGate>,
    running: Mutex<HashMap<u64, Running>>,
    next: Mutex<u64>,
}

struct Running {
    registration_id: Option<String>,
    navigation: bool,
    controller: AbortController,
    /// Forces settlement (COMPONENT_UNMOUNTED, CANCELLED) from outside.
    force: Arc<Mutex<ForceState>>,
}

#[derive(Default)]
struct ForceState {
    code: Option<ErrorCode>,
    waker: Option<Waker>,
}

struct Forced(Arc<Mutex<ForceState>>);

impl Future for Forced {
    type Output = ErrorCode;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ErrorCode> {
        let mut s = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match s.code {
            Some(c) => Poll::Ready(c),
            None => {
                s.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

fn force(f: &Arc<Mutex<ForceState>>, code: ErrorCode) {
    let w = {
        let mut s = f.lock().unwrap_or_else(|e| e.into_inner());
        if s.code.is_some() {
            return;
        }
        s.code = Some(code);
        s.waker.take()
    };
    if let Some(w) = w {
        w.wake();
    }
}

struct Admission(Waiter);

impl Future for Admission {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut s = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if s.granted {
            Poll::Ready(())
        } else {
            s.waker = Some(cx.waker().clone());
            Poll::Pending
        }
    }
}

fn grant(w: &Waiter) -> bool {
    let waker = {
        let mut s = w.lock().unwrap_or_else(|e| e.into_inner());
        if s.cancelled {
            return false;
        }
        s.granted = true;
        s.waker.take()
    };
    if let Some(wk) = waker {
        wk.wake();
    }
    true
}

impl Inflight {
    /// Aborts and settles every non-navigation execution of an unmounted registration.
    pub(crate) fn unmounted(&self, registration_id: &str) {
        let running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        for r in running.values() {
            if r.registration_id.as_deref() == Some(registration_id) && !r.navigation {
                r.controller.abort(AbortReason::Unmounted);
                force(&r.force, ErrorCode::ComponentUnmounted);
            }
        }
    }

    /// `dispose()`: everything in flight settles CANCELLED; pending confirmations expire.
    pub(crate) fn dispose_all(&self, shared: &Shared) {
        {
            let running = self.running.lock().unwrap_or_else(|e| e.into_inner());
            for r in running.values() {
                r.controller.abort(AbortReason::Disposed);
                force(&r.force, ErrorCode::Cancelled);
            }
        }
        shared.confirmations.expire_all(shared);
    }

    /// Acquires a slot in an action/procedure group; `Err` when the queue is full.
    fn enter_group(&self, key: &str, max: usize, depth: usize) -> Result<Option<Admission>, ()> {
        let mut groups = self.groups.lock().unwrap_or_else(|e| e.into_inner());
        let g =
            groups.entry(key.to_string()).or_insert_with(|| Group { running: 0, max, depth, queue: VecDeque::new() });
        if g.running < g.max {
            g.running += 1;
            return Ok(None);
        }
        if g.queue.len() >= g.depth {
            return Err(());
        }
        let w: Waiter = Arc::default();
        g.queue.push_back(w.clone());
        Ok(Some(Admission(w)))
    }

    fn leave_group(&self, key: &str) {
        let mut groups = self.groups.lock().unwrap_or_else(|e| e.into_inner());
        let Some(g) = groups.get_mut(key) else { return };
        g.running = g.running.saturating_sub(1);
        while let Some(w) = g.queue.pop_front() {
            if grant(&w) {
                g.running += 1;
                break;
            }
        }
        // Groups exist only while contended.
        if g.running == 0 && g.queue.is_empty() {
            groups.remove(key);
        }
    }

    fn cancel_waiter(&self, key: &str, w: &Waiter) {
        let granted = {
            let mut s = w.lock().unwrap_or_else(|e| e.into_inner());
            s.cancelled = true;
            s.granted
        };
        if granted {
            self.leave_group(key);
        } else {
            let mut groups = self.groups.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(g) = groups.get_mut(key) {
                g.queue.retain(|x| !Arc::ptr_eq(x, w));
                if g.running == 0 && g.queue.is_empty() {
                    groups.remove(key);
                }
            }
        }
    }

    pub(crate) fn stats(&self) -> (usize, usize, usize, usize) {
        let dedupe = self.dedupe.lock().unwrap_or_else(|e| e.into_inner()).entries.len();
        let groups = self.groups.lock().unwrap_or_else(|e| e.into_inner()).len();
        let running = self.running.lock().unwrap_or_else(|e| e.into_inner()).len();
        let gates = {
            let g = self.gates.lock().unwrap_or_else(|e| e.into_inner());
            g.total + g.queues.values().map(|q| q.len()).sum::<usize>()
        };
        (dedupe, groups, running, gates)
    }

    fn enter_gate(
        &self,
        consumer: &str,
        limits: &agent_surface_model::limits::AgentSurfaceLimits,
    ) -> Result<Option<Admission>, ()> {
        let mut g = self.gates.lock().unwrap_or_else(|e| e.into_inner());
        let mine = g.running.get(consumer).copied().unwrap_or(0);
        let queued = g.queues.get(consumer).map_or(0, |q| q.len());
        if mine < limits.max_concurrent_observations_per_consumer
            && g.total < limits.max_concurrent_observations_total
            && queued == 0
        {
            *g.running.entry(consumer.to_string()).or_default() += 1;
            g.total += 1;
            return Ok(None);
        }
        if queued >= limits.max_queued_observations_per_consumer {
            return Err(());
        }
        let w: Waiter = Arc::default();
        g.queues.entry(consumer.to_string()).or_default().push_back(w.clone());
        Ok(Some(Admission(w)))
    }

    fn leave_gate(&self, consumer: &str, limits: &agent_surface_model::limits::AgentSurfaceLimits) {
        let mut g = self.gates.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = g.running.get_mut(consumer) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                g.running.remove(consumer);
            }
        }
        g.total = g.total.saturating_sub(1);
        // Admit queued observations FIFO per consumer while both gates have room.
        let consumers: Vec<String> = g.queues.keys().cloned().collect();
        for c in consumers {
            loop {
                let mine = g.running.get(&c).copied().unwrap_or(0);
                if mine >= limits.max_concurrent_observations_per_consumer
                    || g.total >= limits.max_concurrent_observations_total
                {
                    break;
                }
                let Some(w) = g.queues.get_mut(&c).and_then(|q| q.pop_front()) else { break };
                if grant(&w) {
                    *g.running.entry(c.clone()).or_default() += 1;
                    g.total += 1;
                }
            }
            if g.queues.get(&c).is_some_and(|q| q.is_empty()) {
                g.queues.remove(&c);
            }
        }
    }

    fn cancel_gate_waiter(&self, consumer: &str, w: &Waiter, limits: &agent_surface_model::limits::AgentSurfaceLimits) {
        let granted = {
            let mut s = w.lock().unwrap_or_else(|e| e.into_inner());
            s.cancelled = true;
            s.granted
        };
        if granted {
            self.leave_gate(consumer, limits);
        } else {
            let mut g = self.gates.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(q) = g.queues.get_mut(consumer) {
                q.retain(|x| !Arc::ptr_eq(x, w));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The pipeline.

/// What resolution found.
enum Target {
    Observation { reg: Arc<Reg>, name: String },
    Action { reg: Arc<Reg>, name: String },
    Procedure { reg: Arc<Reg>, index: usize },
}

impl Target {
    fn reg(&self) -> &Arc<Reg> {
        match self {
            Target::Observation { reg, .. } | Target::Action { reg, .. } | Target::Procedure { reg, .. } => reg,
        }
    }
}

struct Ctx {
    invocation_id: String,
    capability_id: String,
    consumer: AgentConsumer,
    started_ms: u64,
    start_version: u64,
    registration_id: Option<String>,
    audit: Audit,
    input_for_audit: Option<Value>,
}

impl AgentSurfaceRegistry {
    /// Invokes a capability. Always returns a result envelope; `Err` only when the registry was
    /// disposed (programmer misuse).
    pub async fn invoke(
        &self,
        request: AgentInvocation,
        options: InvokeOptions,
    ) -> Result<AgentInvocationResult, RegistryDisposed> {
        let shared = self.shared.clone();
        if shared.lock().disposed {
            return Err(RegistryDisposed);
        }
        let consumer = options.consumer.clone().unwrap_or_default();
        let invocation_id =
            request.invocation_id.clone().unwrap_or_else(|| format!("inv_{}", crate::registry::base62(16)));
        let mut request = request;
        let fp = fingerprint(&request);
        request.invocation_id = Some(invocation_id.clone());
        let key = format!("{} {}", consumer.key(), invocation_id);

        // 1. dedupe
        enum Found {
            Join(Pending),
            Conflict,
        }
        let found = {
            let mut d = shared.inflight.dedupe.lock().unwrap_or_else(|e| e.into_inner());
            let l = &shared.options.limits;
            d.expire(shared.now(), l.dedupe_cache_size, l.dedupe_cache_ttl_ms);
            let found = match d.entries.get(&key) {
                Some(DedupeEntry::InFlight { fingerprint, future, .. }) => match future.upgrade() {
                    Some(f) if *fingerprint == fp => Some(Found::Join(f)),
                    Some(_) => Some(Found::Conflict),
                    // Every caller of that run stopped waiting; it is settling CANCELLED
                    // right now. This is a new attempt.
                    None => None,
                },
                Some(DedupeEntry::Done { fingerprint, result, .. }) if *fingerprint == fp => return Ok(result.clone()),
                Some(DedupeEntry::Done { .. }) => Some(Found::Conflict),
                None => None,
            };
            match found {
                Some(f) => f,
                None => {
                    let serial = d.serial();
                    let weak = Arc::downgrade(&shared);
                    let fut: BoxFuture<AgentInvocationResult> = Box::pin(run(
                        weak,
                        request.clone(),
                        options,
                        consumer.clone(),
                        key.clone(),
                        fp.clone(),
                        serial,
                    ));
                    let s = fut.shared();
                    let future = s.downgrade().expect("a fresh shared future");
                    d.entries.insert(key.clone(), DedupeEntry::InFlight { fingerprint: fp.clone(), future, serial });
                    Found::Join(s)
                }
            }
        };
        match found {
            Found::Join(future) => Ok(future.await),
            Found::Conflict => {
                let version = shared.lock().version;
                let err = AgentCapabilityError::new(ErrorCode::InvocationConflict, "this invocation id was already used for a different request; use a fresh invocation id if the new request is intentional");
                Ok(error_result(&invocation_id, &request.capability_id, err, version, false))
            }
        }
    }

    /// The confirmation controller (the spec's `registry.confirmations`).
    pub fn confirmations(&self) -> crate::confirm::ConfirmationController {
        crate::confirm::ConfirmationController { shared: Arc::downgrade(&self.shared) }
    }
}

fn error_result(
    invocation_id: &str,
    capability_id: &str,
    error: AgentCapabilityError,
    version: u64,
    changed: bool,
) -> AgentInvocationResult {
    AgentInvocationResult {
        status: InvocationStatus::Error,
        invocation_id: invocation_id.to_string(),
        capability_id: capability_id.to_string(),
        output: None,
        error: Some(error),
        surface_version: version.to_string(),
        surface_changed: changed,
    }
}

/// Whether a settled result is cached as terminal.
fn cacheable(r: &AgentInvocationResult) -> bool {
    !matches!(r.code(), Some(ErrorCode::ConfirmationRequired | ErrorCode::RateLimited | ErrorCode::InvocationConflict))
}

async fn run(
    weak: Weak<Shared>,
    request: AgentInvocation,
    options: InvokeOptions,
    consumer: AgentConsumer,
    key: String,
    fp: String,
    serial: u64,
) -> AgentInvocationResult {
    let Some(shared) = weak.upgrade() else {
        return error_result(
            request.invocation_id.as_deref().unwrap_or(""),
            &request.capability_id,
            AgentCapabilityError::new(ErrorCode::Cancelled, "the surface was disposed"),
            0,
            false,
        );
    };
    let invocation_id = request.invocation_id.clone().unwrap_or_default();
    let ctx = Ctx {
        invocation_id: invocation_id.clone(),
        capability_id: request.capability_id.clone(),
        consumer: consumer.clone(),
        started_ms: shared.now(),
        start_version: shared.lock().version,
        registration_id: None,
        audit: Audit::Metadata,
        input_for_audit: None,
    };
    shared.events.push(AgentSurfaceEvent::InvocationStarted {
        invocation_id: invocation_id.clone(),
        capability_id: request.capability_id.clone(),
        consumer_id: consumer.key(),
    });
    shared.flush();
    let mut run = RunGuard { shared: shared.clone(), ctx, key, fp, serial, armed: true };
    let outcome = pipeline(&shared, &request, &options, &mut run.ctx).await;
    run.armed = false;
    run.finish(outcome)
}

/// Settles a run exactly once: normally with its outcome, or — when every caller dropped its
/// future (Rust's cancellation) before the run finished — CANCELLED, so the invocation still
/// settles (event, audit, dedupe record) and a retry of the same id does not run it again.
struct RunGuard {
    shared: Arc<Shared>,
    ctx: Ctx,
    key: String,
    fp: String,
    serial: u64,
    armed: bool,
}

impl RunGuard {
    fn finish(&self, outcome: Result<Option<Value>, AgentCapabilityError>) -> AgentInvocationResult {
        let shared = &self.shared;
        let result = settle(shared, &self.ctx, outcome);
        let mut d = shared.inflight.dedupe.lock().unwrap_or_else(|e| e.into_inner());
        let now = shared.now();
        d.finish(&self.key, self.serial, self.fp.clone(), &result, now);
        let l = &shared.options.limits;
        d.expire(now, l.dedupe_cache_size, l.dedupe_cache_ttl_ms);
        result
    }
}

impl Drop for RunGuard {
    fn drop(&mut self) {
        if self.armed {
            self.armed = false;
            self.shared.log(
                LogLevel::Warn,
                format!(
                    "{} ({}): every caller stopped waiting; settled CANCELLED",
                    self.ctx.capability_id, self.ctx.invocation_id
                ),
            );
            self.finish(Err(err(ErrorCode::Cancelled, "the invocation was cancelled")));
        }
    }
}

fn settle(shared: &Shared, ctx: &Ctx, outcome: Result<Option<Value>, AgentCapabilityError>) -> AgentInvocationResult {
    let version = shared.lock().version;
    let changed = version != ctx.start_version;
    let result = match outcome {
        Ok(output) => AgentInvocationResult {
            status: InvocationStatus::Ok,
            invocation_id: ctx.invocation_id.clone(),
            capability_id: ctx.capability_id.clone(),
            output,
            error: None,
            surface_version: version.to_string(),
            surface_changed: changed,
        },
        Err(e) => error_result(&ctx.invocation_id, &ctx.capability_id, e, version, changed),
    };
    let duration = shared.now().saturating_sub(ctx.started_ms);
    if ctx.audit != Audit::None {
        if let Some(sink) = &shared.options.audit {
            let full = ctx.audit == Audit::Full;
            sink.record(AuditRecord {
                invocation_id: ctx.invocation_id.clone(),
                capability_id: ctx.capability_id.clone(),
                registration_id: ctx.registration_id.clone(),
                consumer_key: ctx.consumer.key(),
                status: if result.is_ok() { "ok".into() } else { "error".into() },
                code: result.code().map(|c| c.as_str().to_string()),
                started_at: iso8601(ctx.started_ms),
                duration_ms: duration,
                input: if full { ctx.input_for_audit.clone() } else { None },
                output: if full { result.output.clone() } else { None },
            });
        }
    }
    shared.events.push(AgentSurfaceEvent::InvocationSettled {
        invocation_id: ctx.invocation_id.clone(),
        capability_id: ctx.capability_id.clone(),
        status: if result.is_ok() { SettledStatus::Ok } else { SettledStatus::Error },
        code: result.code().map(|c| c.as_str().to_string()),
        duration_ms: duration,
    });
    shared.flush();
    result
}

fn err(code: ErrorCode, message: impl Into<String>) -> AgentCapabilityError {
    AgentCapabilityError::new(code, message)
}

/// Splits `view:<type>.<name>` into type and name.
fn split_view(id: &str) -> Option<(&str, &str)> {
    let rest = id.strip_prefix("view:")?;
    let dot = rest.rfind('.')?;
    Some((&rest[..dot], &rest[dot + 1..]))
}

/// 2. resolve: capability, instance, staleness, tombstones.
fn resolve(shared: &Shared, req: &AgentInvocation) -> Result<(Target, Dynamic), AgentCapabilityError> {
    let mut st = shared.lock();
    if let Some(sid) = &req.surface_id {
        if *sid != shared.surface_id {
            return Err(err(ErrorCode::StaleCapability, "the surface was reloaded since discovery; discover again")
                .detail("reason", "surface-id-mismatch"));
        }
    }
    let tombstone = match &req.registration_id {
        Some(rid) if !st.regs.contains_key(rid) => shared.tombstone(&mut st, rid),
        _ => None,
    };
    let by_reg = |st: &crate::registry::State, pred: &dyn Fn(&Reg) -> bool| -> Vec<Arc<Reg>> {
        st.regs.values().filter(|r| pred(r)).cloned().collect()
    };
    let (candidates, kind): (Vec<Arc<Reg>>, u8) = if let Some((ty, name)) = split_view(&req.capability_id) {
        let c = by_reg(&st, &|r: &Reg| {
            r.bound.component_type() == ty
                && (r.bound.contract().observations.contains_key(name) || r.bound.contract().actions.contains_key(name))
        });
        (c, 0)
    } else if req.capability_id.starts_with("domain:") {
        let id = req.capability_id.as_str();
        (by_reg(&st, &|r: &Reg| r.bound.procedures.iter().any(|p| p.id() == id)), 1)
    } else {
        (Vec::new(), 2)
    };
    let mut matching: Vec<Arc<Reg>> = candidates
        .into_iter()
        .filter(|r| req.instance_id.as_ref().is_none_or(|i| r.bound.instance_id() == i))
        .collect();
    if let Some(rid) = &req.registration_id {
        if let Some(live) = matching.iter().find(|r| &r.id == rid).cloned() {
            matching = vec![live];
        } else if let Some(t) = &tombstone {
            // The tombstone variant is for an instance with no live registration; a remounted
            // one makes the old id stale, and the agent is told the live one.
            return Err(
                match matching
                    .iter()
                    .find(|r| r.bound.component_type() == t.component_type && r.bound.instance_id() == t.instance_id)
                {
                    Some(live) => err(
                        ErrorCode::StaleCapability,
                        "the component was remounted since discovery; use the live registration or discover again",
                    )
                    .detail("liveRegistrationId", live.id.clone()),
                    None => err(ErrorCode::ComponentUnmounted, "the component was unmounted"),
                },
            );
        } else if matching.len() == 1 {
            return Err(err(
                ErrorCode::StaleCapability,
                "the registration changed since discovery; use the live one or discover again",
            )
            .detail("liveRegistrationId", matching[0].id.clone()));
        } else if matching.is_empty() {
            return Err(err(ErrorCode::CapabilityNotFound, format!("no live capability {}", req.capability_id)));
        } else {
            return Err(err(ErrorCode::StaleCapability, "the registration changed since discovery; discover again"));
        }
    }
    let reg = match matching.len() {
        0 => {
            return Err(err(ErrorCode::CapabilityNotFound, format!("no live capability {}", req.capability_id)));
        }
        1 => matching.remove(0),
        _ => {
            let mut instances: Vec<String> = matching.iter().map(|r| r.bound.instance_id().to_string()).collect();
            instances.sort();
            return Err(err(ErrorCode::AmbiguousInstance, "several instances are live; name one with instanceId")
                .detail("instances", instances));
        }
    };
    let dynamic = st.dynamic.get(&reg.id).cloned().unwrap_or_default();
    drop(st);
    let target = match kind {
        0 => {
            let (_, name) = split_view(&req.capability_id).expect("view id");
            if reg.bound.contract().observations.contains_key(name) {
                Target::Observation { reg, name: name.to_string() }
            } else {
                Target::Action { reg, name: name.to_string() }
            }
        }
        _ => {
            let index = reg.bound.procedures.iter().position(|p| p.id() == req.capability_id).expect("procedure");
            Target::Procedure { reg, index }
        }
    };
    Ok((target, dynamic))
}

async fn pipeline(
    shared: &Arc<Shared>,
    req: &AgentInvocation,
    options: &InvokeOptions,
    ctx: &mut Ctx,
) -> Result<Option<Value>, AgentCapabilityError> {
    // 2. resolve
    let (target, dynamic) = resolve(shared, req)?;
    let reg = target.reg().clone();
    ctx.registration_id = Some(reg.id.clone());
    let ty = reg.bound.component_type().to_string();
    let contract = reg.bound.contract();
    let host = shared.host();
    let (effect, input_schema, output_schema, confirmation, binding_policies, name): (
        Effect,
        Option<&Value>,
        Option<&Value>,
        agent_surface_model::effects::Confirmation,
        Vec<Policy>,
        String,
    ) = match &target {
        Target::Observation { name, .. } => {
            let oc = &contract.observations[name];
            ctx.audit = Audit::Metadata;
            (
                Effect::Read,
                None,
                Some(&oc.output_schema),
                agent_surface_model::effects::Confirmation::Never,
                reg.bound.observations[name].policies.clone(),
                name.clone(),
            )
        }
        Target::Action { name, .. } => {
            let ac = &contract.actions[name];
            ctx.audit = ac.audit;
            (
                ac.effect,
                Some(&ac.input_schema),
                ac.output_schema.as_ref(),
                ac.confirmation,
                reg.bound.actions[name].policies.clone(),
                name.clone(),
            )
        }
        Target::Procedure { index, .. } => {
            let p = &reg.bound.procedures[*index];
            let pc = p.contract.contract();
            ctx.audit = pc.audit;
            (
                pc.effect,
                Some(&pc.input_schema),
                pc.output_schema.as_ref(),
                pc.confirmation,
                p.binding.policies.clone(),
                pc.id.clone(),
            )
        }
    };
    // Staleness of the version is enforced only for dangerous effects.
    if let Some(v) = &req.surface_version {
        let current = shared.lock().version.to_string();
        if *v != current && matches!(effect, Effect::Destructive | Effect::ExternalSideEffect) {
            return Err(err(
                ErrorCode::StaleCapability,
                "the surface changed since discovery; discover again before this operation",
            )
            .detail("reason", "surface-version-mismatch"));
        }
    }
    let policies: Vec<Policy> = shared
        .options
        .policies
        .iter()
        .chain(reg.bound.policies.iter())
        .chain(binding_policies.iter())
        .cloned()
        .collect();

    // 3. availability
    let (when, reason) = match &target {
        Target::Observation { name, .. } => {
            (reg.bound.observations[name].when.clone(), reg.bound.observations[name].unavailable_reason.clone())
        }
        Target::Action { name, .. } => {
            (reg.bound.actions[name].when.clone(), reg.bound.actions[name].unavailable_reason.clone())
        }
        Target::Procedure { index, .. } => (
            reg.bound.procedures[*index].binding.when.clone(),
            reg.bound.procedures[*index].binding.unavailable_reason.clone(),
        ),
    };
    match &target {
        Target::Procedure { .. } => {
            let dctx = DiscoveryContext {
                capability_id: req.capability_id.clone(),
                component_type: ty.clone(),
                instance_id: reg.bound.instance_id().to_string(),
                consumer: ctx.consumer.clone(),
                host: host.clone(),
            };
            match evaluate_discovery(policies.iter(), &dctx) {
                DiscoveryDecision::Hide => {
                    return Err(err(ErrorCode::CapabilityNotFound, format!("no live capability {}", req.capability_id)))
                }
                DiscoveryDecision::Disable(r) => {
                    return Err(err(ErrorCode::CapabilityNotAvailable, "the capability is not available now")
                        .detail("reason", r))
                }
                DiscoveryDecision::Expose => {}
            }
            if !dynamic.enabled {
                return Err(err(ErrorCode::CapabilityNotAvailable, "the capability is not available now")
                    .detail("reason", "component-disabled"));
            }
            if let Some(w) = &when {
                if !std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| w())).unwrap_or(false) {
                    return Err(err(ErrorCode::CapabilityNotAvailable, "the capability is not available now")
                        .detail("reason", reason.unwrap_or_else(|| "unavailable".into())));
                }
            }
        }
        _ => match shared.availability(
            &reg,
            &dynamic,
            &req.capability_id,
            &name,
            &binding_policies,
            when.as_ref(),
            reason.as_deref(),
            &mut DiscoveryScope::new(&ctx.consumer, &host),
        ) {
            None => {
                return Err(err(ErrorCode::CapabilityNotFound, format!("no live capability {}", req.capability_id)))
            }
            Some((false, r)) => {
                return Err(err(ErrorCode::CapabilityNotAvailable, "the capability is not available now")
                    .detail("reason", r.unwrap_or_else(|| "unavailable".into())))
            }
            Some((true, _)) => {}
        },
    }

    // 4. pre-input authorization
    let pctx = |input: Option<Value>| PolicyContext {
        capability_id: req.capability_id.clone(),
        registration_id: reg.id.clone(),
        consumer: ctx.consumer.clone(),
        host: host.clone(),
        effective_input: input,
    };
    for p in policies.iter().filter(|p| p.phases().contains(&PolicyPhase::Authorize)) {
        if let PolicyDecision::Deny(m) = guarded(|| p.authorize(pctx(None))).await {
            return Err(err(ErrorCode::PolicyDenied, m).detail("policy", p.name().to_string()));
        }
    }

    // 5. effective input
    let effective = match input_schema {
        None => None,
        Some(schema) => {
            let validator = shared.validator(schema);
            let raw = req.input.clone().unwrap_or(Value::Object(Map::new()));
            // Owned: a valid input with no default to insert is not copied again.
            match validator.and_then(|v| v.validate_owned(raw).map_err(Some)) {
                Ok(v) => Some(v),
                Err(Some(issues)) => {
                    let issues: Vec<Value> =
                        issues.iter().map(|i| serde_json::to_value(i).unwrap_or(Value::Null)).collect();
                    return Err(err(ErrorCode::InvalidInput, "the input does not match the capability's input schema")
                        .detail("issues", issues));
                }
                Err(None) => {
                    return Err(err(ErrorCode::ExecutionFailed, "the capability's input schema cannot be used"))
                }
            }
        }
    };
    ctx.input_for_audit = effective.clone();

    // 6. precondition and input-aware policies
    let read_ctx = ReadContext {
        capability_id: req.capability_id.clone(),
        registration_id: reg.id.clone(),
        consumer: ctx.consumer.clone(),
        host: host.clone(),
    };
    let binding: Option<&ActionBinding> = match &target {
        Target::Action { name, .. } => Some(&reg.bound.actions[name]),
        Target::Procedure { index, .. } => Some(&reg.bound.procedures[*index].binding),
        Target::Observation { .. } => None,
    };
    let mut needs_confirmation = confirmation == agent_surface_model::effects::Confirmation::Required;
    if let (Some(b), Some(input)) = (binding, &effective) {
        if let Some(pre) = &b.precondition {
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pre.check(input, &read_ctx))) {
                Ok(Ok(())) => {}
                Ok(Err(f)) => {
                    let mut e = err(ErrorCode::PreconditionFailed, f.message);
                    e.details = f.details;
                    return Err(e);
                }
                Err(_) => return Err(err(ErrorCode::PreconditionFailed, "the precondition failed")),
            }
        }
        for p in policies.iter().filter(|p| p.phases().contains(&PolicyPhase::Invoke)) {
            match guarded(|| p.invoke(pctx(Some(input.clone())))).await {
                PolicyDecision::Allow => {}
                PolicyDecision::Deny(m) => {
                    return Err(err(ErrorCode::PolicyDenied, m).detail("policy", p.name().to_string()))
                }
                PolicyDecision::RequireConfirmation => needs_confirmation = true,
            }
        }
    }

    // 7. confirmation (observations skip it)
    let mut evidence = None;
    if binding.is_some() && (needs_confirmation || req.confirmation_id.is_some()) {
        let input = effective.clone().unwrap_or(Value::Null);
        let input_fp = fnv1a64(canonical_json(&input).as_bytes());
        let description = match &target {
            Target::Action { name, .. } => contract.actions[name].description.clone(),
            Target::Procedure { index, .. } => reg.bound.procedures[*index].contract.contract().description.clone(),
            Target::Observation { .. } => String::new(),
        };
        match shared.confirmations.check(
            shared,
            req,
            &reg.id,
            &ctx.consumer.key(),
            effect,
            &description,
            &input,
            &input_fp,
            needs_confirmation,
        ) {
            ConfirmationCheck::Proceed(e) => evidence = e.map(|(id, at)| ConfirmationEvidence { id, approved_at: at }),
            ConfirmationCheck::Fail(e) => return Err(e),
        }
    }

    // 8. admission
    let limits = &shared.options.limits;
    let is_navigation = effect == Effect::Navigation;
    let timeout_ms = options.timeout_ms.unwrap_or_else(|| match &target {
        Target::Observation { name, .. } => {
            reg.bound.observations[name].timeout_ms.unwrap_or(limits.observation_timeout_ms)
        }
        Target::Action { name, .. } => reg.bound.actions[name].timeout_ms.unwrap_or(limits.action_timeout_ms),
        Target::Procedure { index, .. } => {
            reg.bound.procedures[*index].binding.timeout_ms.unwrap_or(limits.procedure_timeout_ms)
        }
    });
    let slot = match binding {
        Some(b) => {
            let (key, max, depth) = match (&target, &b.concurrency) {
                // A procedure reference declaring a key joins that key's group; otherwise it
                // has one group per procedure identity per registration.
                (Target::Procedure { .. }, crate::binding::AgentConcurrency::Key { key, .. }) => {
                    (format!("key {key}"), 1, depth_of(&b.concurrency, limits))
                }
                (Target::Procedure { .. }, c) => {
                    (format!("{} proc {}", reg.id, req.capability_id), parallel_max(c), depth_of(c, limits))
                }
                (_, crate::binding::AgentConcurrency::Instance { .. }) => {
                    (format!("{} instance", reg.id), 1, depth_of(&b.concurrency, limits))
                }
                (_, crate::binding::AgentConcurrency::Capability { .. }) => {
                    (format!("{} cap {}", reg.id, name), 1, depth_of(&b.concurrency, limits))
                }
                (_, crate::binding::AgentConcurrency::Key { key, .. }) => {
                    (format!("key {key}"), 1, depth_of(&b.concurrency, limits))
                }
                (_, crate::binding::AgentConcurrency::Parallel { max, .. }) => {
                    (format!("{} par {}", reg.id, name), *max, depth_of(&b.concurrency, limits))
                }
            };
            Slot::Group(key, max, depth)
        }
        None => Slot::Gate(ctx.consumer.key()),
    };
    if let Err(e) = admit(shared, &slot, options.signal.as_ref()).await {
        if e.code == ErrorCode::RateLimited {
            // Not admitted, not run, not cached: the retry presents the same evidence.
            if let Some(ev) = &evidence {
                shared.confirmations.restore(&ev.id);
            }
        }
        return Err(e);
    }
    let _release = Release { shared: shared.clone(), slot };

    // 9. execute
    let controller = AbortController::new();
    let force_state: Arc<Mutex<ForceState>> = Arc::default();
    let run_id = {
        let mut n = shared.inflight.next.lock().unwrap_or_else(|e| e.into_inner());
        *n += 1;
        *n
    };
    {
        // Under the registry lock: an unregistration either happened before (never dispatch)
        // or comes after and finds this run to abort.
        let st = shared.lock();
        if st.disposed {
            return Err(err(ErrorCode::Cancelled, "the surface was disposed"));
        }
        if !st.regs.contains_key(&reg.id) {
            return Err(err(ErrorCode::ComponentUnmounted, "the component was unmounted"));
        }
        // Cancelled while waiting for admission: never dispatch.
        if options.signal.as_ref().is_some_and(|s| s.is_aborted()) {
            return Err(err(ErrorCode::Cancelled, "the invocation was cancelled"));
        }
        shared.inflight.running.lock().unwrap_or_else(|e| e.into_inner()).insert(
            run_id,
            Running {
                registration_id: Some(reg.id.clone()),
                navigation: is_navigation,
                controller: controller.clone(),
                force: force_state.clone(),
            },
        );
    }
    let mut running = RunningGuard { shared: shared.clone(), id: run_id, controller: controller.clone(), armed: true };
    let start = std::panic::AssertUnwindSafe(|| match &target {
        Target::Observation { name, .. } => reg.bound.observations[name].read.read(read_ctx.clone()),
        _ => {
            let actx = ActionContext {
                capability_id: req.capability_id.clone(),
                registration_id: reg.id.clone(),
                consumer: ctx.consumer.clone(),
                host: host.clone(),
                invocation_id: ctx.invocation_id.clone(),
                signal: controller.signal(),
                confirmation: evidence,
            };
            binding.expect("binding").execute.execute(effective.clone().unwrap_or(Value::Null), actx)
        }
    });
    // A panicking handler is a throwing one: EXECUTION_FAILED, never a crash of the caller.
    let handler: BoxFuture<Result<Value, HandlerError>> = match std::panic::catch_unwind(start) {
        Ok(h) => Box::pin(
            std::panic::AssertUnwindSafe(h)
                .catch_unwind()
                .map(|r| r.unwrap_or_else(|_| Err(HandlerError::Failed("the handler panicked".into())))),
        ),
        Err(_) => Box::pin(futures::future::ready(Err(HandlerError::Failed("the handler panicked".into())))),
    };
    let runtime = shared.options.runtime.clone();
    let outcome = race(handler, runtime.as_deref(), timeout_ms, options.signal.clone(), Forced(force_state)).await;
    running.armed = false;
    let output = match outcome {
        Race::Done(Ok(v)) => v,
        Race::Done(Err(HandlerError::Precondition(f))) => {
            let mut e = err(ErrorCode::PreconditionFailed, f.message);
            e.details = f.details;
            return Err(e);
        }
        Race::Done(Err(HandlerError::Failed(m))) => {
            shared.log(LogLevel::Error, format!("{} failed: {m}", req.capability_id));
            return Err(err(ErrorCode::ExecutionFailed, "the capability failed"));
        }
        Race::Timeout => {
            controller.abort(AbortReason::Timeout);
            shared.log(
                LogLevel::Warn,
                format!("{} timed out after {timeout_ms} ms; a late settlement is ignored", req.capability_id),
            );
            return Err(err(ErrorCode::Timeout, format!("the capability did not finish within {timeout_ms} ms")));
        }
        Race::Cancelled => {
            controller.abort(AbortReason::Cancelled);
            return Err(err(ErrorCode::Cancelled, "the invocation was cancelled"));
        }
        Race::Forced(code) => {
            // dispose() unregisters everything first: its unmount is a cancellation.
            let code = if shared.lock().disposed { ErrorCode::Cancelled } else { code };
            let m = if code == ErrorCode::ComponentUnmounted {
                "the component was unmounted"
            } else {
                "the invocation was cancelled"
            };
            return Err(err(code, m));
        }
    };

    // 10. output checks
    if let Some(schema) = output_schema {
        match shared.validator(schema) {
            Ok(v) => {
                if !v.is_valid(&output) {
                    shared.log(
                        LogLevel::Error,
                        format!("{} returned output that does not match its schema", req.capability_id),
                    );
                    return Err(err(ErrorCode::ExecutionFailed, "the capability returned invalid output")
                        .detail("reason", "invalid-output"));
                }
            }
            Err(_) => return Err(err(ErrorCode::ExecutionFailed, "the capability's output schema cannot be used")),
        }
    }
    let bytes = canonical_json(&output).len();
    if bytes > limits.max_output_bytes {
        return Err(err(
            ErrorCode::ExecutionFailed,
            format!("the output is {bytes} bytes; at most {} are allowed", limits.max_output_bytes),
        )
        .detail("reason", "output-too-large"));
    }
    // A capability without an output schema that returns null settles with no output.
    Ok(if output.is_null() && output_schema.is_none() { None } else { Some(output) })
}

fn parallel_max(c: &crate::binding::AgentConcurrency) -> usize {
    match c {
        crate::binding::AgentConcurrency::Parallel { max, .. } => *max,
        _ => 1,
    }
}

fn depth_of(c: &crate::binding::AgentConcurrency, limits: &agent_surface_model::limits::AgentSurfaceLimits) -> usize {
    use crate::binding::AgentConcurrency::*;
    match c {
        Instance { queue_depth }
        | Capability { queue_depth }
        | Key { queue_depth, .. }
        | Parallel { queue_depth, .. } => queue_depth.unwrap_or(limits.action_queue_depth),
    }
}

enum Slot {
    Group(String, usize, usize),
    Gate(String),
}

struct Release {
    shared: Arc<Shared>,
    slot: Slot,
}

impl Drop for Release {
    fn drop(&mut self) {
        match &self.slot {
            Slot::Group(k, ..) => self.shared.inflight.leave_group(k),
            Slot::Gate(c) => self.shared.inflight.leave_gate(c, &self.shared.options.limits),
        }
    }
}

struct RunningGuard {
    shared: Arc<Shared>,
    id: u64,
    controller: AbortController,
    /// Still armed when the execution is dropped mid-flight (every caller stopped waiting):
    /// the handler's signal is then aborted as a cancellation.
    armed: bool,
}

impl Drop for RunningGuard {
    fn drop(&mut self) {
        self.shared.inflight.running.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.id);
        if self.armed {
            self.controller.abort(AbortReason::Cancelled);
        }
    }
}

/// Runs a policy phase; a panicking policy fails closed (denied), like a throwing discovery one.
async fn guarded(f: impl FnOnce() -> BoxFuture<PolicyDecision>) -> PolicyDecision {
    let denied = || PolicyDecision::Deny("a policy could not decide; the invocation is denied".into());
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(fut) => std::panic::AssertUnwindSafe(fut).catch_unwind().await.unwrap_or_else(|_| denied()),
        Err(_) => denied(),
    }
}

/// Waits for an admission slot (FIFO); external cancellation while queued → CANCELLED.
async fn admit(shared: &Arc<Shared>, slot: &Slot, signal: Option<&AbortSignal>) -> Result<(), AgentCapabilityError> {
    let limits = &shared.options.limits;
    let waiting = match slot {
        Slot::Group(k, max, depth) => shared.inflight.enter_group(k, *max, *depth),
        Slot::Gate(c) => shared.inflight.enter_gate(c, limits),
    };
    let adm = match waiting {
        Err(()) => {
            let e = err(ErrorCode::RateLimited, "too many invocations are queued; retry after a moment")
                .detail("reason", "queue-full");
            return Err(match slot {
                Slot::Gate(_) => e.detail("retryAfterMs", 250),
                Slot::Group(..) => e,
            });
        }
        Ok(None) => return Ok(()),
        Ok(Some(a)) => a,
    };
    let waiter = adm.0.clone();
    struct Cancel<'a> {
        shared: &'a Arc<Shared>,
        slot: &'a Slot,
        waiter: Waiter,
        armed: bool,
    }
    impl Drop for Cancel<'_> {
        fn drop(&mut self) {
            if self.armed {
                match self.slot {
                    Slot::Group(k, ..) => self.shared.inflight.cancel_waiter(k, &self.waiter),
                    Slot::Gate(c) => {
                        self.shared.inflight.cancel_gate_waiter(c, &self.waiter, &self.shared.options.limits)
                    }
                }
            }
        }
    }
    let mut guard = Cancel { shared, slot, waiter, armed: true };
    let cancelled = match signal {
        Some(s) => {
            futures::select_biased! {
                _ = adm.fuse() => false,
                _ = s.aborted().fuse() => true,
            }
        }
        None => {
            adm.await;
            false
        }
    };
    if cancelled {
        return Err(err(ErrorCode::Cancelled, "the invocation was cancelled"));
    }
    guard.armed = false;
    Ok(())
}

enum Race {
    Done(Result<Value, HandlerError>),
    Timeout,
    Cancelled,
    Forced(ErrorCode),
}

async fn race(
    handler: BoxFuture<Result<Value, HandlerError>>,
    runtime: Option<&dyn crate::exec::Runtime>,
    timeout_ms: u64,
    signal: Option<AbortSignal>,
    forced: Forced,
) -> Race {
    let timer: BoxFuture<()> = match runtime {
        Some(rt) => rt.sleep(timeout_ms),
        None => Box::pin(futures::future::pending()),
    };
    let cancel: BoxFuture<()> = match signal {
        Some(s) => Box::pin(async move {
            s.aborted().await;
        }),
        None => Box::pin(futures::future::pending()),
    };
    futures::select_biased! {
        r = handler.fuse() => Race::Done(r),
        code = forced.fuse() => Race::Forced(code),
        _ = cancel.fuse() => Race::Cancelled,
        _ = timer.fuse() => Race::Timeout,
    }
}

impl Shared {
    /// A compiled validator for a schema, cached by its canonical text.
    pub(crate) fn validator(
        &self,
        schema: &Value,
    ) -> Result<Arc<Validator>, Option<Vec<agent_surface_schema::validate::ValidationIssue>>> {
        let key = canonical_json(schema);
        let mut cache = self.validators.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = cache.get(&key) {
            return Ok(v.clone());
        }
        let v = Arc::new(Validator::new(schema, &self.options.limits).map_err(|_| None)?);
        cache.insert(key, v.clone());
        Ok(v)
    }
}
