//! The host seams: everything the engine needs from the platform it runs on, behind small
//! traits so the same core runs natively (threads, tokio) and on wasm32 in a browser (the JS
//! event loop).
//!
//! - [`clock`]: wall time in milliseconds ([`Clock`]). [`SystemClock`] natively; on wasm32 the
//!   host passes its own (`Date.now()`), because `std::time::SystemTime::now()` panics on
//!   `wasm32-unknown-unknown`.
//! - [`timer`]: "sleep for n ms" ([`Timer`]), the only thing timeouts and TTLs need.
//! - [`spawn`]: running a future in the background ([`Spawn`]).
//! - [`entropy`]: unpredictable ids (`srf_`, `reg_`, `cnf_`, `inv_`).
//!
//! # `Send` natively, not on wasm32
//!
//! JavaScript values and promises are not `Send`, so on wasm32 handlers, policies, listeners
//! and their futures cannot be required to be. One pattern expresses that everywhere:
//! [`MaybeSend`] / [`MaybeSync`] are `Send` / `Sync` natively and empty on wasm32 (like wgpu's
//! `WasmNotSend`), and trait objects are written with [`dyn_send_sync!`](crate::dyn_send_sync)
//! (`dyn X + Send + Sync` natively, `dyn X` on wasm32). Natively nothing changes.

pub mod clock;
pub mod entropy;
pub mod spawn;
pub mod timer;

#[cfg(not(target_arch = "wasm32"))]
pub use clock::SystemClock;
pub use clock::{Clock, ManualClock};
pub use spawn::Spawn;
#[cfg(not(target_arch = "wasm32"))]
pub use timer::ThreadTimer;
pub use timer::{ManualTimer, Timer};

use std::future::Future;
use std::pin::Pin;

/// `Send` natively; nothing on wasm32 (JS values are not `Send`).
#[cfg(not(target_arch = "wasm32"))]
pub trait MaybeSend: Send {}
#[cfg(not(target_arch = "wasm32"))]
impl<T: Send + ?Sized> MaybeSend for T {}
/// `Send` natively; nothing on wasm32 (JS values are not `Send`).
#[cfg(target_arch = "wasm32")]
pub trait MaybeSend {}
#[cfg(target_arch = "wasm32")]
impl<T: ?Sized> MaybeSend for T {}

/// `Sync` natively; nothing on wasm32.
#[cfg(not(target_arch = "wasm32"))]
pub trait MaybeSync: Sync {}
#[cfg(not(target_arch = "wasm32"))]
impl<T: Sync + ?Sized> MaybeSync for T {}
/// `Sync` natively; nothing on wasm32.
#[cfg(target_arch = "wasm32")]
pub trait MaybeSync {}
#[cfg(target_arch = "wasm32")]
impl<T: ?Sized> MaybeSync for T {}

/// `dyn $bounds + Send + Sync` natively, `dyn $bounds` on wasm32: the trait-object form of
/// [`MaybeSend`] + [`MaybeSync`] (a trait object can add only auto traits).
#[cfg(not(target_arch = "wasm32"))]
#[macro_export]
macro_rules! dyn_send_sync {
    ($($bounds:tt)+) => { dyn $($bounds)+ + Send + Sync };
}
/// `dyn $bounds + Send + Sync` natively, `dyn $bounds` on wasm32: the trait-object form of
/// [`MaybeSend`] + [`MaybeSync`] (a trait object can add only auto traits).
#[cfg(target_arch = "wasm32")]
#[macro_export]
macro_rules! dyn_send_sync {
    ($($bounds:tt)+) => { dyn $($bounds)+ };
}

/// A boxed future of a handler, policy or timer: `Send` natively, not on wasm32 (a JS promise
/// is not). The core is executor-agnostic.
#[cfg(not(target_arch = "wasm32"))]
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;
/// A boxed future of a handler, policy or timer: `Send` natively, not on wasm32 (a JS promise
/// is not). The core is executor-agnostic.
#[cfg(target_arch = "wasm32")]
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + 'static>>;
