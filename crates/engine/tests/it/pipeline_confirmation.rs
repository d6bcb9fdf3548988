//! Spec core-api §Confirmation API and DECISIONS §6/§7 (step 7): CONFIRMATION_REQUIRED,
//! evidence binding, single use, TTL, the pending cap, denial, replay, policy escalation and the
//! ConfirmationController. TTLs run on the ManualClock.

use crate::common::*;
use agent_surface_engine::binding::{execute_fn, ActionBinding, ActionContext, ConfirmationEvidence};
use agent_surface_engine::confirm::{PendingConfirmation, ResolveError, WaitAborted};
use agent_surface_engine::events::{AgentSurfaceEvent, ConfirmationOutcome};
use agent_surface_engine::invoke::InvokeOptions;
use agent_surface_engine::policy::{PolicyDecision, PolicyPhase};
use agent_surface_engine::registry::DuplicateInstance;
use agent_surface_engine::signal::{AbortController, AbortReason};
use agent_surface_engine::snapshot::iso8601;
use agent_surface_model::effects::Effect;
use agent_surface_model::errors::{ErrorCode, Retry};
use futures::task::LocalSpawnExt;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

fn env_with(a: &agent_surface_engine::authority::CapabilityAuthority, runs: &Counter) -> Env {
    let env = Env::new(a);
    env.registry
        .register(widget(a, "main").action("confirm", counting(runs, None, Value::Null)).build().unwrap())
        .unwrap();
    env
}

/// Asks, approves and returns the confirmation id.
fn approved(env: &mut Env, req: agent_surface_engine::invoke::AgentInvocation, opts: InvokeOptions) -> String {
    let r = env.call(req, opts);
    assert_eq!(r.code(), Some(ErrorCode::ConfirmationRequired), "{r:?}");
    let cid = confirmation_id(&r);
    env.registry.confirmations().resolve(&cid, true).unwrap();
    cid
}

// DECISIONS §6: "CONFIRMATION_REQUIRED | protocol step; details {confirmationId, expiresAt, summary} | after-confirmation"; PendingConfirmation: "confirmationId: string; // "cnf_" + random", "summary … composed from description + effective input", "expiresAt … default TTL 120 s"
#[test]
fn confirmation_required_carries_id_expiry_and_summary() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with(&a, &runs);
    let r = env.call(inv("view:test.widget.confirm").input(json!({"tag": "north"})), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::ConfirmationRequired));
    assert_eq!(r.error.as_ref().unwrap().retry, Retry::AfterConfirmation);
    let cid = confirmation_id(&r);
    assert!(cid.starts_with("cnf_") && cid.len() > 12, "{cid}");
    assert_eq!(detail(&r, "expiresAt"), json!(iso8601(T0 + 120_000)));
    let summary = detail(&r, "summary");
    let summary = summary.as_str().unwrap();
    assert!(summary.contains("Test local-state action."), "{summary}");
    assert!(
        summary.contains(r#""n":1"#) && summary.contains("north"),
        "the effective input, defaults included: {summary}"
    );
    assert_eq!(runs.get(), 0);
    let other = env.call(inv("view:test.widget.confirm"), InvokeOptions::default());
    assert_ne!(confirmation_id(&other), cid, "random ids");
}

// PendingConfirmation fields: confirmationId, capabilityId, registrationId, consumerKey, effect, summary, input (effective), requestedAt, expiresAt
#[test]
fn pending_lists_the_request_for_the_host_ui() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with(&a, &runs);
    let r = env.call(inv("view:test.widget.confirm").input(json!({"tag": "x"})), as_consumer("alice"));
    let pending: Vec<PendingConfirmation> = env.registry.confirmations().pending();
    assert_eq!(pending.len(), 1);
    let p = &pending[0];
    assert_eq!(p.confirmation_id, confirmation_id(&r));
    assert_eq!(p.capability_id, "view:test.widget.confirm");
    assert_eq!(p.registration_id, env.registry.registrations()[0].0);
    assert_eq!(p.consumer_key, "test:alice");
    assert_eq!(p.effect, Effect::LocalState);
    assert_eq!(p.input, json!({"n": 1, "tag": "x"}));
    assert_eq!(p.summary, detail(&r, "summary"));
    assert_eq!((p.requested_at.as_str(), p.expires_at.clone()), (iso8601(T0).as_str(), iso8601(T0 + 120_000)));
    let wire = serde_json::to_value(p).unwrap();
    for k in [
        "confirmationId",
        "capabilityId",
        "registrationId",
        "consumerKey",
        "effect",
        "summary",
        "input",
        "requestedAt",
        "expiresAt",
    ] {
        assert!(wire.get(k).is_some(), "{k}");
    }
}

// DECISIONS §7: "evidence bound to capability, registration, consumer and effective-input fingerprint"; ActionContext.confirmation "Present iff this invocation carries approved confirmation evidence."
#[test]
fn approved_evidence_runs_the_handler_with_the_confirmation_in_its_context() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let seen: Seen = Arc::default();
    env.registry.register(widget(&a, "main").action("confirm", recording(&seen, None)).build().unwrap()).unwrap();
    env.advance(1_000);
    let cid = approved(&mut env, inv("view:test.widget.confirm").id("x"), InvokeOptions::default());
    let r = env.call(inv("view:test.widget.confirm").id("x").confirmation(&cid), InvokeOptions::default());
    assert!(r.is_ok(), "{r:?}");
    let ctx: ActionContext = seen.lock().unwrap()[0].1.clone();
    assert_eq!(ctx.confirmation, Some(ConfirmationEvidence { id: cid, approved_at: iso8601(T0 + 1_000) }));
}

// "evidence bound to capability …": evidence for one capability is refused for another, and stays usable for its own
#[test]
fn evidence_is_bound_to_the_capability() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = Env::new(&a);
    let (escalate, _) =
        TestPolicy::new("escalate", &[PolicyPhase::Invoke]).invoke(PolicyDecision::RequireConfirmation).build();
    env.registry
        .register(
            widget(&a, "main")
                .action("confirm", counting(&runs, None, Value::Null))
                .action("act", ok_action().policy(escalate))
                .build()
                .unwrap(),
        )
        .unwrap();
    let cid = approved(&mut env, inv("view:test.widget.confirm"), InvokeOptions::default());
    let r = env.call(inv("view:test.widget.act").confirmation(&cid), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::ConfirmationExpired), "{r:?}");
    assert!(env.call(inv("view:test.widget.confirm").confirmation(&cid), InvokeOptions::default()).is_ok());
    assert_eq!(runs.get(), 1);
}

// "evidence bound to … registration": a remount is another registration
#[test]
fn evidence_is_bound_to_the_registration() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = Env::with(&a, |o| o.on_duplicate_instance(DuplicateInstance::Replace));
    env.registry
        .register(widget(&a, "main").action("confirm", counting(&runs, None, Value::Null)).build().unwrap())
        .unwrap();
    let cid = approved(&mut env, inv("view:test.widget.confirm"), InvokeOptions::default());
    env.registry
        .register(widget(&a, "main").action("confirm", counting(&runs, None, Value::Null)).build().unwrap())
        .unwrap();
    let r = env.call(inv("view:test.widget.confirm").confirmation(&cid), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::ConfirmationExpired));
    assert_eq!(runs.get(), 0);
}

// "evidence bound to … consumer"
#[test]
fn evidence_is_bound_to_the_consumer() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with(&a, &runs);
    let cid = approved(&mut env, inv("view:test.widget.confirm"), as_consumer("alice"));
    let r = env.call(inv("view:test.widget.confirm").confirmation(&cid), as_consumer("mallory"));
    assert_eq!(r.code(), Some(ErrorCode::ConfirmationExpired));
    assert!(env.call(inv("view:test.widget.confirm").confirmation(&cid), as_consumer("alice")).is_ok());
    assert_eq!(runs.get(), 1);
}

// "evidence bound to … effective-input fingerprint": other input is refused; the same effective input (a default spelled out) is the same request
#[test]
fn evidence_is_bound_to_the_effective_input() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with(&a, &runs);
    let cid = approved(&mut env, inv("view:test.widget.confirm").input(json!({})), InvokeOptions::default());
    let r =
        env.call(inv("view:test.widget.confirm").input(json!({"n": 2})).confirmation(&cid), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::ConfirmationExpired));
    let r =
        env.call(inv("view:test.widget.confirm").input(json!({"n": 1})).confirmation(&cid), InvokeOptions::default());
    assert!(r.is_ok(), "{{}} and {{n:1}} are the same effective input: {r:?}");
    assert_eq!(runs.get(), 1);
}

// DECISIONS §7: "single use"; DECISIONS §6: "CONFIRMATION_EXPIRED | evidence expired or already used | with-changes"
#[test]
fn evidence_is_single_use_and_a_replay_is_confirmation_expired() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with(&a, &runs);
    let cid = approved(&mut env, inv("view:test.widget.confirm").id("one"), InvokeOptions::default());
    assert!(env.call(inv("view:test.widget.confirm").id("one").confirmation(&cid), InvokeOptions::default()).is_ok());
    let replay = env.call(inv("view:test.widget.confirm").id("two").confirmation(&cid), InvokeOptions::default());
    assert_eq!(replay.code(), Some(ErrorCode::ConfirmationExpired));
    assert_eq!(replay.error.unwrap().retry, Retry::WithChanges);
    assert_eq!(runs.get(), 1);
    let unknown = env
        .call(inv("view:test.widget.confirm").id("three").confirmation("cnf_doesnotexist"), InvokeOptions::default());
    assert_eq!(unknown.code(), Some(ErrorCode::ConfirmationExpired));
}

// PendingConfirmation.expiresAt: "default TTL 120 s"; Limits "confirmationTtlMs: number; // 120_000"
#[test]
fn a_pending_confirmation_expires_after_120_seconds() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with(&a, &runs);
    let r = env.call(inv("view:test.widget.confirm").id("late"), InvokeOptions::default());
    let cid = confirmation_id(&r);
    env.advance(119_999);
    assert_eq!(env.registry.confirmations().pending().len(), 1);
    env.advance(1);
    assert!(env.registry.confirmations().pending().is_empty());
    assert_eq!(env.registry.confirmations().resolve(&cid, true), Err(ResolveError::NotPending(cid.clone())));
    let retry = env.call(inv("view:test.widget.confirm").id("late").confirmation(&cid), InvokeOptions::default());
    assert_eq!(retry.code(), Some(ErrorCode::ConfirmationExpired));
    assert_eq!(runs.get(), 0);
    assert!(env.take_events().contains(&AgentSurfaceEvent::ConfirmationResolved {
        confirmation_id: cid,
        outcome: ConfirmationOutcome::Expired
    }));
}

// CONFIRMATION_REQUIRED details.expiresAt (TTL 120 s) bounds the evidence too: "CONFIRMATION_EXPIRED | evidence expired …"
#[test]
fn approved_evidence_expires_at_expires_at() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with(&a, &runs);
    let cid = approved(&mut env, inv("view:test.widget.confirm").id("slow"), InvokeOptions::default());
    env.advance(120_000);
    let r = env.call(inv("view:test.widget.confirm").id("slow").confirmation(&cid), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::ConfirmationExpired), "{r:?}");
    assert_eq!(runs.get(), 0);
}

// "maxPendingConfirmations: number; // 32; overflow fails RATE_LIMITED, no record created"
#[test]
fn at_most_32_confirmations_are_pending_and_overflow_creates_no_record() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with(&a, &runs);
    for i in 0..32 {
        let r = env.call(inv("view:test.widget.confirm").id(format!("p{i}")), InvokeOptions::default());
        assert_eq!(r.code(), Some(ErrorCode::ConfirmationRequired));
    }
    env.take_events();
    let r = env.call(inv("view:test.widget.confirm").id("p32"), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::RateLimited));
    assert_eq!(r.error.as_ref().unwrap().retry, Retry::AfterDelay);
    assert_eq!(env.registry.confirmations().pending().len(), 32);
    assert_eq!(env.registry.stats().pending_confirmations, 32);
    assert!(
        !env.take_events().iter().any(|e| matches!(e, AgentSurfaceEvent::ConfirmationRequested { .. })),
        "no record, no event"
    );
    // Resolving one makes room.
    let first = env.registry.confirmations().pending()[0].confirmation_id.clone();
    env.registry.confirmations().resolve(&first, false).unwrap();
    assert_eq!(
        env.call(inv("view:test.widget.confirm").id("p32"), InvokeOptions::default()).code(),
        Some(ErrorCode::ConfirmationRequired)
    );
}

// DECISIONS §6: "CONFIRMATION_DENIED | the user denied | never"
#[test]
fn a_denied_confirmation_is_confirmation_denied() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with(&a, &runs);
    let cid = confirmation_id(&env.call(inv("view:test.widget.confirm").id("d"), InvokeOptions::default()));
    env.registry.confirmations().resolve(&cid, false).unwrap();
    let r = env.call(inv("view:test.widget.confirm").id("d").confirmation(&cid), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::ConfirmationDenied));
    assert_eq!(r.error.unwrap().retry, Retry::Never);
    assert_eq!(runs.get(), 0);
}

// Evidence still awaiting the user is not approval: the answer is CONFIRMATION_REQUIRED for the same confirmation
#[test]
fn presenting_unresolved_evidence_asks_again_for_the_same_confirmation() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with(&a, &runs);
    let cid = confirmation_id(&env.call(inv("view:test.widget.confirm"), InvokeOptions::default()));
    let r = env.call(inv("view:test.widget.confirm").confirmation(&cid), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::ConfirmationRequired));
    assert_eq!(confirmation_id(&r), cid);
    assert_eq!(env.registry.confirmations().pending().len(), 1);
    assert_eq!(runs.get(), 0);
}

// DECISIONS §7: "6 precondition and input-aware policy (invoke, may escalate to confirmation)"
#[test]
fn an_invoke_policy_escalates_a_never_confirm_action() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let seen: Seen = Arc::default();
    let (escalate, _) =
        TestPolicy::new("escalate", &[PolicyPhase::Invoke]).invoke(PolicyDecision::RequireConfirmation).build();
    env.registry
        .register(widget(&a, "main").action("act", recording(&seen, None).policy(escalate)).build().unwrap())
        .unwrap();
    let cid = approved(&mut env, inv("view:test.widget.act").id("e"), InvokeOptions::default());
    let r = env.call(inv("view:test.widget.act").id("e").confirmation(&cid), InvokeOptions::default());
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(seen.lock().unwrap()[0].1.confirmation.as_ref().map(|c| c.id.clone()), Some(cid));
}

// A registry-scope policy escalates every action (scope: "registry, component and capability")
#[test]
fn a_registry_policy_escalates_an_optional_confirmation_action() {
    let a = test_authority();
    let (escalate, _) =
        TestPolicy::new("escalate", &[PolicyPhase::Invoke]).invoke(PolicyDecision::RequireConfirmation).build();
    let mut env = Env::with(&a, |o| o.policy(escalate));
    env.registry.register(widget(&a, "main").build().unwrap()).unwrap();
    assert_eq!(
        env.call(inv("view:test.widget.optional"), InvokeOptions::default()).code(),
        Some(ErrorCode::ConfirmationRequired)
    );
    assert!(
        env.call(inv("view:test.widget.state"), InvokeOptions::default()).is_ok(),
        "observations skip confirmation"
    );
}

// DECISIONS §6: RATE_LIMITED is an "after-delay" retry; the approved evidence must survive a full queue so "the retry executes (once)"
#[test]
fn approved_evidence_survives_a_full_queue() {
    let a = test_authority();
    let runs = Counter::default();
    let latch = Latch::default();
    let mut env = Env::new(&a);
    env.registry
        .register(
            widget(&a, "main")
                .action("act", counting(&Counter::default(), Some(&latch), Value::Null))
                .action("confirm", counting(&runs, None, Value::Null))
                .build()
                .unwrap(),
        )
        .unwrap();
    let cid = approved(&mut env, inv("view:test.widget.confirm").id("q"), InvokeOptions::default());
    let busy: Vec<Pending> = (0..3).map(|_| env.start(inv("view:test.widget.act"), InvokeOptions::default())).collect();
    let r = env.call(inv("view:test.widget.confirm").id("q").confirmation(&cid), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::RateLimited));
    latch.open();
    env.settle();
    assert!(busy.iter().all(|p| p.result().is_ok()));
    let r = env.call(inv("view:test.widget.confirm").id("q").confirmation(&cid), InvokeOptions::default());
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(runs.get(), 1);
    let replay = env.call(inv("view:test.widget.confirm").id("q2").confirmation(&cid), InvokeOptions::default());
    assert_eq!(replay.code(), Some(ErrorCode::ConfirmationExpired), "still single use");
}

// ConfirmationController: "resolve(confirmationId, resolution): void"; resolving something not pending is refused
#[test]
fn resolve_refuses_unknown_and_settled_confirmations() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with(&a, &runs);
    let c = env.registry.confirmations();
    assert_eq!(c.resolve("cnf_nope", true), Err(ResolveError::NotPending("cnf_nope".into())));
    let cid = confirmation_id(&env.call(inv("view:test.widget.confirm"), InvokeOptions::default()));
    c.resolve(&cid, true).unwrap();
    assert_eq!(c.resolve(&cid, false), Err(ResolveError::NotPending(cid.clone())), "the first answer stands");
    assert!(c.pending().is_empty());
}

fn wait_for(
    env: &Env,
    cid: &str,
    signal: Option<agent_surface_engine::signal::AbortSignal>,
) -> Arc<Mutex<Option<Result<ConfirmationOutcome, WaitAborted>>>> {
    let c = env.registry.confirmations();
    let out: Arc<Mutex<Option<Result<ConfirmationOutcome, WaitAborted>>>> = Arc::default();
    let o = out.clone();
    let cid = cid.to_string();
    env.pool
        .spawner()
        .spawn_local(async move {
            *o.lock().unwrap() = Some(c.wait_for(&cid, signal).await);
        })
        .unwrap();
    out
}

// "waitFor(confirmationId, opts?: { signal?: AbortSignal }): Promise<"approved" | "denied" | "expired">"
#[test]
fn wait_for_resolves_approved_denied_or_expired() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with(&a, &runs);
    let ids: Vec<String> = (0..4)
        .map(|i| {
            confirmation_id(&env.call(inv("view:test.widget.confirm").id(format!("w{i}")), InvokeOptions::default()))
        })
        .collect();
    let cancel = AbortController::new();
    let w: Vec<_> = vec![
        wait_for(&env, &ids[0], None),
        wait_for(&env, &ids[1], None),
        wait_for(&env, &ids[2], None),
        wait_for(&env, &ids[3], Some(cancel.signal())),
    ];
    env.settle();
    assert!(w.iter().all(|o| o.lock().unwrap().is_none()));
    let c = env.registry.confirmations();
    c.resolve(&ids[0], true).unwrap();
    c.resolve(&ids[1], false).unwrap();
    env.settle();
    assert_eq!(*w[0].lock().unwrap(), Some(Ok(ConfirmationOutcome::Approved)));
    assert_eq!(*w[1].lock().unwrap(), Some(Ok(ConfirmationOutcome::Denied)));
    cancel.abort(AbortReason::Cancelled);
    env.settle();
    assert_eq!(*w[3].lock().unwrap(), Some(Err(WaitAborted)), "an aborted wait stops waiting, as an error");
    assert_eq!(c.pending().len(), 2, "aborting the wait does not resolve the confirmation");
    assert!(c.pending().iter().any(|p| p.confirmation_id == ids[3]), "it stays pending");
    env.advance(119_999);
    assert!(w[2].lock().unwrap().is_none());
    env.advance(1);
    assert_eq!(*w[2].lock().unwrap(), Some(Ok(ConfirmationOutcome::Expired)), "expiry by the TTL timer");
    assert_eq!(futures::executor::block_on(c.wait_for("cnf_unknown", None)), Ok(ConfirmationOutcome::Expired));
}

// "subscribe(listener: (pending: PendingConfirmation[]) => void): Unsubscribe"
#[test]
fn subscribe_reports_the_pending_list_on_every_change() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with(&a, &runs);
    let lists: Arc<Mutex<Vec<Vec<String>>>> = Arc::default();
    let l = lists.clone();
    let sub = env
        .registry
        .confirmations()
        .subscribe(move |p| l.lock().unwrap().push(p.iter().map(|c| c.confirmation_id.clone()).collect()));
    let c1 = confirmation_id(&env.call(inv("view:test.widget.confirm").id("s1"), InvokeOptions::default()));
    env.advance(1);
    let c2 = confirmation_id(&env.call(inv("view:test.widget.confirm").id("s2"), InvokeOptions::default()));
    env.registry.confirmations().resolve(&c1, true).unwrap();
    assert_eq!(*lists.lock().unwrap(), vec![vec![c1.clone()], vec![c1.clone(), c2.clone()], vec![c2.clone()]]);
    drop(sub);
    env.registry.confirmations().resolve(&c2, false).unwrap();
    assert_eq!(lists.lock().unwrap().len(), 3, "unsubscribed");
}

// Events: "confirmation-requested strictly before resolution"
#[test]
fn confirmation_requested_comes_before_confirmation_resolved() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with(&a, &runs);
    let c1 = approved(&mut env, inv("view:test.widget.confirm").id("a"), InvokeOptions::default());
    let c2 = confirmation_id(&env.call(inv("view:test.widget.confirm").id("b"), InvokeOptions::default()));
    env.registry.confirmations().resolve(&c2, false).unwrap();
    let c3 = confirmation_id(&env.call(inv("view:test.widget.confirm").id("c"), InvokeOptions::default()));
    env.advance(120_000);
    let _ = env.registry.confirmations().pending();
    let _ = env.call(inv("view:test.widget.confirm").id("d"), InvokeOptions::default());
    let events = env.take_events();
    let pos = |want: &dyn Fn(&AgentSurfaceEvent) -> bool| {
        events.iter().position(want).unwrap_or_else(|| panic!("missing in {events:?}"))
    };
    for (cid, outcome) in
        [(&c1, ConfirmationOutcome::Approved), (&c2, ConfirmationOutcome::Denied), (&c3, ConfirmationOutcome::Expired)]
    {
        let req = pos(
            &|e| matches!(e, AgentSurfaceEvent::ConfirmationRequested { confirmation_id, capability_id, .. } if confirmation_id == cid && capability_id == "view:test.widget.confirm"),
        );
        let res = pos(
            &|e| matches!(e, AgentSurfaceEvent::ConfirmationResolved { confirmation_id, outcome: o } if confirmation_id == cid && *o == outcome),
        );
        assert!(req < res, "{cid}: requested at {req}, resolved at {res}");
    }
}

// A destructive procedure runs only with evidence (the example app's decommission, end to end)
#[test]
fn a_destructive_procedure_needs_confirmation_and_runs_once_with_evidence() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = Env::new(&a);
    let r2 = runs.clone();
    let wipe = ActionBinding::new(execute_fn(move |input, ctx: ActionContext| {
        r2.hit();
        assert!(ctx.confirmation.is_some());
        async move { Ok(json!({"wiped": input["ids"]})) }
    }));
    env.registry
        .register(
            widget(&a, "main").procedure(a.procedure("domain:test.wipe").unwrap().bind(wipe).unwrap()).build().unwrap(),
        )
        .unwrap();
    let req = inv("domain:test.wipe").id("w").input(json!({"ids": ["a", "b"]}));
    let cid = approved(&mut env, req.clone(), InvokeOptions::default());
    assert_eq!(env.registry.confirmations().pending().len(), 0);
    let r = env.call(req.confirmation(&cid), InvokeOptions::default());
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(runs.get(), 1);
}
