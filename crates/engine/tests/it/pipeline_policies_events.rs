//! Spec core-api §Events, §explainSurface and the policy/audit parts of issue 5: invocation
//! events and their ordering, audit levels, policies at three scopes, fail-closed discovery,
//! listener isolation, and explain_surface agreeing with snapshot.

use crate::common::*;
use agent_surface_engine::audit::{AuditRecord, AuditSink, MemoryAuditSink};
use agent_surface_engine::binding::{execute_fn, ActionBinding};
use agent_surface_engine::events::{AgentSurfaceEvent, SettledStatus};
use agent_surface_engine::explain::{explain_surface, Outcome};
use agent_surface_engine::invoke::InvokeOptions;
use agent_surface_engine::policy::{DiscoveryDecision, PolicyDecision, PolicyPhase};
use agent_surface_engine::snapshot::SnapshotContext;
use agent_surface_model::errors::ErrorCode;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

fn invocation_events(events: &[AgentSurfaceEvent]) -> Vec<AgentSurfaceEvent> {
    events
        .iter()
        .filter(|e| {
            matches!(e, AgentSurfaceEvent::InvocationStarted { .. } | AgentSurfaceEvent::InvocationSettled { .. })
        })
        .cloned()
        .collect()
}

// Events: "{ type: "invocation-started"; invocationId; capabilityId; consumerId }", "{ type: "invocation-settled"; …; status; code?; durationMs }", "per-invocation started strictly before settled"
#[test]
fn invocation_started_comes_strictly_before_invocation_settled_with_duration_and_code() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let latch = Latch::default();
    env.registry
        .register(
            widget(&a, "main").action("act", counting(&Counter::default(), Some(&latch), Value::Null)).build().unwrap(),
        )
        .unwrap();
    env.take_events();
    let p = env.start(inv("view:test.widget.act").id("ev1"), as_consumer("alice"));
    assert_eq!(
        invocation_events(&env.take_events()),
        vec![AgentSurfaceEvent::InvocationStarted {
            invocation_id: "ev1".into(),
            capability_id: "view:test.widget.act".into(),
            consumer_id: "test:alice".into()
        }],
        "started is out while the handler runs"
    );
    env.advance(1_234);
    latch.open();
    env.settle();
    assert!(p.result().is_ok());
    assert_eq!(
        invocation_events(&env.take_events()),
        vec![AgentSurfaceEvent::InvocationSettled {
            invocation_id: "ev1".into(),
            capability_id: "view:test.widget.act".into(),
            status: SettledStatus::Ok,
            code: None,
            duration_ms: 1_234
        }]
    );
    let _ = env.call(inv("view:test.widget.act").id("ev2").input(json!({"n": "x"})), InvokeOptions::default());
    let evs = invocation_events(&env.take_events());
    assert!(matches!(&evs[0], AgentSurfaceEvent::InvocationStarted { invocation_id, .. } if invocation_id == "ev2"));
    assert!(
        matches!(&evs[1], AgentSurfaceEvent::InvocationSettled { invocation_id, status: SettledStatus::Error, code: Some(c), duration_ms: 0, .. } if invocation_id == "ev2" && c == "INVALID_INPUT")
    );
    let wire = serde_json::to_value(&evs[1]).unwrap();
    assert_eq!(
        (wire["type"].as_str(), wire["durationMs"].as_u64(), wire["code"].as_str()),
        (Some("invocation-settled"), Some(0), Some("INVALID_INPUT"))
    );
}

// "per-invocation started strictly before settled" across many interleaved invocations
#[test]
fn every_invocation_has_one_started_then_one_settled() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let latch = Latch::default();
    env.registry
        .register(
            widget(&a, "main").action("act", counting(&Counter::default(), Some(&latch), Value::Null)).build().unwrap(),
        )
        .unwrap();
    env.take_events();
    let ps: Vec<Pending> = (0..40)
        .map(|i| {
            env.spawn(
                inv(if i % 2 == 0 { "view:test.widget.act" } else { "view:test.widget.state" }).id(format!("i{i}")),
                as_consumer(&format!("c{}", i % 5)),
            )
        })
        .collect();
    env.settle();
    latch.open();
    env.settle();
    assert!(ps.iter().all(|p| p.done()));
    let events = env.take_events();
    for i in 0..40 {
        let id = format!("i{i}");
        let s: Vec<usize> = events.iter().enumerate().filter(|(_, e)| matches!(e, AgentSurfaceEvent::InvocationStarted { invocation_id, .. } if *invocation_id == id)).map(|(k, _)| k).collect();
        let t: Vec<usize> = events.iter().enumerate().filter(|(_, e)| matches!(e, AgentSurfaceEvent::InvocationSettled { invocation_id, .. } if *invocation_id == id)).map(|(k, _)| k).collect();
        assert_eq!((s.len(), t.len()), (1, 1), "{id}");
        assert!(s[0] < t[0]);
    }
}

/// Captures audit records.
fn audited(a: &agent_surface_engine::authority::CapabilityAuthority) -> (Env, Arc<MemoryAuditSink>) {
    let sink = Arc::new(MemoryAuditSink::new(100));
    let s: Arc<dyn AuditSink> = sink.clone();
    let env = Env::with(a, |o| o.audit(s));
    let echo = ActionBinding::new(execute_fn(|input, _| async move { Ok(json!({"echo": input})) }));
    env.registry
        .register(
            widget(a, "main")
                .action("full", echo.clone())
                .action("silent", echo.clone())
                .action("act", echo)
                .build()
                .unwrap(),
        )
        .unwrap();
    (env, sink)
}

// issue 5: "Audit sink (bounded in-memory default) honouring audit: none|metadata|full" — none
#[test]
fn audit_none_records_nothing() {
    let a = test_authority();
    let (mut env, sink) = audited(&a);
    assert!(env.call(inv("view:test.widget.silent"), InvokeOptions::default()).is_ok());
    assert!(sink.records().is_empty());
}

// "audit: none|metadata|full" — metadata: who/what/when/outcome, no payloads
#[test]
fn audit_metadata_records_who_what_when_and_outcome_only() {
    let a = test_authority();
    let (mut env, sink) = audited(&a);
    env.advance(10);
    assert!(env
        .call(inv("view:test.widget.act").id("m1").input(json!({"tag": "secret"})), as_consumer("alice"))
        .is_ok());
    let _ = env.call(inv("view:test.widget.act").id("m2").input(json!({"n": "x"})), as_consumer("alice"));
    let recs = sink.records();
    assert_eq!(recs.len(), 2);
    let r: &AuditRecord = &recs[0];
    assert_eq!(
        (r.invocation_id.as_str(), r.capability_id.as_str(), r.consumer_key.as_str(), r.status.as_str()),
        ("m1", "view:test.widget.act", "test:alice", "ok")
    );
    assert_eq!(r.registration_id.as_deref(), Some(env.registry.registrations()[0].0.as_str()));
    assert_eq!(r.started_at, agent_surface_engine::snapshot::iso8601(T0 + 10));
    assert_eq!((r.input.clone(), r.output.clone()), (None, None));
    assert_eq!((recs[1].status.as_str(), recs[1].code.as_deref()), ("error", Some("INVALID_INPUT")));
}

// "audit: none|metadata|full" — full: plus the effective input and the output
#[test]
fn audit_full_records_the_effective_input_and_the_output() {
    let a = test_authority();
    let (mut env, sink) = audited(&a);
    assert!(env.call(inv("view:test.widget.full").input(json!({"tag": "t"})), InvokeOptions::default()).is_ok());
    let r = &sink.records()[0];
    assert_eq!(r.input, Some(json!({"n": 1, "tag": "t"})));
    assert_eq!(r.output, Some(json!({"echo": {"n": 1, "tag": "t"}})));
}

// "Audit sink (bounded in-memory default)"
#[test]
fn the_memory_audit_sink_is_bounded() {
    let sink = MemoryAuditSink::new(3);
    for i in 0..5 {
        sink.record(AuditRecord {
            invocation_id: format!("i{i}"),
            capability_id: "c".into(),
            registration_id: None,
            consumer_key: "k".into(),
            status: "ok".into(),
            code: None,
            started_at: String::new(),
            duration_ms: 0,
            input: None,
            output: None,
        });
    }
    let ids: Vec<String> = sink.records().into_iter().map(|r| r.invocation_id).collect();
    assert_eq!(ids, vec!["i2", "i3", "i4"]);
    assert_eq!(MemoryAuditSink::default().records().len(), 0);
}

// issue 5: "Policies with … authorize (pre-input) and invoke (input-aware) phases at registry, component and capability scope"
#[test]
fn policies_apply_at_registry_component_and_capability_scope() {
    let a = test_authority();
    for scope in ["registry", "component", "capability"] {
        let (deny, _) = TestPolicy::new(&format!("{scope}-deny"), &[PolicyPhase::Authorize])
            .authorize(PolicyDecision::Deny("no".into()))
            .build();
        let mut env = if scope == "registry" { Env::with(&a, |o| o.policy(deny.clone())) } else { Env::new(&a) };
        let b = widget(&a, "main");
        let b = match scope {
            "component" => b.policy(deny.clone()),
            "capability" => b.action("act", ok_action().policy(deny.clone())),
            _ => b,
        };
        env.registry.register(b.build().unwrap()).unwrap();
        let r = env.call(inv("view:test.widget.act"), InvokeOptions::default());
        assert_eq!(
            (r.code(), detail(&r, "policy")),
            (Some(ErrorCode::PolicyDenied), json!(format!("{scope}-deny"))),
            "{scope}"
        );
        let other = env.call(inv("view:test.widget.other"), InvokeOptions::default());
        assert_eq!(other.is_ok(), scope == "capability", "{scope}");
    }
}

// issue 5: "a throwing discovery policy fails closed" — hidden from the snapshot and not invocable
#[test]
fn a_throwing_discovery_policy_fails_closed() {
    let a = test_authority();
    let (boom, _) = TestPolicy::new("boom", &[PolicyPhase::Discovery]).panics_in(PolicyPhase::Discovery).build();
    let mut env = Env::new(&a);
    env.registry.register(widget(&a, "main").action("act", ok_action().policy(boom)).build().unwrap()).unwrap();
    let snap = env.registry.snapshot(&SnapshotContext::default());
    assert!(!snap.components[0].actions.iter().any(|x| x.name == "act"));
    let r = env.call(inv("view:test.widget.act"), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::CapabilityNotFound));
    assert!(env.call(inv("view:test.widget.other"), InvokeOptions::default()).is_ok());
}

// Discovery votes hold at invocation too: hide → CAPABILITY_NOT_FOUND, disable → CAPABILITY_NOT_AVAILABLE with the reason
#[test]
fn discovery_votes_are_enforced_at_invocation() {
    let a = test_authority();
    let (hide, _) = TestPolicy::new("hide", &[PolicyPhase::Discovery]).discovery(DiscoveryDecision::Hide).build();
    let (disable, _) = TestPolicy::new("disable", &[PolicyPhase::Discovery])
        .discovery(DiscoveryDecision::Disable("after-hours".into()))
        .build();
    let mut env = Env::new(&a);
    env.registry
        .register(
            widget(&a, "main")
                .action("act", ok_action().policy(hide))
                .action("other", ok_action().policy(disable.clone()))
                .procedure(a.procedure("domain:test.touch").unwrap().bind(ok_action().policy(disable)).unwrap())
                .build()
                .unwrap(),
        )
        .unwrap();
    assert_eq!(
        env.call(inv("view:test.widget.act"), InvokeOptions::default()).code(),
        Some(ErrorCode::CapabilityNotFound)
    );
    for id in ["view:test.widget.other", "domain:test.touch"] {
        let r = env.call(inv(id), InvokeOptions::default());
        assert_eq!(
            (r.code(), detail(&r, "reason")),
            (Some(ErrorCode::CapabilityNotAvailable), json!("after-hours")),
            "{id}"
        );
    }
}

// A panicking authorize or invoke policy fails closed (POLICY_DENIED), like a throwing discovery policy
#[test]
fn a_panicking_authorize_or_invoke_policy_fails_closed() {
    let a = test_authority();
    let (auth, _) = TestPolicy::new("auth-bug", &[PolicyPhase::Authorize]).panics_in(PolicyPhase::Authorize).build();
    let (invk, _) = TestPolicy::new("invoke-bug", &[PolicyPhase::Invoke]).panics_in(PolicyPhase::Invoke).build();
    let runs = Counter::default();
    let mut env = Env::new(&a);
    env.registry
        .register(
            widget(&a, "main")
                .action("act", counting(&runs, None, Value::Null).policy(auth))
                .action("other", counting(&runs, None, Value::Null).policy(invk))
                .build()
                .unwrap(),
        )
        .unwrap();
    for id in ["view:test.widget.act", "view:test.widget.other"] {
        let p = env.start(inv(id), InvokeOptions::default());
        assert_eq!(p.result().code(), Some(ErrorCode::PolicyDenied), "{id}");
    }
    assert_eq!(runs.get(), 0);
    assert_eq!(env.registry.stats().dedupe_entries, 2, "settled and cached, not stuck in flight");
}

// "listener-exception isolation" (Architecture, referenced by §Events)
#[test]
fn a_panicking_listener_does_not_stop_the_others_or_the_invocation() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let _bad = env.registry.subscribe(|_| crate::common::deliberate_panic("listener bug"));
    env.registry.register(widget(&a, "main").build().unwrap()).unwrap();
    assert!(env.call(inv("view:test.widget.act"), InvokeOptions::default()).is_ok());
    assert!(env.take_events().iter().any(|e| matches!(e, AgentSurfaceEvent::InvocationSettled { .. })));
}

// "queued re-entrancy": a mutation made by a listener is dispatched after the current event, never nested inside it
#[test]
fn a_listener_mutating_re_entrantly_is_queued_not_nested() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let h = Arc::new(env.registry.register(widget(&a, "main").build().unwrap()).unwrap());
    let depth = Arc::new(Mutex::new((0usize, 0usize)));
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let (d, s, h2) = (depth.clone(), seen.clone(), h.clone());
    let _sub = env.registry.subscribe(move |e| {
        {
            let mut d = d.lock().unwrap();
            d.0 += 1;
            d.1 = d.1.max(d.0);
        }
        let name = serde_json::to_value(e).unwrap()["type"].as_str().unwrap().to_string();
        s.lock().unwrap().push(name);
        if matches!(e, AgentSurfaceEvent::InvocationStarted { .. }) {
            h2.invalidate();
        }
        d.lock().unwrap().0 -= 1;
    });
    let r = env.call(inv("view:test.widget.act").id("outer"), InvokeOptions::default());
    assert!(r.is_ok());
    assert!(r.surface_changed, "the listener's mutation happened during the invocation");
    assert_eq!(*seen.lock().unwrap(), vec!["invocation-started", "surface-changed", "invocation-settled"]);
    assert_eq!(depth.lock().unwrap().1, 1, "never dispatched re-entrantly");
}

// explainSurface: "Its composed outcome MUST equal what snapshot() did for the same context (AS-EXPLAIN-003)."
#[test]
fn explain_surface_outcomes_equal_the_snapshot() {
    let a = test_authority();
    let (hide, _) = TestPolicy::new("hide-go", &[PolicyPhase::Discovery]).discovery(DiscoveryDecision::Hide).build();
    let (disable, _) = TestPolicy::new("disable", &[PolicyPhase::Discovery])
        .discovery(DiscoveryDecision::Disable("read-only".into()))
        .build();
    let (boom, _) = TestPolicy::new("boom", &[PolicyPhase::Discovery]).panics_in(PolicyPhase::Discovery).build();
    let env = Env::new(&a);
    env.registry
        .register(
            widget(&a, "main")
                .action("go", ok_action().policy(hide))
                .action("act", ok_action().policy(disable.clone()))
                .action("other", ok_action().policy(boom))
                .action("typed", ok_action().when(|| false, "not now"))
                .procedure(a.procedure("domain:test.touch").unwrap().bind(ok_action().policy(disable)).unwrap())
                .procedure(a.procedure("domain:test.send").unwrap().bind(ok_action()).unwrap())
                .build()
                .unwrap(),
        )
        .unwrap();
    env.registry.register(widget(&a, "off").enabled(false).build().unwrap()).unwrap();
    let ctx = SnapshotContext::default();
    let snap = env.registry.snapshot(&ctx);
    let mut from_snapshot: BTreeMap<(String, String), bool> = BTreeMap::new();
    for c in &snap.components {
        for o in &c.observations {
            from_snapshot.insert((o.capability_id.to_string(), c.registration_id.clone()), o.available);
        }
        for x in &c.actions {
            from_snapshot.insert((x.capability_id.to_string(), c.registration_id.clone()), x.available);
        }
    }
    for p in &snap.procedures {
        from_snapshot.insert((p.capability_id.to_string(), p.registration_id.clone()), p.available);
    }
    let ex = explain_surface(&env.registry, &ctx).unwrap();
    let mut explained: BTreeMap<(String, String), Outcome> = BTreeMap::new();
    for c in &ex.capabilities {
        explained.insert((c.capability_id.clone(), c.registration_id.clone()), c.outcome);
    }
    for (key, outcome) in &explained {
        match (outcome, from_snapshot.get(key)) {
            (Outcome::Hide, None) | (Outcome::Expose, Some(true)) | (Outcome::Disable, Some(false)) => {}
            (o, s) => panic!("{key:?}: explain says {o:?}, snapshot says {s:?}"),
        }
    }
    for key in from_snapshot.keys() {
        assert!(explained.contains_key(key), "explain reports every capability the snapshot has: {key:?}");
    }
    assert!(explained.values().any(|o| *o == Outcome::Hide) && explained.values().any(|o| *o == Outcome::Disable));
}

// Events: `{ type: "invocation-settled"; …; status: "ok" | "error"; code?: AgentCapabilityErrorCode; durationMs }`:
// `code` is optional: absent (not null) for ok, present for errors.
#[test]
fn invocation_settled_omits_code_when_ok() {
    let a = test_authority();
    let mut env = Env::new(&a);
    env.registry.register(widget(&a, "main").build().unwrap()).unwrap();
    assert!(env.call(inv("view:test.widget.act").id("ok1"), InvokeOptions::default()).is_ok());
    let _ = env.call(inv("view:test.widget.act").id("err1").input(json!({"n": "x"})), InvokeOptions::default());
    let wire: Vec<Value> = env
        .take_events()
        .iter()
        .filter(|e| matches!(e, AgentSurfaceEvent::InvocationSettled { .. }))
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert_eq!(wire.len(), 2);
    let ok = wire[0].as_object().unwrap();
    assert_eq!(ok["status"], json!("ok"));
    assert!(!ok.contains_key("code"), "code must be absent for ok: {ok:?}");
    assert_eq!(wire[1]["status"], json!("error"));
    assert_eq!(wire[1]["code"], json!("INVALID_INPUT"));
}

// RegistryOptions.audit: "Audit sink; default: bounded in-memory sink (+ console in development)".
#[test]
fn without_a_sink_records_go_to_a_bounded_in_memory_ring() {
    use agent_surface_engine::audit::DEFAULT_AUDIT_CAPACITY;
    let a = test_authority();
    let mut env = Env::new(&a);
    env.registry.register(widget(&a, "main").build().unwrap()).unwrap();
    assert!(env.registry.audit_records().is_empty());
    let n = DEFAULT_AUDIT_CAPACITY + 5;
    for i in 0..n {
        assert!(env.call(inv("view:test.widget.act").id(format!("a{i}")), as_consumer("alice")).is_ok());
    }
    // audit: "none" still writes nothing.
    assert!(env.call(inv("view:test.widget.silent").id("quiet"), InvokeOptions::default()).is_ok());
    let records = env.registry.audit_records();
    assert_eq!(records.len(), DEFAULT_AUDIT_CAPACITY, "bounded");
    assert_eq!(records.first().unwrap().invocation_id, "a5", "the oldest are dropped");
    assert_eq!(records.last().unwrap().invocation_id, format!("a{}", n - 1));
    assert_eq!(records.last().unwrap().consumer_key, "test:alice");
    assert_eq!(records.last().unwrap().status, "ok");
}

#[test]
fn a_given_sink_replaces_the_default_ring() {
    let a = test_authority();
    let (mut env, sink) = audited(&a);
    assert!(env.call(inv("view:test.widget.act").id("g1"), InvokeOptions::default()).is_ok());
    assert_eq!(sink.records().len(), 1);
    assert!(env.registry.audit_records().is_empty());
}

// Issue 25 §5: "a call that waited for the user and then ran is not logged as an error": the
// CONFIRMATION_REQUIRED step is recorded with status "confirmation-required", not "error".
#[test]
fn a_call_that_waited_for_the_user_and_then_ran_has_no_error_record() {
    use agent_surface_engine::toolset::{create_agent_toolset, AgentToolsetOptions, ToolCall, Topology};
    let a = test_authority();
    let mut env = Env::new(&a);
    env.registry.register(widget(&a, "main").build().unwrap()).unwrap();
    // Two-phase by hand: required, approved, retried with the evidence.
    let first = env.call(inv("view:test.widget.confirm").id("c1").input(json!({})), InvokeOptions::default());
    let cid = confirmation_id(&first);
    env.registry.confirmations().resolve(&cid, true).unwrap();
    let ran = env
        .call(inv("view:test.widget.confirm").id("c1").input(json!({})).confirmation(&cid), InvokeOptions::default());
    assert!(ran.is_ok(), "{ran:?}");
    let records = env.registry.audit_records();
    assert_eq!(
        records.iter().map(|r| (r.status.as_str(), r.code.as_deref())).collect::<Vec<_>>(),
        [("confirmation-required", Some("CONFIRMATION_REQUIRED")), ("ok", None)]
    );
    assert_eq!(serde_json::to_value(&records[0]).unwrap()["status"], json!("confirmation-required"));

    // The embedded toolset's wait mode: one tool call, the user approves, it runs.
    let toolset = create_agent_toolset(
        &env.registry,
        AgentToolsetOptions { consumer: consumer("bot"), topology: Some(Topology::Embedded), ..Default::default() },
    )
    .unwrap();
    let tool = toolset.tools().into_iter().find(|t| t.name == "view_test_widget_confirm").unwrap();
    let slot: Arc<Mutex<Option<agent_surface_engine::invoke::AgentInvocationResult>>> = Arc::default();
    let s = slot.clone();
    let t = toolset.clone();
    futures::task::LocalSpawnExt::spawn_local(&env.pool.spawner(), async move {
        let call = ToolCall { id: Some("w1".into()), signal: None };
        *s.lock().unwrap() = Some(t.execute_tool(&tool, json!({}), call).await);
    })
    .unwrap();
    env.settle();
    let cid = env.registry.confirmations().pending()[0].confirmation_id.clone();
    env.registry.confirmations().resolve(&cid, true).unwrap();
    env.settle();
    assert!(slot.lock().unwrap().clone().unwrap().is_ok());
    let waited: Vec<_> = env.registry.audit_records().into_iter().filter(|r| r.invocation_id == "w1").collect();
    assert_eq!(waited.len(), 2);
    assert!(waited.iter().all(|r| r.status != "error"), "{waited:?}");
}

/// A policy whose discovery fails without panicking (as a page's throwing `onDiscovery` does).
struct Failing;

impl agent_surface_engine::policy::AgentPolicy for Failing {
    fn name(&self) -> &str {
        "failing"
    }
    fn phases(&self) -> &[PolicyPhase] {
        &[PolicyPhase::Discovery]
    }
    fn try_on_discovery(
        &self,
        _ctx: &agent_surface_engine::policy::DiscoveryContext,
    ) -> Result<DiscoveryDecision, agent_surface_engine::policy::DiscoveryFailed> {
        Err(agent_surface_engine::policy::DiscoveryFailed("TypeError: x is undefined".into()))
    }
}

// Issue 25 §5: "explainSurface reports threw for a throwing onDiscovery and
// confirmationEscalation, and discovery has the published DiscoveryDecision shape".
#[test]
fn explain_reports_threw_confirmation_escalation_and_decision_shapes() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let (escalate, _) =
        TestPolicy::new("escalate", &[PolicyPhase::Invoke]).invoke(PolicyDecision::RequireConfirmation).build();
    let (off, _) = TestPolicy::new("off", &[PolicyPhase::Discovery])
        .discovery(DiscoveryDecision::Disable("read-only".into()))
        .build();
    env.registry
        .register(
            widget(&a, "main")
                .policy(escalate)
                .action("other", ActionBinding::new(execute_fn(|_, _| async { Ok(Value::Null) })).policy(off))
                .action(
                    "full",
                    ActionBinding::new(execute_fn(|_, _| async { Ok(Value::Null) })).policy(Arc::new(Failing)),
                )
                .build()
                .unwrap(),
        )
        .unwrap();
    let ctx = SnapshotContext::default();
    let e = serde_json::to_value(explain_surface(&env.registry, &ctx).unwrap()).unwrap();
    let cap =
        |id: &str| e["capabilities"].as_array().unwrap().iter().find(|c| c["capabilityId"] == id).unwrap().clone();

    let full = cap("view:test.widget.full");
    assert_eq!(full["outcome"], "hide");
    let failing = full["policies"].as_array().unwrap().iter().find(|p| p["name"] == "failing").unwrap().clone();
    assert_eq!(
        failing,
        json!({"name": "failing", "scope": "capability", "phases": ["discovery"], "discovery": "hide", "threw": true})
    );
    assert!(
        !env.registry.snapshot(&ctx).components[0].actions.iter().any(|x| x.name == "full"),
        "a failed discovery hides, as a panicking one does"
    );
    assert_eq!(
        env.call(inv("view:test.widget.full").input(json!({})), InvokeOptions::default()).code(),
        Some(ErrorCode::CapabilityNotFound)
    );

    let other = cap("view:test.widget.other");
    assert_eq!(other["outcome"], "disable");
    let vote = other["policies"].as_array().unwrap().iter().find(|p| p["name"] == "off").unwrap().clone();
    assert_eq!(vote["discovery"], json!({"disable": "read-only"}), "the published DiscoveryDecision shape");
    assert!(vote.get("threw").is_none() && vote.get("confirmationEscalation").is_none(), "{vote}");

    // The component's invoke policy may escalate an action to a confirmation, never an
    // observation (observations skip confirmation).
    let act = cap("view:test.widget.act");
    assert_eq!(
        act["policies"][0],
        json!({"name": "escalate", "scope": "component", "phases": ["invoke"], "confirmationEscalation": true})
    );
    let state = cap("view:test.widget.state");
    assert_eq!(state["policies"][0], json!({"name": "escalate", "scope": "component", "phases": ["invoke"]}));
}
