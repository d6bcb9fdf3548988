//! The spawn seam: running a future in the background. Every pipeline runs inside the
//! caller's future, and timers come through [`Timer`](super::Timer); the one background task
//! is a pending confirmation's expiry at its TTL and the watch on a handler that lost to its
//! timeout, cancellation or unmount (`RegistryOptions::spawn`). Natively: [`ThreadSpawn`] (one
//! background thread driving every spawned future) or [`TokioSpawn`] (feature `tokio`). On wasm32 the host's
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

/// One process-wide background thread that drives every spawned future on a
/// `futures::executor::LocalPool` (any executor, or none, on the caller's side). A thread per
/// future would hold a thread for every pending confirmation and every late-settlement watch.
/// A future that panics is dropped; the others go on.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Default, Clone, Copy)]
pub struct ThreadSpawn;

#[cfg(not(target_arch = "wasm32"))]
impl ThreadSpawn {
    fn queue() -> &'static futures::channel::mpsc::UnboundedSender<BoxFuture<()>> {
        use futures::task::LocalSpawnExt;
        use futures::{FutureExt, StreamExt};
        static QUEUE: std::sync::OnceLock<futures::channel::mpsc::UnboundedSender<BoxFuture<()>>> =
            std::sync::OnceLock::new();
        QUEUE.get_or_init(|| {
            let (tx, mut rx) = futures::channel::mpsc::unbounded::<BoxFuture<()>>();
            std::thread::Builder::new()
                .name("agent-surface-tasks".into())
                .spawn(move || {
                    let mut pool = futures::executor::LocalPool::new();
                    let spawner = pool.spawner();
                    pool.run_until(async move {
                        while let Some(future) = rx.next().await {
                            let guarded = std::panic::AssertUnwindSafe(future).catch_unwind().map(|_| ());
                            // Spawning fails only once the pool is shut down, which it never is.
                            let _ = spawner.spawn_local(guarded);
                        }
                    });
                })
                .expect("spawn the agent-surface task thread");
            tx
        })
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Spawn for ThreadSpawn {
    fn spawn(&self, future: BoxFuture<()>) {
        // The receiving thread lives as long as the process: sending cannot fail.
        let _ = Self::queue().unbounded_send(future);
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

    #[test]
    fn one_thread_drives_many_futures_and_survives_a_panicking_one() {
        let (tx, rx) = std::sync::mpsc::channel();
        ThreadSpawn.spawn(Box::pin(async { std::panic::resume_unwind(Box::new("a buggy task")) }));
        for i in 0..100 {
            let tx = tx.clone();
            ThreadSpawn.spawn(Box::pin(async move { tx.send((i, std::thread::current().id())).unwrap() }));
        }
        let got: Vec<_> = (0..100).map(|_| rx.recv_timeout(std::time::Duration::from_secs(5)).unwrap()).collect();
        assert!(got.iter().all(|(_, thread)| *thread == got[0].1), "one thread runs them all");
        let mut ids: Vec<i32> = got.iter().map(|(i, _)| *i).collect();
        ids.sort_unstable();
        assert_eq!(ids, (0..100).collect::<Vec<_>>());
    }
}
