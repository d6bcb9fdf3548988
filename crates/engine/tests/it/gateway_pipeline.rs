//! Issue 25 §5, the exposure gateway runs external tools through the pipeline's rules: dedupe by
//! consumer and tool-call id with the fingerprint rule, timeout and the caller's signal, output
//! schema and `maxOutputBytes`, `invocation-*` events and audit, a pending confirmation that
//! carries `approvedAt` to the handler; and every binding option of an external tool
//! (`precondition`, `when`, `policies`, `timeoutMs`, `concurrency`, `describe`) is honoured.

use crate::common::*;
use agent_surface_engine::authority::CapabilityAuthority;
use agent_surface_engine::binding::{
    execute_fn, precondition_fn, ActionBinding, ActionContext, AgentConcurrency, BoundProcedure, ConfirmationEvidence,
    PreconditionFailure,
};
use agent_surface_engine::events::{AgentSurfaceEvent, ConfirmationOutcome, SettledStatus};
use agent_surface_engine::gateway::{ConfirmFn, ExposedTools, ExposureGateway, GatewayCall, GatewayError};
use agent_surface_engine::host::ManualClock;
use agent_surface_engine::host::ManualTimer;
use agent_surface_engine::invoke::AgentInvocationResult;
use agent_surface_engine::policy::{DiscoveryDecision, PolicyDecision, PolicyPhase};
use agent_surface_engine::registry::{RegistryOptions, Subscription};
use agent_surface_engine::signal::{AbortController, AbortReason};
use agent_surface_engine::snapshot::iso8601;
use agent_surface_model::errors::ErrorCode;
use agent_surface_model::limits::AgentSurfaceLimits;
use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

fn external(id: &str, confirmation: &str, audit: &str, input: Value, output: Value) -> Value {
    json!({
        "audit": audit, "confirmation": confirmation, "description": format!("Test external tool {id}."),
        "effect": "external-side-effect", "id": id, "idempotent": false, "inputSchema": input,
        "kind": "external-tool", "meta": {}, "outputSchema": output, "policies": [], "reversible": false,
        "tags": []
    })
}

/// The test manifest plus `external:test.fetch` (no confirmation, an output schema) and
/// `external:test.mail` (confirmation required, audit full).
fn gateway_authority() -> CapabilityAuthority {
    let mut m = test_manifest();
    let q = json!({"type": "object", "properties": {"q": {"type": "string", "default": "all"}}, "additionalProperties": false});
    let n = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": false});
    let contracts = m["contracts"].as_array_mut().unwrap();
    contracts.push(external("external:test.fetch", "never", "metadata", q.clone(), n));
    contracts.push(external("external:test.mail", "required", "full", q, Value::Null));
    rehash(&mut m);
    CapabilityAuthority::new(m).unwrap()
}

/// A gateway on a manual clock and timer, its background tasks on a single-threaded pool.
struct Gw {
    rt: ManualTimer,
    spawned: QueueSpawn,
    pool: LocalPool,
    exposed: Arc<ExposedTools>,
    events: Arc<Mutex<Vec<AgentSurfaceEvent>>>,
    _sub: Subscription,
}

type Slot = Arc<Mutex<Option<AgentInvocationResult>>>;

impl Gw {
    fn new(
        a: &CapabilityAuthority,
        tools: Vec<BoundProcedure>,
        f: impl FnOnce(RegistryOptions) -> RegistryOptions,
    ) -> Gw {
        let clock = ManualClock::new(T0);
        let rt = ManualTimer::new(clock.clone());
        let spawned = QueueSpawn::default();
        let options = RegistryOptions::new(a.clone())
            .clock(Arc::new(clock))
            .timer(Arc::new(rt.clone()))
            .spawn(Arc::new(spawned.clone()))
            .log(|_| {});
        let gateway = ExposureGateway::with_options(f(options));
        let exposed = Arc::new(gateway.expose(tools.into_iter().map(Into::into).collect()).unwrap());
        let events: Arc<Mutex<Vec<AgentSurfaceEvent>>> = Arc::default();
        let e = events.clone();
        let sub = exposed.subscribe(move |ev| e.lock().unwrap().push(ev.clone()));
        Gw { rt, spawned, pool: LocalPool::new(), exposed, events, _sub: sub }
    }

    fn settle(&mut self) {
        loop {
            let tasks = self.spawned.take();
            let none = tasks.is_empty();
            for t in tasks {
                self.pool.spawner().spawn_local(t).unwrap();
            }
            self.pool.run_until_stalled();
            if none && self.spawned.is_empty() {
                break;
            }
        }
    }

    fn advance(&mut self, ms: u64) {
        self.rt.advance(ms);
        self.settle();
    }

    fn start(&mut self, name: &str, input: Value, call: GatewayCall) -> Slot {
        let slot: Slot = Arc::default();
        let (s, exposed, name) = (slot.clone(), self.exposed.clone(), name.to_string());
        self.pool
            .spawner()
            .spawn_local(async move {
                *s.lock().unwrap() = Some(exposed.execute_call(&name, input, call).await);
            })
            .unwrap();
        self.settle();
        slot
    }

    #[track_caller]
    fn call(&mut self, name: &str, input: Value, call: GatewayCall) -> AgentInvocationResult {
        let slot = self.start(name, input, call);
        let r = slot.lock().unwrap().clone();
        r.expect("the call settled")
    }

    fn take_events(&self) -> Vec<String> {
        std::mem::take(&mut *self.events.lock().unwrap())
            .iter()
            .map(|e| serde_json::to_value(e).unwrap()["type"].as_str().unwrap().to_string())
            .collect()
    }
}

fn id(s: &str) -> GatewayCall {
    GatewayCall { id: Some(s.into()), ..Default::default() }
}

/// `external:test.fetch` counting its runs, answering `{n: runs}`, waiting for `latch` if given.
fn fetch(a: &CapabilityAuthority, runs: &Counter, latch: Option<&Latch>) -> BoundProcedure {
    fetch_with(a, runs, latch, |b| b)
}

fn fetch_with(
    a: &CapabilityAuthority,
    runs: &Counter,
    latch: Option<&Latch>,
    f: impl FnOnce(ActionBinding) -> ActionBinding,
) -> BoundProcedure {
    let (runs, latch) = (runs.clone(), latch.cloned());
    let b = ActionBinding::new(execute_fn(move |_input, _ctx| {
        runs.hit();
        let (n, latch) = (runs.get(), latch.clone());
        async move {
            if let Some(l) = latch {
                l.wait().await;
            }
            Ok(json!({"n": n}))
        }
    }));
    a.external_tool("external:test.fetch").unwrap().bind(f(b)).unwrap()
}

/// `external:test.mail` recording (input, ctx) of each run.
fn mail(a: &CapabilityAuthority, seen: &Seen) -> BoundProcedure {
    a.external_tool("external:test.mail").unwrap().bind(recording(seen, None)).unwrap()
}

fn answering(answer: bool, asked: &Counter) -> ConfirmFn {
    let asked = asked.clone();
    Arc::new(move |_id: &str, _input: &Value| {
        asked.hit();
        Box::pin(async move { answer })
    })
}

/// A `confirm` that answers when the latch opens.
fn answering_later(answer: bool, latch: &Latch, asked: &Counter) -> ConfirmFn {
    let (latch, asked) = (latch.clone(), asked.clone());
    Arc::new(move |_id: &str, _input: &Value| {
        asked.hit();
        let latch = latch.clone();
        Box::pin(async move {
            latch.wait().await;
            answer
        })
    })
}

#[test]
fn a_transport_retry_never_repeats_the_side_effect() {
    let a = gateway_authority();
    let runs = Counter::default();
    let latch = Latch::default();
    let mut gw = Gw::new(&a, vec![fetch(&a, &runs, Some(&latch))], |o| o);
    // In flight: the retry joins the running call.
    let first = gw.start("external_test_fetch", json!({"q": "x"}), id("call-1"));
    let retry = gw.start("external_test_fetch", json!({"q": "x"}), id("call-1"));
    assert_eq!(runs.get(), 1);
    latch.open();
    gw.settle();
    let (first, retry) = (first.lock().unwrap().clone().unwrap(), retry.lock().unwrap().clone().unwrap());
    assert!(first.is_ok(), "{first:?}");
    assert_eq!(first, retry, "joined, not re-executed");
    // Settled: a later retry gets the cached result verbatim.
    let again = gw.call("external_test_fetch", json!({"q": "x"}), id("call-1"));
    assert_eq!(again, first);
    assert_eq!(runs.get(), 1);
    // Same id, different input: INVOCATION_CONFLICT, nothing runs.
    let conflict = gw.call("external_test_fetch", json!({"q": "y"}), id("call-1"));
    assert_eq!(conflict.code(), Some(ErrorCode::InvocationConflict), "{conflict:?}");
    assert_eq!(runs.get(), 1);
    // Another consumer may reuse the provider's id.
    let other = GatewayCall { consumer: consumer("other"), ..id("call-1") };
    assert!(gw.call("external_test_fetch", json!({"q": "y"}), other).is_ok());
    assert_eq!(runs.get(), 2);
    // Every settled invocation is one started/settled pair; joins and cache hits add none.
    assert_eq!(
        gw.take_events(),
        ["invocation-started", "invocation-settled", "invocation-started", "invocation-settled"]
    );
}

#[test]
fn timeout_and_the_callers_signal() {
    let a = gateway_authority();
    let signals: Arc<Mutex<Vec<agent_surface_engine::signal::AbortSignal>>> = Arc::default();
    let s = signals.clone();
    let hanging = ActionBinding::new(execute_fn(move |_, ctx: ActionContext| {
        s.lock().unwrap().push(ctx.signal.clone());
        async move {
            ctx.signal.aborted().await;
            Ok(json!({"n": 0}))
        }
    }));
    let tool = a.external_tool("external:test.fetch").unwrap().bind(hanging.timeout_ms(50)).unwrap();
    let mut gw = Gw::new(&a, vec![tool], |o| o);
    let timed = gw.start("external_test_fetch", json!({}), id("t1"));
    gw.advance(49);
    assert!(timed.lock().unwrap().is_none());
    gw.advance(1);
    let r = timed.lock().unwrap().clone().unwrap();
    assert_eq!(r.code(), Some(ErrorCode::Timeout), "the binding's timeoutMs");
    assert_eq!(signals.lock().unwrap()[0].reason(), Some(AbortReason::Timeout));
    // The caller's timeout overrides the binding's.
    let longer = gw.start("external_test_fetch", json!({}), GatewayCall { timeout_ms: Some(500), ..id("t2") });
    gw.advance(499);
    assert!(longer.lock().unwrap().is_none());
    gw.advance(1);
    assert_eq!(longer.lock().unwrap().clone().unwrap().code(), Some(ErrorCode::Timeout));

    let cancel = AbortController::new();
    let cancelled =
        gw.start("external_test_fetch", json!({}), GatewayCall { signal: Some(cancel.signal()), ..id("c1") });
    cancel.abort(AbortReason::Cancelled);
    gw.settle();
    assert_eq!(cancelled.lock().unwrap().clone().unwrap().code(), Some(ErrorCode::Cancelled));
    assert_eq!(signals.lock().unwrap()[2].reason(), Some(AbortReason::Cancelled));
}

#[test]
fn external_tools_default_to_the_procedure_timeout() {
    let a = gateway_authority();
    let tool = a.external_tool("external:test.fetch").unwrap().bind(until_aborted()).unwrap();
    let mut gw = Gw::new(&a, vec![tool], |o| o);
    let r = gw.start("external_test_fetch", json!({}), id("t"));
    gw.advance(AgentSurfaceLimits::default().procedure_timeout_ms - 1);
    assert!(r.lock().unwrap().is_none());
    gw.advance(1);
    assert_eq!(r.lock().unwrap().clone().unwrap().code(), Some(ErrorCode::Timeout));
}

#[test]
fn output_schema_and_max_output_bytes() {
    let a = gateway_authority();
    let bad = a
        .external_tool("external:test.fetch")
        .unwrap()
        .bind(execute_fn(|_, _| async { Ok(json!({"n": "not a number"})) }))
        .unwrap();
    let mut gw = Gw::new(&a, vec![bad], |o| o);
    let r = gw.call("external_test_fetch", json!({}), id("o1"));
    assert_eq!(r.code(), Some(ErrorCode::ExecutionFailed));
    assert_eq!(detail(&r, "reason"), json!("invalid-output"));

    let runs = Counter::default();
    let limits = AgentSurfaceLimits { max_output_bytes: 6, ..Default::default() };
    let mut gw = Gw::new(&a, vec![fetch(&a, &runs, None)], |o| o.limits(limits));
    let r = gw.call("external_test_fetch", json!({}), id("o2"));
    assert_eq!(r.code(), Some(ErrorCode::ExecutionFailed), "{{\"n\":1}} is 7 bytes");
    assert_eq!(detail(&r, "reason"), json!("output-too-large"));
}

#[test]
fn events_and_audit_records() {
    let a = gateway_authority();
    let runs = Counter::default();
    let mut gw = Gw::new(&a, vec![fetch(&a, &runs, None)], |o| o);
    let ok = gw.call("external_test_fetch", json!({}), GatewayCall { consumer: consumer("bot"), ..id("a1") });
    let bad = gw.call("external_test_fetch", json!({"q": 1}), id("a2"));
    assert_eq!(bad.code(), Some(ErrorCode::InvalidInput));
    let events = std::mem::take(&mut *gw.events.lock().unwrap());
    assert_eq!(
        events[..2],
        [
            AgentSurfaceEvent::InvocationStarted {
                invocation_id: "a1".into(),
                capability_id: "external:test.fetch".into(),
                consumer_id: "test:bot".into(),
            },
            AgentSurfaceEvent::InvocationSettled {
                invocation_id: "a1".into(),
                capability_id: "external:test.fetch".into(),
                status: SettledStatus::Ok,
                code: None,
                duration_ms: 0,
            },
        ]
    );
    assert!(matches!(&events[3], AgentSurfaceEvent::InvocationSettled { code: Some(c), .. } if c == "INVALID_INPUT"));
    let records = gw.exposed.audit_records();
    assert_eq!(records.len(), 2);
    assert_eq!(
        (records[0].invocation_id.as_str(), records[0].status.as_str(), records[0].consumer_key.as_str()),
        ("a1", "ok", "test:bot")
    );
    assert_eq!(records[0].registration_id.as_deref(), Some(gw.exposed.id()), "the exposure stands for a registration");
    assert!(gw.exposed.id().starts_with("exp_"));
    assert_eq!((records[1].status.as_str(), records[1].code.as_deref()), ("error", Some("INVALID_INPUT")));
    assert_eq!(records[0].input, None, "audit: metadata");
    assert_eq!(ok.surface_version, "0", "an exposure has no surface mutations");
}

#[test]
fn a_confirmation_is_a_pending_request_and_the_handler_gets_its_evidence() {
    let a = gateway_authority();
    let seen: Seen = Arc::default();
    let mut gw = Gw::new(&a, vec![mail(&a, &seen)], |o| o);
    let (latch, asked) = (Latch::default(), Counter::default());
    let call = GatewayCall { confirm: Some(answering_later(true, &latch, &asked)), ..id("m1") };
    let r = gw.start("external_test_mail", json!({"q": "hi"}), call.clone());
    // Waiting for the user: a pending confirmation like the registry's.
    let pending = gw.exposed.confirmations().pending();
    assert_eq!(pending.len(), 1);
    assert_eq!(
        (pending[0].capability_id.as_str(), pending[0].registration_id.as_str(), &pending[0].input),
        ("external:test.mail", gw.exposed.id(), &json!({"q": "hi"}))
    );
    assert_eq!(asked.get(), 1);
    // A transport retry while the user decides joins the call: nobody is asked twice.
    let retry = gw.start("external_test_mail", json!({"q": "hi"}), call);
    assert_eq!(asked.get(), 1);
    gw.rt.advance(1500);
    latch.open();
    gw.settle();
    let r = r.lock().unwrap().clone().unwrap();
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(retry.lock().unwrap().clone().unwrap(), r);
    let runs = seen.lock().unwrap();
    assert_eq!(runs.len(), 1, "ran once");
    assert_eq!(
        runs[0].1.confirmation,
        Some(ConfirmationEvidence { id: pending[0].confirmation_id.clone(), approved_at: iso8601(T0 + 1500) }),
        "the handler gets the evidence with approvedAt"
    );
    assert_eq!(runs[0].1.registration_id, gw.exposed.id());
    assert!(gw.exposed.confirmations().pending().is_empty());
    assert_eq!(
        gw.take_events(),
        ["invocation-started", "confirmation-requested", "confirmation-resolved", "invocation-settled"]
    );
    // One record, ok: the call waited for the user and then ran.
    let records = gw.exposed.audit_records();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].status, "ok");
    assert_eq!(records[0].input, Some(json!({"q": "hi"})), "audit: full");
}

#[test]
fn denied_expired_cancelled_or_nobody_to_ask() {
    let a = gateway_authority();
    let seen: Seen = Arc::default();
    let mut gw = Gw::new(&a, vec![mail(&a, &seen)], |o| o);
    let asked = Counter::default();

    let r =
        gw.call("external_test_mail", json!({}), GatewayCall { confirm: Some(answering(false, &asked)), ..id("d1") });
    assert_eq!(r.code(), Some(ErrorCode::ConfirmationDenied), "{r:?}");
    assert_eq!(
        gw.take_events(),
        ["invocation-started", "confirmation-requested", "confirmation-resolved", "invocation-settled"]
    );

    // A panicking confirm denies.
    let panicking: ConfirmFn = Arc::new(|_: &str, _: &Value| crate::common::deliberate_panic("dialog crashed"));
    let r = gw.call("external_test_mail", json!({}), GatewayCall { confirm: Some(panicking), ..id("d2") });
    assert_eq!(r.code(), Some(ErrorCode::ConfirmationDenied));

    // No confirm: denied at once, no request opened.
    gw.take_events();
    let r = gw.call("external_test_mail", json!({}), id("d3"));
    assert_eq!(r.code(), Some(ErrorCode::ConfirmationDenied));
    assert_eq!(gw.take_events(), ["invocation-started", "invocation-settled"]);
    assert_eq!(asked.get(), 1);

    // The host answers through the controller before `confirm` does: the first answer stands.
    let (never, asked2) = (Latch::default(), Counter::default());
    let p = gw.start(
        "external_test_mail",
        json!({}),
        GatewayCall { confirm: Some(answering_later(true, &never, &asked2)), ..id("d4") },
    );
    let cid = gw.exposed.confirmations().pending()[0].confirmation_id.clone();
    gw.exposed
        .confirmations()
        .resolve_with(&cid, agent_surface_engine::confirm::Resolution::denied().reason("not now"))
        .unwrap();
    gw.settle();
    let r = p.lock().unwrap().clone().unwrap();
    assert_eq!(r.code(), Some(ErrorCode::ConfirmationDenied));
    assert_eq!(detail(&r, "reason"), json!("not now"));

    // Nobody answers: CONFIRMATION_EXPIRED at the TTL.
    let p = gw.start(
        "external_test_mail",
        json!({}),
        GatewayCall { confirm: Some(answering_later(true, &never, &asked2)), ..id("d5") },
    );
    gw.advance(AgentSurfaceLimits::default().confirmation_ttl_ms);
    assert_eq!(p.lock().unwrap().clone().unwrap().code(), Some(ErrorCode::ConfirmationExpired));

    // The caller gives up while waiting: CANCELLED, and the request is closed.
    let cancel = AbortController::new();
    let p = gw.start(
        "external_test_mail",
        json!({}),
        GatewayCall {
            confirm: Some(answering_later(true, &never, &asked2)),
            signal: Some(cancel.signal()),
            ..id("d6")
        },
    );
    assert_eq!(gw.exposed.confirmations().pending().len(), 1);
    cancel.abort(AbortReason::Cancelled);
    gw.settle();
    assert_eq!(p.lock().unwrap().clone().unwrap().code(), Some(ErrorCode::Cancelled));
    assert!(gw.exposed.confirmations().pending().is_empty());
    assert!(seen.lock().unwrap().is_empty(), "never ran");
    let outcomes: Vec<ConfirmationOutcome> = std::mem::take(&mut *gw.events.lock().unwrap())
        .into_iter()
        .filter_map(|e| match e {
            AgentSurfaceEvent::ConfirmationResolved { outcome, .. } => Some(outcome),
            _ => None,
        })
        .collect();
    assert_eq!(outcomes, [ConfirmationOutcome::Denied, ConfirmationOutcome::Expired, ConfirmationOutcome::Denied]);
}

#[test]
fn when_precondition_and_describe_are_honoured() {
    let a = gateway_authority();
    let runs = Counter::default();
    let open = Arc::new(Mutex::new(false));
    let o = open.clone();
    let tool = fetch_with(&a, &runs, None, |b| {
        b.when(move || *o.lock().unwrap(), "maintenance").precondition(precondition_fn(|input, _| {
            if input["q"] == "forbidden" {
                Err(PreconditionFailure { message: "not that one".into(), details: None })
            } else {
                Ok(())
            }
        }))
    })
    .describe(|| Some("3 jobs queued".into()));
    let mut gw = Gw::new(&a, vec![tool], |o| o);
    let state = gw.exposed.tools()[0].state.clone();
    assert_eq!(
        (state.available, state.unavailable_reason.as_deref(), state.note.as_deref()),
        (false, Some("maintenance"), Some("3 jobs queued"))
    );
    let r = gw.call("external_test_fetch", json!({}), id("w1"));
    assert_eq!(r.code(), Some(ErrorCode::CapabilityNotAvailable));
    assert_eq!(detail(&r, "reason"), json!("maintenance"));
    *open.lock().unwrap() = true;
    assert!(gw.exposed.tools()[0].state.available);
    let r = gw.call("external_test_fetch", json!({"q": "forbidden"}), id("w2"));
    assert_eq!(r.code(), Some(ErrorCode::PreconditionFailed));
    assert_eq!(r.error.unwrap().message, "not that one");
    assert_eq!(runs.get(), 0);
    assert!(gw.call("external_test_fetch", json!({}), id("w3")).is_ok());
}

#[test]
fn policies_at_the_tool_and_the_gateway() {
    let a = gateway_authority();
    let runs = Counter::default();
    let (escalate, _) =
        TestPolicy::new("escalate", &[PolicyPhase::Invoke]).invoke(PolicyDecision::RequireConfirmation).build();
    let (deny, _) = TestPolicy::new("no-bots", &[PolicyPhase::Authorize])
        .authorize(PolicyDecision::Deny("bots may not fetch".into()))
        .build();
    let tool = fetch_with(&a, &runs, None, |b| b.policy(escalate));
    let mut gw = Gw::new(&a, vec![tool], |o| o);
    // An invoke policy escalates a confirmation-free tool: `confirm` is asked.
    let asked = Counter::default();
    let r =
        gw.call("external_test_fetch", json!({}), GatewayCall { confirm: Some(answering(true, &asked)), ..id("p1") });
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(asked.get(), 1);
    let r = gw.call("external_test_fetch", json!({}), id("p2"));
    assert_eq!(r.code(), Some(ErrorCode::ConfirmationDenied), "escalated, and nobody to ask");

    // Registry-scope policies of the gateway's options apply to every exposed tool.
    let mut gw = Gw::new(&a, vec![fetch(&a, &runs, None)], |o| o.policy(deny));
    let r = gw.call("external_test_fetch", json!({}), id("p3"));
    assert_eq!(r.code(), Some(ErrorCode::PolicyDenied));
    assert_eq!(detail(&r, "policy"), json!("no-bots"));

    // Discovery: hidden tools are left out of the consumer's tools and not found when called;
    // a disable is a reason.
    let (hide, _) = TestPolicy::new("hide", &[PolicyPhase::Discovery]).discovery(DiscoveryDecision::Hide).build();
    let mut gw = Gw::new(&a, vec![fetch_with(&a, &runs, None, |b| b.policy(hide))], |o| o);
    assert!(gw.exposed.tools().is_empty());
    assert_eq!(gw.call("external_test_fetch", json!({}), id("p4")).code(), Some(ErrorCode::CapabilityNotFound));
    let (off, _) = TestPolicy::new("off", &[PolicyPhase::Discovery])
        .discovery(DiscoveryDecision::Disable("after-hours".into()))
        .build();
    let mut gw = Gw::new(&a, vec![fetch_with(&a, &runs, None, |b| b.policy(off))], |o| o);
    assert_eq!(gw.exposed.tools()[0].state.unavailable_reason.as_deref(), Some("after-hours"));
    let r = gw.call("external_test_fetch", json!({}), id("p5"));
    assert_eq!((r.code(), detail(&r, "reason")), (Some(ErrorCode::CapabilityNotAvailable), json!("after-hours")));
}

#[test]
fn concurrency_is_honoured() {
    let a = gateway_authority();
    let runs = Counter::default();
    let latch = Latch::default();
    // Default: one at a time per tool, a bounded queue (limits.actionQueueDepth, 2).
    let mut gw = Gw::new(&a, vec![fetch(&a, &runs, Some(&latch))], |o| o);
    let calls: Vec<Slot> = (0..4).map(|i| gw.start("external_test_fetch", json!({}), id(&format!("q{i}")))).collect();
    assert_eq!(runs.get(), 1, "the others wait");
    let full = calls[3].lock().unwrap().clone().unwrap();
    assert_eq!(full.code(), Some(ErrorCode::RateLimited));
    assert_eq!(detail(&full, "reason"), json!("queue-full"));
    latch.open();
    gw.settle();
    assert_eq!(runs.get(), 3);

    // parallel: up to `max` at once.
    let (runs, latch) = (Counter::default(), Latch::default());
    let tool = fetch_with(&a, &runs, Some(&latch), |b| {
        b.concurrency(AgentConcurrency::Parallel { max: 2, queue_depth: Some(0) })
    });
    let mut gw = Gw::new(&a, vec![tool], |o| o);
    let calls: Vec<Slot> = (0..3).map(|i| gw.start("external_test_fetch", json!({}), id(&format!("p{i}")))).collect();
    assert_eq!(runs.get(), 2);
    assert_eq!(calls[2].lock().unwrap().clone().unwrap().code(), Some(ErrorCode::RateLimited), "queueDepth 0");
    latch.open();
    gw.settle();
    assert!(calls[..2].iter().all(|c| c.lock().unwrap().clone().unwrap().is_ok()));
}

#[test]
fn a_tool_given_twice_is_refused() {
    let a = gateway_authority();
    let runs = Counter::default();
    let gateway = ExposureGateway::with_options(RegistryOptions::new(a.clone()));
    let err = gateway.expose(vec![fetch(&a, &runs, None).into(), fetch(&a, &runs, None).into()]).err().unwrap();
    assert_eq!(err, GatewayError::Duplicate("external:test.fetch".into()));
}
