//! The executor seam: the core only needs "sleep until a deadline" to enforce timeouts and
//! TTLs. Everything else is plain `futures`. A tokio implementation sits behind the `tokio`
//! feature; [`ManualRuntime`] drives timers from a [`ManualClock`] for deterministic tests.

use crate::binding::BoxFuture;
use crate::clock::{Clock, ManualClock};
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

pub trait Runtime: Send + Sync {
    /// Resolves after `ms` milliseconds.
    fn sleep(&self, ms: u64) -> BoxFuture<()>;
}

/// Timers on tokio (requires a tokio runtime with the time driver).
#[cfg(feature = "tokio")]
#[derive(Debug, Default, Clone, Copy)]
pub struct TokioRuntime;

#[cfg(feature = "tokio")]
impl Runtime for TokioRuntime {
    fn sleep(&self, ms: u64) -> BoxFuture<()> {
        Box::pin(tokio::time::sleep(std::time::Duration::from_millis(ms)))
    }
}

#[derive(Default)]
struct Timers {
    next: u64,
    /// (deadline, id) → waker; fired entries are removed.
    waiting: BTreeMap<(u64, u64), Option<Waker>>,
}

/// Timers that fire only when [`ManualRuntime::advance`] moves the shared clock past them.
#[derive(Clone)]
pub struct ManualRuntime {
    clock: ManualClock,
    timers: Arc<Mutex<Timers>>,
}

impl ManualRuntime {
    pub fn new(clock: ManualClock) -> Self {
        ManualRuntime { clock, timers: Arc::default() }
    }
    pub fn clock(&self) -> &ManualClock {
        &self.clock
    }
    /// Moves time forward and wakes every timer that is now due.
    pub fn advance(&self, ms: u64) {
        self.clock.advance(ms);
        let now = self.clock.now_ms();
        let due: Vec<Waker> = {
            let mut t = self.timers.lock().unwrap_or_else(|e| e.into_inner());
            let keys: Vec<(u64, u64)> = t.waiting.range(..=(now, u64::MAX)).map(|(k, _)| *k).collect();
            keys.into_iter().filter_map(|k| t.waiting.remove(&k).flatten()).collect()
        };
        for w in due {
            w.wake();
        }
    }
    /// Timers not yet fired.
    pub fn pending_timers(&self) -> usize {
        self.timers.lock().unwrap_or_else(|e| e.into_inner()).waiting.len()
    }
}

struct ManualSleep {
    rt: ManualRuntime,
    key: (u64, u64),
}

impl Future for ManualSleep {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.rt.clock.now_ms() >= self.key.0 {
            self.rt.timers.lock().unwrap_or_else(|e| e.into_inner()).waiting.remove(&self.key);
            return Poll::Ready(());
        }
        self.rt.timers.lock().unwrap_or_else(|e| e.into_inner()).waiting.insert(self.key, Some(cx.waker().clone()));
        Poll::Pending
    }
}

impl Drop for ManualSleep {
    fn drop(&mut self) {
        self.rt.timers.lock().unwrap_or_else(|e| e.into_inner()).waiting.remove(&self.key);
    }
}

impl Runtime for ManualRuntime {
    fn sleep(&self, ms: u64) -> BoxFuture<()> {
        let deadline = self.clock.now_ms() + ms;
        let id = {
            let mut t = self.timers.lock().unwrap_or_else(|e| e.into_inner());
            t.next += 1;
            t.next
        };
        Box::pin(ManualSleep { rt: self.clone(), key: (deadline, id) })
    }
}
