//! A cooperative cancellation signal (the spec's `AbortSignal`): executor-agnostic, awaitable.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// Why a signal was aborted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AbortReason {
    Timeout,
    Cancelled,
    Unmounted,
    Disposed,
}

#[derive(Default, Debug)]
struct Inner {
    reason: Option<AbortReason>,
    wakers: Vec<Waker>,
}

/// Observed by handlers: check [`AbortSignal::is_aborted`] or await [`AbortSignal::aborted`].
#[derive(Clone, Debug, Default)]
pub struct AbortSignal(Arc<Mutex<Inner>>);

/// Owned by whoever may abort (the registry, a caller's cancellation).
#[derive(Clone, Debug, Default)]
pub struct AbortController(AbortSignal);

impl AbortController {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn signal(&self) -> AbortSignal {
        self.0.clone()
    }
    /// Aborts once; later calls keep the first reason.
    pub fn abort(&self, reason: AbortReason) {
        let wakers = {
            let mut inner = self.0 .0.lock().unwrap_or_else(|e| e.into_inner());
            if inner.reason.is_some() {
                return;
            }
            inner.reason = Some(reason);
            std::mem::take(&mut inner.wakers)
        };
        for w in wakers {
            w.wake();
        }
    }
}

impl AbortSignal {
    pub fn is_aborted(&self) -> bool {
        self.reason().is_some()
    }
    pub fn reason(&self) -> Option<AbortReason> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).reason.clone()
    }
    /// Resolves when the signal is aborted.
    pub fn aborted(&self) -> Aborted {
        Aborted(self.clone())
    }
}

/// Future of [`AbortSignal::aborted`].
pub struct Aborted(AbortSignal);

impl Future for Aborted {
    type Output = AbortReason;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<AbortReason> {
        let mut inner = self.0 .0.lock().unwrap_or_else(|e| e.into_inner());
        match &inner.reason {
            Some(r) => Poll::Ready(r.clone()),
            None => {
                if !inner.wakers.iter().any(|w| w.will_wake(cx.waker())) {
                    inner.wakers.push(cx.waker().clone());
                }
                Poll::Pending
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abort_wakes_and_keeps_the_first_reason() {
        let c = AbortController::new();
        let s = c.signal();
        assert!(!s.is_aborted());
        c.abort(AbortReason::Timeout);
        c.abort(AbortReason::Cancelled);
        assert_eq!(s.reason(), Some(AbortReason::Timeout));
        assert_eq!(futures::executor::block_on(s.aborted()), AbortReason::Timeout);
    }
}
