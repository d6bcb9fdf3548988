//! Spec core-api §Invocation identity, idempotency, and conflict safety: consumer-scoped dedupe
//! keys, join in-flight, cached terminal results, conflicts, the bounded window. Deterministic
//! (ManualClock, single-threaded pool).

use crate::common::*;
use agent_surface_engine::events::AgentSurfaceEvent;
use agent_surface_engine::invoke::{fingerprint, fnv1a64, AgentInvocation, InvokeOptions};
use agent_surface_engine::snapshot::{AgentConsumer, ConsumerKind};
use agent_surface_model::errors::{ErrorCode, Retry};
use serde_json::{json, Value};

fn env_with_counter(
    a: &agent_surface_engine::authority::CapabilityAuthority,
    runs: &Counter,
    latch: Option<&Latch>,
) -> Env {
    let env = Env::new(a);
    env.registry
        .register(widget(a, "main").action("act", counting(runs, latch, json!(null))).build().unwrap())
        .unwrap();
    env
}

// "fingerprint = fnv1a64(canonicalJson({ capabilityId, registrationId, instanceId, surfaceVersion, input, confirmationId })) // as issued"
#[test]
fn the_fingerprint_is_fnv1a64_of_the_canonical_request_as_issued() {
    assert_eq!(fnv1a64(b""), "cbf29ce484222325");
    assert_eq!(fnv1a64(b"a"), "af63dc4c8601ec8c");
    let req = AgentInvocation::new("view:t.c.a").id("x").input(json!({"b": 1, "a": [true]})).registration("reg_1_a");
    let expected = fnv1a64(br#"{"capabilityId":"view:t.c.a","input":{"a":[true],"b":1},"registrationId":"reg_1_a"}"#);
    assert_eq!(fingerprint(&req), expected);
    assert_eq!(
        fingerprint(&req.clone().id("other")),
        expected,
        "the invocation id is the key, not part of the fingerprint"
    );
}

// "Re-invoke with a known in-flight key and matching fingerprint returns the same pending promise (join, not re-execute)"
#[test]
fn a_duplicate_in_flight_invocation_joins_and_runs_once() {
    let a = test_authority();
    let runs = Counter::default();
    let latch = Latch::default();
    let mut env = env_with_counter(&a, &runs, Some(&latch));
    let first = env.start(inv("view:test.widget.act").id("dup").input(json!({"n": 2})), InvokeOptions::default());
    let second = env.start(inv("view:test.widget.act").id("dup").input(json!({"n": 2})), InvokeOptions::default());
    assert!(!first.done() && !second.done());
    latch.open();
    env.settle();
    assert_eq!(runs.get(), 1);
    assert_eq!(first.result(), second.result());
    let started = env.take_events().iter().filter(|e| matches!(e, AgentSurfaceEvent::InvocationStarted { .. })).count();
    assert_eq!(started, 1, "a join is not a second invocation");
}

// "Exactly-once: N concurrent identical invocations run the handler once (test with hundreds)" (issue 5)
#[test]
fn five_hundred_concurrent_identical_invocations_run_the_handler_once() {
    let a = test_authority();
    let runs = Counter::default();
    let latch = Latch::default();
    let mut env = env_with_counter(&a, &runs, Some(&latch));
    let all: Vec<Pending> = (0..500)
        .map(|_| env.spawn(inv("view:test.widget.act").id("same").input(json!({"n": 3})), InvokeOptions::default()))
        .collect();
    env.settle();
    assert_eq!(runs.get(), 1);
    latch.open();
    env.settle();
    let first = all[0].result();
    assert!(first.is_ok());
    for p in &all {
        assert_eq!(p.settlements(), 1);
        assert_eq!(p.result(), first);
    }
    assert_eq!(runs.get(), 1);
}

// "with a cached terminal key + matching fingerprint, the cached result verbatim"
#[test]
fn a_cached_terminal_result_is_returned_verbatim() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with_counter(&a, &runs, None);
    let h2 = env.registry.register(widget(&a, "spare").build().unwrap()).unwrap();
    let first = env.call(inv("view:test.widget.act").instance("main").id("v"), InvokeOptions::default());
    h2.invalidate(); // the surface version moves on
    env.advance(5_000);
    let again = env.call(inv("view:test.widget.act").instance("main").id("v"), InvokeOptions::default());
    assert_eq!(again, first, "verbatim, including the surfaceVersion it settled with");
    assert_ne!(again.surface_version, env.registry.version());
    assert_eq!(runs.get(), 1);
    // Error results are terminal too.
    let e1 = env.call(
        inv("view:test.widget.act").instance("main").id("bad").input(json!({"n": "x"})),
        InvokeOptions::default(),
    );
    assert_eq!(e1.code(), Some(ErrorCode::InvalidInput));
    assert_eq!(
        env.call(
            inv("view:test.widget.act").instance("main").id("bad").input(json!({"n": "x"})),
            InvokeOptions::default()
        ),
        e1
    );
}

// "Re-invoke with a known key and a different fingerprint fails closed: INVOCATION_CONFLICT (retry: "with-changes" …). The stored record is untouched."
#[test]
fn a_different_request_under_a_known_key_is_a_conflict_and_the_record_is_untouched() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with_counter(&a, &runs, None);
    let first = env.call(inv("view:test.widget.act").id("k").input(json!({"n": 1})), InvokeOptions::default());
    let c = env.call(inv("view:test.widget.act").id("k").input(json!({"n": 2})), InvokeOptions::default());
    assert_eq!(c.code(), Some(ErrorCode::InvocationConflict));
    assert_eq!(c.error.as_ref().unwrap().retry, Retry::WithChanges);
    // INVOCATION_CONFLICT is never cached: the same conflicting request conflicts again, and the
    // original request still gets its cached result.
    assert_eq!(
        env.call(inv("view:test.widget.act").id("k").input(json!({"n": 2})), InvokeOptions::default()).code(),
        Some(ErrorCode::InvocationConflict)
    );
    assert_eq!(env.call(inv("view:test.widget.act").id("k").input(json!({"n": 1})), InvokeOptions::default()), first);
    assert_eq!(runs.get(), 1);
}

// "Re-invoke with a known key and a different fingerprint fails closed" — also while in flight, and the in-flight record is untouched
#[test]
fn a_conflict_against_an_in_flight_invocation_leaves_it_running() {
    let a = test_authority();
    let runs = Counter::default();
    let latch = Latch::default();
    let mut env = env_with_counter(&a, &runs, Some(&latch));
    let first = env.start(inv("view:test.widget.act").id("k").input(json!({"n": 1})), InvokeOptions::default());
    let c = env.call(inv("view:test.widget.act").id("k").input(json!({"n": 9})), InvokeOptions::default());
    assert_eq!(c.code(), Some(ErrorCode::InvocationConflict));
    let join = env.start(inv("view:test.widget.act").id("k").input(json!({"n": 1})), InvokeOptions::default());
    latch.open();
    env.settle();
    assert!(first.result().is_ok());
    assert_eq!(join.result(), first.result());
    assert_eq!(runs.get(), 1);
}

// fingerprint covers "capabilityId, registrationId, instanceId, surfaceVersion, input, confirmationId": a change to any one conflicts
#[test]
fn every_fingerprinted_field_makes_a_conflict() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with_counter(&a, &runs, None);
    let rid = env.registry.registrations()[0].0.clone();
    let v = env.registry.version();
    let base = inv("view:test.widget.act")
        .id("f")
        .input(json!({"n": 1}))
        .instance("main")
        .registration(&rid)
        .surface_version(&v);
    assert!(env.call(base.clone(), InvokeOptions::default()).is_ok());
    let mut variants = vec![
        {
            let mut x = base.clone();
            x.capability_id = "view:test.widget.other".into();
            x
        },
        {
            let mut x = base.clone();
            x.registration_id = None;
            x
        },
        {
            let mut x = base.clone();
            x.instance_id = None;
            x
        },
        {
            let mut x = base.clone();
            x.surface_version = Some("999".into());
            x
        },
        base.clone().input(json!({"n": 2})),
        base.clone().confirmation("cnf_x"),
    ];
    for x in variants.drain(..) {
        assert_eq!(env.call(x.clone(), InvokeOptions::default()).code(), Some(ErrorCode::InvocationConflict), "{x:?}");
    }
    assert_eq!(runs.get(), 1);
}

// "Terminal = ok and every error except CONFIRMATION_REQUIRED and RATE_LIMITED (expected-retry outcomes; caching them would break the retry)" — CONFIRMATION_REQUIRED
#[test]
fn confirmation_required_is_not_cached() {
    let a = test_authority();
    let mut env = Env::new(&a);
    env.registry.register(widget(&a, "main").build().unwrap()).unwrap();
    let r1 = env.call(inv("view:test.widget.confirm").id("c"), InvokeOptions::default());
    assert_eq!(r1.code(), Some(ErrorCode::ConfirmationRequired));
    let r2 = env.call(inv("view:test.widget.confirm").id("c"), InvokeOptions::default());
    assert_eq!(r2.code(), Some(ErrorCode::ConfirmationRequired));
    assert_ne!(confirmation_id(&r1), confirmation_id(&r2), "the retry ran the pipeline again");
}

// "… except CONFIRMATION_REQUIRED and RATE_LIMITED" — RATE_LIMITED
#[test]
fn rate_limited_is_not_cached() {
    let a = test_authority();
    let runs = Counter::default();
    let latch = Latch::default();
    let mut env = env_with_counter(&a, &runs, Some(&latch));
    let busy: Vec<Pending> =
        (0..3).map(|i| env.start(inv("view:test.widget.act").id(format!("b{i}")), InvokeOptions::default())).collect();
    let r = env.call(inv("view:test.widget.act").id("late"), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::RateLimited));
    latch.open();
    env.settle();
    assert!(busy.iter().all(|p| p.result().is_ok()));
    let retry = env.call(inv("view:test.widget.act").id("late"), InvokeOptions::default());
    assert!(retry.is_ok(), "the retry executes: {retry:?}");
    assert_eq!(runs.get(), 4);
}

// "Results of terminal outcomes are cached per key (default 200 entries / 10 min)" — 200 entries
#[test]
fn the_dedupe_cache_keeps_200_entries() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with_counter(&a, &runs, None);
    for i in 0..201 {
        assert!(env.call(inv("view:test.widget.act").id(format!("i{i}")), InvokeOptions::default()).is_ok());
    }
    assert_eq!(env.registry.stats().dedupe_entries, 200);
    assert_eq!(runs.get(), 201);
    // i1 is still cached; i0 was evicted: "An expired key is a new attempt."
    assert!(env.call(inv("view:test.widget.act").id("i1"), InvokeOptions::default()).is_ok());
    assert_eq!(runs.get(), 201);
    assert!(env.call(inv("view:test.widget.act").id("i0"), InvokeOptions::default()).is_ok());
    assert_eq!(runs.get(), 202);
    assert_eq!(env.registry.stats().dedupe_entries, 200);
}

// "Results of terminal outcomes are cached per key (default 200 entries / 10 min)" — 10 minutes
#[test]
fn the_dedupe_window_is_ten_minutes() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with_counter(&a, &runs, None);
    assert!(env.call(inv("view:test.widget.act").id("early"), InvokeOptions::default()).is_ok());
    env.advance(600_000);
    assert!(env.call(inv("view:test.widget.act").id("early"), InvokeOptions::default()).is_ok());
    assert_eq!(runs.get(), 1, "cached for the full 600 000 ms");
    env.advance(1);
    assert!(env.call(inv("view:test.widget.act").id("early"), InvokeOptions::default()).is_ok());
    assert_eq!(runs.get(), 2, "an expired key is a new attempt");
    env.advance(600_001);
    let _ = env.call(inv("view:test.widget.act").id("other"), InvokeOptions::default());
    assert_eq!(env.registry.stats().dedupe_entries, 1, "expired entries are dropped, not kept");
}

// "Different consumers may reuse the same provider tool-call id safely (distinct keys)"; dedupeKey = consumerKey + " " + invocationId
#[test]
fn different_consumers_may_reuse_an_invocation_id() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with_counter(&a, &runs, None);
    let alice = env.call(inv("view:test.widget.act").id("call_1").input(json!({"n": 1})), as_consumer("alice"));
    let bob = env.call(inv("view:test.widget.act").id("call_1").input(json!({"n": 2})), as_consumer("bob"));
    assert!(alice.is_ok() && bob.is_ok(), "no conflict across consumers");
    assert_eq!(runs.get(), 2);
    // consumerKey = kind + ":" + id: the same id under another kind is another consumer.
    let other_kind =
        InvokeOptions { consumer: Some(AgentConsumer::new(ConsumerKind::Webmcp, "alice")), ..Default::default() };
    assert!(env.call(inv("view:test.widget.act").id("call_1").input(json!({"n": 3})), other_kind).is_ok());
    assert_eq!(runs.get(), 3);
    // And the same consumer is deduplicated.
    assert_eq!(env.call(inv("view:test.widget.act").id("call_1").input(json!({"n": 1})), as_consumer("alice")), alice);
    assert_eq!(runs.get(), 3);
}

// "Anonymous invocations normalize to embedded:anonymous"
#[test]
fn anonymous_invocations_normalize_to_embedded_anonymous() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with_counter(&a, &runs, None);
    let anon = env.call(inv("view:test.widget.act").id("z"), InvokeOptions::default());
    let explicit =
        InvokeOptions { consumer: Some(AgentConsumer::new(ConsumerKind::Embedded, "anonymous")), ..Default::default() };
    assert_eq!(env.call(inv("view:test.widget.act").id("z"), explicit), anon);
    assert_eq!(runs.get(), 1);
    let consumers: Vec<String> = env
        .take_events()
        .into_iter()
        .filter_map(|e| match e {
            AgentSurfaceEvent::InvocationStarted { consumer_id, .. } => Some(consumer_id),
            _ => None,
        })
        .collect();
    assert_eq!(consumers, vec!["embedded:anonymous".to_string()]);
}

// "Confirmation retry: reuses the same invocationId + confirmationId; since CONFIRMATION_REQUIRED was not cached as terminal, the retry executes (once)."
#[test]
fn a_confirmation_retry_with_the_same_invocation_id_executes_once() {
    let a = test_authority();
    let runs = Counter::default();
    let latch = Latch::default();
    let mut env = Env::new(&a);
    env.registry
        .register(widget(&a, "main").action("confirm", counting(&runs, Some(&latch), Value::Null)).build().unwrap())
        .unwrap();
    let req = inv("view:test.widget.confirm").id("tc1").input(json!({"n": 4}));
    let first = env.call(req.clone(), InvokeOptions::default());
    let cid = confirmation_id(&first);
    env.registry.confirmations().resolve(&cid, true).unwrap();
    let retries: Vec<Pending> =
        (0..3).map(|_| env.spawn(req.clone().confirmation(&cid), InvokeOptions::default())).collect();
    env.settle();
    latch.open();
    env.settle();
    assert_eq!(runs.get(), 1);
    for p in &retries {
        assert!(p.result().is_ok(), "{:?}", p.result());
    }
    assert_eq!(env.call(req.confirmation(&cid), InvokeOptions::default()), retries[0].result(), "then cached");
    assert_eq!(runs.get(), 1);
}
