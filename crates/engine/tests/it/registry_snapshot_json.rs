//! The JSON a snapshot serializes to, byte for byte (insta snapshots in `tests/snapshots/`):
//! both `to_json()` (sorted keys) and serde on the struct (field order), for a registry that
//! exercises every descriptor field: schemas, `meta` at every level, route, parent links,
//! procedures with a contextual note, policy-disabled, `when`-unavailable, overridden,
//! disabled and hidden capabilities, scope and a budget. Random ids are replaced by labels.

use crate::common::{fixture_text, T0};
use agent_surface_engine::authority::CapabilityAuthority;
use agent_surface_engine::binding::{execute_fn, read_sync, ActionBinding, ComponentBinder, ObservationBinding};
use agent_surface_engine::host::ManualClock;
use agent_surface_engine::policy::{discovery_policy, DiscoveryDecision};
use agent_surface_engine::registry::{AgentSurfaceRegistry, AvailabilityOverride, RegistrationPatch, RegistryOptions};
use agent_surface_engine::snapshot::{AgentRouteInfo, AgentSurfaceSnapshot, SnapshotBudget, SnapshotContext};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// The example app's manifest plus `view:test.annotated`, which carries `meta` on the
/// component, an observation and an action, and an action with an output schema.
fn authority() -> CapabilityAuthority {
    let mut m: Value = serde_json::from_str(&fixture_text()).unwrap();
    let annotated = json!({
        "description": "A component with meta everywhere.",
        "id": "view:test.annotated",
        "kind": "component",
        "meta": {"group": "tests", "weights": [1, 2.5, -3], "nested": {"deep": {"flag": true, "none": null}}},
        "origin": "first-party",
        "policies": [],
        "priority": 3,
        "tags": ["test"],
        "type": "test.annotated",
        "observations": {
            "summary": {"description": "A summary with \"quotes\", unicode (é, 漢) and a\nnewline.", "meta": {"unit": "ms"}, "outputSchema": {"type": "object", "properties": {"total": {"type": "integer", "minimum": 0}}, "required": ["total"], "additionalProperties": false}}
        },
        "actions": {
            "compute": {
                "audit": "metadata", "confirmation": "optional", "description": "Computes a result.",
                "effect": "local-state", "idempotent": true, "inputSchema": {"type": "object", "properties": {"x": {"type": "number", "default": 0.5}}, "additionalProperties": false},
                "meta": {"hint": "fast"}, "outputSchema": {"type": "object", "properties": {"y": {"type": "number"}}, "required": ["y"], "additionalProperties": false},
                "reversible": false
            }
        }
    });
    m["contracts"].as_array_mut().unwrap().push(annotated);
    crate::common::rehash(&mut m);
    CapabilityAuthority::new(m).unwrap()
}

/// Trivial handlers for every declared capability of `ty`.
fn binder(a: &CapabilityAuthority, ty: &str, instance: &str) -> ComponentBinder {
    let contract = a.component(ty).unwrap();
    let mut b = contract.bind().instance(instance);
    for name in contract.contract().observations.keys() {
        b = b.observation(name.clone(), read_sync(|_| json!({})));
    }
    for name in contract.contract().actions.keys() {
        b = b.action(name.clone(), execute_fn(|_, _| async { Ok(Value::Null) }));
    }
    b
}

fn procedure(
    a: &CapabilityAuthority,
    id: &str,
    binding: ActionBinding,
) -> agent_surface_engine::binding::BoundProcedure {
    a.procedure(id).unwrap().bind(binding).unwrap()
}

/// The registry, and each registration id with the label it is written as.
fn registry() -> (AgentSurfaceRegistry, Vec<(String, &'static str)>) {
    let a = authority();
    let options = RegistryOptions::new(a.clone())
        .clock(Arc::new(ManualClock::new(T0)))
        .route(|| {
            let mut params = serde_json::Map::new();
            params.insert("page".into(), json!(2));
            Some(AgentRouteInfo { path: "/devices".into(), params: Some(params) })
        })
        // Registry scope: one capability disabled with a reason, one hidden.
        .policy(discovery_policy("filter-lock", |c| {
            if c.capability_id == "view:devices.table.filter" {
                DiscoveryDecision::Disable("filter-locked".into())
            } else {
                DiscoveryDecision::Expose
            }
        }))
        .policy(discovery_policy("hide-clear", |c| {
            if c.capability_id == "view:devices.table.clearSelection" && c.instance_id == "side" {
                DiscoveryDecision::Hide
            } else {
                DiscoveryDecision::Expose
            }
        }));
    let r = AgentSurfaceRegistry::new(options);
    let ok = || ActionBinding::new(execute_fn(|_, _| async { Ok(Value::Null) }));
    let main = binder(&a, "devices.table", "main")
        .action("sortBy", ok().when(|| false, "no-rows"))
        .procedure(procedure(&a, "domain:devices.reboot", ok()).describe(|| Some("2 devices are rebooting".into())))
        .procedure(procedure(&a, "domain:devices.decommission", ok().when(|| false, "not-admin")))
        .build()
        .unwrap();
    let side = binder(&a, "devices.table", "side")
        .parent("app.nav", "default")
        // Component scope: this instance's readState is disabled.
        .policy(discovery_policy("side-state", |c| {
            if c.capability_id.ends_with(".readState") {
                DiscoveryDecision::Disable("side-panel-collapsed".into())
            } else {
                DiscoveryDecision::Expose
            }
        }))
        .procedure(procedure(&a, "domain:devices.reboot", ok()))
        .build()
        .unwrap();
    let nav = binder(&a, "app.nav", "default")
        // Capability scope.
        .observation(
            "currentRoute",
            ObservationBinding::new(read_sync(|_| json!({})))
                .policy(discovery_policy("route-ok", |_| DiscoveryDecision::Expose)),
        )
        .build()
        .unwrap();
    let annotated = binder(&a, "test.annotated", "default").build().unwrap();
    let off = binder(&a, "test.annotated", "off").build().unwrap();
    let mut ids = Vec::new();
    for (bound, label) in
        [(main, "reg_MAIN"), (side, "reg_SIDE"), (nav, "reg_NAV"), (annotated, "reg_ANNOTATED"), (off, "reg_OFF")]
    {
        let h = r.register(bound).unwrap();
        match label {
            "reg_NAV" => h.update(RegistrationPatch {
                enabled: None,
                availability: Some(BTreeMap::from([(
                    "navigate".to_string(),
                    AvailabilityOverride { available: false, reason: Some("route-loading".into()) },
                )])),
            }),
            "reg_OFF" => h.update(RegistrationPatch { enabled: Some(false), availability: None }),
            _ => {}
        }
        ids.push((h.registration_id().to_string(), label));
    }
    (r, ids)
}

fn normalized(text: String, r: &AgentSurfaceRegistry, ids: &[(String, &str)]) -> String {
    let mut text = text.replace(r.surface_id(), "srf_SURFACE");
    for (id, label) in ids {
        text = text.replace(id.as_str(), label);
    }
    text
}

fn check(name: &str, s: &AgentSurfaceSnapshot, r: &AgentSurfaceRegistry, ids: &[(String, &str)]) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    let value = normalized(serde_json::to_string_pretty(&s.to_json()).unwrap(), r, ids);
    let fields = normalized(serde_json::to_string(s).unwrap(), r, ids);
    settings.bind(|| {
        insta::assert_snapshot!(format!("{name}.to_json"), value);
        insta::assert_snapshot!(format!("{name}.serialized"), fields);
    });
}

#[test]
fn snapshot_json_is_byte_stable() {
    let (r, ids) = registry();
    check("snapshot_all", &r.snapshot(&SnapshotContext::default()), &r, &ids);
    check(
        "snapshot_available_devices",
        &r.snapshot(&SnapshotContext {
            scope: Some(vec!["devices".into()]),
            include_unavailable: false,
            ..SnapshotContext::default()
        }),
        &r,
        &ids,
    );
    let budget = SnapshotBudget { max_components: Some(2), max_bytes: None };
    check(
        "snapshot_budget",
        &r.snapshot(&SnapshotContext { budget: Some(budget), ..SnapshotContext::default() }),
        &r,
        &ids,
    );
}
