//! Shared fixtures of the `toolset_*` tests: the example app's manifest bound over a small
//! in-memory store, generated manifests (very long ids, ids that collide once sanitized), and
//! the wire-name grammar.
#![allow(dead_code)]

use agent_surface_engine::authority::CapabilityAuthority;
use agent_surface_engine::binding::{execute_fn, read_sync, ActionBinding, BoundComponent, ObservationBinding};
use agent_surface_engine::registry::{AgentSurfaceRegistry, RegistryOptions};
use agent_surface_engine::toolset::AgentTool;
use agent_surface_model::effects::{default_governance, CapabilityKind, Effect};
use agent_surface_model::manifest::{
    ActionContract, CapabilityContractManifest, ComponentContract, Generator, ManifestContract, ObservationContract,
    OperationContract,
};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

pub fn fixture_text() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/devices-app/agent-surface.manifest.json"
    ))
    .unwrap()
}

/// The example app's compiled manifest.
pub fn authority() -> CapabilityAuthority {
    CapabilityAuthority::from_json_str(&fixture_text()).unwrap()
}

/// Counts handler runs.
#[derive(Clone, Default)]
pub struct Runs(Arc<AtomicUsize>);

impl Runs {
    pub fn hit(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
    pub fn get(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// `devices.table` bound with trivial handlers; `decommission` counts its runs (and insists on
/// confirmation evidence), `reboot` is plain.
pub fn devices_table(a: &CapabilityAuthority, instance: &str, decommissions: Runs) -> BoundComponent {
    a.component("devices.table")
        .unwrap()
        .bind()
        .instance(instance)
        .observation(
            "readState",
            ObservationBinding::new(read_sync(|_| json!({"rows": [], "sort": "name", "filter": ""}))),
        )
        .observation("readSelection", ObservationBinding::new(read_sync(|_| json!({"ids": []}))))
        .action("selectRows", ActionBinding::new(execute_fn(|_, _| async { Ok(json!(null)) })))
        .action("clearSelection", ActionBinding::new(execute_fn(|_, _| async { Ok(json!(null)) })))
        .action("sortBy", ActionBinding::new(execute_fn(|input, _| async move { Ok(json!({"echo": input})) })))
        .action("filter", ActionBinding::new(execute_fn(|_, _| async { Ok(json!(null)) })))
        .procedure(
            a.procedure("domain:devices.decommission")
                .unwrap()
                .bind(execute_fn(move |input, ctx| {
                    let runs = decommissions.clone();
                    async move {
                        assert!(ctx.confirmation.is_some(), "a destructive procedure runs only with evidence");
                        runs.hit();
                        Ok(json!({"removed": input["ids"]}))
                    }
                }))
                .unwrap(),
        )
        .procedure(
            a.procedure("domain:devices.reboot")
                .unwrap()
                .bind(execute_fn(|input, _| async move {
                    Ok(json!({"scheduled": input["ids"].as_array().map(|a| a.len()).unwrap_or(0)}))
                }))
                .unwrap(),
        )
        .build()
        .unwrap()
}

pub fn app_nav(a: &CapabilityAuthority) -> BoundComponent {
    a.component("app.nav")
        .unwrap()
        .bind()
        .observation("currentRoute", ObservationBinding::new(read_sync(|_| json!({"path": "/devices"}))))
        .action("navigate", ActionBinding::new(execute_fn(|_, _| async { Ok(json!(null)) })))
        .build()
        .unwrap()
}

/// A registry (tokio timers) over the example manifest.
pub fn registry(a: &CapabilityAuthority) -> AgentSurfaceRegistry {
    AgentSurfaceRegistry::new(
        RegistryOptions::new(a.clone())
            .timer(Arc::new(agent_surface_engine::host::timer::TokioTimer))
            .spawn(Arc::new(agent_surface_engine::host::spawn::TokioSpawn)),
    )
}

// ---- generated manifests -----------------------------------------------------------------------

pub fn empty_input() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
}

pub fn component(ty: &str, observations: &[&str], actions: &[&str]) -> ManifestContract {
    let mut c = ComponentContract::new(ty, format!("The {ty} component."));
    for o in observations {
        c.observations
            .insert(o.to_string(), ObservationContract::new(format!("Reads {o}."), json!({"type": "object"})));
    }
    for a in actions {
        c.actions.insert(
            a.to_string(),
            ActionContract::new(
                format!("Does {a}."),
                empty_input(),
                default_governance(CapabilityKind::ViewAction, Effect::LocalState),
            ),
        );
    }
    ManifestContract::Component(c)
}

pub fn procedure(id: &str, effect: Effect) -> ManifestContract {
    ManifestContract::Procedure(OperationContract::new(
        id,
        format!("Runs {id}."),
        empty_input(),
        default_governance(CapabilityKind::DomainProcedure, effect),
    ))
}

pub fn external_tool(id: &str) -> ManifestContract {
    ManifestContract::ExternalTool(OperationContract::new(
        id,
        format!("Calls {id}."),
        empty_input(),
        default_governance(CapabilityKind::ExternalTool, Effect::ExternalSideEffect),
    ))
}

pub fn assemble(contracts: Vec<ManifestContract>) -> CapabilityAuthority {
    let m = CapabilityContractManifest::assemble(
        Generator { name: "toolset-tests".into(), version: "0.0.0".into() },
        contracts,
        0,
    );
    CapabilityAuthority::new(m.to_value()).expect("the generated manifest verifies")
}

/// A segment of exactly `len` characters: `[a-z]` then `[a-z0-9]`, distinct per `seed`.
pub fn segment(seed: usize, len: usize) -> String {
    let mut s = String::from("s");
    let mut n = seed;
    while s.len() < len {
        s.push((b'a' + (n % 26) as u8) as char);
        n = n / 26 + 7 * s.len();
    }
    s
}

/// Ids at the grammar's limits: procedures and external tools of 8 segments × 32 characters
/// that differ only at the very end, component types of 8 segments at 96 characters with
/// 48-character capability names.
pub fn long_id_manifest() -> CapabilityAuthority {
    let shared: Vec<String> = (0..7).map(|i| segment(i, 32)).collect();
    let mut contracts = Vec::new();
    for k in 0..6 {
        let mut segs = shared.clone();
        let mut last = segment(99, 31);
        last.push((b'a' + k as u8) as char);
        segs.push(last);
        contracts.push(procedure(&format!("domain:{}", segs.join(".")), Effect::Mutation));
        contracts.push(external_tool(&format!("external:{}", segs.join("."))));
    }
    for k in 0..3 {
        // 8 segments: 7 × 11 + 1 × 12 characters + 7 dots = 96.
        let mut segs: Vec<String> = (0..7).map(|i| segment(i, 11)).collect();
        let mut last = segment(50, 11);
        last.push((b'a' + k as u8) as char);
        segs.push(last);
        let ty = segs.join(".");
        assert_eq!(ty.len(), 96);
        let name_a = format!("observe{}", "x".repeat(41));
        let name_b = format!("observe{}", "y".repeat(41));
        let act = format!("act{}", "z".repeat(45));
        contracts.push(component(&ty, &[&name_a, &name_b], &[&act]));
    }
    assemble(contracts)
}

/// Ids that differ only where the sanitizer maps characters to `_`.
pub fn colliding_manifest() -> CapabilityAuthority {
    assemble(vec![
        component("ab.c_d", &["read"], &["go"]),
        component("ab_c.d", &["read"], &["go"]),
        component("ab_c_d", &[], &[]),
        procedure("domain:x.y_z", Effect::Mutation),
        procedure("domain:x_y.z", Effect::Mutation),
        external_tool("external:x.y_z"),
        external_tool("external:x_y.z"),
    ])
}

/// Binds every observation and action of every component of `a` with trivial handlers.
pub fn bind_all(a: &CapabilityAuthority, instance: &str) -> Vec<BoundComponent> {
    let mut out = Vec::new();
    for c in &a.manifest().contracts {
        if let ManifestContract::Component(cc) = c {
            let contract = a.component(&cc.r#type).unwrap();
            let mut b = contract.bind().instance(instance);
            for name in cc.observations.keys() {
                b = b.observation(name.clone(), ObservationBinding::new(read_sync(|_| json!({}))));
            }
            for name in cc.actions.keys() {
                b = b.action(name.clone(), ActionBinding::new(execute_fn(|_, _| async { Ok(json!(null)) })));
            }
            out.push(b.build().unwrap());
        }
    }
    out
}

/// `^[A-Za-z0-9_-]{1,64}$`.
pub fn wire_safe(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Every name wire-safe and unique.
pub fn assert_wire_names(tools: &[AgentTool]) {
    let mut seen = BTreeSet::new();
    for t in tools {
        assert!(wire_safe(&t.name), "not wire-safe: {:?} ({} chars)", t.name, t.name.len());
        assert!(seen.insert(t.name.clone()), "duplicate wire name {:?}", t.name);
    }
}
