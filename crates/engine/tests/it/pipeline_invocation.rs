//! Spec core-api §Invocation, §Handler contexts and DECISIONS §6/§7: the result envelope,
//! instance resolution, staleness, the fixed pipeline order, effective input, preconditions
//! and output checks. One test per rule; each cites the sentence it proves.

use crate::common::*;
use agent_surface_engine::binding::{
    execute_fn, precondition_fn, read_sync, ActionBinding, ActionContext, HandlerError, ObservationBinding,
    PreconditionFailure, ReadContext,
};
use agent_surface_engine::events::AgentSurfaceEvent;
use agent_surface_engine::invoke::{InvocationStatus, InvokeOptions, RegistryDisposed};
use agent_surface_engine::policy::{PolicyDecision, PolicyPhase};
use agent_surface_engine::registry::{AvailabilityOverride, RegistrationPatch};
use agent_surface_model::errors::{ErrorCode, Retry};
use agent_surface_model::limits::AgentSurfaceLimits;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

#[test]
fn the_test_manifest_is_a_valid_authority() {
    let a = test_authority();
    assert!(a.component("test.widget").is_ok());
    assert!(a.procedure("domain:test.send").is_ok());
}

// "The result is a discriminated union, not an exception … Everything agent-facing … is a serializable status: "error" payload with structured details and retry semantics"
#[test]
fn the_result_is_an_envelope_never_an_error() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let failing = ActionBinding::new(execute_fn(|_, _| async {
        Err(HandlerError::Failed("db password hunter2 at /srv/app.rs:12".into()))
    }));
    env.registry.register(widget(&a, "main").action("act", failing).build().unwrap()).unwrap();

    let r = env.call(inv("view:test.widget.act").id("e1"), InvokeOptions::default());
    assert_eq!(r.status, InvocationStatus::Error);
    assert_eq!(r.code(), Some(ErrorCode::ExecutionFailed));
    let e = r.error.as_ref().unwrap();
    assert_eq!(e.retry, Retry::Never);
    assert!(!e.message.contains("hunter2") && !e.message.contains("app.rs"), "agent-safe message: {}", e.message);
    let wire = serde_json::to_value(&r).unwrap();
    assert_eq!(wire["status"], "error");
    assert_eq!(wire["invocationId"], "e1");
    assert_eq!(wire["capabilityId"], "view:test.widget.act");
    assert_eq!(wire["error"]["code"], "EXECUTION_FAILED");
    assert_eq!(wire["error"]["retry"], "never");
    assert!(wire["surfaceVersion"].is_string());
    assert!(wire.get("output").is_none());

    let r = env.call(inv("view:nothing.here.act"), InvokeOptions::default());
    assert_eq!(serde_json::to_value(&r).unwrap()["error"]["code"], "CAPABILITY_NOT_FOUND");

    let r = env.call(inv("view:test.widget.typed"), InvokeOptions::default());
    let wire = serde_json::to_value(&r).unwrap();
    assert_eq!(wire["status"], "ok");
    assert_eq!(wire["output"], json!({"ok": true}));
    assert!(wire.get("error").is_none());
}

// "invoke only rejects on programmer misuse (e.g. called after dispose)"
#[test]
fn invoke_after_dispose_is_the_only_err() {
    let a = test_authority();
    let env = Env::new(&a);
    env.registry.register(widget(&a, "main").build().unwrap()).unwrap();
    let r = futures::executor::block_on(env.registry.invoke(inv("view:test.widget.act"), InvokeOptions::default()));
    assert!(r.is_ok());
    env.registry.dispose();
    let r = futures::executor::block_on(env.registry.invoke(inv("view:test.widget.act"), InvokeOptions::default()));
    assert_eq!(r, Err(RegistryDisposed));
}

// "Generated if absent." (AgentInvocation.invocationId)
#[test]
fn a_missing_invocation_id_is_generated() {
    let a = test_authority();
    let mut env = Env::new(&a);
    env.registry.register(widget(&a, "main").build().unwrap()).unwrap();
    let r1 = env.call(inv("view:test.widget.act"), InvokeOptions::default());
    let r2 = env.call(inv("view:test.widget.act"), InvokeOptions::default());
    assert!(r1.is_ok() && r2.is_ok());
    assert!(!r1.invocation_id.is_empty());
    assert_ne!(r1.invocation_id, r2.invocation_id, "two anonymous calls are two invocations");
}

// "if instanceId is omitted and exactly one live instance matches, it is used"
#[test]
fn an_omitted_instance_with_one_live_instance_is_used() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let seen: Seen = Arc::default();
    let h = env.registry.register(widget(&a, "only").action("act", recording(&seen, None)).build().unwrap()).unwrap();
    let r = env.call(inv("view:test.widget.act"), InvokeOptions::default());
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(seen.lock().unwrap()[0].1.registration_id, h.registration_id());
}

// "zero → CAPABILITY_NOT_FOUND"
#[test]
fn no_live_instance_is_capability_not_found() {
    let a = test_authority();
    let mut env = Env::new(&a);
    for id in
        ["view:test.widget.act", "view:test.widget.nope", "domain:test.touch", "external:reports.export", "garbage"]
    {
        let r = env.call(inv(id), InvokeOptions::default());
        assert_eq!(r.code(), Some(ErrorCode::CapabilityNotFound), "{id}");
        assert_eq!(r.error.unwrap().retry, Retry::WithChanges);
    }
    env.registry.register(widget(&a, "a").build().unwrap()).unwrap();
    let r = env.call(inv("view:test.widget.act").instance("b"), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::CapabilityNotFound));
}

// "zero → CAPABILITY_NOT_FOUND (or tombstone/stale variants)"; DECISIONS §6: COMPONENT_UNMOUNTED for a tombstoned registration
#[test]
fn a_tombstoned_registration_is_component_unmounted() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let h = env.registry.register(widget(&a, "main").build().unwrap()).unwrap();
    let rid = h.registration_id().to_string();
    h.unregister();
    let r = env.call(inv("view:test.widget.act").registration(&rid), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::ComponentUnmounted));
    assert_eq!(r.error.unwrap().retry, Retry::WithChanges);
}

// Limits: "tombstoneTtlMs: number; // 300_000" — after it the registration id is simply unknown
#[test]
fn a_tombstone_is_remembered_for_300_seconds() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let h = env.registry.register(widget(&a, "main").build().unwrap()).unwrap();
    let rid = h.registration_id().to_string();
    h.unregister();
    env.advance(300_000);
    assert_eq!(
        env.call(inv("view:test.widget.act").registration(&rid), InvokeOptions::default()).code(),
        Some(ErrorCode::ComponentUnmounted)
    );
    env.advance(1);
    assert_eq!(
        env.call(inv("view:test.widget.act").registration(&rid), InvokeOptions::default()).code(),
        Some(ErrorCode::CapabilityNotFound)
    );
}

// Limits: "tombstoneSize: number; // 100 entries" — the 101st unmount forgets the oldest tombstone
#[test]
fn at_most_100_tombstones_are_remembered() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let mut ids = Vec::new();
    for i in 0..101 {
        let h = env.registry.register(widget(&a, &format!("i{i}")).build().unwrap()).unwrap();
        ids.push(h.registration_id().to_string());
        h.unregister();
    }
    assert_eq!(env.registry.stats().tombstones, 100);
    assert_eq!(
        env.call(inv("view:test.widget.act").registration(&ids[0]), InvokeOptions::default()).code(),
        Some(ErrorCode::CapabilityNotFound)
    );
    assert_eq!(
        env.call(inv("view:test.widget.act").registration(&ids[1]), InvokeOptions::default()).code(),
        Some(ErrorCode::ComponentUnmounted)
    );
}

// "more than one → AMBIGUOUS_INSTANCE with details.instances: string[]"
#[test]
fn several_live_instances_without_instance_id_are_ambiguous() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let seen: Seen = Arc::default();
    env.registry.register(widget(&a, "b").action("act", recording(&seen, None)).build().unwrap()).unwrap();
    env.registry.register(widget(&a, "a").build().unwrap()).unwrap();
    let r = env.call(inv("view:test.widget.act"), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::AmbiguousInstance));
    assert_eq!(r.error.as_ref().unwrap().retry, Retry::WithChanges);
    assert_eq!(detail(&r, "instances"), json!(["a", "b"]));
    let r = env.call(inv("view:test.widget.act").instance("b"), InvokeOptions::default());
    assert!(r.is_ok());
    assert_eq!(seen.lock().unwrap().len(), 1);
}

// DECISIONS §6: "STALE_CAPABILITY | registrationId … mismatch"; the live one is named in details.liveRegistrationId
#[test]
fn a_registration_id_mismatch_is_stale_with_the_live_registration_id() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let h = env.registry.register(widget(&a, "main").build().unwrap()).unwrap();
    let r = env.call(inv("view:test.widget.act").registration("reg_999_zzzzzzzz"), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::StaleCapability));
    assert_eq!(r.error.as_ref().unwrap().retry, Retry::WithChanges);
    assert_eq!(detail(&r, "liveRegistrationId"), json!(h.registration_id()));
    let r = env.call(inv("view:test.widget.act").registration(h.registration_id()), InvokeOptions::default());
    assert!(r.is_ok());
}

// "zero → CAPABILITY_NOT_FOUND (or tombstone/stale variants)": the tombstone variant is for zero live
// instances; when the component was remounted, the old registrationId is stale and the live one is named
#[test]
fn a_remounted_component_makes_the_old_registration_id_stale_with_the_live_one() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let old = env.registry.register(widget(&a, "main").build().unwrap()).unwrap();
    let old_id = old.registration_id().to_string();
    old.unregister();
    let live = env.registry.register(widget(&a, "main").build().unwrap()).unwrap();
    let r = env.call(inv("view:test.widget.act").registration(&old_id), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::StaleCapability), "{r:?}");
    assert_eq!(detail(&r, "liveRegistrationId"), json!(live.registration_id()));
}

// DECISIONS §6: "STALE_CAPABILITY | … surfaceId … mismatch" (another page load is another surface)
#[test]
fn another_surface_id_is_stale() {
    let a = test_authority();
    let mut env = Env::new(&a);
    env.registry.register(widget(&a, "main").build().unwrap()).unwrap();
    let mut other = inv("view:test.widget.act");
    other.surface_id = Some("srf_someotherpageload0000".into());
    let r = env.call(other, InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::StaleCapability));
    assert_eq!(detail(&r, "reason"), json!("surface-id-mismatch"));
    let mut mine = inv("view:test.widget.act");
    mine.surface_id = Some(env.registry.surface_id().to_string());
    assert!(env.call(mine, InvokeOptions::default()).is_ok());
}

fn with_procedures(
    a: &agent_surface_engine::authority::CapabilityAuthority,
    b: agent_surface_engine::binding::ComponentBinder,
) -> agent_surface_engine::binding::ComponentBinder {
    b.procedure(a.procedure("domain:test.wipe").unwrap().bind(ok_action()).unwrap())
        .procedure(a.procedure("domain:test.send").unwrap().bind(ok_action()).unwrap())
        .procedure(a.procedure("domain:test.touch").unwrap().bind(ok_action()).unwrap())
}

// "surfaceVersion?: Version hint; enforced only for destructive/external effects"
#[test]
fn a_surface_version_mismatch_is_rejected_only_for_destructive_and_external_side_effects() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let h = env.registry.register(with_procedures(&a, widget(&a, "main")).build().unwrap()).unwrap();
    let old = env.registry.version();
    h.invalidate();
    assert_ne!(env.registry.version(), old);
    for id in ["domain:test.send", "domain:test.wipe"] {
        let r = env.call(inv(id).surface_version(&old), InvokeOptions::default());
        assert_eq!(r.code(), Some(ErrorCode::StaleCapability), "{id}");
        assert_eq!(detail(&r, "reason"), json!("surface-version-mismatch"));
    }
    for id in ["domain:test.touch", "view:test.widget.act", "view:test.widget.state"] {
        let r = env.call(inv(id).surface_version(&old), InvokeOptions::default());
        assert!(r.is_ok(), "{id}: {r:?}");
    }
    let r =
        env.call(inv("view:test.widget.go").surface_version(&old).input(json!({"to": "/x"})), InvokeOptions::default());
    assert!(r.is_ok());
    let r = env.call(inv("domain:test.send").surface_version(env.registry.version()), InvokeOptions::default());
    assert!(r.is_ok(), "{r:?}");
}

// "surfaceVersion: string; // current version at settle time" and "surfaceChanged?: Set when the surface changed during execution"
#[test]
fn surface_changed_is_set_when_the_surface_changed_during_execution() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let latch = Latch::default();
    let h = env
        .registry
        .register(
            widget(&a, "main").action("act", counting(&Counter::default(), Some(&latch), Value::Null)).build().unwrap(),
        )
        .unwrap();
    let quiet = env.call(inv("view:test.widget.typed"), InvokeOptions::default());
    assert!(!quiet.surface_changed);
    assert!(serde_json::to_value(&quiet).unwrap().get("surfaceChanged").is_none());
    let p = env.start(inv("view:test.widget.act"), InvokeOptions::default());
    h.invalidate();
    latch.open();
    env.settle();
    let r = p.result();
    assert!(r.surface_changed);
    assert_eq!(r.surface_version, env.registry.version());
}

// DECISIONS §7: "2 resolve … → 3 availability (enabled, override, when())" before "5 effective input"
#[test]
fn availability_is_decided_before_the_input_is_validated() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let h = env
        .registry
        .register(widget(&a, "main").action("act", ok_action().when(|| false, "busy")).build().unwrap())
        .unwrap();
    let bad = json!({"n": "not a number"});
    let r = env.call(inv("view:test.widget.act").input(bad.clone()), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::CapabilityNotAvailable));
    assert_eq!(r.error.as_ref().unwrap().retry, Retry::AfterDelay);
    assert_eq!(detail(&r, "reason"), json!("busy"));
    // Pushed override, then a disabled component.
    let mut av = BTreeMap::new();
    av.insert("other".to_string(), AvailabilityOverride { available: false, reason: Some("maintenance".into()) });
    h.update(RegistrationPatch { enabled: None, availability: Some(av) });
    let r = env.call(inv("view:test.widget.other").input(bad.clone()), InvokeOptions::default());
    assert_eq!((r.code(), detail(&r, "reason")), (Some(ErrorCode::CapabilityNotAvailable), json!("maintenance")));
    h.update(RegistrationPatch { enabled: Some(false), availability: None });
    let r = env.call(inv("view:test.widget.typed").input(bad), InvokeOptions::default());
    assert_eq!(
        (r.code(), detail(&r, "reason")),
        (Some(ErrorCode::CapabilityNotAvailable), json!("component-disabled"))
    );
}

// DECISIONS §7: "2 resolve (capability, instance, …)" before "3 availability"
#[test]
fn resolution_is_decided_before_availability() {
    let a = test_authority();
    let mut env = Env::new(&a);
    env.registry.register(widget(&a, "a").enabled(false).build().unwrap()).unwrap();
    env.registry.register(widget(&a, "b").enabled(false).build().unwrap()).unwrap();
    let r = env.call(inv("view:test.widget.act"), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::AmbiguousInstance));
}

// DECISIONS §7: "1 dedupe lookup (join in-flight / return cached terminal / conflict) → 2 resolve"
#[test]
fn the_dedupe_lookup_comes_before_resolution() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let h = env.registry.register(widget(&a, "main").build().unwrap()).unwrap();
    let first = env.call(inv("view:test.widget.act").id("k"), InvokeOptions::default());
    assert!(first.is_ok());
    h.unregister();
    let again = env.call(inv("view:test.widget.act").id("k"), InvokeOptions::default());
    assert_eq!(again, first, "a cached terminal result is returned even though the component is gone");
}

// DECISIONS §7: "4 pre-input authorization (policy authorize) → 5 effective input"; §policy pipeline: authorize is pre-input
#[test]
fn authorize_runs_before_input_validation_and_never_sees_the_input() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let (deny, _) = TestPolicy::new("deny-all", &[PolicyPhase::Authorize])
        .authorize(PolicyDecision::Deny("not for you".into()))
        .build();
    let (watch, seen) = TestPolicy::new("watch", &[PolicyPhase::Authorize]).build();
    env.registry
        .register(
            widget(&a, "main")
                .action("act", ok_action().policy(deny))
                .action("other", ok_action().policy(watch))
                .build()
                .unwrap(),
        )
        .unwrap();
    let r = env.call(inv("view:test.widget.act").input(json!({"n": "bad"})), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::PolicyDenied));
    assert_eq!(r.error.as_ref().unwrap().retry, Retry::Never);
    assert_eq!(detail(&r, "policy"), json!("deny-all"));
    let r = env.call(inv("view:test.widget.other").input(json!({"n": 7, "tag": "t"})), InvokeOptions::default());
    assert!(r.is_ok());
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].1.effective_input, None, "authorize never sees input");
}

// "Input-aware policies receive it as ctx.effectiveInput and never see raw agent input."
#[test]
fn invoke_policies_see_only_the_effective_input() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let (watch, seen) = TestPolicy::new("watch", &[PolicyPhase::Invoke]).build();
    env.registry.register(widget(&a, "main").action("act", ok_action().policy(watch)).build().unwrap()).unwrap();
    assert!(env.call(inv("view:test.widget.act").input(json!({"tag": "x"})), InvokeOptions::default()).is_ok());
    assert!(env.call(inv("view:test.widget.act"), InvokeOptions::default()).is_ok());
    let r = env.call(inv("view:test.widget.act").input(json!({"n": "bad"})), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::InvalidInput));
    let seen = seen.lock().unwrap();
    let inputs: Vec<Option<Value>> = seen.iter().map(|(_, c)| c.effective_input.clone()).collect();
    assert_eq!(
        inputs,
        vec![Some(json!({"n": 1, "tag": "x"})), Some(json!({"n": 1}))],
        "defaulted, and never called for invalid input"
    );
}

// "Handlers receive the parsed, possibly defaulted effective value."
#[test]
fn handlers_receive_the_parsed_defaulted_input() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let seen: Seen = Arc::default();
    env.registry.register(widget(&a, "main").action("act", recording(&seen, None)).build().unwrap()).unwrap();
    assert!(env.call(inv("view:test.widget.act").input(json!({"tag": "x"})), InvokeOptions::default()).is_ok());
    assert!(env.call(inv("view:test.widget.act"), InvokeOptions::default()).is_ok());
    let inputs: Vec<Value> = seen.lock().unwrap().iter().map(|(i, _)| i.clone()).collect();
    assert_eq!(inputs, vec![json!({"n": 1, "tag": "x"}), json!({"n": 1})]);
}

// DECISIONS §6: "INVALID_INPUT | schema validation failed; details.issues[{path, keyword, message}] | with-changes"
#[test]
fn invalid_input_is_invalid_input_with_issues_and_the_handler_never_runs() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let runs = Counter::default();
    env.registry
        .register(widget(&a, "main").action("act", counting(&runs, None, Value::Null)).build().unwrap())
        .unwrap();
    let r = env.call(inv("view:test.widget.act").input(json!({"n": "x", "extra": 1})), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::InvalidInput));
    assert_eq!(r.error.as_ref().unwrap().retry, Retry::WithChanges);
    let issues = detail(&r, "issues");
    let issues = issues.as_array().unwrap();
    assert!(!issues.is_empty());
    for i in issues {
        assert!(i.get("path").is_some() && i["keyword"].is_string() && i["message"].is_string(), "{i}");
    }
    assert_eq!(runs.get(), 0);
}

// DECISIONS §7: "6 precondition and input-aware policy … → 7 confirmation"
#[test]
fn a_precondition_failure_precedes_confirmation() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let pre = precondition_fn(|_, _| Err(PreconditionFailure { message: "nothing to confirm".into(), details: None }));
    env.registry
        .register(widget(&a, "main").action("confirm", ok_action().precondition(pre)).build().unwrap())
        .unwrap();
    let r = env.call(inv("view:test.widget.confirm"), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::PreconditionFailed));
    assert!(env.registry.confirmations().pending().is_empty());
    assert!(!env.take_events().iter().any(|e| matches!(e, AgentSurfaceEvent::ConfirmationRequested { .. })));
}

// DECISIONS §7: "6 … input-aware policy (invoke, may escalate to confirmation) → 7 confirmation"
#[test]
fn an_invoke_policy_denial_precedes_confirmation() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let (deny, _) = TestPolicy::new("deny", &[PolicyPhase::Invoke]).invoke(PolicyDecision::Deny("no".into())).build();
    env.registry.register(widget(&a, "main").action("confirm", ok_action().policy(deny)).build().unwrap()).unwrap();
    let r = env.call(inv("view:test.widget.confirm"), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::PolicyDenied));
    assert!(env.registry.confirmations().pending().is_empty());
}

// DECISIONS §7: "7 confirmation … → 8 admission (action queue / observation gates)"
#[test]
fn confirmation_precedes_admission() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let latch = Latch::default();
    env.registry
        .register(
            widget(&a, "main").action("act", counting(&Counter::default(), Some(&latch), Value::Null)).build().unwrap(),
        )
        .unwrap();
    let running: Vec<Pending> =
        (0..3).map(|i| env.start(inv("view:test.widget.act").id(format!("q{i}")), InvokeOptions::default())).collect();
    let full = env.call(inv("view:test.widget.act").id("q3"), InvokeOptions::default());
    assert_eq!(full.code(), Some(ErrorCode::RateLimited), "the instance queue is full");
    let r = env.call(inv("view:test.widget.confirm"), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::ConfirmationRequired), "confirmation is asked before queueing");
    latch.open();
    env.settle();
    assert!(running.iter().all(|p| p.result().is_ok()));
}

// "precondition?(input, ctx): … return/throw PreconditionFailure to fail with PRECONDITION_FAILED"; DECISIONS §6 "with-changes"
#[test]
fn a_returned_precondition_failure_is_precondition_failed_with_details() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let runs = Counter::default();
    let seen: Arc<Mutex<Vec<(Value, ReadContext)>>> = Arc::default();
    let s = seen.clone();
    let pre = precondition_fn(move |input, ctx| {
        s.lock().unwrap().push((input.clone(), ctx.clone()));
        let mut d = serde_json::Map::new();
        d.insert("missing".into(), json!(["dev_x"]));
        Err(PreconditionFailure { message: "ids must exist".into(), details: Some(d) })
    });
    env.registry
        .register(
            widget(&a, "main").action("act", counting(&runs, None, Value::Null).precondition(pre)).build().unwrap(),
        )
        .unwrap();
    let r = env.call(inv("view:test.widget.act").input(json!({})), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::PreconditionFailed));
    let e = r.error.as_ref().unwrap();
    assert_eq!(e.message, "ids must exist");
    assert_eq!(e.retry, Retry::WithChanges);
    assert_eq!(detail(&r, "missing"), json!(["dev_x"]));
    assert_eq!(runs.get(), 0);
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].0, json!({"n": 1}), "the precondition sees the effective input");
    assert_eq!(seen[0].1.capability_id, "view:test.widget.act");
}

// "return/throw PreconditionFailure to fail with PRECONDITION_FAILED" (thrown from the handler)
#[test]
fn a_precondition_failure_raised_by_the_handler_is_precondition_failed() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let raising = ActionBinding::new(execute_fn(|_, _| async {
        let mut d = serde_json::Map::new();
        d.insert("row".into(), json!(3));
        Err(HandlerError::Precondition(PreconditionFailure { message: "row 3 is locked".into(), details: Some(d) }))
    }));
    env.registry.register(widget(&a, "main").action("act", raising).build().unwrap()).unwrap();
    let r = env.call(inv("view:test.widget.act"), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::PreconditionFailed));
    assert_eq!(r.error.as_ref().unwrap().message, "row 3 is locked");
    assert_eq!(detail(&r, "row"), json!(3));
}

// "output?: JsonValue; // validated against outputSchema if declared"; DECISIONS §6 EXECUTION_FAILED "bad output"
#[test]
fn the_output_is_validated_against_the_declared_schema() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let bad = ActionBinding::new(execute_fn(|_, _| async { Ok(json!({"ok": "yes"})) }));
    env.registry
        .register(
            widget(&a, "main")
                .action("typed", bad)
                .observation("state", ObservationBinding::new(read_sync(|_| json!({"n": "one"}))))
                .build()
                .unwrap(),
        )
        .unwrap();
    for id in ["view:test.widget.typed", "view:test.widget.state"] {
        let r = env.call(inv(id), InvokeOptions::default());
        assert_eq!(r.code(), Some(ErrorCode::ExecutionFailed), "{id}");
        assert_eq!(detail(&r, "reason"), json!("invalid-output"));
        assert!(r.output.is_none());
    }
    env.registry.register(widget(&a, "good").build().unwrap()).unwrap();
    let r = env.call(inv("view:test.widget.typed").instance("good"), InvokeOptions::default());
    assert_eq!(r.output, Some(json!({"ok": true})));
}

fn string_of_json_len(bytes: usize) -> Value {
    Value::String("x".repeat(bytes - 2))
}

// "Observation/action outputs exceeding limits.maxOutputBytes (default 32 kB) settle as EXECUTION_FAILED (details.reason: "output-too-large"); truncation is never silent."
#[test]
fn an_output_over_32768_bytes_is_execution_failed_and_never_truncated() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let size = Arc::new(Mutex::new(32_768usize));
    let s1 = size.clone();
    let s2 = size.clone();
    let blob = ObservationBinding::new(read_sync(move |_| string_of_json_len(*s1.lock().unwrap())));
    let act = ActionBinding::new(execute_fn(move |_, _| {
        let v = string_of_json_len(*s2.lock().unwrap());
        async move { Ok(v) }
    }));
    env.registry.register(widget(&a, "main").observation("blob", blob).action("act", act).build().unwrap()).unwrap();
    for id in ["view:test.widget.blob", "view:test.widget.act"] {
        *size.lock().unwrap() = 32_768;
        let r = env.call(inv(id), InvokeOptions::default());
        assert!(r.is_ok(), "exactly maxOutputBytes passes: {id}");
        assert_eq!(r.output.unwrap().as_str().unwrap().len(), 32_766);
        *size.lock().unwrap() = 32_769;
        let r = env.call(inv(id), InvokeOptions::default());
        assert_eq!(r.code(), Some(ErrorCode::ExecutionFailed), "{id}");
        assert_eq!(detail(&r, "reason"), json!("output-too-large"));
        assert!(r.output.is_none(), "never truncated");
    }
}

// "All defaults are overridable via RegistryOptions.limits" (maxOutputBytes)
#[test]
fn max_output_bytes_follows_the_registry_limits() {
    let a = test_authority();
    let mut env = Env::with(&a, |o| o.limits(AgentSurfaceLimits { max_output_bytes: 10, ..Default::default() }));
    env.registry
        .register(
            widget(&a, "main")
                .observation("blob", ObservationBinding::new(read_sync(|_| json!("0123456789"))))
                .build()
                .unwrap(),
        )
        .unwrap();
    let r = env.call(inv("view:test.widget.blob"), InvokeOptions::default());
    assert_eq!(detail(&r, "reason"), json!("output-too-large"));
}

// DECISIONS §6: "EXECUTION_FAILED | handler threw …"; a Rust handler that panics is a throw, not a crash of the caller
#[test]
fn a_panicking_handler_settles_execution_failed() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let panicking = ActionBinding::new(execute_fn(|_, _| async { crate::common::deliberate_panic("handler bug") }));
    env.registry.register(widget(&a, "main").action("act", panicking).build().unwrap()).unwrap();
    let p = env.start(inv("view:test.widget.act").id("boom"), InvokeOptions::default());
    assert_eq!(p.result().code(), Some(ErrorCode::ExecutionFailed));
    // The instance queue is free again and the result is cached like any terminal one.
    assert!(env.call(inv("view:test.widget.other"), InvokeOptions::default()).is_ok());
    assert_eq!(env.call(inv("view:test.widget.act").id("boom"), InvokeOptions::default()), p.result());
    let st = env.registry.stats();
    assert_eq!((st.admission_groups, st.running), (0, 0));
}

// Handler contexts: "capabilityId, registrationId, consumer, host (from RegistryOptions.context()), invocationId, signal, confirmation (present iff … evidence)"
#[test]
fn handler_contexts_carry_identity_host_and_signal() {
    let a = test_authority();
    let mut env = Env::with(&a, |o| {
        o.context(|| {
            let mut m = serde_json::Map::new();
            m.insert("tenant".into(), json!("acme"));
            m
        })
    });
    let seen: Seen = Arc::default();
    let reads: Arc<Mutex<Vec<ReadContext>>> = Arc::default();
    let r2 = reads.clone();
    let h = env
        .registry
        .register(
            widget(&a, "main")
                .action("act", recording(&seen, None))
                .observation(
                    "state",
                    ObservationBinding::new(read_sync(move |c| {
                        r2.lock().unwrap().push(c.clone());
                        json!({"n": 1})
                    })),
                )
                .build()
                .unwrap(),
        )
        .unwrap();
    assert!(env.call(inv("view:test.widget.act").id("ctx-1"), as_consumer("alice")).is_ok());
    assert!(env.call(inv("view:test.widget.state"), as_consumer("alice")).is_ok());
    let seen = seen.lock().unwrap();
    let c: &ActionContext = &seen[0].1;
    assert_eq!(c.capability_id, "view:test.widget.act");
    assert_eq!(c.registration_id, h.registration_id());
    assert_eq!(c.consumer, consumer("alice"));
    assert_eq!(c.host.get("tenant"), Some(&json!("acme")));
    assert_eq!(c.invocation_id, "ctx-1");
    assert!(!c.signal.is_aborted());
    assert!(c.confirmation.is_none(), "no evidence, no confirmation");
    let r = &reads.lock().unwrap()[0];
    assert_eq!((r.capability_id.as_str(), r.registration_id.as_str()), ("view:test.widget.state", h.registration_id()));
    assert_eq!(r.host.get("tenant"), Some(&json!("acme")));
}
