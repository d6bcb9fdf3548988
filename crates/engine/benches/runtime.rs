//! Runtime benches (divan): the invocation pipeline, observation reads, snapshots, manifest
//! verification and the idempotency (dedupe) window. Targets and figures: docs/performance.md.
//!
//!     cargo bench -p agent-surface-runtime --bench runtime
//!
//! Under `cargo test` each bench runs once (divan's test mode), so they cannot rot.

use agent_surface_engine::authority::CapabilityAuthority;
use agent_surface_engine::binding::{execute_fn, read_sync, BoundComponent};
use agent_surface_engine::invoke::{AgentInvocation, InvokeOptions};
use agent_surface_engine::registry::{AgentSurfaceRegistry, RegistryOptions};
use agent_surface_engine::snapshot::SnapshotContext;
use agent_surface_model::effects::{default_governance, CapabilityKind, Effect};
use agent_surface_model::manifest::{
    ActionContract, CapabilityContractManifest, ComponentContract, Generator, ManifestContract, ObservationContract,
    OperationContract,
};
use divan::Bencher;
use futures::executor::block_on;
use serde_json::{json, Value};

fn main() {
    divan::main();
}

/// `n` under `cargo bench`; a tenth of it in divan's test mode (`cargo test`, no `--bench`), so
/// the smoke run stays fast in debug builds.
fn scale(n: usize) -> usize {
    if std::env::args().any(|a| a == "--bench") {
        n
    } else {
        n / 10
    }
}

fn empty_input() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
}

/// A typical observation output: a page of rows.
fn rows_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "rows": {"type": "array", "maxItems": 200, "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "pattern": "^dev_[a-z0-9]{6,}$"},
                    "name": {"type": "string", "maxLength": 120},
                    "status": {"enum": ["online", "offline", "maintenance"]},
                    "lastSeen": {"type": ["string", "null"], "format": "date-time"}
                },
                "required": ["id", "name", "status", "lastSeen"],
                "additionalProperties": false
            }},
            "sort": {"enum": ["name", "status", "lastSeen"]},
            "filter": {"type": "string"}
        },
        "required": ["rows", "sort", "filter"],
        "additionalProperties": false
    })
}

/// A typical action input.
fn select_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "ids": {"type": "array", "items": {"type": "string", "pattern": "^dev_[a-z0-9]{6,}$"}, "maxItems": 50, "uniqueItems": true},
            "mode": {"enum": ["replace", "add"], "default": "replace"}
        },
        "required": ["ids"],
        "additionalProperties": false
    })
}

/// A component with `observations` observations and `actions` actions.
fn component(ty: &str, observations: usize, actions: usize) -> ManifestContract {
    let mut c = ComponentContract::new(ty, format!("The {ty} component"));
    for i in 0..observations {
        let schema = if i == 0 {
            rows_schema()
        } else {
            json!({"type": "object", "properties": {"value": {"type": "integer"}}, "required": ["value"]})
        };
        c.observations.insert(format!("read{i}"), ObservationContract::new(format!("Reads part {i}"), schema));
    }
    for i in 0..actions {
        let input = if i == 0 { empty_input() } else { select_schema() };
        c.actions.insert(
            format!("act{i}"),
            ActionContract::new(
                format!("Does thing {i}"),
                input,
                default_governance(CapabilityKind::ViewAction, Effect::LocalState),
            ),
        );
    }
    ManifestContract::Component(c)
}

fn manifest(contracts: Vec<ManifestContract>) -> CapabilityContractManifest {
    CapabilityContractManifest::assemble(Generator { name: "bench".into(), version: "0.0.0".into() }, contracts, 0)
}

fn bind(a: &CapabilityAuthority, ty: &str, observations: usize, actions: usize) -> BoundComponent {
    let mut b = a.component(ty).expect("in the manifest").bind();
    for i in 0..observations {
        b = if i == 0 {
            b.observation(format!("read{i}"), read_sync(|_| json!({"rows": [{"id": "dev_abc123", "name": "Printer", "status": "online", "lastSeen": null}], "sort": "name", "filter": ""})))
        } else {
            b.observation(format!("read{i}"), read_sync(|_| json!({"value": 42})))
        };
    }
    for i in 0..actions {
        b = b.action(format!("act{i}"), execute_fn(|_, _| async { Ok(Value::Null) }));
    }
    b.build().expect("bind")
}

/// One component `bench.widget` (read0: rows, read1: value; act0: trivial, act1: typical input).
fn small_registry() -> AgentSurfaceRegistry {
    let a = CapabilityAuthority::new(manifest(vec![component("bench.widget", 2, 2)]).to_value()).expect("verified");
    let registry = AgentSurfaceRegistry::new(RegistryOptions::new(a.clone()));
    registry.register(bind(&a, "bench.widget", 2, 2)).expect("register");
    registry
}

/// Invoke overhead of a trivial action (`{}` in, `null` out) through the full pipeline
/// (dedupe, resolve, availability, authorize, input validation, policies, admission, execute,
/// output checks, settle: events and the dedupe record), no timer runtime.
#[divan::bench]
fn invoke_trivial_action(bencher: Bencher) {
    let registry = small_registry();
    bencher.bench_local(|| {
        let r = block_on(
            registry.invoke(AgentInvocation::new("view:bench.widget.act0").input(json!({})), InvokeOptions::default()),
        )
        .unwrap();
        debug_assert!(r.is_ok());
        r
    });
}

/// The same with a tokio current-thread runtime and `TokioTimer` timers (the timeout race
/// registers a tokio timer per invocation), as an app on tokio runs it.
#[divan::bench]
fn invoke_trivial_action_tokio(bencher: Bencher) {
    let a = CapabilityAuthority::new(manifest(vec![component("bench.widget", 2, 2)]).to_value()).expect("verified");
    let registry = AgentSurfaceRegistry::new(
        RegistryOptions::new(a.clone()).timer(std::sync::Arc::new(agent_surface_engine::host::timer::TokioTimer)),
    );
    registry.register(bind(&a, "bench.widget", 2, 2)).expect("register");
    let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    bencher.bench_local(|| {
        rt.block_on(
            registry.invoke(AgentInvocation::new("view:bench.widget.act0").input(json!({})), InvokeOptions::default()),
        )
        .unwrap()
    });
}

/// A typical action: input `{ ids: [3 ids] }` validated (pattern, uniqueItems, a default).
#[divan::bench]
fn invoke_typical_action(bencher: Bencher) {
    let registry = small_registry();
    let input = json!({"ids": ["dev_abc123", "dev_def456", "dev_ghi789"]});
    bencher.bench_local(|| {
        block_on(
            registry
                .invoke(AgentInvocation::new("view:bench.widget.act1").input(input.clone()), InvokeOptions::default()),
        )
        .unwrap()
    });
}

/// An observation read: the handler's output (a page with one row) validated and returned.
#[divan::bench]
fn observation_read(bencher: Bencher) {
    let registry = small_registry();
    bencher.bench_local(|| {
        block_on(registry.invoke(AgentInvocation::new("view:bench.widget.read0"), InvokeOptions::default())).unwrap()
    });
}

/// The dedupe cache-hit path: the same invocation id and request again is answered from the
/// idempotency window without running anything.
#[divan::bench]
fn dedupe_cache_hit(bencher: Bencher) {
    let registry = small_registry();
    let request =
        AgentInvocation::new("view:bench.widget.act1").id("inv_bench_1").input(json!({"ids": ["dev_abc123"]}));
    let first = block_on(registry.invoke(request.clone(), InvokeOptions::default())).unwrap();
    assert!(first.is_ok(), "{first:?}");
    bencher.bench_local(|| block_on(registry.invoke(request.clone(), InvokeOptions::default())).unwrap());
}

/// Snapshot of 1,000 registered components with 10 capabilities each (5 observations,
/// 5 actions).
#[divan::bench(sample_count = 30)]
fn snapshot_1000_components_x_10(bencher: Bencher) {
    let n = scale(1000);
    let types: Vec<String> = (0..n).map(|i| format!("bench.c{i}")).collect();
    let a = CapabilityAuthority::new(manifest(types.iter().map(|t| component(t, 5, 5)).collect()).to_value())
        .expect("verified");
    let registry = AgentSurfaceRegistry::new(RegistryOptions::new(a.clone()));
    let mut handles = Vec::new();
    for t in &types {
        handles.push(registry.register(bind(&a, t, 5, 5)).expect("register"));
    }
    let ctx = SnapshotContext::default();
    let snap = registry.snapshot(&ctx);
    assert_eq!(snap.components.len(), n);
    bencher.bench_local(|| registry.snapshot(&ctx));
}

/// 1,000 contracts: 800 components (3 capabilities each), 150 procedures, 50 external tools.
fn manifest_1000() -> CapabilityContractManifest {
    let mut contracts: Vec<ManifestContract> =
        (0..scale(800)).map(|i| component(&format!("bench.c{i}"), 2, 1)).collect();
    for i in 0..scale(150) {
        contracts.push(ManifestContract::Procedure(OperationContract::new(
            format!("domain:bench.p{i}"),
            format!("Runs procedure {i}"),
            select_schema(),
            default_governance(CapabilityKind::DomainProcedure, Effect::Mutation),
        )));
    }
    for i in 0..scale(50) {
        contracts.push(ManifestContract::ExternalTool(OperationContract::new(
            format!("external:bench.t{i}"),
            format!("Calls tool {i}"),
            empty_input(),
            default_governance(CapabilityKind::ExternalTool, Effect::ExternalSideEffect),
        )));
    }
    manifest(contracts)
}

/// Manifest verification of 1,000 contracts from a parsed value: format, completeness, every
/// contractHash, unique sorted ids, manifestHash, every definition rule (schemas compiled).
#[divan::bench(sample_count = 20)]
fn verify_manifest_1000_contracts(bencher: Bencher) {
    let value = manifest_1000().to_value();
    assert!(CapabilityAuthority::new(value.clone()).is_ok());
    bencher.with_inputs(|| value.clone()).bench_local_values(|v| CapabilityAuthority::new(v).unwrap());
}

/// The same from the JSON text (strict parse included), as `verify` and a host loading a file.
#[divan::bench(sample_count = 20)]
fn verify_manifest_1000_contracts_from_text(bencher: Bencher) {
    let text = manifest_1000().to_pretty_json();
    bencher.bench_local(|| CapabilityAuthority::from_json_str(&text).unwrap());
}
