//! The engine's host seams (crates/engine/src/host) implemented by the page (the clock, which
//! reads `options.now`, is the registry's: registry.rs), timers call the global `setTimeout` / `clearTimeout` at
//! the moment they are needed (so `vi.useFakeTimers()` drives them), background work runs on
//! the microtask queue (`spawn_local`).
//!
//! Every call into JavaScript goes through an import declared `catch`: an exception must never
//! unwind through wasm frames, which would skip Rust destructors (locks stay taken) — the
//! package's wrappers catch everything already, this is the second fence.

use agent_surface_engine::host::spawn::Spawn;
use agent_surface_engine::host::timer::Timer;
use agent_surface_engine::host::BoxFuture;
use js_sys::{Function, Promise, Reflect};
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// `setTimeout`-backed sleeps; dropping one before it fires calls `clearTimeout`, so settled
/// invocations leave no timers behind (a test's fake timers see none pending).
pub struct HostTimer;

impl Timer for HostTimer {
    fn sleep(&self, ms: u64) -> BoxFuture<()> {
        Box::pin(Sleep::start(ms))
    }
}

#[derive(Default)]
struct SleepState {
    fired: bool,
    waker: Option<Waker>,
}

struct Sleep {
    state: Rc<RefCell<SleepState>>,
    handle: Option<JsValue>,
    // Kept alive until the timer fired or was cleared.
    _callback: Option<Closure<dyn FnMut()>>,
}

fn global_function(name: &str) -> Option<Function> {
    Reflect::get(&js_sys::global(), &JsValue::from_str(name)).ok()?.dyn_into::<Function>().ok()
}

impl Sleep {
    fn start(ms: u64) -> Sleep {
        let state = Rc::new(RefCell::new(SleepState::default()));
        let fire = state.clone();
        let callback = Closure::<dyn FnMut()>::new(move || {
            let waker = {
                let mut s = fire.borrow_mut();
                s.fired = true;
                s.waker.take()
            };
            if let Some(w) = waker {
                w.wake();
            }
        });
        // Looked up now, not at module start: a test may have replaced it (fake timers).
        let handle = global_function("setTimeout").and_then(|set| {
            set.call2(&JsValue::UNDEFINED, callback.as_ref().unchecked_ref(), &JsValue::from_f64(ms as f64)).ok()
        });
        Sleep { state, handle, _callback: Some(callback) }
    }
}

impl Future for Sleep {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut s = self.state.borrow_mut();
        if s.fired {
            return Poll::Ready(());
        }
        s.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if !self.state.borrow().fired {
            if let (Some(handle), Some(clear)) = (&self.handle, global_function("clearTimeout")) {
                let _ = clear.call1(&JsValue::UNDEFINED, handle);
            }
        }
    }
}

/// Background futures on the page's microtask queue.
pub struct HostSpawn;

impl Spawn for HostSpawn {
    fn spawn(&self, future: BoxFuture<()>) {
        wasm_bindgen_futures::spawn_local(future);
    }
}

/// A value the package's wrappers return: JSON text, or a promise of it. `Err` carries the
/// rejection's message (the wrappers do not reject; this is the fence).
pub async fn settle_text(value: JsValue) -> Result<String, String> {
    let value = if value.is_instance_of::<Promise>() {
        JsFuture::from(value.unchecked_into::<Promise>()).await.map_err(|e| describe_js(&e))?
    } else {
        value
    };
    value.as_string().ok_or_else(|| "the host answered with something that is not JSON text".to_string())
}

/// A thrown JS value as text (an Error's message, else its string form).
pub fn describe_js(e: &JsValue) -> String {
    if let Some(s) = e.as_string() {
        return s;
    }
    Reflect::get(e, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_else(|| "a JavaScript exception".to_string())
}
