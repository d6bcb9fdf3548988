//! Issue 4, Availability: the formula of core-api.md §Availability, term by term, plus
//! `enabled`, pushed overrides and `availability-changed`.
//!
//! available := registration.status === "active" AND component.enabled !== false
//!   AND pushed override is not {available:false} AND when() !== false
//!   AND every policy discovery decision === "expose"

use crate::registry_support::*;
use agent_surface_engine::binding::{execute_fn, read_sync, ActionBinding, ObservationBinding};
use agent_surface_engine::events::AgentSurfaceEvent;
use agent_surface_engine::invoke::AgentInvocation;
use agent_surface_engine::policy::{discovery_policy, DiscoveryDecision};
use agent_surface_engine::registry::{AgentSurfaceRegistry, AvailabilityOverride, LogLevel, RegistrationPatch};
use agent_surface_engine::snapshot::{AgentConsumer, AgentSurfaceSnapshot, ConsumerKind, SnapshotContext};
use agent_surface_model::errors::ErrorCode;
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// (available, reason) of a capability in the default snapshot; None when absent.
fn state(snap: &AgentSurfaceSnapshot, capability_id: &str) -> Option<(bool, Option<String>)> {
    for c in &snap.components {
        for o in &c.observations {
            if o.capability_id == capability_id {
                return Some((o.available, o.unavailable_reason.clone()));
            }
        }
        for a in &c.actions {
            if a.capability_id == capability_id {
                return Some((a.available, a.unavailable_reason.clone()));
            }
        }
    }
    snap.procedures
        .iter()
        .find(|p| p.capability_id == capability_id)
        .map(|p| (p.available, p.unavailable_reason.clone()))
}

fn snap(r: &AgentSurfaceRegistry) -> AgentSurfaceSnapshot {
    r.snapshot(&SnapshotContext::default())
}

fn off(reason: Option<&str>) -> Option<(bool, Option<String>)> {
    Some((false, reason.map(str::to_string)))
}

const ON: Option<(bool, Option<String>)> = Some((true, None));

fn reboot(
    a: &agent_surface_engine::authority::CapabilityAuthority,
    binding: ActionBinding,
) -> agent_surface_engine::binding::BoundProcedure {
    a.procedure("domain:devices.reboot").unwrap().bind(binding).unwrap()
}

fn noop() -> ActionBinding {
    ActionBinding::new(execute_fn(|_, _| async { Ok(json!(null)) }))
}

fn overrides(entries: &[(&str, bool, Option<&str>)]) -> RegistrationPatch {
    RegistrationPatch {
        enabled: None,
        availability: Some(
            entries
                .iter()
                .map(|(n, a, r)| (n.to_string(), AvailabilityOverride { available: *a, reason: r.map(str::to_string) }))
                .collect(),
        ),
    }
}

// All terms true ⇒ available, no reason.
#[test]
fn a_capability_is_available_when_every_term_holds() {
    let a = authority();
    let (r, _) = registry(&a);
    r.register(bind_with(&a, "devices.detail", "d", |b| b.procedure(reboot(&a, noop())))).unwrap();
    let s = snap(&r);
    for id in ["view:devices.detail.readDevice", "view:devices.detail.close", "domain:devices.reboot"] {
        assert_eq!(state(&s, id), ON, "{id}");
    }
}

// Term 1: `registration.status === "active"`.
#[test]
fn an_inactive_registration_exposes_nothing() {
    let a = authority();
    let (r, _) = registry(&a);
    let h = r.register(bind(&a, "devices.detail", "d")).unwrap();
    h.unregister();
    assert_eq!(state(&snap(&r), "view:devices.detail.readDevice"), None);
    let live = r.register(bind(&a, "devices.detail", "d")).unwrap();
    let rejected = r.register(bind(&a, "devices.detail", "d")).unwrap(); // a duplicate
    assert_eq!(snap(&r).components.len(), 1);
    assert_eq!(snap(&r).components[0].registration_id, live.registration_id());
    assert_ne!(rejected.registration_id(), live.registration_id());
}

// Term 2 / `enabled`: "false ⇒ all capabilities are visible-disabled (reason
// "component-disabled") and invocations fail CAPABILITY_NOT_AVAILABLE. Registration identity is
// preserved".
#[test]
fn update_enabled_false_makes_every_capability_visible_disabled() {
    let a = authority();
    let (r, _) = registry(&a);
    let h = r.register(bind_with(&a, "devices.detail", "d", |b| b.procedure(reboot(&a, noop())))).unwrap();
    h.update(RegistrationPatch { enabled: Some(false), availability: None });
    let s = snap(&r);
    assert_eq!(s.components[0].registration_id, h.registration_id(), "identity preserved");
    for id in ["view:devices.detail.readDevice", "view:devices.detail.close", "domain:devices.reboot"] {
        assert_eq!(state(&s, id), off(Some("component-disabled")), "{id}");
    }
    let res = invoke(&r, AgentInvocation::new("view:devices.detail.close").input(json!({})));
    assert_eq!(res.code(), Some(ErrorCode::CapabilityNotAvailable));
    assert_eq!(res.error.unwrap().details.unwrap()["reason"], "component-disabled");
    h.update(RegistrationPatch { enabled: Some(true), availability: None });
    assert_eq!(state(&snap(&r), "view:devices.detail.close"), ON);
}

// `enabled?: boolean` on the binding: a component can mount disabled.
#[test]
fn a_component_bound_disabled_starts_visible_disabled() {
    let a = authority();
    let (r, _) = registry(&a);
    r.register(bind_with(&a, "low.widget", "w", |b| b.enabled(false))).unwrap();
    assert_eq!(state(&snap(&r), "view:low.widget.readWidget"), off(Some("component-disabled")));
}

// Term 3: "pushed availability override (if any) is not {available:false}".
#[test]
fn a_pushed_override_false_makes_that_capability_unavailable() {
    let a = authority();
    let (r, _) = registry(&a);
    let h = r.register(bind(&a, "devices.table", "t")).unwrap();
    h.update(overrides(&[("select", false, Some("no-rows"))]));
    let s = snap(&r);
    assert_eq!(state(&s, "view:devices.table.select"), off(Some("no-rows")));
    assert_eq!(state(&s, "view:devices.table.sort"), ON, "only the named capability");
    h.update(overrides(&[("select", true, None)]));
    assert_eq!(state(&snap(&r), "view:devices.table.select"), ON, "an override of true restores");
    let res = invoke(&r, AgentInvocation::new("view:devices.table.readState"));
    assert!(res.is_ok());
    h.update(overrides(&[("readState", false, None)]));
    assert_eq!(
        invoke(&r, AgentInvocation::new("view:devices.table.readState")).code(),
        Some(ErrorCode::CapabilityNotAvailable)
    );
}

// "ONLY the listed fields are updatable": an override for a name the component does not have
// is reported (never silent) and ignored.
#[test]
fn an_override_for_an_unknown_capability_is_reported_and_ignored() {
    let a = authority();
    let (r, _, logs) = dev_registry(&a);
    let h = r.register(bind(&a, "low.widget", "w")).unwrap();
    let (rec, _sub) = Recorder::attach(&r);
    h.update(overrides(&[("readWidgte", false, None)]));
    assert_eq!(state(&snap(&r), "view:low.widget.readWidget"), ON);
    assert!(!rec.events().iter().any(|e| matches!(e, AgentSurfaceEvent::AvailabilityChanged { .. })));
    assert!(logs.lock().unwrap().iter().any(|l| l.level == LogLevel::Warn && l.message.contains("readWidgte")));
}

// Term 4: "when() !== false", with the binding's unavailableReason.
#[test]
fn when_false_makes_the_capability_unavailable_with_its_reason() {
    let a = authority();
    let (r, _) = registry(&a);
    r.register(bind_with(&a, "devices.detail", "d", |b| b.action("close", noop().when(|| false, "nothing-open"))))
        .unwrap();
    let s = snap(&r);
    assert_eq!(state(&s, "view:devices.detail.close"), off(Some("nothing-open")));
    assert_eq!(state(&s, "view:devices.detail.readDevice"), ON);
}

// "evaluated lazily, may throw ⇒ unavailable("when-error")"; "a throwing when counts as false
// (dev warning)".
#[test]
fn a_panicking_when_is_unavailable_with_when_error_and_warns_in_development() {
    let a = authority();
    let (r, _, logs) = dev_registry(&a);
    r.register(bind_with(&a, "low.widget", "w", |b| {
        b.observation(
            "readWidget",
            ObservationBinding::new(read_sync(|_| json!({})))
                .when(|| crate::common::deliberate_panic("when bug"), "never"),
        )
    }))
    .unwrap();
    assert_eq!(state(&snap(&r), "view:low.widget.readWidget"), off(Some("when-error")));
    assert!(logs
        .lock()
        .unwrap()
        .iter()
        .any(|l| l.level == LogLevel::Warn && l.message.contains("view:low.widget.readWidget")));
}

// "when() is evaluated at snapshot time and re-evaluated at invocation time (phase 3)".
#[test]
fn when_is_re_evaluated_at_snapshot_and_at_invocation() {
    let a = authority();
    let (r, _) = registry(&a);
    let open = Arc::new(AtomicBool::new(true));
    let o = open.clone();
    r.register(bind_with(&a, "devices.detail", "d", |b| {
        b.action("close", noop().when(move || o.load(Ordering::SeqCst), "nothing-open"))
    }))
    .unwrap();
    assert_eq!(state(&snap(&r), "view:devices.detail.close"), ON);
    open.store(false, Ordering::SeqCst);
    let res = invoke(&r, AgentInvocation::new("view:devices.detail.close").input(json!({})));
    assert_eq!(res.code(), Some(ErrorCode::CapabilityNotAvailable));
    assert_eq!(state(&snap(&r), "view:devices.detail.close"), off(Some("nothing-open")));
    open.store(true, Ordering::SeqCst);
    assert!(invoke(&r, AgentInvocation::new("view:devices.detail.close").input(json!({}))).is_ok());
}

// The formula is a conjunction: procedures referenced by a component follow it too (their
// when() counts at snapshot time as it does at invocation).
#[test]
fn procedure_references_follow_the_same_formula() {
    let a = authority();
    let (r, _) = registry(&a);
    let up = Arc::new(AtomicBool::new(false));
    let u = up.clone();
    r.register(bind_with(&a, "devices.detail", "d", |b| {
        b.procedure(reboot(&a, noop().when(move || u.load(Ordering::SeqCst), "device-offline")))
    }))
    .unwrap();
    assert_eq!(state(&snap(&r), "domain:devices.reboot"), off(Some("device-offline")));
    assert_eq!(
        invoke(&r, AgentInvocation::new("domain:devices.reboot").input(json!({}))).code(),
        Some(ErrorCode::CapabilityNotAvailable)
    );
    up.store(true, Ordering::SeqCst);
    assert_eq!(state(&snap(&r), "domain:devices.reboot"), ON);
    let (r2, _) = registry(&a);
    r2.register(bind_with(&a, "devices.detail", "d", |b| {
        b.procedure(reboot(&a, noop().when(|| crate::common::deliberate_panic("when bug"), "x")))
    }))
    .unwrap();
    assert_eq!(state(&snap(&r2), "domain:devices.reboot"), off(Some("when-error")));
}

// Term 5: "every policy discovery decision === "expose"" — a disable vote makes the
// capability visible-disabled with the policy's reason.
#[test]
fn a_discovery_disable_vote_makes_the_capability_visible_disabled() {
    let a = authority();
    let (r, _) = registry_with(&a, |o| {
        o.policy(discovery_policy("maintenance", |c| {
            if c.capability_id.ends_with(".close") {
                DiscoveryDecision::Disable("maintenance".into())
            } else {
                DiscoveryDecision::Expose
            }
        }))
    });
    r.register(bind(&a, "devices.detail", "d")).unwrap();
    let s = snap(&r);
    assert_eq!(state(&s, "view:devices.detail.close"), off(Some("maintenance")));
    assert_eq!(state(&s, "view:devices.detail.readDevice"), ON);
}

// "Policy hide decisions remove the capability from the snapshot entirely" — at registry,
// component and capability scope alike.
#[test]
fn a_discovery_hide_vote_removes_the_capability_entirely_at_every_scope() {
    let a = authority();
    let hide = |name: &'static str, target: &'static str| {
        discovery_policy(name, move |c| {
            if c.capability_id == target {
                DiscoveryDecision::Hide
            } else {
                DiscoveryDecision::Expose
            }
        })
    };
    let (r, _) = registry_with(&a, |o| o.policy(hide("registry", "view:devices.table.select")));
    r.register(bind_with(&a, "devices.table", "t", |b| {
        b.policy(hide("component", "view:devices.table.sort")).observation(
            "readState",
            ObservationBinding::new(read_sync(|_| json!({})))
                .policy(hide("capability", "view:devices.table.readState")),
        )
    }))
    .unwrap();
    r.register(bind_with(&a, "devices.detail", "d", |b| {
        b.procedure(reboot(&a, noop().policy(hide("procedure", "domain:devices.reboot"))))
    }))
    .unwrap();
    let s = snap(&r);
    for id in [
        "view:devices.table.select",
        "view:devices.table.sort",
        "view:devices.table.readState",
        "domain:devices.reboot",
    ] {
        assert_eq!(state(&s, id), None, "{id} must be absent");
    }
    assert_eq!(state(&s, "view:devices.table.readSelection"), ON);
    let text = serde_json::to_string(&s.to_json()).unwrap();
    assert!(
        !text.contains("devices.table.select\"") && !text.contains("devices.table.sort\""),
        "no trace of hidden capabilities"
    );
    // Hidden at invocation too: the capability does not exist for this consumer.
    assert_eq!(
        invoke(&r, AgentInvocation::new("view:devices.table.select").input(json!({}))).code(),
        Some(ErrorCode::CapabilityNotFound)
    );
}

// A throwing discovery policy fails closed: hidden.
#[test]
fn a_panicking_discovery_policy_hides_the_capability() {
    let a = authority();
    let (r, _) = registry_with(&a, |o| {
        o.policy(discovery_policy("buggy", |c| {
            if c.capability_id.ends_with(".close") {
                crate::common::deliberate_panic("policy bug")
            } else {
                DiscoveryDecision::Expose
            }
        }))
    });
    r.register(bind(&a, "devices.detail", "d")).unwrap();
    let s = snap(&r);
    assert_eq!(state(&s, "view:devices.detail.close"), None);
    assert_eq!(state(&s, "view:devices.detail.readDevice"), ON);
}

// The terms are ANDed: any false term makes the capability unavailable, whatever the others.
#[test]
fn the_terms_are_a_conjunction() {
    let a = authority();
    let (r, _) = registry_with(&a, |o| o.policy(discovery_policy("expose-all", |_| DiscoveryDecision::Expose)));
    let h = r.register(bind_with(&a, "devices.detail", "d", |b| b.action("close", noop().when(|| true, "x")))).unwrap();
    assert_eq!(state(&snap(&r), "view:devices.detail.close"), ON);
    h.update(overrides(&[("close", false, Some("busy"))]));
    assert_eq!(state(&snap(&r), "view:devices.detail.close"), off(Some("busy")));
    h.update(RegistrationPatch { enabled: Some(false), availability: None });
    assert_eq!(state(&snap(&r), "view:devices.detail.close").map(|s| s.0), Some(false));
    h.update(RegistrationPatch { enabled: Some(true), availability: None });
    assert_eq!(state(&snap(&r), "view:devices.detail.close"), off(Some("busy")), "the override still holds");
}

// Discovery policies see the snapshot's consumer (default {"id":"anonymous","kind":"embedded"})
// and the host context (RegistryOptions.context).
#[test]
fn discovery_policies_see_the_consumer_and_the_host_context() {
    let a = authority();
    let (r, _) = registry_with(&a, |o| {
        o.context(|| [("tenant".to_string(), json!("acme"))].into_iter().collect()).policy(discovery_policy(
            "grants",
            |c| {
                assert_eq!(c.host["tenant"], "acme");
                if c.consumer.grants.iter().any(|g| g == "devices:admin") || c.consumer == AgentConsumer::anonymous() {
                    DiscoveryDecision::Expose
                } else {
                    DiscoveryDecision::Hide
                }
            },
        ))
    });
    r.register(bind(&a, "low.widget", "w")).unwrap();
    assert_eq!(state(&snap(&r), "view:low.widget.readWidget"), ON);
    let stranger = SnapshotContext {
        consumer: AgentConsumer::new(ConsumerKind::McpBridge, "bridge"),
        ..SnapshotContext::default()
    };
    assert_eq!(state(&r.snapshot(&stranger), "view:low.widget.readWidget"), None);
    let mut admin = AgentConsumer::new(ConsumerKind::McpBridge, "bridge");
    admin.grants.push("devices:admin".into());
    assert_eq!(
        state(
            &r.snapshot(&SnapshotContext { consumer: admin, ..SnapshotContext::default() }),
            "view:low.widget.readWidget"
        ),
        ON
    );
}

// `availability-changed` events for every capability whose pushed availability flips (enabled
// toggles cover procedure references too); none when nothing flips.
#[test]
fn availability_changed_events_follow_pushed_updates() {
    let a = authority();
    let (r, _) = registry(&a);
    let h = r.register(bind_with(&a, "devices.detail", "d", |b| b.procedure(reboot(&a, noop())))).unwrap();
    let rid = h.registration_id().to_string();
    let changed = |id: &str, available: bool| AgentSurfaceEvent::AvailabilityChanged {
        registration_id: rid.clone(),
        capability_id: id.into(),
        available,
    };
    let (rec, _sub) = Recorder::attach(&r);
    h.update(RegistrationPatch { enabled: Some(false), availability: None });
    let mut events = rec.take();
    assert_eq!(events.pop(), Some(AgentSurfaceEvent::SurfaceChanged { surface_version: "2".into() }));
    events.sort_by_key(|e| format!("{e:?}"));
    let mut expected = vec![
        changed("view:devices.detail.readDevice", false),
        changed("view:devices.detail.close", false),
        changed("domain:devices.reboot", false),
    ];
    expected.sort_by_key(|e| format!("{e:?}"));
    assert_eq!(events, expected);
    h.update(RegistrationPatch { enabled: Some(true), availability: None });
    assert_eq!(rec.take().len(), 4, "three back to available + surface-changed");
    h.update(overrides(&[("close", false, None)]));
    assert_eq!(
        rec.take(),
        vec![
            changed("view:devices.detail.close", false),
            AgentSurfaceEvent::SurfaceChanged { surface_version: "4".into() }
        ]
    );
    h.update(overrides(&[("close", false, Some("other reason"))]));
    assert_eq!(
        rec.take(),
        vec![AgentSurfaceEvent::SurfaceChanged { surface_version: "5".into() }],
        "no flip, no availability-changed"
    );
}

// "unavailableReason?: string | (() => string)": a computed reason is evaluated when
// availability is computed (snapshot and invocation phase 3), and only when when() is false.
#[test]
fn a_computed_unavailable_reason_is_evaluated_at_snapshot_and_at_invocation() {
    use agent_surface_engine::binding::UnavailableReason;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Mutex;
    let a = authority();
    let (r, _) = registry(&a);
    let open = Arc::new(AtomicBool::new(true));
    let why = Arc::new(Mutex::new("battery-low".to_string()));
    let calls = Arc::new(AtomicUsize::new(0));
    let (o, w, c) = (open.clone(), why.clone(), calls.clone());
    let reason = UnavailableReason::computed(move || {
        c.fetch_add(1, Ordering::SeqCst);
        w.lock().unwrap().clone()
    });
    r.register(bind_with(&a, "devices.detail", "d", |b| {
        b.action("close", noop().when(move || o.load(Ordering::SeqCst), reason))
    }))
    .unwrap();
    assert_eq!(state(&snap(&r), "view:devices.detail.close"), ON);
    assert_eq!(calls.load(Ordering::SeqCst), 0, "not evaluated while available");
    open.store(false, Ordering::SeqCst);
    assert_eq!(state(&snap(&r), "view:devices.detail.close"), off(Some("battery-low")));
    *why.lock().unwrap() = "device-offline".into();
    assert_eq!(state(&snap(&r), "view:devices.detail.close"), off(Some("device-offline")));
    let res = invoke(&r, AgentInvocation::new("view:devices.detail.close").input(json!({})));
    assert_eq!(res.code(), Some(ErrorCode::CapabilityNotAvailable));
    assert_eq!(res.error.as_ref().unwrap().details.as_ref().unwrap()["reason"], json!("device-offline"));
}

#[test]
fn a_computed_reason_on_a_procedure_reference_and_a_panicking_one() {
    use agent_surface_engine::binding::UnavailableReason;
    let a = authority();
    let (r, _) = registry(&a);
    r.register(bind_with(&a, "devices.detail", "d", |b| {
        b.procedure(reboot(&a, noop().when(|| false, UnavailableReason::computed(|| format!("offline-{}", 2))))).action(
            "close",
            noop().when(|| false, UnavailableReason::computed(|| crate::common::deliberate_panic("reason bug"))),
        )
    }))
    .unwrap();
    let s = snap(&r);
    assert_eq!(state(&s, "domain:devices.reboot"), off(Some("offline-2")));
    assert_eq!(state(&s, "view:devices.detail.close"), off(Some("unavailable")));
    let res = invoke(&r, AgentInvocation::new("domain:devices.reboot").input(json!({})));
    assert_eq!(res.error.as_ref().unwrap().details.as_ref().unwrap()["reason"], json!("offline-2"));
}
