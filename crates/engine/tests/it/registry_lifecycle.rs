//! Issue 4, Registry / Registration lifecycle / Versioning / Events: one test per normative
//! rule of core-api.md (each test quotes the sentence it proves).

use crate::registry_support::*;
use agent_surface_engine::binding::{read_sync, ObservationBinding};
use agent_surface_engine::events::{AgentSurfaceEvent, RejectReason};
use agent_surface_engine::invoke::AgentInvocation;
use agent_surface_engine::registry::{
    AvailabilityOverride, DefinitionError, DuplicateInstance, DuplicateSuffixPolicy, GuardDecision, LogLevel,
    RegistrationCandidate, RegistrationPatch, RegistrationStatus,
};
use agent_surface_engine::snapshot::SnapshotContext;
use agent_surface_model::errors::ErrorCode;
use agent_surface_model::limits::AgentSurfaceLimits;
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

fn is_base62(s: &str) -> bool {
    s.chars().all(|c| c.is_ascii_alphanumeric())
}

fn registered(ev: &AgentSurfaceEvent) -> Option<&str> {
    match ev {
        AgentSurfaceEvent::ComponentRegistered { registration_id, .. } => Some(registration_id),
        _ => None,
    }
}

fn patch_enabled(enabled: bool) -> RegistrationPatch {
    RegistrationPatch { enabled: Some(enabled), availability: None }
}

fn patch_override(name: &str, available: bool, reason: Option<&str>) -> RegistrationPatch {
    RegistrationPatch {
        enabled: None,
        availability: Some(
            [(name.to_string(), AvailabilityOverride { available, reason: reason.map(str::to_string) })].into(),
        ),
    }
}

// --- Identifiers --------------------------------------------------------------------------

// `registrationId: string; // "reg_" + monotonic + random`.
#[test]
fn registration_id_is_reg_plus_monotonic_plus_random() {
    let a = authority();
    let (r, _) = registry(&a);
    let mut last = 0u64;
    let mut randoms = std::collections::BTreeSet::new();
    for i in 0..20 {
        let h = r.register(bind(&a, "low.widget", &format!("w{i}"))).unwrap();
        let rest = h.registration_id().strip_prefix("reg_").expect("reg_ prefix");
        let (counter, random) = rest.split_once('_').expect("counter _ random");
        let counter: u64 = counter.parse().expect("a decimal counter");
        assert!(counter > last, "monotonic: {counter} after {last}");
        last = counter;
        assert!(random.len() >= 6 && is_base62(random), "{random}");
        randoms.insert(random.to_string());
    }
    assert!(randoms.len() > 1, "the random part varies");
    // A rejected registration consumes an id too; ids never repeat.
    let dup = r.register(bind(&a, "low.widget", "w0")).unwrap();
    assert_eq!(dup.status(), RegistrationStatus::Rejected);
    assert!(dup.registration_id().starts_with("reg_"));
}

// `surfaceId: "srf_" + 22 random base62 chars, minted per registry`.
#[test]
fn surface_id_is_srf_plus_22_base62_per_registry() {
    let a = authority();
    let (r1, _) = registry(&a);
    let (r2, _) = registry(&a);
    for r in [&r1, &r2] {
        let tail = r.surface_id().strip_prefix("srf_").expect("srf_ prefix");
        assert_eq!(tail.len(), 22);
        assert!(is_base62(tail), "{tail}");
    }
    assert_ne!(r1.surface_id(), r2.surface_id(), "distinguishes page loads");
    assert_eq!(r1.snapshot(&SnapshotContext::default()).surface_id, r1.surface_id());
}

// Ids come from the platform's entropy (getrandom), not from a seeded generator: registries
// created the same way at the same moment, with no seed or clock of their own, never share a
// surfaceId, and every id keeps its documented shape.
#[test]
fn unseeded_registries_get_distinct_surface_ids_of_the_documented_shape() {
    let a = authority();
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let a = a.clone();
            std::thread::spawn(move || {
                agent_surface_engine::AgentSurfaceRegistry::new(agent_surface_engine::RegistryOptions::new(a))
                    .surface_id()
                    .to_string()
            })
        })
        .collect();
    let mut ids: Vec<String> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    ids.push(
        agent_surface_engine::AgentSurfaceRegistry::new(agent_surface_engine::RegistryOptions::new(a))
            .surface_id()
            .into(),
    );
    for id in &ids {
        let tail = id.strip_prefix("srf_").expect("srf_ prefix");
        assert_eq!(tail.len(), 22, "{id}");
        assert!(is_base62(tail), "{id}");
    }
    let distinct: std::collections::BTreeSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len(), "{ids:?}");
}

// --- Versioning ---------------------------------------------------------------------------

// `surfaceVersion: unsigned integer starting at "0" (empty registry) ... Serialized as a
// decimal string`.
#[test]
fn surface_version_starts_at_zero() {
    let a = authority();
    let (r, _) = registry(&a);
    assert_eq!(r.version(), "0");
    assert_eq!(r.snapshot(&SnapshotContext::default()).surface_version, "0");
}

// "incremented by 1 for every surface-affecting mutation: register".
#[test]
fn register_bumps_the_version_by_one() {
    let a = authority();
    let (r, _) = registry(&a);
    r.register(bind(&a, "low.widget", "a")).unwrap();
    assert_eq!(r.version(), "1");
    r.register(bind(&a, "low.widget", "b")).unwrap();
    assert_eq!(r.version(), "2");
}

// "... unregister".
#[test]
fn unregister_bumps_the_version_by_one() {
    let a = authority();
    let (r, _) = registry(&a);
    let h = r.register(bind(&a, "low.widget", "a")).unwrap();
    h.unregister();
    assert_eq!(r.version(), "2");
}

// "... replace" (one mutation: the replaced registration's removal is part of it).
#[test]
fn replace_bumps_the_version_by_one() {
    let a = authority();
    let (r, _) = registry_with(&a, |o| o.on_duplicate_instance(DuplicateInstance::Replace));
    r.register(bind(&a, "low.widget", "a")).unwrap();
    let before = version(&r);
    r.register(bind(&a, "low.widget", "a")).unwrap();
    assert_eq!(version(&r), before + 1);
}

// "... update({enabled|availability})" — enabled.
#[test]
fn update_enabled_bumps_the_version_by_one() {
    let a = authority();
    let (r, _) = registry(&a);
    let h = r.register(bind(&a, "low.widget", "a")).unwrap();
    h.update(patch_enabled(false));
    assert_eq!(r.version(), "2");
    h.update(patch_enabled(true));
    assert_eq!(r.version(), "3");
}

// "... update({enabled|availability})" — availability.
#[test]
fn update_availability_bumps_the_version_by_one() {
    let a = authority();
    let (r, _) = registry(&a);
    let h = r.register(bind(&a, "low.widget", "a")).unwrap();
    h.update(patch_override("readWidget", false, Some("loading")));
    assert_eq!(r.version(), "2");
}

// "... invalidate()" / "Bumps the surface version without changing anything".
#[test]
fn invalidate_bumps_the_version_by_one_and_changes_nothing_else() {
    let a = authority();
    let (r, _) = registry(&a);
    let h = r.register(bind(&a, "low.widget", "a")).unwrap();
    let mut before = r.snapshot(&SnapshotContext::default());
    h.invalidate();
    assert_eq!(r.version(), "2");
    let after = r.snapshot(&SnapshotContext::default());
    before.surface_version = after.surface_version.clone();
    assert_eq!(before, after);
}

// "Handler swaps, when() drift, and bound-value changes do NOT bump the version" — when().
#[test]
fn when_drift_does_not_bump_the_version() {
    let a = authority();
    let (r, _) = registry(&a);
    let flag = Arc::new(AtomicBool::new(true));
    let f = flag.clone();
    r.register(bind_with(&a, "low.widget", "a", |b| {
        b.observation(
            "readWidget",
            ObservationBinding::new(read_sync(|_| json!({}))).when(move || f.load(Ordering::SeqCst), "hidden-tab"),
        )
    }))
    .unwrap();
    assert!(r.snapshot(&SnapshotContext::default()).components[0].observations[0].available);
    flag.store(false, Ordering::SeqCst);
    let snap = r.snapshot(&SnapshotContext::default());
    assert!(!snap.components[0].observations[0].available, "re-evaluated at snapshot");
    assert_eq!(snap.surface_version, "1");
}

// "Handler swaps ... and bound-value changes do NOT bump the version": running handlers
// (a read, an action) changes neither catalog nor identities.
#[test]
fn handler_calls_do_not_bump_the_version() {
    let a = authority();
    let (r, _) = registry(&a);
    r.register(bind(&a, "devices.detail", "a")).unwrap();
    assert!(invoke(&r, AgentInvocation::new("view:devices.detail.readDevice")).is_ok());
    let res = invoke(&r, AgentInvocation::new("view:devices.detail.close").input(json!({})));
    assert!(res.is_ok(), "{res:?}");
    assert_eq!((res.surface_version.as_str(), res.surface_changed), ("1", false));
    assert_eq!(r.version(), "1");
}

// snapshot() is "side-effect free": taking one bumps nothing.
#[test]
fn snapshot_does_not_bump_the_version() {
    let a = authority();
    let (r, _) = registry(&a);
    r.register(bind(&a, "low.widget", "a")).unwrap();
    for _ in 0..3 {
        r.snapshot(&SnapshotContext::default());
    }
    assert_eq!(r.version(), "1");
}

// A rejected registration is not a mutation: no version bump, no surface-changed.
#[test]
fn rejected_registrations_do_not_bump_the_version() {
    let a = authority();
    let (r, _) = registry(&a);
    r.register(bind(&a, "low.widget", "a")).unwrap();
    let (rec, _sub) = Recorder::attach(&r);
    r.register(bind(&a, "low.widget", "a")).unwrap();
    assert_eq!(r.version(), "1");
    assert!(rec.surface_changes().is_empty());
}

// --- Lifecycle ----------------------------------------------------------------------------

// Rule 1: "A registration is live immediately and appears in the next snapshot;
// surface-changed fires with the new version."
#[test]
fn a_registration_is_live_immediately_and_surface_changed_carries_the_new_version() {
    let a = authority();
    let (r, _) = registry(&a);
    let (rec, _sub) = Recorder::attach(&r);
    let h = r.register(bind(&a, "low.widget", "a")).unwrap();
    assert_eq!(h.status(), RegistrationStatus::Active);
    let snap = r.snapshot(&SnapshotContext::default());
    assert_eq!(snap.components[0].registration_id, h.registration_id());
    assert_eq!(
        rec.events(),
        vec![
            AgentSurfaceEvent::ComponentRegistered {
                registration_id: h.registration_id().into(),
                component_type: "low.widget".into(),
                instance_id: "a".into()
            },
            AgentSurfaceEvent::SurfaceChanged { surface_version: "1".into() },
        ]
    );
}

// Rule 4: "Unmount unregisters. Capabilities disappear from subsequent snapshots."
#[test]
fn unregister_removes_the_capabilities_from_the_next_snapshot() {
    let a = authority();
    let (r, _) = registry(&a);
    let h = r.register(bind(&a, "low.widget", "a")).unwrap();
    let (rec, _sub) = Recorder::attach(&r);
    h.unregister();
    assert_eq!(h.status(), RegistrationStatus::Unregistered);
    assert!(r.snapshot(&SnapshotContext::default()).components.is_empty());
    assert_eq!(
        rec.events(),
        vec![
            AgentSurfaceEvent::ComponentUnregistered {
                registration_id: h.registration_id().into(),
                component_type: "low.widget".into(),
                instance_id: "a".into()
            },
            AgentSurfaceEvent::SurfaceChanged { surface_version: "2".into() },
        ]
    );
}

// Collisions: "reject (default): the newcomer gets a dead handle + component-rejected event +
// dev console.error. First-wins".
#[test]
fn duplicate_instance_reject_gives_a_dead_handle_and_a_component_rejected_event() {
    let a = authority();
    let (r, _, logs) = dev_registry(&a);
    let first = r.register(bind(&a, "low.widget", "a")).unwrap();
    let (rec, _sub) = Recorder::attach(&r);
    let second = r.register(bind(&a, "low.widget", "a")).unwrap();
    assert_eq!(second.status(), RegistrationStatus::Rejected);
    assert_eq!(first.status(), RegistrationStatus::Active, "first wins");
    assert_eq!(
        rec.events(),
        vec![AgentSurfaceEvent::ComponentRejected {
            component_type: "low.widget".into(),
            instance_id: "a".into(),
            reason: RejectReason::Duplicate
        }]
    );
    let snap = r.snapshot(&SnapshotContext::default());
    assert_eq!(snap.components.len(), 1);
    assert_eq!(snap.components[0].registration_id, first.registration_id());
    let errors: Vec<_> = logs.lock().unwrap().iter().filter(|l| l.level == LogLevel::Error).cloned().collect();
    assert!(errors.iter().any(|l| l.message.contains("low.widget")), "{errors:?}");
    // Dead means dead: its calls change nothing.
    second.invalidate();
    second.unregister();
    assert_eq!(r.version(), "1");
    assert_eq!(first.status(), RegistrationStatus::Active);
}

// A different instanceId is a different component key: both live.
#[test]
fn same_type_with_another_instance_id_is_not_a_duplicate() {
    let a = authority();
    let (r, _) = registry(&a);
    let h1 = r.register(bind(&a, "low.widget", "a")).unwrap();
    let h2 = r.register(bind(&a, "low.widget", "b")).unwrap();
    assert_eq!((h1.status(), h2.status()), (RegistrationStatus::Active, RegistrationStatus::Active));
}

// "replace: the previous registration is unregistered (its invocations abort as
// COMPONENT_UNMOUNTED), then the newcomer registers."
#[test]
fn duplicate_instance_replace_unregisters_the_old_then_registers_the_new() {
    let a = authority();
    let (r, _) = registry_with(&a, |o| o.on_duplicate_instance(DuplicateInstance::Replace));
    let old = r.register(bind(&a, "low.widget", "a")).unwrap();
    let (rec, _sub) = Recorder::attach(&r);
    let new = r.register(bind(&a, "low.widget", "a")).unwrap();
    assert_eq!(old.status(), RegistrationStatus::Unregistered);
    assert_eq!(new.status(), RegistrationStatus::Active);
    assert_ne!(old.registration_id(), new.registration_id());
    assert_eq!(
        rec.events(),
        vec![
            AgentSurfaceEvent::ComponentUnregistered {
                registration_id: old.registration_id().into(),
                component_type: "low.widget".into(),
                instance_id: "a".into()
            },
            AgentSurfaceEvent::ComponentRegistered {
                registration_id: new.registration_id().into(),
                component_type: "low.widget".into(),
                instance_id: "a".into()
            },
            AgentSurfaceEvent::SurfaceChanged { surface_version: "2".into() },
        ]
    );
    let snap = r.snapshot(&SnapshotContext::default());
    assert_eq!(
        snap.components.iter().map(|c| c.registration_id.as_str()).collect::<Vec<_>>(),
        vec![new.registration_id()]
    );
    // The old registration is tombstoned; with its successor live, a late call is stale and
    // names the live registration ("differs from the live registration → STALE_CAPABILITY").
    assert_eq!(r.stats().tombstones, 1);
    let late = invoke(&r, AgentInvocation::new("view:low.widget.readWidget").registration(old.registration_id()));
    assert_eq!(late.code(), Some(ErrorCode::StaleCapability));
    assert_eq!(late.error.unwrap().details.unwrap()["liveRegistrationId"], json!(new.registration_id()));
}

// onRegister: "Guard invoked before accepting a registration"; guard rejection → "a dead
// handle (handle.status === "rejected"), emits component-rejected, and logs".
#[test]
fn on_register_guard_rejection_gives_a_dead_handle_and_reason_guard() {
    let a = authority();
    let seen: Arc<Mutex<Vec<RegistrationCandidate>>> = Arc::default();
    let s = seen.clone();
    let (r, _) = registry_with(&a, |o| {
        o.on_register(move |c| {
            s.lock().unwrap().push(c.clone());
            if c.instance_id == "untrusted" {
                GuardDecision::Reject
            } else {
                GuardDecision::Accept
            }
        })
    });
    let (rec, _sub) = Recorder::attach(&r);
    let bad = r.register(bind_with(&a, "low.widget", "untrusted", |b| b.internal("tenant", json!("t1")))).unwrap();
    assert_eq!(bad.status(), RegistrationStatus::Rejected);
    assert_eq!(
        rec.take(),
        vec![AgentSurfaceEvent::ComponentRejected {
            component_type: "low.widget".into(),
            instance_id: "untrusted".into(),
            reason: RejectReason::Guard
        }]
    );
    assert_eq!(r.version(), "0");
    let c = seen.lock().unwrap()[0].clone();
    assert_eq!(
        (c.component_type.as_str(), c.origin.as_str(), &c.internal["tenant"]),
        ("low.widget", "first-party", &json!("t1"))
    );
    let good = r.register(bind(&a, "low.widget", "trusted")).unwrap();
    assert_eq!(good.status(), RegistrationStatus::Active);
}

// A guard that panics cannot let a registration through (trust filtering fails closed).
#[test]
fn a_panicking_guard_rejects() {
    let a = authority();
    let (r, _) = registry_with(&a, |o| o.on_register(|_| crate::common::deliberate_panic("guard bug")));
    let (rec, _sub) = Recorder::attach(&r);
    let h = r.register(bind(&a, "low.widget", "a")).unwrap();
    assert_eq!(h.status(), RegistrationStatus::Rejected);
    assert!(matches!(rec.events()[0], AgentSurfaceEvent::ComponentRejected { reason: RejectReason::Guard, .. }));
}

// Rule 5: "Unregistered registrationIds are remembered in a bounded structure (default 100
// entries ...) so late invocations get the precise COMPONENT_UNMOUNTED".
#[test]
fn tombstones_keep_the_last_100_registrations() {
    let a = authority();
    let (r, _) = registry(&a);
    let mut ids = Vec::new();
    for i in 0..101 {
        let h = r.register(bind(&a, "low.widget", &format!("w{i}"))).unwrap();
        h.unregister();
        ids.push(h.registration_id().to_string());
    }
    assert_eq!(r.stats().tombstones, 100);
    let call = |id: &str| invoke(&r, AgentInvocation::new("view:low.widget.readWidget").registration(id)).code();
    assert_eq!(call(&ids[100]), Some(ErrorCode::ComponentUnmounted));
    assert_eq!(call(&ids[1]), Some(ErrorCode::ComponentUnmounted));
    assert_eq!(call(&ids[0]), Some(ErrorCode::CapabilityNotFound), "the oldest fell out of the bound");
}

// Rule 5: "... (default 100 entries / 5 min)", on the injected clock ("Injectable clock for
// deterministic policy, timeout, and TTL tests").
#[test]
fn tombstones_expire_after_five_minutes_on_the_injected_clock() {
    let a = authority();
    let (r, clock) = registry(&a);
    let h = r.register(bind(&a, "low.widget", "a")).unwrap();
    h.unregister();
    let call =
        || invoke(&r, AgentInvocation::new("view:low.widget.readWidget").registration(h.registration_id())).code();
    clock.advance(300_000);
    assert_eq!(call(), Some(ErrorCode::ComponentUnmounted), "still remembered at exactly 5 min");
    assert_eq!(r.stats().tombstones, 1);
    clock.advance(1);
    assert_eq!(r.stats().tombstones, 0);
    assert_eq!(call(), Some(ErrorCode::CapabilityNotFound));
}

// "All defaults are overridable via RegistryOptions.limits" — tombstoneSize / tombstoneTtlMs.
#[test]
fn tombstone_bounds_follow_the_registry_limits() {
    let a = authority();
    let limits = AgentSurfaceLimits { tombstone_size: 3, tombstone_ttl_ms: 1_000, ..AgentSurfaceLimits::default() };
    let (r, clock) = registry_with(&a, |o| o.limits(limits));
    for i in 0..5 {
        r.register(bind(&a, "low.widget", &format!("w{i}"))).unwrap().unregister();
    }
    assert_eq!(r.stats().tombstones, 3);
    clock.advance(1_001);
    assert_eq!(r.stats().tombstones, 0);
}

// Rule 4: "The tombstone retains identifiers and timestamps, never executable references":
// after unregister the registry holds nothing of the handlers.
#[test]
fn tombstones_retain_identifiers_only() {
    let a = authority();
    let (r, _) = registry(&a);
    let token = Arc::new(());
    let held = token.clone();
    let h = r
        .register(bind_with(&a, "low.widget", "a", move |b| {
            b.observation(
                "readWidget",
                read_sync(move |_| {
                    let _ = &held;
                    json!({})
                }),
            )
        }))
        .unwrap();
    assert_eq!(Arc::strong_count(&token), 2, "the live registration holds the handler");
    h.unregister();
    assert_eq!(r.stats().tombstones, 1);
    assert_eq!(Arc::strong_count(&token), 1, "the tombstone keeps no handler");
}

// Rule 6: "Post-unregister calls on the handle are no-ops that warn in development."
#[test]
fn post_unregister_handle_calls_are_noops_that_warn_in_development() {
    let a = authority();
    let (r, _, logs) = dev_registry(&a);
    let h = r.register(bind(&a, "low.widget", "a")).unwrap();
    h.unregister();
    let (rec, _sub) = Recorder::attach(&r);
    h.update(patch_enabled(false));
    h.update(patch_override("readWidget", false, None));
    h.invalidate();
    h.unregister();
    assert_eq!(r.version(), "2");
    assert!(rec.events().is_empty());
    assert_eq!(r.stats().tombstones, 1);
    let warns: Vec<_> = logs
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.level == LogLevel::Warn && l.message.contains(h.registration_id()))
        .cloned()
        .collect();
    assert_eq!(warns.len(), 4, "{warns:?}");
}

// ... and stay silent (but still no-ops) in production.
#[test]
fn post_unregister_handle_calls_do_not_warn_in_production() {
    let a = authority();
    let logs: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = logs.clone();
    let (r, _) = registry_with(&a, |o| o.log(move |rec| sink.lock().unwrap().push(rec.message.clone())));
    let h = r.register(bind(&a, "low.widget", "a")).unwrap();
    h.unregister();
    h.invalidate();
    assert_eq!(r.version(), "2");
    assert!(logs.lock().unwrap().is_empty());
}

// Rule 7: "dispose() unregisters everything ... and drops listeners"; a second dispose is a
// no-op; registering afterwards is misuse.
#[test]
fn dispose_unregisters_everything_and_is_idempotent() {
    let a = authority();
    let (r, _) = registry(&a);
    let handles: Vec<_> = ["a", "b", "c"].iter().map(|i| r.register(bind(&a, "low.widget", i)).unwrap()).collect();
    let (rec, _sub) = Recorder::attach(&r);
    r.dispose();
    assert!(r.is_disposed());
    assert!(r.registrations().is_empty());
    assert!(handles.iter().all(|h| h.status() == RegistrationStatus::Unregistered));
    let events = rec.take();
    let unregistered = events.iter().filter(|e| matches!(e, AgentSurfaceEvent::ComponentUnregistered { .. })).count();
    assert_eq!(unregistered, 3);
    assert_eq!(events.last(), Some(&AgentSurfaceEvent::SurfaceChanged { surface_version: r.version() }));
    let v = r.version();
    r.dispose();
    assert_eq!(r.version(), v);
    handles[0].invalidate();
    assert_eq!(r.version(), v);
    assert!(matches!(r.register(bind(&a, "low.widget", "d")), Err(DefinitionError::Disposed)));
    assert!(rec.events().is_empty(), "listeners were dropped");
    assert!(r.snapshot(&SnapshotContext::default()).components.is_empty());
}

// --- Events -------------------------------------------------------------------------------

// `surface-changed ... // coalesced`: one per mutation round, carrying the latest version.
#[test]
fn surface_changed_is_coalesced_per_mutation_round() {
    let a = authority();
    let (r, _) = registry_with(&a, |o| o.on_duplicate_instance(DuplicateInstance::Replace));
    let (rec, _sub) = Recorder::attach(&r);
    r.register(bind(&a, "low.widget", "a")).unwrap();
    r.register(bind(&a, "low.widget", "a")).unwrap(); // replace: unregister + register, one round
    r.register(bind(&a, "low.widget", "b")).unwrap();
    r.dispose(); // two unregisters, one round
    assert_eq!(rec.surface_changes(), vec!["1", "2", "3", "5"]);
}

// "Ordering guarantees ...: post-mutation dispatch": a listener that reads the registry sees
// the mutation done.
#[test]
fn events_are_dispatched_after_the_mutation() {
    let a = authority();
    let (r, _) = registry(&a);
    let seen: Arc<Mutex<Vec<(String, String, usize)>>> = Arc::default();
    let (s, r2) = (seen.clone(), r.clone());
    let _sub = r.subscribe(move |e| {
        let kind = serde_json::to_value(e).unwrap()["type"].as_str().unwrap().to_string();
        s.lock().unwrap().push((kind, r2.version(), r2.registrations().len()));
    });
    r.register(bind(&a, "low.widget", "a")).unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        vec![
            ("component-registered".to_string(), "1".to_string(), 1),
            ("surface-changed".to_string(), "1".to_string(), 1)
        ]
    );
    r.dispose(); // breaks the listener → registry cycle
}

// "listener-exception isolation": a panicking listener does not stop the others.
#[test]
fn a_panicking_listener_does_not_stop_the_others() {
    let a = authority();
    let (r, _) = registry(&a);
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let _boom = r.subscribe(move |_| {
        c.fetch_add(1, Ordering::SeqCst);
        crate::common::deliberate_panic("listener bug");
    });
    let (rec, _sub) = Recorder::attach(&r);
    r.register(bind(&a, "low.widget", "a")).unwrap();
    r.register(bind(&a, "low.widget", "b")).unwrap();
    assert_eq!(rec.events().len(), 4);
    assert_eq!(calls.load(Ordering::SeqCst), 4, "the panicking listener stays subscribed");
    assert_eq!(r.version(), "2", "the registry is not poisoned");
}

// "queued re-entrancy": a listener that mutates the registry gets its events queued after the
// current one, in order (and surface-changed still coalesced).
#[test]
fn reentrant_mutations_from_a_listener_are_queued_in_order() {
    let a = authority();
    let (r, _) = registry(&a);
    let (r2, a2) = (r.clone(), a.clone());
    let once = AtomicBool::new(false);
    let inner: Arc<Mutex<Option<String>>> = Arc::default();
    let inner2 = inner.clone();
    let _reentrant = r.subscribe(move |e| {
        if matches!(e, AgentSurfaceEvent::ComponentRegistered { component_type, .. } if component_type == "low.widget")
            && !once.swap(true, Ordering::SeqCst)
        {
            let h = r2.register(bind(&a2, "devices.detail", "d")).unwrap();
            assert_eq!(r2.version(), "2", "the nested mutation is applied at once");
            *inner2.lock().unwrap() = Some(h.registration_id().to_string());
        }
    });
    let (rec, _sub) = Recorder::attach(&r);
    let h = r.register(bind(&a, "low.widget", "a")).unwrap();
    let inner_id = inner.lock().unwrap().clone().unwrap();
    let events = rec.events();
    assert_eq!(events.iter().filter_map(registered).collect::<Vec<_>>(), vec![h.registration_id(), inner_id.as_str()]);
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(events[2], AgentSurfaceEvent::SurfaceChanged { surface_version: "2".into() });
    r.dispose();
}

// Subscribe returns an Unsubscribe: after it, no more events.
#[test]
fn unsubscribe_stops_delivery() {
    let a = authority();
    let (r, _) = registry(&a);
    let (rec, sub) = Recorder::attach(&r);
    r.register(bind(&a, "low.widget", "a")).unwrap();
    sub.unsubscribe();
    r.register(bind(&a, "low.widget", "b")).unwrap();
    assert_eq!(rec.events().len(), 2);
}

// "Cross-plane suffix collision: registering view:X.Y when domain:X.Y is a known procedure id
// ... (default "warn": console + collision-suspected event)".
#[test]
fn duplicate_suffix_policy_warn_emits_collision_suspected_and_registers() {
    let a = authority();
    let (r, _, logs) = dev_registry(&a);
    let (rec, _sub) = Recorder::attach(&r);
    let h = r.register(bind(&a, "alerts.feed", "default")).unwrap();
    assert_eq!(h.status(), RegistrationStatus::Active);
    assert!(rec.events().contains(&AgentSurfaceEvent::CollisionSuspected {
        view_capability_id: "view:alerts.feed.dismiss".into(),
        domain_procedure_id: "domain:alerts.feed.dismiss".into()
    }));
    assert_eq!(
        rec.events().iter().filter(|e| matches!(e, AgentSurfaceEvent::CollisionSuspected { .. })).count(),
        1,
        "only the colliding name"
    );
    assert!(logs
        .lock()
        .unwrap()
        .iter()
        .any(|l| l.level == LogLevel::Warn && l.message.contains("domain:alerts.feed.dismiss")));
}

// duplicateSuffixPolicy "error": the collision is a definition error.
#[test]
fn duplicate_suffix_policy_error_refuses_the_registration() {
    let a = authority();
    let (r, _) = registry_with(&a, |o| o.duplicate_suffix_policy(DuplicateSuffixPolicy::Error));
    let e = r.register(bind(&a, "alerts.feed", "default")).err();
    assert_eq!(
        e,
        Some(DefinitionError::SuffixCollision {
            view: "view:alerts.feed.dismiss".into(),
            domain: "domain:alerts.feed.dismiss".into()
        })
    );
    assert_eq!(r.version(), "0");
    // Components without a colliding name are unaffected.
    assert!(r.register(bind(&a, "low.widget", "a")).is_ok());
}

// duplicateSuffixPolicy "off": no diagnostics at all.
#[test]
fn duplicate_suffix_policy_off_is_silent() {
    let a = authority();
    let (r, _) = registry_with(&a, |o| o.duplicate_suffix_policy(DuplicateSuffixPolicy::Off));
    let (rec, _sub) = Recorder::attach(&r);
    r.register(bind(&a, "alerts.feed", "default")).unwrap();
    assert!(!rec.events().iter().any(|e| matches!(e, AgentSurfaceEvent::CollisionSuspected { .. })));
}
