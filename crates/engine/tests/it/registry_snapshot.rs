//! Issue 4, Snapshot / explainSurface / Limits: one test per normative rule of core-api.md
//! §Snapshot ("Snapshot semantics (normative)"), §explainSurface and §"Limits and defaults".

use crate::registry_support::*;
use agent_surface_engine::binding::{execute_fn, read_sync, ActionBinding, BoundProcedure, ObservationBinding};
use agent_surface_engine::explain::{explain_surface, ExplainError, Outcome, PolicyScope};
use agent_surface_engine::invoke::AgentInvocation;
use agent_surface_engine::policy::{discovery_policy, DiscoveryDecision};
use agent_surface_engine::registry::{
    AgentSurfaceRegistry, DuplicateInstance, DuplicateSuffixPolicy, Environment, RegistrationPatch, RegistryOptions,
};
use agent_surface_engine::snapshot::{
    AgentConsumer, AgentRouteInfo, AgentSurfaceSnapshot, ConsumerKind, SnapshotBudget, SnapshotContext,
};
use agent_surface_model::canonical::canonical_json;
use agent_surface_model::limits::AgentSurfaceLimits;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn ctx() -> SnapshotContext {
    SnapshotContext::default()
}

fn types(s: &AgentSurfaceSnapshot) -> Vec<String> {
    s.components.iter().map(|c| format!("{}#{}", c.component_type, c.instance_id)).collect()
}

fn reboot(a: &agent_surface_engine::authority::CapabilityAuthority) -> BoundProcedure {
    a.procedure("domain:devices.reboot").unwrap().bind(execute_fn(|_, _| async { Ok(json!(null)) })).unwrap()
}

fn wipe(a: &agent_surface_engine::authority::CapabilityAuthority) -> BoundProcedure {
    a.procedure("domain:devices.wipe").unwrap().bind(execute_fn(|_, _| async { Ok(json!(null)) })).unwrap()
}

/// A registry holding one of each standard component type (alerts.feed aside).
fn populated(
    a: &agent_surface_engine::authority::CapabilityAuthority,
    options: impl FnOnce(RegistryOptions) -> RegistryOptions,
) -> AgentSurfaceRegistry {
    let (r, _) = registry_with(a, options);
    r.register(bind(a, "low.widget", "w")).unwrap();
    r.register(bind(a, "app.nav", "b")).unwrap();
    r.register(bind_with(a, "devices.detail", "d", |b| b.procedure(reboot(a)))).unwrap();
    r.register(bind(a, "devicesx.panel", "p")).unwrap();
    r.register(bind(a, "app.nav", "a")).unwrap();
    r.register(bind(a, "devices.table", "t")).unwrap();
    r
}

// "snapshot() is synchronous and side-effect free: it MUST NOT run read() handlers, MUST NOT
// await" (the signature returns the snapshot itself, not a future).
#[test]
fn snapshot_is_synchronous_and_never_runs_read() {
    let a = authority();
    let (r, _) = registry(&a);
    let reads = Arc::new(AtomicUsize::new(0));
    let n = reads.clone();
    r.register(bind_with(&a, "devices.table", "t", move |b| {
        let n2 = n.clone();
        b.observation(
            "readState",
            read_sync(move |_| {
                n.fetch_add(1, Ordering::SeqCst);
                json!({})
            }),
        )
        .observation(
            "readSelection",
            read_sync(move |_| {
                n2.fetch_add(1, Ordering::SeqCst);
                json!({})
            }),
        )
    }))
    .unwrap();
    let contexts = [
        ctx(),
        SnapshotContext { include_unavailable: false, ..ctx() },
        SnapshotContext { scope: Some(vec!["devices".into()]), ..ctx() },
        SnapshotContext { budget: Some(SnapshotBudget { max_components: Some(0), max_bytes: Some(10) }), ..ctx() },
    ];
    for c in &contexts {
        let s: AgentSurfaceSnapshot = r.snapshot(c);
        let _ = s;
    }
    explain_surface(&r, &ctx()).unwrap();
    assert_eq!(reads.load(Ordering::SeqCst), 0, "a catalog, not a state dump");
    assert!(invoke(&r, AgentInvocation::new("view:devices.table.readState")).is_ok());
    assert_eq!(reads.load(Ordering::SeqCst), 1, "read runs only on invocation");
}

// "internal metadata MUST NOT appear anywhere in a snapshot (tested)" — nor in events or
// agent-facing results ("NEVER serialized into snapshots or agent-facing payloads").
#[test]
fn internal_metadata_never_appears_anywhere_in_a_snapshot() {
    let a = authority();
    let (r, _) = registry_with(&a, |o| o.on_duplicate_instance(DuplicateInstance::Reject));
    let (rec, _sub) = Recorder::attach(&r);
    let secret = |b: agent_surface_engine::binding::ComponentBinder| {
        b.internal("internalKeyZq7", json!({"token": "SECRET-VALUE-81f3", "n": 424242})).procedure(reboot(&a))
    };
    let h = r.register(bind_with(&a, "devices.table", "t", secret)).unwrap();
    r.register(bind_with(&a, "devices.table", "t", secret)).unwrap(); // rejected duplicate
    let mut texts = Vec::new();
    for c in [
        ctx(),
        SnapshotContext { include_unavailable: false, ..ctx() },
        SnapshotContext { scope: Some(vec!["devices.table".into()]), ..ctx() },
        SnapshotContext { budget: Some(SnapshotBudget { max_components: Some(1), max_bytes: Some(100_000) }), ..ctx() },
    ] {
        texts.push(serde_json::to_string(&r.snapshot(&c).to_json()).unwrap());
    }
    h.update(RegistrationPatch { enabled: Some(false), availability: None });
    texts.push(serde_json::to_string(&r.snapshot(&ctx()).to_json()).unwrap());
    texts.push(serde_json::to_string(&invoke(&r, AgentInvocation::new("view:devices.table.readState"))).unwrap());
    h.unregister();
    texts.push(
        serde_json::to_string(&invoke(
            &r,
            AgentInvocation::new("view:devices.table.readState").registration(h.registration_id()),
        ))
        .unwrap(),
    );
    for e in rec.events() {
        texts.push(serde_json::to_string(&e).unwrap());
    }
    for t in &texts {
        for needle in ["internalKeyZq7", "SECRET-VALUE-81f3", "424242", "\"internal\""] {
            assert!(!t.contains(needle), "{needle} leaked into {t}");
        }
    }
}

// "Descriptors are deep-frozen plain JSON": an owned value (changing one snapshot cannot
// change the registry or the next snapshot) that round-trips through JSON text, with the
// spec's camelCase field names and nothing else.
#[test]
fn a_snapshot_is_plain_json_with_the_spec_field_names() {
    let a = authority();
    let r = populated(&a, |o| o);
    let s1 = r.snapshot(&ctx());
    let mut copy = s1.clone();
    copy.components.clear();
    assert_eq!(r.snapshot(&ctx()).components.len(), s1.components.len());
    let v = s1.to_json();
    let text = serde_json::to_string(&v).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v);
    let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert_eq!(keys(&v), ["capturedAt", "components", "procedures", "surfaceId", "surfaceVersion"]);
    let table = v["components"].as_array().unwrap().iter().find(|c| c["type"] == "devices.table").unwrap();
    assert_eq!(keys(table), ["actions", "description", "instanceId", "observations", "registrationId", "type"]);
    let read_state = table["observations"].as_array().unwrap().iter().find(|o| o["name"] == "readState").unwrap();
    assert_eq!(keys(read_state), ["available", "capabilityId", "description", "name", "outputSchema"]);
    assert_eq!(read_state["capabilityId"], "view:devices.table.readState");
    let select = table["actions"].as_array().unwrap().iter().find(|o| o["name"] == "select").unwrap();
    assert_eq!(
        keys(select),
        [
            "available",
            "capabilityId",
            "confirmation",
            "description",
            "effect",
            "idempotent",
            "inputSchema",
            "name",
            "reversible"
        ]
    );
    assert_eq!(
        (
            select["effect"].as_str(),
            select["idempotent"].as_bool(),
            select["reversible"].as_bool(),
            select["confirmation"].as_str()
        ),
        (Some("local-state"), Some(false), Some(true), Some("never"))
    );
}

// `capturedAt: string; // ISO-8601` from the injected clock; `route` from RegistryOptions.route.
#[test]
fn captured_at_uses_the_injected_clock_and_route_comes_from_the_option() {
    let a = authority();
    let (r, clock) = registry_with(&a, |o| o.route(|| Some(AgentRouteInfo { path: "/devices".into(), params: None })));
    assert_eq!(r.snapshot(&ctx()).captured_at, "2023-11-14T22:13:20.000Z");
    clock.advance(1_234);
    let s = r.snapshot(&ctx());
    assert_eq!(s.captured_at, "2023-11-14T22:13:21.234Z");
    assert_eq!(s.to_json()["route"], json!({"path": "/devices"}));
}

// "Ordering: components sorted by (priority desc, type, instanceId) — deterministic, never
// DOM- or mount-order-dependent."
#[test]
fn components_are_ordered_by_priority_desc_then_type_then_instance_id() {
    let a = authority();
    let expected =
        ["devices.detail#d", "devices.table#t", "devicesx.panel#p", "app.nav#a", "app.nav#b", "low.widget#w"];
    assert_eq!(types(&populated(&a, |o| o).snapshot(&ctx())), expected);
    // Another mount order, same snapshot order.
    let (r, _) = registry(&a);
    for (ty, i) in [
        ("devices.table", "t"),
        ("app.nav", "a"),
        ("low.widget", "w"),
        ("devicesx.panel", "p"),
        ("devices.detail", "d"),
        ("app.nav", "b"),
    ] {
        r.register(bind(&a, ty, i)).unwrap();
    }
    assert_eq!(types(&r.snapshot(&ctx())), expected);
}

// `scope?: string[]` — "Component-type prefixes to include, e.g. ["devices"]. Default: all."
// Prefixes match whole segments ("devices" is not a prefix of "devicesx").
#[test]
fn scope_prefixes_match_whole_segments() {
    let a = authority();
    let r = populated(&a, |o| o);
    let scoped = |p: &[&str]| {
        types(&r.snapshot(&SnapshotContext { scope: Some(p.iter().map(|s| s.to_string()).collect()), ..ctx() }))
    };
    assert_eq!(scoped(&["devices"]), ["devices.detail#d", "devices.table#t"]);
    assert_eq!(scoped(&["devices.table"]), ["devices.table#t"]);
    assert_eq!(scoped(&["devices.tab"]), Vec::<String>::new());
    assert_eq!(scoped(&["devicesx", "app"]), ["devicesx.panel#p", "app.nav#a", "app.nav#b"]);
    assert_eq!(types(&r.snapshot(&ctx())).len(), 6, "default: all");
    let s = r.snapshot(&SnapshotContext { scope: Some(vec!["app".into()]), ..ctx() });
    assert!(s.procedures.is_empty(), "procedures follow the scope of their component");
}

// `includeUnavailable?: boolean` — "Include visible-disabled capabilities. Default true."
#[test]
fn include_unavailable_false_drops_unavailable_capabilities() {
    let a = authority();
    let (r, _) = registry(&a);
    let h = r
        .register(bind_with(&a, "devices.table", "t", |b| {
            b.action(
                "select",
                ActionBinding::new(execute_fn(|_, _| async { Ok(json!(null)) })).when(|| false, "no-rows"),
            )
            .procedure(reboot(&a))
        }))
        .unwrap();
    let all = r.snapshot(&ctx());
    assert_eq!(all.components[0].actions.len(), 2, "default: visible-disabled ones included");
    let live = r.snapshot(&SnapshotContext { include_unavailable: false, ..ctx() });
    assert_eq!(live.components[0].actions.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(), ["sort"]);
    assert_eq!(live.procedures.len(), 1);
    h.update(RegistrationPatch { enabled: Some(false), availability: None });
    let live = r.snapshot(&SnapshotContext { include_unavailable: false, ..ctx() });
    assert!(live.components[0].observations.is_empty() && live.components[0].actions.is_empty());
    assert!(live.procedures.is_empty());
}

// "Budgets (Experimental): when set, components are dropped lowest-priority-first after the
// cap; the snapshot says so via truncated. No silent truncation, ever." — maxComponents.
#[test]
fn budget_max_components_drops_lowest_priority_and_says_so() {
    let a = authority();
    let r = populated(&a, |o| o);
    r.register(bind_with(&a, "low.widget", "z", |b| b.procedure(wipe(&a)))).unwrap();
    let s = r.snapshot(&SnapshotContext {
        budget: Some(SnapshotBudget { max_components: Some(3), max_bytes: None }),
        ..ctx()
    });
    assert_eq!(types(&s), ["devices.detail#d", "devices.table#t", "devicesx.panel#p"]);
    assert_eq!(s.to_json()["truncated"], json!({"droppedComponents": 4}));
    assert_eq!(
        s.procedures.iter().map(|p| p.capability_id.as_str()).collect::<Vec<_>>(),
        ["domain:devices.reboot"],
        "dropped components take their procedures along"
    );
    let fits = r.snapshot(&SnapshotContext {
        budget: Some(SnapshotBudget { max_components: Some(7), max_bytes: None }),
        ..ctx()
    });
    assert!(fits.truncated.is_none() && fits.to_json().get("truncated").is_none(), "present iff a budget truncated");
    assert!(r.snapshot(&ctx()).to_json().get("truncated").is_none());
}

// Budgets — maxBytes: the snapshot as returned (marker included) fits, and no more is dropped
// than needed.
#[test]
fn budget_max_bytes_drops_lowest_priority_until_the_snapshot_fits() {
    let a = authority();
    let r = populated(&a, |o| o);
    r.register(bind_with(&a, "low.widget", "z", |b| b.procedure(wipe(&a)))).unwrap();
    let by_count = r.snapshot(&SnapshotContext {
        budget: Some(SnapshotBudget { max_components: Some(5), max_bytes: None }),
        ..ctx()
    });
    let size = canonical_json(&by_count.to_json()).len();
    let by_bytes = r.snapshot(&SnapshotContext {
        budget: Some(SnapshotBudget { max_components: None, max_bytes: Some(size) }),
        ..ctx()
    });
    assert_eq!(by_bytes, by_count, "exactly the two lowest-priority components dropped");
    assert!(canonical_json(&by_bytes.to_json()).len() <= size);
    let tiny = r.snapshot(&SnapshotContext {
        budget: Some(SnapshotBudget { max_components: None, max_bytes: Some(1) }),
        ..ctx()
    });
    assert!(tiny.components.is_empty() && tiny.procedures.is_empty());
    assert_eq!(tiny.truncated.unwrap().dropped_components, 7);
}

// "Shape: flat with parent links ... Hierarchy-aware consumers rebuild the tree from parent."
#[test]
fn the_snapshot_is_flat_with_parent_links() {
    let a = authority();
    let (r, _) = registry(&a);
    r.register(bind(&a, "devices.table", "t")).unwrap();
    r.register(bind_with(&a, "devices.detail", "d", |b| b.parent("devices.table", "t"))).unwrap();
    let v = r.snapshot(&ctx()).to_json();
    let comps = v["components"].as_array().unwrap();
    assert_eq!(comps.len(), 2, "children are top-level entries, not nested");
    let detail = comps.iter().find(|c| c["type"] == "devices.detail").unwrap();
    assert_eq!(detail["parent"], json!({"type": "devices.table", "instanceId": "t"}));
    let table = comps.iter().find(|c| c["type"] == "devices.table").unwrap();
    assert!(table.get("parent").is_none());
    assert!(comps.iter().all(|c| c.get("components").is_none() && c.get("children").is_none()));
}

// "procedures: Domain references, top-level (planes are not nested into each other)" with "a
// context link to the component that registered it"; "A procedure reference's contextual
// describe() output is contextualNote; description is immutable manifest text."
#[test]
fn procedures_are_top_level_with_a_registration_link_and_a_contextual_note() {
    let a = authority();
    let (r, _) = registry(&a);
    let h = r
        .register(bind_with(&a, "devices.detail", "d", |b| {
            b.procedure(reboot(&a).describe(|| Some("device dev_1 is online".into())))
                .procedure(wipe(&a).describe(|| None))
        }))
        .unwrap();
    let v = r.snapshot(&ctx()).to_json();
    assert!(v["components"][0].get("procedures").is_none(), "not nested into the view plane");
    let procs = v["procedures"].as_array().unwrap();
    assert_eq!(procs.len(), 2);
    let reboot_d = procs.iter().find(|p| p["capabilityId"] == "domain:devices.reboot").unwrap();
    assert_eq!(reboot_d["registrationId"], json!(h.registration_id()));
    assert_eq!(reboot_d["component"], json!({"type": "devices.detail", "instanceId": "d"}));
    assert_eq!(reboot_d["description"], "Runs domain:devices.reboot", "the manifest's text");
    assert_eq!(reboot_d["contextualNote"], "device dev_1 is online");
    let wipe_d = procs.iter().find(|p| p["capabilityId"] == "domain:devices.wipe").unwrap();
    assert!(wipe_d.get("contextualNote").is_none());
    assert_eq!((wipe_d["effect"].as_str(), wipe_d["confirmation"].as_str()), (Some("destructive"), Some("required")));
}

// A panicking describe() costs the note, never the snapshot.
#[test]
fn a_panicking_describe_only_drops_the_note() {
    let a = authority();
    let (r, _) = registry(&a);
    r.register(bind_with(&a, "devices.detail", "d", |b| {
        b.procedure(reboot(&a).describe(|| crate::common::deliberate_panic("describe bug")))
    }))
    .unwrap();
    let s = r.snapshot(&ctx());
    assert_eq!(s.procedures.len(), 1);
    assert_eq!(s.procedures[0].contextual_note, None);
}

// --- explainSurface -----------------------------------------------------------------------

fn explained_registry(a: &agent_surface_engine::authority::CapabilityAuthority) -> AgentSurfaceRegistry {
    let registry_policy = discovery_policy("bridge-limits", |c| {
        if c.consumer.kind == ConsumerKind::McpBridge && !c.consumer.grants.iter().any(|g| g == "admin") {
            if c.capability_id.starts_with("domain:") {
                DiscoveryDecision::Hide
            } else if c.capability_id.ends_with(".sort") {
                DiscoveryDecision::Disable("read-only-bridge".into())
            } else {
                DiscoveryDecision::Expose
            }
        } else {
            DiscoveryDecision::Expose
        }
    });
    let r = populated(a, |o| o.policy(registry_policy));
    let h = r
        .register(bind_with(a, "low.widget", "off", |b| {
            b.observation("readWidget", ObservationBinding::new(read_sync(|_| json!({}))).when(|| false, "empty"))
        }))
        .unwrap();
    h.update(RegistrationPatch { enabled: Some(false), availability: None });
    r.register(bind_with(a, "devicesx.panel", "q", |b| {
        b.observation(
            "readPanel",
            ObservationBinding::new(read_sync(|_| json!({})))
                .policy(discovery_policy("buggy", |_| crate::common::deliberate_panic("policy bug"))),
        )
    }))
    .unwrap();
    r
}

/// Outcome of every capability as the snapshot shows it.
fn snapshot_outcomes(s: &AgentSurfaceSnapshot) -> Vec<(String, String, Outcome)> {
    let o = |available: bool| if available { Outcome::Expose } else { Outcome::Disable };
    let mut out = Vec::new();
    for c in &s.components {
        for x in &c.observations {
            out.push((c.registration_id.clone(), x.capability_id.to_string(), o(x.available)));
        }
        for x in &c.actions {
            out.push((c.registration_id.clone(), x.capability_id.to_string(), o(x.available)));
        }
    }
    for p in &s.procedures {
        out.push((p.registration_id.clone(), p.capability_id.to_string(), o(p.available)));
    }
    out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    out
}

// "Its composed outcome MUST equal what snapshot() did for the same context (AS-EXPLAIN-003)";
// "'hide' ⇒ absent from snapshot()".
#[test]
fn explain_outcome_equals_the_snapshot_for_the_same_context() {
    let a = authority();
    let r = explained_registry(&a);
    let mut admin = AgentConsumer::new(ConsumerKind::McpBridge, "bridge");
    admin.grants.push("admin".into());
    let contexts = [
        ctx(),
        SnapshotContext { consumer: AgentConsumer::new(ConsumerKind::McpBridge, "bridge"), ..ctx() },
        SnapshotContext { consumer: admin, ..ctx() },
        SnapshotContext {
            scope: Some(vec!["devices".into(), "low".into()]),
            consumer: AgentConsumer::new(ConsumerKind::McpBridge, "b"),
            ..ctx()
        },
    ];
    let mut hidden_seen = 0;
    for c in &contexts {
        let e = explain_surface(&r, c).unwrap();
        let mut from_explain: Vec<(String, String, Outcome)> = e
            .capabilities
            .iter()
            .filter(|x| x.outcome != Outcome::Hide)
            .map(|x| (x.registration_id.clone(), x.capability_id.clone(), x.outcome))
            .collect();
        from_explain.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        assert_eq!(from_explain, snapshot_outcomes(&r.snapshot(c)), "{c:?}");
        // Disabled ones carry the same reason as the snapshot.
        let s = r.snapshot(c);
        for x in e.capabilities.iter().filter(|x| x.outcome == Outcome::Disable) {
            let reason = s
                .components
                .iter()
                .flat_map(|c| {
                    c.observations
                        .iter()
                        .map(|o| (&o.capability_id, &c.registration_id, &o.unavailable_reason))
                        .chain(c.actions.iter().map(|o| (&o.capability_id, &c.registration_id, &o.unavailable_reason)))
                })
                .chain(s.procedures.iter().map(|p| (&p.capability_id, &p.registration_id, &p.unavailable_reason)))
                .find(|(id, rid, _)| **id == x.capability_id && **rid == x.registration_id)
                .map(|t| t.2.clone());
            assert_eq!(reason, Some(x.reason.clone()), "{}", x.capability_id);
        }
        hidden_seen += e.capabilities.iter().filter(|x| x.outcome == Outcome::Hide).count();
    }
    assert!(hidden_seen > 0, "the fixture exercises hide");
}

// "It reports every capability the registry holds, hidden ones included ... description ...
// hidden capabilities have no snapshot entry to read it from"; procedures included
// (kind "procedure", plane "domain").
#[test]
fn explain_reports_hidden_capabilities_and_procedures() {
    let a = authority();
    let r = explained_registry(&a);
    let c = SnapshotContext { consumer: AgentConsumer::new(ConsumerKind::McpBridge, "bridge"), ..ctx() };
    let e = explain_surface(&r, &c).unwrap();
    let reboot =
        e.capabilities.iter().find(|x| x.capability_id == "domain:devices.reboot").expect("procedures are explained");
    assert_eq!((reboot.kind, reboot.plane, reboot.outcome), ("procedure", "domain", Outcome::Hide));
    assert_eq!(reboot.description, "Runs domain:devices.reboot");
    assert!(r.snapshot(&c).procedures.is_empty());
    let panel = e
        .capabilities
        .iter()
        .find(|x| x.capability_id == "view:devicesx.panel.readPanel" && x.component.instance_id == "q")
        .unwrap();
    assert_eq!(panel.outcome, Outcome::Hide, "a panicking policy hides");
    let buggy = panel.policies.iter().find(|p| p.name == "buggy").unwrap();
    assert!(buggy.threw && buggy.scope == PolicyScope::Capability);
    assert_eq!(buggy.discovery, Some(DiscoveryDecision::Hide), "a failed vote counts as hide");
    let total: usize = r.registrations().len();
    assert_eq!(total, 8);
    // low.widget ×2 (1 each), app.nav ×2 (2 each), devices.detail (2 + reboot),
    // devicesx.panel ×2 (1 each), devices.table (4).
    assert_eq!(e.capabilities.len(), 2 + 4 + 3 + 2 + 4, "every capability of every registration");
}

// "includeUnavailable and budget are ignored: withholding is the one thing an explanation must
// not do. scope and consumer are honoured".
#[test]
fn explain_ignores_include_unavailable_and_budget_but_honours_scope() {
    let a = authority();
    let r = explained_registry(&a);
    let full = explain_surface(&r, &ctx()).unwrap();
    let withheld = explain_surface(
        &r,
        &SnapshotContext {
            include_unavailable: false,
            budget: Some(SnapshotBudget { max_components: Some(0), max_bytes: Some(1) }),
            ..ctx()
        },
    )
    .unwrap();
    assert_eq!(full, withheld);
    let scoped = explain_surface(&r, &SnapshotContext { scope: Some(vec!["app".into()]), ..ctx() }).unwrap();
    assert!(!scoped.capabilities.is_empty());
    assert!(scoped.capabilities.iter().all(|x| x.component.component_type == "app.nav"));
}

// "Policy attribution keeps availability separate from policy votes": when()/enabled state is
// reported in `availability`, each policy's own vote in `policies`.
#[test]
fn explain_keeps_availability_apart_from_policy_votes() {
    let a = authority();
    let r = explained_registry(&a);
    let e = explain_surface(&r, &ctx()).unwrap();
    let off = e.capabilities.iter().find(|x| x.component.instance_id == "off").unwrap();
    assert_eq!(
        (off.outcome, off.availability.available, off.availability.reason.as_deref()),
        (Outcome::Disable, false, Some("component-disabled"))
    );
    assert_eq!(off.policies.len(), 1);
    assert_eq!(
        (off.policies[0].name.as_str(), off.policies[0].scope, off.policies[0].discovery.clone()),
        ("bridge-limits", PolicyScope::Registry, Some(DiscoveryDecision::Expose))
    );
    let bridge =
        explain_surface(&r, &SnapshotContext { consumer: AgentConsumer::new(ConsumerKind::McpBridge, "b"), ..ctx() })
            .unwrap();
    let sort = bridge.capabilities.iter().find(|x| x.capability_id == "view:devices.table.sort").unwrap();
    assert_eq!(
        (sort.outcome, sort.reason.as_deref(), sort.availability.available),
        (Outcome::Disable, Some("read-only-bridge"), true),
        "the policy disabled it, state did not"
    );
    assert_eq!(sort.policies[0].discovery, Some(DiscoveryDecision::Disable("read-only-bridge".into())));
    // The published DiscoveryDecision shape.
    let json = serde_json::to_value(&sort.policies[0]).unwrap();
    assert_eq!(json["discovery"], serde_json::json!({"disable": "read-only-bridge"}));
}

// "It throws on ... a disposed one — rather than reporting an empty surface".
#[test]
fn explain_on_a_disposed_registry_is_an_error() {
    let a = authority();
    let r = explained_registry(&a);
    r.dispose();
    assert_eq!(explain_surface(&r, &ctx()), Err(ExplainError::Disposed));
}

// --- Limits and registry defaults ---------------------------------------------------------

// "Limits and defaults": every default equals the spec's number.
#[test]
fn limits_defaults_equal_the_spec() {
    let l = AgentSurfaceLimits::default();
    assert_eq!(l.max_component_description, 500);
    assert_eq!(l.max_capability_description, 300);
    assert_eq!(l.max_meta_bytes, 2048);
    assert_eq!(l.max_output_bytes, 32_768);
    assert_eq!(l.max_schema_bytes, 16_384);
    assert_eq!(l.max_schema_depth, 8);
    assert_eq!(l.observation_timeout_ms, 5_000);
    assert_eq!(l.action_timeout_ms, 10_000);
    assert_eq!(l.procedure_timeout_ms, 30_000);
    assert_eq!(l.action_queue_depth, 2);
    assert_eq!(l.max_concurrent_observations_per_consumer, 8);
    assert_eq!(l.max_concurrent_observations_total, 32);
    assert_eq!(l.max_queued_observations_per_consumer, 8);
    assert_eq!(l.dedupe_cache_size, 200);
    assert_eq!(l.dedupe_cache_ttl_ms, 600_000);
    assert_eq!(l.tombstone_size, 100);
    assert_eq!(l.tombstone_ttl_ms, 300_000);
    assert_eq!(l.confirmation_ttl_ms, 120_000);
    assert_eq!(l.max_pending_confirmations, 32);
}

// RegistryOptions defaults: environment "production", onDuplicateInstance "reject",
// duplicateSuffixPolicy "warn", limits = defaults ("All defaults are overridable via
// RegistryOptions.limits"); the default snapshot consumer is {"id":"anonymous","kind":"embedded"}.
#[test]
fn registry_options_and_snapshot_context_defaults_follow_the_spec() {
    let o = RegistryOptions::new(authority());
    assert_eq!(o.environment, Environment::Production);
    assert_eq!(o.on_duplicate_instance, DuplicateInstance::Reject);
    assert_eq!(o.duplicate_suffix_policy, DuplicateSuffixPolicy::Warn);
    assert_eq!(o.limits, AgentSurfaceLimits::default());
    let c = SnapshotContext::default();
    assert_eq!(
        (c.consumer.id.as_str(), c.consumer.kind, c.include_unavailable, c.scope.is_none(), c.budget.is_none()),
        ("anonymous", ConsumerKind::Embedded, true, true, true)
    );
    assert_eq!(c.consumer.key(), "embedded:anonymous");
}
