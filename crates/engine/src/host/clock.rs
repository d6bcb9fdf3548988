//! Time, injectable (the spec's `RegistryOptions.now`), so TTL and timeout tests are
//! deterministic.
//!
//! Natively the default is [`SystemClock`]. On wasm32 there is no default that works:
//! `std::time::SystemTime::now()` panics on `wasm32-unknown-unknown`, so [`SystemClock`] does
//! not exist there and the host passes its clock (the wasm facade's `HostClock`, reading
//! `Date.now()`) with `RegistryOptions::clock`; until it does, [`default_clock`] is a clock
//! that panics saying so.

use super::{MaybeSend, MaybeSync};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub trait Clock: MaybeSend + MaybeSync {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> u64;
}

/// The clock a registry uses unless told otherwise: [`SystemClock`] natively; on wasm32 a
/// clock that panics with instructions (the host must pass its own).
pub fn default_clock() -> Arc<dyn Clock> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        Arc::new(SystemClock)
    }
    #[cfg(target_arch = "wasm32")]
    {
        Arc::new(MissingClock)
    }
}

/// wasm32's placeholder: no wall clock is reachable without JavaScript.
#[cfg(target_arch = "wasm32")]
struct MissingClock;

#[cfg(target_arch = "wasm32")]
impl Clock for MissingClock {
    fn now_ms(&self) -> u64 {
        panic!("agent-surface on wasm32 has no clock of its own: pass the host's (RegistryOptions::clock)")
    }
}

/// Wall-clock time (not on wasm32, where `SystemTime::now()` panics).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

#[cfg(not(target_arch = "wasm32"))]
impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
    }
}

/// A clock that moves only when told to.
#[derive(Debug, Clone, Default)]
pub struct ManualClock(Arc<AtomicU64>);

impl ManualClock {
    pub fn new(start_ms: u64) -> Self {
        ManualClock(Arc::new(AtomicU64::new(start_ms)))
    }
    pub fn advance(&self, ms: u64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }
    pub fn set(&self, ms: u64) {
        self.0.store(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}
