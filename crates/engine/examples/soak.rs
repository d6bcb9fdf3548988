//! Issue 10 "Load": the soak. One million invocations across 100 consumers on a multi-threaded
//! tokio runtime — duplicate ids issued together, transport retries, cancellations, timeouts,
//! id conflicts, confirmations approved, denied and left to expire, while instances are
//! unmounted and re-registered — must all settle exactly once, run no handler twice for one
//! (consumer, invocationId), leave nothing in flight, and keep memory flat.
//!
//! ```text
//! cargo run --release -p agent-surface-runtime --example soak [-- INVOCATIONS]
//! ```
//!
//! Prints the peak RSS (`VmHWM` of /proc/self/status) after setup, after the first tenth of the
//! invocations (warm) and at the end, and the final `RegistryStats`; exits non-zero (panics) on
//! any violation. The test command runs the 20,000-invocation version of the same storm
//! (`crates/engine/tests/it/pipeline_stress.rs`). Results: docs/performance.md, "Soak".

#[path = "../tests/it/common/mod.rs"]
mod common;

use agent_surface_engine::binding::{
    execute_fn, read_fn, ActionBinding, ActionContext, AgentConcurrency, ObservationBinding,
};
use agent_surface_engine::events::AgentSurfaceEvent;
use agent_surface_engine::host::timer::TokioTimer;
use agent_surface_engine::invoke::{AgentInvocation, AgentInvocationResult, InvokeOptions};
use agent_surface_engine::registry::{AgentSurfaceRegistry, RegistrationHandle, RegistryOptions};
use agent_surface_engine::signal::{AbortController, AbortReason};
use agent_surface_model::errors::ErrorCode;
use agent_surface_model::limits::AgentSurfaceLimits;
use common::{confirmation_id, consumer, inv, test_authority, widget};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const CONSUMERS: usize = 100;
const IN_FLIGHT_PER_CONSUMER: usize = 2;
const INSTANCES: usize = 64;
const CONFIRMATION_TTL_MS: u64 = 40;

/// Handler runs per (consumerKey, invocationId), for the keys whose scenario is still running:
/// a scenario checks and removes its own key when it ends, so the map stays as small as the
/// number of requests in flight (a soak must not measure its own bookkeeping).
type Runs = Arc<Mutex<HashMap<(String, String), usize>>>;

#[derive(Default)]
struct Counters {
    issued: AtomicUsize,
    returned: AtomicUsize,
    started: AtomicUsize,
    settled: AtomicUsize,
    handler_runs: AtomicUsize,
    scenarios: AtomicUsize,
    late_retries: AtomicUsize,
    remounts: AtomicUsize,
}

struct World {
    registry: AgentSurfaceRegistry,
    authority: agent_surface_engine::authority::CapabilityAuthority,
    runs: Runs,
    handles: Mutex<Vec<RegistrationHandle>>,
    n: Counters,
    codes: Mutex<HashMap<&'static str, usize>>,
}

/// Pending once, waking itself at once: "still in flight across a poll".
async fn yield_once() {
    let mut yielded = false;
    futures::future::poll_fn(|cx| {
        if yielded {
            std::task::Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
    .await
}

fn counted(runs: &Runs, counters: Arc<World>) -> ActionBinding {
    let runs = runs.clone();
    ActionBinding::new(execute_fn(move |input: Value, ctx: ActionContext| {
        *runs.lock().unwrap().entry((ctx.consumer.key(), ctx.invocation_id.clone())).or_default() += 1;
        counters.n.handler_runs.fetch_add(1, Ordering::Relaxed);
        async move {
            yield_once().await;
            match input["n"].as_i64() {
                Some(9) => tokio::time::sleep(Duration::from_millis(40)).await,
                Some(2) => tokio::time::sleep(Duration::from_millis(1)).await,
                _ => {}
            }
            Ok(Value::Null)
        }
    }))
}

fn bound(w: &Arc<World>, i: usize) -> agent_surface_engine::binding::BoundComponent {
    let a = &w.authority;
    let c = |w: &Arc<World>| counted(&w.runs, w.clone());
    widget(a, &format!("w{i}"))
        .action("act", c(w))
        .action("other", c(w).concurrency(AgentConcurrency::Parallel { max: 4, queue_depth: Some(8) }))
        .action("confirm", c(w))
        .action("go", c(w))
        .observation(
            "state",
            ObservationBinding::new(read_fn(|_| async {
                yield_once().await;
                Ok(json!({"n": 1}))
            })),
        )
        .procedure(a.procedure("domain:test.touch").unwrap().bind(c(w)).unwrap())
        .build()
        .unwrap()
}

impl World {
    fn new() -> Arc<World> {
        let authority = test_authority();
        let limits = AgentSurfaceLimits { confirmation_ttl_ms: CONFIRMATION_TTL_MS, ..Default::default() };
        let registry = AgentSurfaceRegistry::new(
            RegistryOptions::new(authority.clone()).timer(Arc::new(TokioTimer)).limits(limits),
        );
        let w = Arc::new(World {
            registry,
            authority,
            runs: Arc::default(),
            handles: Mutex::default(),
            n: Counters::default(),
            codes: Mutex::default(),
        });
        let handles = (0..INSTANCES).map(|i| w.registry.register(bound(&w, i)).unwrap()).collect();
        *w.handles.lock().unwrap() = handles;
        w
    }

    async fn invoke(&self, req: AgentInvocation, opts: InvokeOptions) -> AgentInvocationResult {
        self.n.issued.fetch_add(1, Ordering::Relaxed);
        let r = self.registry.invoke(req, opts).await.expect("not disposed");
        self.n.returned.fetch_add(1, Ordering::Relaxed);
        *self.codes.lock().unwrap().entry(r.code().map_or("OK", |c| c.as_str())).or_default() += 1;
        r
    }

    /// `k` concurrent duplicates of one request, retried with the same id while every one of
    /// them was RATE_LIMITED (then nothing ran).
    async fn dupes(&self, req: AgentInvocation, opts: InvokeOptions, k: usize) -> Vec<AgentInvocationResult> {
        let mut attempt = 0;
        loop {
            let all = futures::future::join_all((0..k).map(|_| self.invoke(req.clone(), opts.clone()))).await;
            attempt += 1;
            if attempt < 3 && all.iter().all(|r| r.code() == Some(ErrorCode::RateLimited)) {
                tokio::time::sleep(Duration::from_millis(1 + attempt)).await;
                continue;
            }
            return all;
        }
    }
}

fn expect_in(r: &AgentInvocationResult, extra: &[Option<ErrorCode>], what: &str) {
    const ANYWHERE: &[Option<ErrorCode>] = &[
        Some(ErrorCode::RateLimited),
        Some(ErrorCode::CapabilityNotFound),
        Some(ErrorCode::ComponentUnmounted),
        Some(ErrorCode::StaleCapability),
    ];
    assert!(ANYWHERE.contains(&r.code()) || extra.contains(&r.code()), "{what}: unexpected {r:?}");
}

/// One logical request of consumer `c`, number `m`; returns whether the key was re-sent after
/// it settled (then a second run is legitimate if the key left the bounded window).
async fn scenario(w: Arc<World>, c: usize, m: usize) {
    let mut rng = fastrand::Rng::with_seed((c as u64) << 32 | m as u64);
    let consumer = consumer(&format!("c{c}"));
    let opts = InvokeOptions { consumer: Some(consumer.clone()), ..Default::default() };
    // Provider tool-call ids collide across consumers on purpose.
    let id = format!("call_{m}");
    let instance = format!("w{}", rng.usize(..INSTANCES));
    let k = 1 + rng.usize(..3);
    let mut late = false;
    match rng.u32(..100) {
        0..=34 => {
            let cap = if rng.bool() { "view:test.widget.act" } else { "view:test.widget.other" };
            let req = inv(cap).id(&id).instance(&instance).input(json!({"n": rng.i64(0..3)}));
            for r in &w.dupes(req.clone(), opts.clone(), k).await {
                expect_in(r, &[None], "action");
            }
            if rng.u32(..4) == 0 {
                late = true;
                w.n.late_retries.fetch_add(1, Ordering::Relaxed);
                expect_in(&w.invoke(req, opts).await, &[None], "late retry");
            }
        }
        35..=49 => {
            for r in w.dupes(inv("view:test.widget.state").id(&id).instance(&instance), opts, k).await {
                expect_in(&r, &[None], "observation");
            }
        }
        50..=59 => {
            let cancel = AbortController::new();
            let delay = rng.u64(0..3);
            let c2 = cancel.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(delay)).await;
                c2.abort(AbortReason::Cancelled);
            });
            let req = inv("view:test.widget.act").id(&id).instance(&instance).input(json!({"n": 2}));
            for r in w.dupes(req, InvokeOptions { signal: Some(cancel.signal()), ..opts }, k).await {
                expect_in(&r, &[None, Some(ErrorCode::Cancelled)], "cancellation");
            }
        }
        60..=66 => {
            let req = inv("view:test.widget.act").id(&id).instance(&instance).input(json!({"n": 9}));
            for r in w.dupes(req, InvokeOptions { timeout_ms: Some(5), ..opts }, k).await {
                expect_in(&r, &[Some(ErrorCode::Timeout), None], "timeout");
            }
        }
        67..=73 => {
            // The same id for two different requests at once: one runs, the other conflicts.
            let a = inv("view:test.widget.act").id(&id).instance(&instance).input(json!({"n": 1}));
            let b = inv("view:test.widget.act").id(&id).instance(&instance).input(json!({"n": 0}));
            let (ra, rb) = futures::future::join(w.invoke(a, opts.clone()), w.invoke(b, opts.clone())).await;
            for r in [&ra, &rb] {
                expect_in(r, &[None, Some(ErrorCode::InvocationConflict)], "conflict");
            }
        }
        74..=85 => {
            let req = inv("view:test.widget.confirm").id(&id).instance(&instance).input(json!({"n": 1}));
            let mut first = w.invoke(req.clone(), opts.clone()).await;
            for _ in 0..3 {
                if first.code() != Some(ErrorCode::RateLimited) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
                first = w.invoke(req.clone(), opts.clone()).await;
            }
            expect_in(&first, &[Some(ErrorCode::ConfirmationRequired)], "confirmation request");
            if first.code() == Some(ErrorCode::ConfirmationRequired) {
                let cid = confirmation_id(&first);
                let retry = req.confirmation(&cid);
                match rng.u32(..3) {
                    0 => {
                        let _ = w.registry.confirmations().resolve(&cid, true);
                        for r in w.dupes(retry, opts, k).await {
                            expect_in(&r, &[None, Some(ErrorCode::ConfirmationExpired)], "approved retry");
                        }
                    }
                    1 => {
                        let _ = w.registry.confirmations().resolve(&cid, false);
                        for r in w.dupes(retry, opts, k).await {
                            expect_in(
                                &r,
                                &[Some(ErrorCode::ConfirmationDenied), Some(ErrorCode::ConfirmationExpired)],
                                "denied retry",
                            );
                        }
                    }
                    _ => {
                        tokio::time::sleep(Duration::from_millis(CONFIRMATION_TTL_MS + 5)).await;
                        for r in w.dupes(retry, opts, k).await {
                            expect_in(&r, &[Some(ErrorCode::ConfirmationExpired)], "expired retry");
                        }
                    }
                }
            }
        }
        86..=92 => {
            let req = inv("domain:test.touch").id(&id).instance(&instance).input(json!({"x": 1}));
            for r in w.dupes(req, opts, k).await {
                expect_in(&r, &[None], "procedure");
            }
        }
        _ => {
            // A registration id from discovery, possibly stale by the time it arrives.
            let rid = w.registry.registrations().into_iter().find(|(_, _, i)| *i == instance).map(|(r, _, _)| r);
            let mut req = inv("view:test.widget.go").id(&id).instance(&instance).input(json!({"to": "/x"}));
            if let Some(rid) = rid {
                req = req.registration(rid);
            }
            for r in w.dupes(req, opts, k).await {
                expect_in(&r, &[None], "navigation");
            }
        }
    }
    // This key is done: no handler may have run twice for it (twice only after a late retry
    // whose key had left the bounded idempotency window).
    let runs = w.runs.lock().unwrap().remove(&(consumer.key(), id.clone())).unwrap_or(0);
    let max = if late { 2 } else { 1 };
    assert!(runs <= max, "({}, {id}) ran {runs} times", consumer.key());
    w.n.scenarios.fetch_add(1, Ordering::Relaxed);
}

/// Unmounts and re-registers instances until told to stop.
async fn chaos(w: Arc<World>, stop: Arc<AtomicBool>) {
    let mut rng = fastrand::Rng::with_seed(7);
    while !stop.load(Ordering::SeqCst) {
        let i = rng.usize(..INSTANCES);
        w.handles.lock().unwrap()[i].unregister();
        yield_once().await;
        let h = w.registry.register(bound(&w, i)).unwrap();
        w.handles.lock().unwrap()[i] = h;
        w.n.remounts.fetch_add(1, Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// (VmHWM, VmRSS) in kB.
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

fn main() {
    let target: usize = std::env::args()
        .nth(1)
        .map(|a| a.replace('_', "").parse().expect("INVOCATIONS: a number"))
        .unwrap_or(1_000_000);
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_time().build().unwrap();
    let started_at = Instant::now();
    let w = World::new();
    let e = w.clone();
    w.registry
        .subscribe(move |ev| match ev {
            AgentSurfaceEvent::InvocationStarted { .. } => {
                e.n.started.fetch_add(1, Ordering::Relaxed);
            }
            AgentSurfaceEvent::InvocationSettled { .. } => {
                e.n.settled.fetch_add(1, Ordering::Relaxed);
            }
            _ => {}
        })
        .forever();
    let (hwm_setup, rss_setup) = memory();
    println!("soak: target {target} invocations, {CONSUMERS} consumers × {IN_FLIGHT_PER_CONSUMER} in flight, {INSTANCES} instances");
    println!("memory after setup: peak RSS (VmHWM) {hwm_setup} kB, RSS {rss_setup} kB");

    let warm: Arc<Mutex<Option<(u64, u64, Duration)>>> = Arc::default();
    rt.block_on(async {
        let stop = Arc::new(AtomicBool::new(false));
        let chaos = tokio::spawn(chaos(w.clone(), stop.clone()));
        let consumers: Vec<_> = (0..CONSUMERS)
            .map(|c| {
                let w = w.clone();
                let warm = warm.clone();
                tokio::spawn(async move {
                    use futures::StreamExt;
                    // Each consumer keeps IN_FLIGHT requests going until the target is reached.
                    let requests = futures::stream::iter(0..).take_while(|_| {
                        let go = w.n.issued.load(Ordering::Relaxed) < target;
                        async move { go }
                    });
                    requests
                        .for_each_concurrent(IN_FLIGHT_PER_CONSUMER, |m| {
                            let w = w.clone();
                            let warm = warm.clone();
                            async move {
                                tokio::spawn(scenario(w.clone(), c, m)).await.expect("a scenario failed");
                                if w.n.issued.load(Ordering::Relaxed) >= target / 10 {
                                    let mut slot = warm.lock().unwrap();
                                    if slot.is_none() {
                                        let (h, r) = memory();
                                        *slot = Some((h, r, started_at.elapsed()));
                                    }
                                }
                            }
                        })
                        .await
                })
            })
            .collect();
        for t in consumers {
            t.await.expect("a consumer failed");
        }
        stop.store(true, Ordering::SeqCst);
        chaos.await.unwrap();
        // Let pending confirmations pass their TTL.
        tokio::time::sleep(Duration::from_millis(CONFIRMATION_TTL_MS + 10)).await;
    });
    let elapsed = started_at.elapsed();
    let (hwm_end, rss_end) = memory();

    let n = &w.n;
    let (issued, returned) = (n.issued.load(Ordering::SeqCst), n.returned.load(Ordering::SeqCst));
    let (started, settled) = (n.started.load(Ordering::SeqCst), n.settled.load(Ordering::SeqCst));
    assert_eq!(returned, issued, "every invoke call returns exactly once");
    assert_eq!(settled, started, "every run that started settled exactly once");
    assert!(issued >= target, "{issued} < {target}");
    assert!(w.runs.lock().unwrap().is_empty(), "every scenario checked its key");
    let st = w.registry.stats();
    assert!(st.dedupe_entries <= 200, "{st:?}");
    assert_eq!(
        (st.admission_groups, st.running, st.observation_slots, st.pending_confirmations),
        (0, 0, 0, 0),
        "nothing left in flight: {st:?}"
    );
    assert_eq!(st.registrations, INSTANCES);
    assert!(st.tombstones <= 100, "{st:?}");

    let mut codes: Vec<(&str, usize)> = w.codes.lock().unwrap().iter().map(|(k, v)| (*k, *v)).collect();
    codes.sort();
    let (hwm_warm, rss_warm, at_warm) = warm.lock().unwrap().unwrap_or((0, 0, Duration::ZERO));
    println!(
        "invocations {issued} (returned {returned}), runs started {started} = settled {settled}, handler runs {}, scenarios {}, late retries {}, remounts {}",
        n.handler_runs.load(Ordering::SeqCst),
        n.scenarios.load(Ordering::SeqCst),
        n.late_retries.load(Ordering::SeqCst),
        n.remounts.load(Ordering::SeqCst)
    );
    println!("outcomes {codes:?}");
    println!("elapsed {:.1?} ({:.0} invocations/s)", elapsed, issued as f64 / elapsed.as_secs_f64());
    println!(
        "memory after {} invocations (warm, at {:.1?}): peak RSS (VmHWM) {hwm_warm} kB, RSS {rss_warm} kB",
        target / 10,
        at_warm
    );
    println!("memory at the end: peak RSS (VmHWM) {hwm_end} kB, RSS {rss_end} kB");
    println!("final {st:?}");
    println!("soak: OK");
}
