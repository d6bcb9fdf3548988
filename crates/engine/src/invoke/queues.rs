//! Step 8, admission: an execution slot in the target's action group (per the binding's
//! concurrency) or in the consumer's observation gate; FIFO, bounded (a full queue is
//! RATE_LIMITED), cancellable while waiting.

use super::admission::{Plan, Target};
use super::Parts;
use crate::binding::AgentConcurrency;
use crate::consumer::AgentConsumer;
use crate::request::err;
use crate::signal::AbortSignal;
use agent_surface_model::errors::{AgentCapabilityError, ErrorCode};
use agent_surface_model::limits::AgentSurfaceLimits;
use futures::future::FutureExt;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

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

/// The action groups and the observation gates.
#[derive(Default)]
pub(super) struct Queues {
    groups: Mutex<HashMap<String, Group>>,
    gates: Mutex<ObsGate>,
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

impl Queues {
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

    fn enter_gate(&self, consumer: &str, limits: &AgentSurfaceLimits) -> Result<Option<Admission>, ()> {
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

    fn leave_gate(&self, consumer: &str, limits: &AgentSurfaceLimits) {
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

    fn cancel_gate_waiter(&self, consumer: &str, w: &Waiter, limits: &AgentSurfaceLimits) {
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

    /// (groups, observations running or queued at the gates).
    pub(super) fn stats(&self) -> (usize, usize) {
        let groups = self.groups.lock().unwrap_or_else(|e| e.into_inner()).len();
        let gates = {
            let g = self.gates.lock().unwrap_or_else(|e| e.into_inner());
            g.total + g.queues.values().map(|q| q.len()).sum::<usize>()
        };
        (groups, gates)
    }
}

/// The admission slot of a target: an action group (per the binding's concurrency) or the
/// consumer's observation gate.
pub(super) fn slot_for(
    target: &Target,
    plan: &Plan<'_>,
    consumer: &AgentConsumer,
    limits: &AgentSurfaceLimits,
) -> Slot {
    let Some(b) = plan.binding else { return Slot::Gate(consumer.key()) };
    let owner = target.owner_id();
    let name = &plan.name;
    let (key, max, depth) = match (target, &b.concurrency) {
        // A procedure reference (or an external tool) declaring a key joins that key's group;
        // otherwise it has one group per procedure identity per registration (per tool per
        // exposure), `parallel` allowing `max` at once.
        (Target::Procedure { .. } | Target::External { .. }, AgentConcurrency::Key { key, .. }) => {
            (format!("key {key}"), 1, depth_of(&b.concurrency, limits))
        }
        (Target::Procedure { .. } | Target::External { .. }, c) => {
            (format!("{owner} proc {name}"), parallel_max(c), depth_of(c, limits))
        }
        (_, AgentConcurrency::Instance { .. }) => (format!("{owner} instance"), 1, depth_of(&b.concurrency, limits)),
        (_, AgentConcurrency::Capability { .. }) => {
            (format!("{owner} cap {name}"), 1, depth_of(&b.concurrency, limits))
        }
        (_, AgentConcurrency::Key { key, .. }) => (format!("key {key}"), 1, depth_of(&b.concurrency, limits)),
        (_, AgentConcurrency::Parallel { max, .. }) => {
            (format!("{owner} par {name}"), *max, depth_of(&b.concurrency, limits))
        }
    };
    Slot::Group(key, max, depth)
}

fn parallel_max(c: &AgentConcurrency) -> usize {
    match c {
        AgentConcurrency::Parallel { max, .. } => *max,
        _ => 1,
    }
}

fn depth_of(c: &AgentConcurrency, limits: &AgentSurfaceLimits) -> usize {
    use AgentConcurrency::*;
    match c {
        Instance { queue_depth }
        | Capability { queue_depth }
        | Key { queue_depth, .. }
        | Parallel { queue_depth, .. } => queue_depth.unwrap_or(limits.action_queue_depth),
    }
}

pub(super) enum Slot {
    Group(String, usize, usize),
    Gate(String),
}

pub(super) struct Release {
    pub(super) parts: Arc<dyn Parts>,
    pub(super) slot: Slot,
}

impl Drop for Release {
    fn drop(&mut self) {
        match &self.slot {
            Slot::Group(k, ..) => self.parts.inflight().queues.leave_group(k),
            Slot::Gate(c) => self.parts.inflight().queues.leave_gate(c, &self.parts.surface().options.limits),
        }
    }
}

/// Waits for an admission slot (FIFO); external cancellation while queued → CANCELLED.
pub(super) async fn admit(
    parts: &Arc<dyn Parts>,
    slot: &Slot,
    signal: Option<&AbortSignal>,
) -> Result<(), AgentCapabilityError> {
    let limits = &parts.surface().options.limits;
    let queues = &parts.inflight().queues;
    let waiting = match slot {
        Slot::Group(k, max, depth) => queues.enter_group(k, *max, *depth),
        Slot::Gate(c) => queues.enter_gate(c, limits),
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
        parts: &'a Arc<dyn Parts>,
        slot: &'a Slot,
        waiter: Waiter,
        armed: bool,
    }
    impl Drop for Cancel<'_> {
        fn drop(&mut self) {
            if self.armed {
                match self.slot {
                    Slot::Group(k, ..) => self.parts.inflight().queues.cancel_waiter(k, &self.waiter),
                    Slot::Gate(c) => self.parts.inflight().queues.cancel_gate_waiter(
                        c,
                        &self.waiter,
                        &self.parts.surface().options.limits,
                    ),
                }
            }
        }
    }
    let mut guard = Cancel { parts, slot, waiter, armed: true };
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
