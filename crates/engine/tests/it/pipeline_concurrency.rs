//! Spec core-api §Concurrency: the per-instance FIFO action queue, the four AgentConcurrency
//! modes with groups dropped when idle, observation admission, procedure groups.
//! Deterministic: a single-threaded pool and latches decide every interleaving.

use crate::common::*;
use agent_surface_engine::binding::{
    execute_fn, read_fn, ActionBinding, AgentConcurrency, BindingError, ObservationBinding,
};
use agent_surface_engine::invoke::{AgentInvocationResult, InvokeOptions};
use agent_surface_engine::signal::AbortController;
use agent_surface_model::errors::{ErrorCode, Retry};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// An action that logs `name` when it starts and waits for `latch`.
fn logging(log: &Arc<Mutex<Vec<String>>>, name: &str, latch: &Latch) -> ActionBinding {
    let log = log.clone();
    let name = name.to_string();
    let latch = latch.clone();
    ActionBinding::new(execute_fn(move |input: Value, _| {
        log.lock().unwrap().push(format!("{name}:{}", input["tag"].as_str().unwrap_or("")));
        let latch = latch.clone();
        async move {
            latch.wait().await;
            Ok(Value::Null)
        }
    }))
}

fn tagged(cap: &str, tag: &str) -> agent_surface_engine::invoke::AgentInvocation {
    inv(cap).input(json!({"tag": tag}))
}

fn started(log: &Arc<Mutex<Vec<String>>>) -> Vec<String> {
    log.lock().unwrap().clone()
}

// "Actions: serialized per component instance (FIFO). One in-flight + a wait queue of limits.actionQueueDepth (default 2). Overflow → RATE_LIMITED with details.reason: "queue-full", retry: "after-delay"."
#[test]
fn the_action_queue_is_fifo_with_one_in_flight_and_depth_two() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let log = Arc::default();
    let latch = Latch::default();
    env.registry
        .register(
            widget(&a, "main")
                .action("act", logging(&log, "act", &latch))
                .action("other", logging(&log, "other", &latch))
                .build()
                .unwrap(),
        )
        .unwrap();
    let p1 = env.start(tagged("view:test.widget.act", "1"), InvokeOptions::default());
    let p2 = env.start(tagged("view:test.widget.other", "2"), InvokeOptions::default());
    let p3 = env.start(tagged("view:test.widget.act", "3"), InvokeOptions::default());
    assert_eq!(started(&log), vec!["act:1"], "one in flight");
    let r = env.call(tagged("view:test.widget.act", "4"), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::RateLimited));
    assert_eq!(r.error.as_ref().unwrap().retry, Retry::AfterDelay);
    assert_eq!(detail(&r, "reason"), json!("queue-full"));
    latch.open();
    env.settle();
    assert_eq!(started(&log), vec!["act:1", "other:2", "act:3"], "FIFO across the instance's actions");
    assert!(p1.result().is_ok() && p2.result().is_ok() && p3.result().is_ok());
}

// "The default remains {mode:"instance"} — the safe one: two actions on the same component never interleave." (and other instances are other queues)
#[test]
fn instance_mode_serializes_per_instance_only() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let log = Arc::default();
    let latch = Latch::default();
    env.registry.register(widget(&a, "a").action("act", logging(&log, "a", &latch)).build().unwrap()).unwrap();
    env.registry.register(widget(&a, "b").action("act", logging(&log, "b", &latch)).build().unwrap()).unwrap();
    let _pa = env.start(tagged("view:test.widget.act", "1").instance("a"), InvokeOptions::default());
    let _pa2 = env.start(tagged("view:test.widget.act", "2").instance("a"), InvokeOptions::default());
    let _pb = env.start(tagged("view:test.widget.act", "1").instance("b"), InvokeOptions::default());
    assert_eq!(started(&log), vec!["a:1", "b:1"]);
    assert_eq!(env.registry.stats().admission_groups, 2);
    latch.open();
    env.settle();
    assert_eq!(env.registry.stats().admission_groups, 0);
}

// "{ mode: "capability"; queueDepth?: number } // one queue per capability"
#[test]
fn capability_mode_queues_per_capability() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let log = Arc::default();
    let latch = Latch::default();
    let cap = AgentConcurrency::Capability { queue_depth: None };
    env.registry
        .register(
            widget(&a, "main")
                .action("act", logging(&log, "act", &latch).concurrency(cap.clone()))
                .action("other", logging(&log, "other", &latch).concurrency(cap))
                .build()
                .unwrap(),
        )
        .unwrap();
    let _p = [
        env.start(tagged("view:test.widget.act", "1"), InvokeOptions::default()),
        env.start(tagged("view:test.widget.act", "2"), InvokeOptions::default()),
        env.start(tagged("view:test.widget.other", "1"), InvokeOptions::default()),
    ];
    assert_eq!(started(&log), vec!["act:1", "other:1"], "different capabilities run side by side; the same one queues");
    latch.open();
    env.settle();
    assert_eq!(started(&log), vec!["act:1", "other:1", "act:2"]);
}

// "{ mode: "key"; key: string; queueDepth?: number }" — one group shared by every capability naming the key
#[test]
fn key_mode_shares_one_queue_across_capabilities_and_instances() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let log = Arc::default();
    let latch = Latch::default();
    let key = AgentConcurrency::Key { key: "printer".into(), queue_depth: Some(1) };
    env.registry
        .register(
            widget(&a, "a").action("act", logging(&log, "a.act", &latch).concurrency(key.clone())).build().unwrap(),
        )
        .unwrap();
    env.registry
        .register(widget(&a, "b").action("other", logging(&log, "b.other", &latch).concurrency(key)).build().unwrap())
        .unwrap();
    let p1 = env.start(tagged("view:test.widget.act", "1").instance("a"), InvokeOptions::default());
    let p2 = env.start(tagged("view:test.widget.other", "2").instance("b"), InvokeOptions::default());
    assert_eq!(started(&log), vec!["a.act:1"]);
    // queueDepth overrides limits.actionQueueDepth for that group only.
    let r = env.call(tagged("view:test.widget.act", "3").instance("a"), InvokeOptions::default());
    assert_eq!((r.code(), detail(&r, "reason")), (Some(ErrorCode::RateLimited), json!("queue-full")));
    // An action outside the key (instance mode on b) is not held up.
    let p4 = env.start(tagged("view:test.widget.act", "4").instance("b"), InvokeOptions::default());
    assert!(p4.done() && p4.result().is_ok());
    assert_eq!(env.registry.stats().admission_groups, 1);
    latch.open();
    env.settle();
    assert_eq!(started(&log), vec!["a.act:1", "b.other:2"]);
    assert!(p1.result().is_ok() && p2.result().is_ok());
    assert_eq!(env.registry.stats().admission_groups, 0);
}

// "{ mode: "parallel"; max: number; queueDepth?: number }" — at most max at once, then the queue
#[test]
fn parallel_mode_runs_up_to_max_at_once() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let log = Arc::default();
    let latch = Latch::default();
    env.registry
        .register(
            widget(&a, "main")
                .action(
                    "act",
                    logging(&log, "act", &latch)
                        .concurrency(AgentConcurrency::Parallel { max: 3, queue_depth: Some(1) }),
                )
                .build()
                .unwrap(),
        )
        .unwrap();
    let ps: Vec<Pending> =
        (0..4).map(|i| env.start(tagged("view:test.widget.act", &i.to_string()), InvokeOptions::default())).collect();
    assert_eq!(started(&log), vec!["act:0", "act:1", "act:2"]);
    let r = env.call(tagged("view:test.widget.act", "5"), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::RateLimited));
    latch.open();
    env.settle();
    assert_eq!(started(&log).len(), 4);
    assert!(ps.iter().all(|p| p.result().is_ok()));
}

// "parallel requires an integer max ≥ 1; unbounded parallelism is not offered, and an invalid group throws AgentSurfaceDefinitionError at registration."
#[test]
fn parallel_with_max_zero_is_refused_when_binding() {
    let a = test_authority();
    let bad = ok_action().concurrency(AgentConcurrency::Parallel { max: 0, queue_depth: None });
    let err = widget(&a, "main").action("act", bad.clone()).build().err().expect("refused");
    assert!(matches!(err, BindingError::InvalidConcurrency { .. }), "{err:?}");
    let err = a.procedure("domain:test.touch").unwrap().bind(bad).err().expect("refused");
    assert!(matches!(err, BindingError::InvalidConcurrency { .. }));
}

// "queueDepth overrides limits.actionQueueDepth for that group only; overflow is RATE_LIMITED {reason:"queue-full"} as everywhere else."
#[test]
fn queue_depth_zero_admits_only_the_running_one() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let latch = Latch::default();
    env.registry
        .register(
            widget(&a, "main")
                .action(
                    "act",
                    counting(&Counter::default(), Some(&latch), Value::Null)
                        .concurrency(AgentConcurrency::Instance { queue_depth: Some(0) }),
                )
                .build()
                .unwrap(),
        )
        .unwrap();
    let p = env.start(inv("view:test.widget.act"), InvokeOptions::default());
    let r = env.call(inv("view:test.widget.act"), InvokeOptions::default());
    assert_eq!((r.code(), detail(&r, "reason")), (Some(ErrorCode::RateLimited), json!("queue-full")));
    latch.open();
    env.settle();
    assert!(p.result().is_ok());
}

// "Groups are created on demand and dropped when idle, so the runtime holds one entry per currently contended group, not per capability ever invoked."
#[test]
fn groups_are_dropped_when_idle() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let latch = Latch::default();
    let key = |k: &str| AgentConcurrency::Key { key: k.into(), queue_depth: None };
    env.registry
        .register(
            widget(&a, "main")
                .action("act", counting(&Counter::default(), Some(&latch), Value::Null).concurrency(key("k1")))
                .action(
                    "other",
                    counting(&Counter::default(), Some(&latch), Value::Null)
                        .concurrency(AgentConcurrency::Capability { queue_depth: None }),
                )
                .action(
                    "full",
                    counting(&Counter::default(), Some(&latch), Value::Null)
                        .concurrency(AgentConcurrency::Parallel { max: 2, queue_depth: None }),
                )
                .action("silent", counting(&Counter::default(), Some(&latch), Value::Null))
                .build()
                .unwrap(),
        )
        .unwrap();
    assert_eq!(env.registry.stats().admission_groups, 0);
    let ps: Vec<Pending> = ["act", "other", "full", "silent"]
        .iter()
        .map(|n| env.start(inv(&format!("view:test.widget.{n}")), InvokeOptions::default()))
        .collect();
    assert_eq!(env.registry.stats().admission_groups, 4);
    latch.open();
    env.settle();
    assert!(ps.iter().all(|p| p.result().is_ok()));
    assert_eq!(env.registry.stats().admission_groups, 0);
    // Many capabilities invoked one at a time never accumulate groups.
    for n in ["act", "other", "full", "silent", "typed", "go"] {
        let _ = env.call(inv(&format!("view:test.widget.{n}")).input(json!({})), InvokeOptions::default());
    }
    assert_eq!(env.registry.stats().admission_groups, 0);
}

/// An observation that waits for `latch` and counts its reads.
fn slow_read(latch: &Latch, reads: &Counter) -> ObservationBinding {
    let latch = latch.clone();
    let reads = reads.clone();
    ObservationBinding::new(read_fn(move |_| {
        reads.hit();
        let latch = latch.clone();
        async move {
            latch.wait().await;
            Ok(json!({"n": 1}))
        }
    }))
}

// "admission gates maxConcurrentObservationsPerConsumer (8) … A saturated consumer queues FIFO up to maxQueuedObservationsPerConsumer (8). Overflow returns RATE_LIMITED {reason: "queue-full", retryAfterMs}."
#[test]
fn observations_admit_8_per_consumer_and_queue_8_more() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let latch = Latch::default();
    let reads = Counter::default();
    env.registry.register(widget(&a, "main").observation("state", slow_read(&latch, &reads)).build().unwrap()).unwrap();
    let ps: Vec<Pending> = (0..16).map(|_| env.start(inv("view:test.widget.state"), as_consumer("alice"))).collect();
    assert_eq!(reads.get(), 8, "8 run, 8 wait");
    assert_eq!(env.registry.stats().observation_slots, 16);
    let r = env.call(inv("view:test.widget.state"), as_consumer("alice"));
    assert_eq!(r.code(), Some(ErrorCode::RateLimited));
    assert_eq!(r.error.as_ref().unwrap().retry, Retry::AfterDelay);
    assert_eq!(detail(&r, "reason"), json!("queue-full"));
    assert!(detail(&r, "retryAfterMs").as_u64().is_some_and(|ms| ms > 0));
    // Another consumer has its own per-consumer gate.
    let bob = env.start(inv("view:test.widget.state"), as_consumer("bob"));
    assert_eq!(reads.get(), 9);
    latch.open();
    env.settle();
    assert!(ps.iter().all(|p| p.result().is_ok()) && bob.result().is_ok());
    assert_eq!(reads.get(), 17);
    assert_eq!(env.registry.stats().observation_slots, 0);
}

// "admission gates maxConcurrentObservationsPerConsumer (8) and maxConcurrentObservationsTotal (32) are independent."
#[test]
fn observations_admit_32_in_total() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let latch = Latch::default();
    let reads = Counter::default();
    env.registry.register(widget(&a, "main").observation("state", slow_read(&latch, &reads)).build().unwrap()).unwrap();
    let mut ps = Vec::new();
    for c in 0..4 {
        for _ in 0..8 {
            ps.push(env.start(inv("view:test.widget.state"), as_consumer(&format!("c{c}"))));
        }
    }
    assert_eq!(reads.get(), 32);
    // A fifth consumer is under its own limit but the total is saturated: it queues.
    let queued = env.start(inv("view:test.widget.state"), as_consumer("c4"));
    assert_eq!(reads.get(), 32);
    assert!(!queued.done());
    latch.open();
    env.settle();
    assert!(queued.result().is_ok());
    assert!(ps.iter().all(|p| p.result().is_ok()));
}

// "Observations never consume the action queue."
#[test]
fn observations_never_use_the_action_queue() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let latch = Latch::default();
    env.registry
        .register(
            widget(&a, "main").action("act", counting(&Counter::default(), Some(&latch), Value::Null)).build().unwrap(),
        )
        .unwrap();
    let _busy: Vec<Pending> =
        (0..3).map(|_| env.start(inv("view:test.widget.act"), InvokeOptions::default())).collect();
    assert_eq!(env.call(inv("view:test.widget.act"), InvokeOptions::default()).code(), Some(ErrorCode::RateLimited));
    let r = env.call(inv("view:test.widget.state"), InvokeOptions::default());
    assert!(r.is_ok(), "an observation runs while the action queue is full: {r:?}");
    latch.open();
    env.settle();
}

// "Cancellation, timeout, and settlement release slots"
#[test]
fn cancellation_timeout_and_settlement_release_observation_slots() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let latch = Latch::default();
    let reads = Counter::default();
    env.registry.register(widget(&a, "main").observation("state", slow_read(&latch, &reads)).build().unwrap()).unwrap();
    let cancel = AbortController::new();
    let with_signal =
        InvokeOptions { consumer: Some(consumer("alice")), signal: Some(cancel.signal()), ..Default::default() };
    let running: Vec<Pending> =
        (0..7).map(|_| env.start(inv("view:test.widget.state"), as_consumer("alice"))).collect();
    let cancelled = env.start(inv("view:test.widget.state"), with_signal.clone());
    let queued_cancelled = env.start(inv("view:test.widget.state"), with_signal);
    let queued = env.start(inv("view:test.widget.state"), as_consumer("alice"));
    assert_eq!(env.registry.stats().observation_slots, 10);
    assert_eq!(reads.get(), 8);
    cancel.abort(agent_surface_engine::signal::AbortReason::Cancelled);
    env.settle();
    assert_eq!(cancelled.result().code(), Some(ErrorCode::Cancelled));
    assert_eq!(queued_cancelled.result().code(), Some(ErrorCode::Cancelled));
    assert_eq!(reads.get(), 9, "the freed slot went to the next queued observation");
    env.advance(5_000);
    let results: Vec<AgentInvocationResult> = running.iter().chain([&queued]).map(|p| p.result()).collect();
    assert!(results.iter().all(|r| r.code() == Some(ErrorCode::Timeout)));
    assert_eq!(env.registry.stats().observation_slots, 0);
}

fn procedures_on(
    a: &agent_surface_engine::authority::CapabilityAuthority,
    instance: &str,
    log: &Arc<Mutex<Vec<String>>>,
    latch: &Latch,
) -> agent_surface_engine::binding::BoundComponent {
    widget(a, instance)
        .action("act", logging(log, &format!("{instance}.act"), latch))
        .procedure(
            a.procedure("domain:test.touch").unwrap().bind(logging(log, &format!("{instance}.touch"), latch)).unwrap(),
        )
        .procedure(
            a.procedure("domain:test.send").unwrap().bind(logging(log, &format!("{instance}.send"), latch)).unwrap(),
        )
        .build()
        .unwrap()
}

// "Procedures: … admitted through one group per procedure identity per referencing registration — repeat calls of the same domain operation serialize client-side, while a view action on the same component is never blocked by an in-flight domain call."
#[test]
fn procedures_queue_per_identity_per_registration_and_never_block_view_actions() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let log = Arc::default();
    let latch = Latch::default();
    env.registry.register(procedures_on(&a, "a", &log, &latch)).unwrap();
    env.registry.register(procedures_on(&a, "b", &log, &latch)).unwrap();
    let _p = [
        env.start(inv("domain:test.touch").instance("a"), InvokeOptions::default()),
        env.start(inv("domain:test.touch").instance("a"), InvokeOptions::default()),
        env.start(inv("domain:test.send").instance("a"), InvokeOptions::default()),
        env.start(inv("domain:test.touch").instance("b"), InvokeOptions::default()),
        env.start(tagged("view:test.widget.act", "v").instance("a"), InvokeOptions::default()),
    ];
    assert_eq!(started(&log), vec!["a.touch:", "a.send:", "b.touch:", "a.act:v"]);
    latch.open();
    env.settle();
    assert_eq!(started(&log), vec!["a.touch:", "a.send:", "b.touch:", "a.act:v", "a.touch:"]);
    assert_eq!(env.registry.stats().admission_groups, 0);
}

// "External cancellation: InvokeOptions.signal aborted → settle CANCELLED" — also while waiting in the queue, which frees its place and never runs the handler
#[test]
fn cancelling_a_queued_action_frees_its_place() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let log = Arc::default();
    let latch = Latch::default();
    env.registry.register(widget(&a, "main").action("act", logging(&log, "act", &latch)).build().unwrap()).unwrap();
    let cancel = AbortController::new();
    let p1 = env.start(tagged("view:test.widget.act", "1"), InvokeOptions::default());
    let p2 = env.start(
        tagged("view:test.widget.act", "2"),
        InvokeOptions { signal: Some(cancel.signal()), ..Default::default() },
    );
    let p3 = env.start(tagged("view:test.widget.act", "3"), InvokeOptions::default());
    cancel.abort(agent_surface_engine::signal::AbortReason::Cancelled);
    env.settle();
    assert_eq!(p2.result().code(), Some(ErrorCode::Cancelled));
    assert_eq!(p2.result().error.unwrap().retry, Retry::Never);
    let p4 = env.start(tagged("view:test.widget.act", "4"), InvokeOptions::default());
    assert!(!p4.done(), "the cancelled one's place was freed");
    latch.open();
    env.settle();
    assert_eq!(started(&log), vec!["act:1", "act:3", "act:4"]);
    assert!(p1.result().is_ok() && p3.result().is_ok() && p4.result().is_ok());
}

// "Declared per action (action({concurrency})) or per procedure reference (binding config)": a procedure reference in key mode shares the key's queue
#[test]
fn a_procedure_reference_in_key_mode_shares_the_keys_queue() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let log = Arc::default();
    let latch = Latch::default();
    let key = AgentConcurrency::Key { key: "ledger".into(), queue_depth: None };
    env.registry
        .register(
            widget(&a, "main")
                .action("act", logging(&log, "act", &latch).concurrency(key.clone()))
                .procedure(
                    a.procedure("domain:test.touch")
                        .unwrap()
                        .bind(logging(&log, "touch", &latch).concurrency(key))
                        .unwrap(),
                )
                .build()
                .unwrap(),
        )
        .unwrap();
    let p1 = env.start(tagged("view:test.widget.act", "1"), InvokeOptions::default());
    let p2 = env.start(inv("domain:test.touch"), InvokeOptions::default());
    assert_eq!(started(&log), vec!["act:1"], "the procedure waits in the key's queue");
    latch.open();
    env.settle();
    assert_eq!(started(&log), vec!["act:1", "touch:"]);
    assert!(p1.result().is_ok() && p2.result().is_ok());
}
