//! Spec core-api §Confirmation API: a pending confirmation expires at `confirmationTtlMs` by
//! itself (the registry's timer and spawn seams), and `resolve(id, { approved, reason? })`.
//! Time runs on the ManualClock; background tasks on the test pool.

use crate::common::*;
use agent_surface_engine::confirm::{Resolution, ResolveError};
use agent_surface_engine::events::{AgentSurfaceEvent, ConfirmationOutcome};
use agent_surface_engine::invoke::InvokeOptions;
use agent_surface_model::errors::ErrorCode;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

fn env_with(a: &agent_surface_engine::authority::CapabilityAuthority, runs: &Counter) -> Env {
    let env = Env::new(a);
    env.registry
        .register(widget(a, "main").action("confirm", counting(runs, None, Value::Null)).build().unwrap())
        .unwrap();
    env
}

fn expired_events(env: &Env, cid: &str) -> usize {
    env.take_events()
        .iter()
        .filter(|e| {
            matches!(e, AgentSurfaceEvent::ConfirmationResolved { confirmation_id, outcome: ConfirmationOutcome::Expired } if confirmation_id == cid)
        })
        .count()
}

// "expiresAt: string; // default TTL 120 s": at the TTL the confirmation expires without any
// other call: confirmation-resolved {expired} and the subscribe listeners, exactly once.
#[test]
fn a_pending_confirmation_expires_at_the_ttl_without_another_call() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with(&a, &runs);
    let lists: Arc<Mutex<Vec<usize>>> = Arc::default();
    let l = lists.clone();
    let _sub = env.registry.confirmations().subscribe(move |p| l.lock().unwrap().push(p.len()));
    let r = env.call(inv("view:test.widget.confirm").id("ttl"), InvokeOptions::default());
    let cid = confirmation_id(&r);
    assert_eq!(*lists.lock().unwrap(), vec![1]);
    env.take_events();
    env.advance(119_999);
    assert_eq!(expired_events(&env, &cid), 0);
    assert_eq!(*lists.lock().unwrap(), vec![1]);
    // Only time moves: no pending(), resolve or invoke in between.
    env.advance(1);
    assert_eq!(*lists.lock().unwrap(), vec![1, 0], "the listeners hear the expiry");
    assert_eq!(expired_events(&env, &cid), 1);
    // Exactly once: later time, later reads and checks add nothing.
    env.advance(200_000);
    assert!(env.registry.confirmations().pending().is_empty());
    assert_eq!(expired_events(&env, &cid), 0);
    assert_eq!(*lists.lock().unwrap(), vec![1, 0]);
    // An approve after expiry fails as before, and the evidence is no good.
    assert_eq!(env.registry.confirmations().resolve(&cid, true), Err(ResolveError::NotPending(cid.clone())));
    let retry = env.call(inv("view:test.widget.confirm").id("ttl").confirmation(&cid), InvokeOptions::default());
    assert_eq!(retry.code(), Some(ErrorCode::ConfirmationExpired));
    assert_eq!(runs.get(), 0);
}

#[test]
fn a_confirmation_resolved_before_the_ttl_does_not_expire_later() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with(&a, &runs);
    let cid = confirmation_id(&env.call(inv("view:test.widget.confirm").id("r"), InvokeOptions::default()));
    env.registry.confirmations().resolve(&cid, false).unwrap();
    env.settle();
    assert_eq!(env.rt.pending_timers(), 0, "the expiry task ends with the resolution");
    env.take_events();
    env.advance(120_000);
    assert_eq!(expired_events(&env, &cid), 0);
}

#[test]
fn without_a_spawner_expiry_is_lazy() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = Env::with(&a, |mut o| {
        o.spawn = None;
        o
    });
    env.registry
        .register(widget(&a, "main").action("confirm", counting(&runs, None, Value::Null)).build().unwrap())
        .unwrap();
    let cid = confirmation_id(&env.call(inv("view:test.widget.confirm").id("l"), InvokeOptions::default()));
    env.take_events();
    env.advance(120_000);
    assert_eq!(expired_events(&env, &cid), 0, "nothing runs in the background");
    assert!(env.registry.confirmations().pending().is_empty());
    assert_eq!(expired_events(&env, &cid), 1, "the next read expires it");
}

// "resolve(confirmationId, resolution: { approved: boolean; reason?: string })"; the reason is
// the user's words: the denied invocation carries it in details.reason.
#[test]
fn a_denial_reason_reaches_the_denied_invocation() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with(&a, &runs);
    let cid = confirmation_id(&env.call(inv("view:test.widget.confirm").id("d"), InvokeOptions::default()));
    env.registry.confirmations().resolve_with(&cid, Resolution::denied().reason("not on a Friday")).unwrap();
    let r = env.call(inv("view:test.widget.confirm").id("d").confirmation(&cid), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::ConfirmationDenied));
    assert_eq!(detail(&r, "reason"), json!("not on a Friday"));
    assert_eq!(runs.get(), 0);
    assert!(env.take_events().contains(&AgentSurfaceEvent::ConfirmationResolved {
        confirmation_id: cid,
        outcome: ConfirmationOutcome::Denied
    }));
}

#[test]
fn a_denial_without_a_reason_has_no_reason_detail() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with(&a, &runs);
    let cid = confirmation_id(&env.call(inv("view:test.widget.confirm").id("n"), InvokeOptions::default()));
    env.registry.confirmations().resolve_with(&cid, Resolution { approved: false, reason: None }).unwrap();
    let r = env.call(inv("view:test.widget.confirm").id("n").confirmation(&cid), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::ConfirmationDenied));
    assert_eq!(detail(&r, "reason"), Value::Null);
}

#[test]
fn an_approval_with_a_reason_runs_the_handler() {
    let a = test_authority();
    let runs = Counter::default();
    let mut env = env_with(&a, &runs);
    let cid = confirmation_id(&env.call(inv("view:test.widget.confirm").id("y"), InvokeOptions::default()));
    env.registry.confirmations().resolve_with(&cid, Resolution::approved().reason("fine")).unwrap();
    let r = env.call(inv("view:test.widget.confirm").id("y").confirmation(&cid), InvokeOptions::default());
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(runs.get(), 1);
}
