//! Spec core-api §Concurrency, timeouts, cancellation (and Limits): timeouts with their
//! defaults and overrides, external cancellation, unmount mid-flight, navigation settlement,
//! dispose. Every timer runs on the injected ManualClock / ManualTimer.

use crate::common::*;
use agent_surface_engine::binding::{execute_fn, read_fn, ActionBinding, ActionContext, ObservationBinding};
use agent_surface_engine::events::{AgentSurfaceEvent, ConfirmationOutcome};
use agent_surface_engine::invoke::InvokeOptions;
use agent_surface_engine::signal::{AbortController, AbortReason, AbortSignal};
use agent_surface_model::errors::{ErrorCode, Retry};
use agent_surface_model::limits::AgentSurfaceLimits;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// An action that keeps its signal where the test can see it and never finishes on its own.
fn hanging(signals: &Arc<Mutex<Vec<AbortSignal>>>) -> ActionBinding {
    let signals = signals.clone();
    ActionBinding::new(execute_fn(move |_, ctx: ActionContext| {
        signals.lock().unwrap().push(ctx.signal.clone());
        futures::future::pending()
    }))
}

fn hanging_read() -> ObservationBinding {
    ObservationBinding::new(read_fn(|_| futures::future::pending()))
}

/// Settles `p` exactly at `ms` after the start and not a millisecond before.
#[track_caller]
fn times_out_at(env: &mut Env, p: &Pending, ms: u64) {
    env.advance(ms - 1);
    assert!(!p.done(), "still running at {} ms", ms - 1);
    env.advance(1);
    let r = p.result();
    assert_eq!(r.code(), Some(ErrorCode::Timeout), "{r:?}");
    assert_eq!(r.error.unwrap().retry, Retry::AfterDelay);
}

// "timeoutMs?: number; // default limits.observationTimeoutMs (5000)"
#[test]
fn observations_time_out_after_5_seconds_by_default() {
    let a = test_authority();
    let mut env = Env::new(&a);
    env.registry.register(widget(&a, "main").observation("state", hanging_read()).build().unwrap()).unwrap();
    let p = env.start(inv("view:test.widget.state"), InvokeOptions::default());
    times_out_at(&mut env, &p, 5_000);
}

// "timeoutMs?: number; // default limits.actionTimeoutMs (10000)"
#[test]
fn actions_time_out_after_10_seconds_by_default() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let signals = Arc::default();
    env.registry.register(widget(&a, "main").action("act", hanging(&signals)).build().unwrap()).unwrap();
    let p = env.start(inv("view:test.widget.act"), InvokeOptions::default());
    times_out_at(&mut env, &p, 10_000);
}

// "Timeouts: timeoutMs per capability, else defaults (observation 5 s, action 10 s, procedure 30 s)."
#[test]
fn procedures_time_out_after_30_seconds_by_default() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let signals = Arc::default();
    env.registry
        .register(
            widget(&a, "main")
                .procedure(a.procedure("domain:test.touch").unwrap().bind(hanging(&signals)).unwrap())
                .build()
                .unwrap(),
        )
        .unwrap();
    let p = env.start(inv("domain:test.touch"), InvokeOptions::default());
    times_out_at(&mut env, &p, 30_000);
}

// "Timeouts: timeoutMs per capability, else defaults"
#[test]
fn a_per_capability_timeout_overrides_the_default() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let signals = Arc::default();
    env.registry
        .register(
            widget(&a, "main")
                .action("act", hanging(&signals).timeout_ms(250))
                .observation("state", hanging_read().timeout_ms(40))
                .build()
                .unwrap(),
        )
        .unwrap();
    let p = env.start(inv("view:test.widget.act"), InvokeOptions::default());
    times_out_at(&mut env, &p, 250);
    let p = env.start(inv("view:test.widget.state"), InvokeOptions::default());
    times_out_at(&mut env, &p, 40);
}

// "timeoutMs?: number; // overrides capability/limits default" (InvokeOptions)
#[test]
fn a_per_call_timeout_overrides_capability_and_limits() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let signals = Arc::default();
    env.registry
        .register(widget(&a, "main").action("act", hanging(&signals).timeout_ms(250)).build().unwrap())
        .unwrap();
    let p = env.start(inv("view:test.widget.act"), InvokeOptions { timeout_ms: Some(1_000), ..Default::default() });
    times_out_at(&mut env, &p, 1_000);
}

// "All defaults are overridable via RegistryOptions.limits." (the three timeouts)
#[test]
fn the_default_timeouts_follow_the_registry_limits() {
    let a = test_authority();
    let limits = AgentSurfaceLimits {
        observation_timeout_ms: 7,
        action_timeout_ms: 11,
        procedure_timeout_ms: 13,
        ..Default::default()
    };
    let mut env = Env::with(&a, |o| o.limits(limits));
    let signals = Arc::default();
    env.registry
        .register(
            widget(&a, "main")
                .observation("state", hanging_read())
                .action("act", hanging(&signals))
                .procedure(a.procedure("domain:test.touch").unwrap().bind(hanging(&signals)).unwrap())
                .build()
                .unwrap(),
        )
        .unwrap();
    for (id, ms) in [("view:test.widget.state", 7), ("view:test.widget.act", 11), ("domain:test.touch", 13)] {
        let p = env.start(inv(id), InvokeOptions::default());
        times_out_at(&mut env, &p, ms);
    }
}

// "On timeout the registry aborts ctx.signal, settles TIMEOUT, and ignores (but logs) any late handler settlement."
#[test]
fn a_timeout_aborts_the_handlers_signal_and_frees_the_queue() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let signals = Arc::default();
    env.registry.register(widget(&a, "main").action("act", hanging(&signals)).build().unwrap()).unwrap();
    let p = env.start(inv("view:test.widget.act"), InvokeOptions::default());
    let next = env.start(inv("view:test.widget.act"), InvokeOptions::default());
    assert_eq!(signals.lock().unwrap().len(), 1);
    env.advance(10_000);
    assert_eq!(p.result().code(), Some(ErrorCode::Timeout));
    assert_eq!(signals.lock().unwrap()[0].reason(), Some(AbortReason::Timeout));
    assert_eq!(signals.lock().unwrap().len(), 2, "the queued action runs once the slot is released");
    assert!(env.logs.lock().unwrap().iter().any(|l| l.message.contains("timed out")), "the timeout is logged");
    env.advance(10_000);
    assert_eq!(next.result().code(), Some(ErrorCode::Timeout));
    let st = env.registry.stats();
    assert_eq!((st.running, st.admission_groups), (0, 0));
}

// "External cancellation: InvokeOptions.signal aborted → settle CANCELLED"; ctx.signal: "Aborted on timeout, external cancellation, or unmount."
#[test]
fn external_cancellation_settles_cancelled_and_aborts_the_handlers_signal() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let signals = Arc::default();
    env.registry.register(widget(&a, "main").action("act", hanging(&signals)).build().unwrap()).unwrap();
    let c = AbortController::new();
    let p = env.start(inv("view:test.widget.act"), InvokeOptions { signal: Some(c.signal()), ..Default::default() });
    assert!(!p.done());
    c.abort(AbortReason::Cancelled);
    env.settle();
    let r = p.result();
    assert_eq!(r.code(), Some(ErrorCode::Cancelled));
    assert_eq!(r.error.unwrap().retry, Retry::Never);
    assert_eq!(signals.lock().unwrap()[0].reason(), Some(AbortReason::Cancelled));
    assert_eq!(env.registry.stats().running, 0);
}

// "External cancellation: InvokeOptions.signal aborted → settle CANCELLED": a signal already aborted at dispatch never starts the handler
#[test]
fn a_signal_aborted_before_dispatch_never_runs_the_handler() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let runs = Counter::default();
    env.registry
        .register(widget(&a, "main").action("act", counting(&runs, None, Value::Null)).build().unwrap())
        .unwrap();
    let c = AbortController::new();
    c.abort(AbortReason::Cancelled);
    let r = env.call(inv("view:test.widget.act"), InvokeOptions { signal: Some(c.signal()), ..Default::default() });
    assert_eq!(r.code(), Some(ErrorCode::Cancelled));
    assert_eq!(runs.get(), 0, "a cancelled invocation never dispatches");
}

// "Unmount mid-flight: unregistration aborts active non-navigation signals. The invocation settles COMPONENT_UNMOUNTED unless the handler settled first"
#[test]
fn unregistering_mid_flight_settles_component_unmounted_and_aborts_the_signal() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let signals = Arc::default();
    let h = env.registry.register(widget(&a, "main").action("act", hanging(&signals)).build().unwrap()).unwrap();
    let p = env.start(inv("view:test.widget.act"), InvokeOptions::default());
    let queued = env.start(inv("view:test.widget.act"), InvokeOptions::default());
    h.unregister();
    env.settle();
    assert_eq!(p.result().code(), Some(ErrorCode::ComponentUnmounted));
    assert_eq!(p.result().error.unwrap().retry, Retry::WithChanges);
    assert_eq!(signals.lock().unwrap()[0].reason(), Some(AbortReason::Unmounted));
    // "Unmount before dispatch still returns COMPONENT_UNMOUNTED."
    assert_eq!(queued.result().code(), Some(ErrorCode::ComponentUnmounted));
    assert_eq!(signals.lock().unwrap().len(), 1, "the queued one never dispatched");
    let st = env.registry.stats();
    assert_eq!((st.running, st.admission_groups), (0, 0));
}

// "The invocation settles COMPONENT_UNMOUNTED unless the handler settled first"
#[test]
fn a_handler_that_settled_before_the_unmount_keeps_its_result() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let h = env.registry.register(widget(&a, "main").build().unwrap()).unwrap();
    let r = env.call(inv("view:test.widget.act").id("done"), InvokeOptions::default());
    h.unregister();
    env.settle();
    assert!(r.is_ok());
    assert_eq!(env.call(inv("view:test.widget.act").id("done"), InvokeOptions::default()), r);
}

// "Navigation settlement: unregistration does not settle an active navigation action. It settles on handler completion, timeout, or external cancellation."
#[test]
fn an_active_navigation_settles_on_completion_not_on_unmount() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let latch = Latch::default();
    let sig: Arc<Mutex<Option<AbortSignal>>> = Arc::default();
    let s2 = sig.clone();
    let l2 = latch.clone();
    let nav = ActionBinding::new(execute_fn(move |_, ctx: ActionContext| {
        *s2.lock().unwrap() = Some(ctx.signal.clone());
        let l = l2.clone();
        async move {
            l.wait().await;
            Ok(json!(null))
        }
    }));
    let h = env.registry.register(widget(&a, "main").action("go", nav).build().unwrap()).unwrap();
    let p = env.start(inv("view:test.widget.go").input(json!({"to": "/devices"})), InvokeOptions::default());
    h.unregister();
    env.settle();
    assert!(!p.done(), "unregistration does not settle an active navigation");
    assert!(!sig.lock().unwrap().as_ref().unwrap().is_aborted(), "nor abort its signal");
    latch.open();
    env.settle();
    assert!(p.result().is_ok(), "{:?}", p.result());
}

// "It settles on handler completion, timeout, or external cancellation." (navigation after unmount)
#[test]
fn an_unmounted_navigation_still_times_out_or_cancels() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let signals = Arc::default();
    let h = env
        .registry
        .register(
            widget(&a, "main")
                .action(
                    "go",
                    hanging(&signals).concurrency(agent_surface_engine::binding::AgentConcurrency::Parallel {
                        max: 2,
                        queue_depth: None,
                    }),
                )
                .build()
                .unwrap(),
        )
        .unwrap();
    let c = AbortController::new();
    let timed = env.start(inv("view:test.widget.go").input(json!({"to": "/a"})), InvokeOptions::default());
    let cancelled = env.start(
        inv("view:test.widget.go").input(json!({"to": "/b"})),
        InvokeOptions { signal: Some(c.signal()), ..Default::default() },
    );
    h.unregister();
    env.settle();
    assert!(!timed.done() && !cancelled.done());
    c.abort(AbortReason::Cancelled);
    env.settle();
    assert_eq!(cancelled.result().code(), Some(ErrorCode::Cancelled));
    env.advance(10_000);
    assert_eq!(timed.result().code(), Some(ErrorCode::Timeout));
}

// "Unmount before dispatch still returns COMPONENT_UNMOUNTED." (navigation queued behind another action)
#[test]
fn a_navigation_unmounted_before_dispatch_is_component_unmounted() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let signals = Arc::default();
    let h = env.registry.register(widget(&a, "main").action("act", hanging(&signals)).build().unwrap()).unwrap();
    let running = env.start(inv("view:test.widget.act"), InvokeOptions::default());
    let nav = env.start(inv("view:test.widget.go").input(json!({"to": "/x"})), InvokeOptions::default());
    h.unregister();
    env.settle();
    assert_eq!(running.result().code(), Some(ErrorCode::ComponentUnmounted));
    assert_eq!(nav.result().code(), Some(ErrorCode::ComponentUnmounted));
}

// "dispose() unregisters everything, settles in-flight invocations as CANCELLED, resolves pending confirmations as expired"; "disposal drains queues as CANCELLED"
#[test]
fn dispose_cancels_in_flight_and_queued_work_and_expires_confirmations() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let signals = Arc::default();
    env.registry
        .register(
            widget(&a, "main").action("act", hanging(&signals)).observation("state", hanging_read()).build().unwrap(),
        )
        .unwrap();
    let running = env.start(inv("view:test.widget.act"), InvokeOptions::default());
    let queued = env.start(inv("view:test.widget.act"), InvokeOptions::default());
    let observing = env.start(inv("view:test.widget.state"), InvokeOptions::default());
    let req = env.call(inv("view:test.widget.confirm"), InvokeOptions::default());
    let cid = confirmation_id(&req);
    let waiting = {
        let c = env.registry.confirmations();
        let out: Arc<Mutex<Option<ConfirmationOutcome>>> = Arc::default();
        let o = out.clone();
        let cid = cid.clone();
        futures::task::LocalSpawnExt::spawn_local(&env.pool.spawner(), async move {
            *o.lock().unwrap() = c.wait_for(&cid, None).await.ok();
        })
        .unwrap();
        out
    };
    env.settle();
    env.take_events();
    env.registry.dispose();
    env.settle();
    assert_eq!(running.result().code(), Some(ErrorCode::Cancelled), "{:?}", running.result());
    assert_eq!(queued.result().code(), Some(ErrorCode::Cancelled), "{:?}", queued.result());
    assert_eq!(observing.result().code(), Some(ErrorCode::Cancelled), "{:?}", observing.result());
    assert_eq!(signals.lock().unwrap()[0].reason(), Some(AbortReason::Disposed));
    assert_eq!(*waiting.lock().unwrap(), Some(ConfirmationOutcome::Expired));
    assert!(env.registry.confirmations().pending().is_empty());
    let st = env.registry.stats();
    assert_eq!((st.running, st.admission_groups, st.observation_slots), (0, 0, 0));
}

// "dispose() … resolves pending confirmations as expired" — the event says so
#[test]
fn dispose_emits_confirmation_resolved_expired() {
    let a = test_authority();
    let mut env = Env::new(&a);
    env.registry.register(widget(&a, "main").build().unwrap()).unwrap();
    let cid = confirmation_id(&env.call(inv("view:test.widget.confirm"), InvokeOptions::default()));
    env.take_events();
    env.registry.dispose();
    let events = env.take_events();
    assert!(
        events.contains(&AgentSurfaceEvent::ConfirmationResolved {
            confirmation_id: cid,
            outcome: ConfirmationOutcome::Expired
        }),
        "{events:?}"
    );
}

// Rust's cancellation is dropping the future: "Cancellation, timeout, and settlement release slots" must hold for it too — the
// invocation settles CANCELLED once, its signal is aborted, its queue slot is freed, and a retry of the id is not a second run
#[test]
fn dropping_the_invoke_future_cancels_once_and_frees_the_queue() {
    use std::future::Future;
    let a = test_authority();
    let mut env = Env::new(&a);
    let signals = Arc::default();
    env.registry.register(widget(&a, "main").action("act", hanging(&signals)).build().unwrap()).unwrap();
    let reg = env.registry.clone();
    let mut fut =
        Box::pin(
            async move { reg.invoke(inv("view:test.widget.act").id("walk-away"), InvokeOptions::default()).await },
        );
    let waker = futures::task::noop_waker();
    assert!(fut.as_mut().poll(&mut std::task::Context::from_waker(&waker)).is_pending());
    assert_eq!((env.registry.stats().running, env.registry.stats().admission_groups), (1, 1));
    env.take_events();
    drop(fut);
    let st = env.registry.stats();
    assert_eq!((st.running, st.admission_groups, st.dedupe_entries), (0, 0, 1), "{st:?}");
    assert_eq!(signals.lock().unwrap()[0].reason(), Some(AbortReason::Cancelled));
    let settled: Vec<_> =
        env.take_events().into_iter().filter(|e| matches!(e, AgentSurfaceEvent::InvocationSettled { .. })).collect();
    assert!(
        matches!(&settled[..], [AgentSurfaceEvent::InvocationSettled { code: Some(c), .. }] if c == "CANCELLED"),
        "{settled:?}"
    );
    // The instance queue is free, and the abandoned id is settled, not re-run.
    let next = env.start(inv("view:test.widget.act"), InvokeOptions::default());
    assert_eq!(signals.lock().unwrap().len(), 2);
    assert_eq!(
        env.call(inv("view:test.widget.act").id("walk-away"), InvokeOptions::default()).code(),
        Some(ErrorCode::Cancelled)
    );
    assert_eq!(signals.lock().unwrap().len(), 2);
    env.advance(10_000);
    assert_eq!(next.result().code(), Some(ErrorCode::Timeout));
}

// The same, for an invocation still waiting in the queue: dropping it frees its place
#[test]
fn dropping_a_queued_invoke_future_frees_its_place() {
    use std::future::Future;
    let a = test_authority();
    let mut env = Env::new(&a);
    let latch = Latch::default();
    let runs = Counter::default();
    env.registry
        .register(widget(&a, "main").action("act", counting(&runs, Some(&latch), Value::Null)).build().unwrap())
        .unwrap();
    let first = env.start(inv("view:test.widget.act"), InvokeOptions::default());
    let waker = futures::task::noop_waker();
    let mut queued: Vec<_> = (0..2)
        .map(|i| {
            let reg = env.registry.clone();
            Box::pin(async move {
                reg.invoke(inv("view:test.widget.act").id(format!("q{i}")), InvokeOptions::default()).await
            })
        })
        .collect();
    for f in queued.iter_mut() {
        assert!(f.as_mut().poll(&mut std::task::Context::from_waker(&waker)).is_pending());
    }
    assert_eq!(env.call(inv("view:test.widget.act"), InvokeOptions::default()).code(), Some(ErrorCode::RateLimited));
    queued.clear();
    let third = env.start(inv("view:test.widget.act"), InvokeOptions::default());
    assert!(!third.done(), "queued, not refused: the dropped ones left the queue");
    latch.open();
    env.settle();
    assert!(first.result().is_ok() && third.result().is_ok());
    assert_eq!(runs.get(), 2);
    assert_eq!(env.registry.stats().admission_groups, 0);
}

/// The `late-settlement` records the registry logged.
fn late_settlements(env: &Env) -> Vec<agent_surface_engine::registry::LogRecord> {
    env.logs
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.kind == Some(agent_surface_engine::registry::LogKind::LateSettlement))
        .cloned()
        .collect()
}

#[track_caller]
fn assert_one_late_settlement(env: &Env, invocation_id: &str) {
    let late = late_settlements(env);
    assert_eq!(late.len(), 1, "{late:?}");
    assert_eq!(late[0].invocation_id.as_deref(), Some(invocation_id));
    assert_eq!(late[0].capability_id.as_deref(), Some("view:test.widget.act"));
    assert_eq!(agent_surface_engine::registry::LogKind::LateSettlement.as_str(), "late-settlement");
}

// "On timeout the registry aborts ctx.signal, settles TIMEOUT, and ignores (but logs) any late handler settlement."
#[test]
fn a_handler_settling_after_its_timeout_is_logged_as_late_settlement() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let latch = Latch::default();
    let runs = Counter::default();
    env.registry
        .register(
            widget(&a, "main").action("act", counting(&runs, Some(&latch), json!({"late": true}))).build().unwrap(),
        )
        .unwrap();
    let p = env.start(inv("view:test.widget.act").id("t-late"), InvokeOptions::default());
    env.advance(10_000);
    assert_eq!(p.result().code(), Some(ErrorCode::Timeout));
    assert!(late_settlements(&env).is_empty(), "nothing late yet");
    latch.open();
    env.settle();
    assert_one_late_settlement(&env, "t-late");
    assert_eq!(p.result().code(), Some(ErrorCode::Timeout), "the late result is ignored");
    assert_eq!(p.settlements(), 1);
}

// "External cancellation: InvokeOptions.signal aborted → settle CANCELLED (same late-settlement rule)."
#[test]
fn a_handler_settling_after_cancellation_is_logged_as_late_settlement() {
    let a = test_authority();
    let mut env = Env::new(&a);
    env.registry.register(widget(&a, "main").action("act", until_aborted()).build().unwrap()).unwrap();
    let c = AbortController::new();
    let p = env.start(
        inv("view:test.widget.act").id("c-late"),
        InvokeOptions { signal: Some(c.signal()), ..Default::default() },
    );
    c.abort(AbortReason::Cancelled);
    env.settle();
    assert_eq!(p.result().code(), Some(ErrorCode::Cancelled));
    assert_one_late_settlement(&env, "c-late");
}

// "The invocation settles COMPONENT_UNMOUNTED unless the handler settled first; the later settlement is logged as late-settlement."
#[test]
fn a_handler_settling_after_the_unmount_is_logged_as_late_settlement() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let (latch, runs) = (Latch::default(), Counter::default());
    let h = env
        .registry
        .register(widget(&a, "main").action("act", counting(&runs, Some(&latch), Value::Null)).build().unwrap())
        .unwrap();
    let p = env.start(inv("view:test.widget.act").id("u-late"), InvokeOptions::default());
    h.unregister();
    env.settle();
    assert_eq!(p.result().code(), Some(ErrorCode::ComponentUnmounted));
    assert!(late_settlements(&env).is_empty());
    latch.open();
    env.settle();
    assert_one_late_settlement(&env, "u-late");
}

#[test]
fn a_handler_that_settles_in_time_logs_no_late_settlement() {
    let a = test_authority();
    let mut env = Env::new(&a);
    env.registry.register(widget(&a, "main").build().unwrap()).unwrap();
    assert!(env.call(inv("view:test.widget.act").id("on-time"), InvokeOptions::default()).is_ok());
    env.advance(100_000);
    assert!(late_settlements(&env).is_empty());
}
