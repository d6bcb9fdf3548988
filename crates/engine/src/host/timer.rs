//! The timer seam: the core only needs "sleep until a deadline" to enforce timeouts and
//! TTLs. Everything else is plain `futures`. [`ThreadTimer`] natively (any executor or none), a
//! tokio implementation behind the `tokio` feature, [`ManualTimer`] drives timers from a
//! [`ManualClock`] for deterministic tests. On wasm32 the host passes its timer
//! (`setTimeout`).

use super::clock::{Clock, ManualClock};
use super::{BoxFuture, MaybeSend, MaybeSync};
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

pub trait Timer: MaybeSend + MaybeSync {
    /// Resolves after `ms` milliseconds.
    fn sleep(&self, ms: u64) -> BoxFuture<()>;
}

/// The timer a registry uses unless told otherwise: a timer thread, which works with any
/// executor (or none), so timeouts and confirmation TTLs are always enforced. On wasm32 there
/// are no threads: the host must pass a timer (without one, timeouts and TTL waits never fire).
pub fn default_timer() -> Option<Arc<dyn Timer>> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        Some(Arc::new(ThreadTimer::global()))
    }
    #[cfg(target_arch = "wasm32")]
    {
        None
    }
}

/// One background thread holding every pending deadline (a binary heap); wakes futures when
/// they are due. Cheap to clone; shared process-wide.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Clone)]
pub struct ThreadTimer {
    inner: Arc<TimerShared>,
}

#[cfg(not(target_arch = "wasm32"))]
struct TimerShared {
    state: Mutex<TimerState>,
    cond: std::sync::Condvar,
}

#[cfg(not(target_arch = "wasm32"))]
#[derive(Default)]
struct TimerState {
    next: u64,
    heap: std::collections::BinaryHeap<std::cmp::Reverse<(std::time::Instant, u64)>>,
    /// id → (fired, waker)
    entries: std::collections::HashMap<u64, (bool, Option<Waker>)>,
}

#[cfg(not(target_arch = "wasm32"))]
impl ThreadTimer {
    /// The process-wide timer thread (started on first use).
    pub fn global() -> ThreadTimer {
        static GLOBAL: std::sync::OnceLock<ThreadTimer> = std::sync::OnceLock::new();
        GLOBAL
            .get_or_init(|| {
                let inner = Arc::new(TimerShared { state: Mutex::default(), cond: std::sync::Condvar::new() });
                let worker = inner.clone();
                std::thread::Builder::new()
                    .name("agent-surface-timer".into())
                    .spawn(move || timer_loop(&worker))
                    .expect("spawn the timer thread");
                ThreadTimer { inner }
            })
            .clone()
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn timer_loop(t: &TimerShared) {
    let mut st = t.state.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let now = std::time::Instant::now();
        while let Some(std::cmp::Reverse((deadline, id))) = st.heap.peek().copied() {
            if deadline > now {
                break;
            }
            st.heap.pop();
            if let Some(entry) = st.entries.get_mut(&id) {
                entry.0 = true;
                if let Some(w) = entry.1.take() {
                    w.wake();
                }
            }
        }
        st = match st.heap.peek() {
            Some(std::cmp::Reverse((deadline, _))) => {
                let wait = deadline.saturating_duration_since(std::time::Instant::now());
                t.cond.wait_timeout(st, wait).unwrap_or_else(|e| e.into_inner()).0
            }
            None => t.cond.wait(st).unwrap_or_else(|e| e.into_inner()),
        };
    }
}

#[cfg(not(target_arch = "wasm32"))]
struct ThreadSleep {
    timer: ThreadTimer,
    id: u64,
}

#[cfg(not(target_arch = "wasm32"))]
impl Future for ThreadSleep {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut st = self.timer.inner.state.lock().unwrap_or_else(|e| e.into_inner());
        match st.entries.get_mut(&self.id) {
            Some((true, _)) | None => Poll::Ready(()),
            Some((false, w)) => {
                *w = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Drop for ThreadSleep {
    fn drop(&mut self) {
        self.timer.inner.state.lock().unwrap_or_else(|e| e.into_inner()).entries.remove(&self.id);
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Timer for ThreadTimer {
    fn sleep(&self, ms: u64) -> BoxFuture<()> {
        let (id, earliest) = {
            let mut st = self.inner.state.lock().unwrap_or_else(|e| e.into_inner());
            st.next += 1;
            let id = st.next;
            let deadline = std::time::Instant::now() + std::time::Duration::from_millis(ms);
            // The thread sleeps until the earliest deadline: wake it only when this one is
            // earlier. Waking it for every timeout (one per invocation) cost a futex wake and
            // two context switches per invoke (docs/performance.md).
            let earliest = st.heap.peek().is_none_or(|std::cmp::Reverse((first, _))| deadline < *first);
            st.heap.push(std::cmp::Reverse((deadline, id)));
            st.entries.insert(id, (false, None));
            (id, earliest)
        };
        if earliest {
            self.inner.cond.notify_one();
        }
        Box::pin(ThreadSleep { timer: self.clone(), id })
    }
}

/// Timers on tokio (requires a tokio runtime with the time driver).
#[cfg(feature = "tokio")]
#[derive(Debug, Default, Clone, Copy)]
pub struct TokioTimer;

#[cfg(feature = "tokio")]
impl Timer for TokioTimer {
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

/// Timers that fire only when [`ManualTimer::advance`] moves the shared clock past them.
#[derive(Clone)]
pub struct ManualTimer {
    clock: ManualClock,
    timers: Arc<Mutex<Timers>>,
}

impl ManualTimer {
    pub fn new(clock: ManualClock) -> Self {
        ManualTimer { clock, timers: Arc::default() }
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
    rt: ManualTimer,
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

impl Timer for ManualTimer {
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

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn the_thread_timer_wakes_any_executor() {
        let t = ThreadTimer::global();
        let start = std::time::Instant::now();
        futures::executor::block_on(async {
            let a = t.sleep(30);
            let b = t.sleep(10);
            futures::future::join(a, b).await;
        });
        let took = start.elapsed();
        assert!(took >= std::time::Duration::from_millis(30), "{took:?}");
    }
}
