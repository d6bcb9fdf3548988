//! The spawn seam: running a future in the background. Every pipeline runs inside the
//! caller's future, and timers come through [`Timer`](super::Timer); the one background task
//! is a pending confirmation's expiry at its TTL (`RegistryOptions::spawn`). Natively: [`ThreadSpawn`] (a thread per future, driven by
//! `futures::executor::block_on`) or [`TokioSpawn`] (feature `tokio`). On wasm32 the host's
//! facade implements it with `wasm_bindgen_futures::spawn_local` (no threads there, and the
//! future need not be `Send`: [`BoxFuture`] is not on wasm32).

use super::{BoxFuture, MaybeSend, MaybeSync};

pub trait Spawn: MaybeSend + MaybeSync {
    /// Runs `future` to completion in the background; its output is dropped.
    fn spawn(&self, future: BoxFuture<()>);
}

/// The spawner a registry uses unless told otherwise: [`ThreadSpawn`] natively, none on
/// wasm32 (the host passes one built on `spawn_local`).
pub fn default_spawn() -> Option<std::sync::Arc<dyn Spawn>> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        Some(std::sync::Arc::new(ThreadSpawn))
    }
    #[cfg(target_arch = "wasm32")]
    {
        None
    }
}

/// A thread per spawned future (any executor, or none).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Default, Clone, Copy)]
pub struct ThreadSpawn;

#[cfg(not(target_arch = "wasm32"))]
impl Spawn for ThreadSpawn {
    fn spawn(&self, future: BoxFuture<()>) {
        std::thread::Builder::new()
            .name("agent-surface-task".into())
            .spawn(move || futures::executor::block_on(future))
            .expect("spawn a task thread");
    }
}

/// `tokio::spawn` (requires a running tokio runtime).
#[cfg(feature = "tokio")]
#[derive(Debug, Default, Clone, Copy)]
pub struct TokioSpawn;

#[cfg(feature = "tokio")]
impl Spawn for TokioSpawn {
    fn spawn(&self, future: BoxFuture<()>) {
        tokio::spawn(future);
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn the_thread_spawner_runs_the_future() {
        let (tx, rx) = std::sync::mpsc::channel();
        ThreadSpawn.spawn(Box::pin(async move { tx.send(7).unwrap() }));
        assert_eq!(rx.recv_timeout(std::time::Duration::from_secs(5)).unwrap(), 7);
    }
}
