//! The page's workload natively, the baseline of the TypeScript runtime's in docs/performance.md
//! (`scripts/bench-runtime.sh` runs this and packages/core/bench/runtime.mjs in one go): the
//! scenario manifest (conformance/scenarios), a trivial action invoked through the whole
//! pipeline, and a snapshot of 100 registered components serialized to JSON text (what the page
//! receives).
//!
//!     cargo bench -p agent-surface-engine --bench page_workload

use agent_surface_engine::authority::CapabilityAuthority;
use agent_surface_engine::binding::{execute_fn, read_sync};
use agent_surface_engine::invoke::{AgentInvocation, InvokeOptions};
use agent_surface_engine::registry::{AgentSurfaceRegistry, RegistrationHandle, RegistryOptions};
use agent_surface_engine::snapshot::SnapshotContext;
use divan::Bencher;
use futures::executor::block_on;
use serde_json::{json, Value};

fn main() {
    divan::main();
}

fn registry(instances: usize) -> (AgentSurfaceRegistry, Vec<RegistrationHandle>) {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../conformance/scenarios/manifest.json"))
            .unwrap();
    let a = CapabilityAuthority::from_json_str(&text).unwrap();
    let registry = AgentSurfaceRegistry::new(RegistryOptions::new(a.clone()));
    let handles = (0..instances)
        .map(|i| {
            let b = a
                .component("demo.counter")
                .unwrap()
                .bind()
                .instance(format!("c{i}"))
                .observation("value", read_sync(|_| json!({ "value": 1 })))
                .action("increment", execute_fn(|_, _| async { Ok(Value::Null) }))
                .action("setTo", execute_fn(|input, _| async move { Ok(input) }))
                .action("slow", execute_fn(|_, _| async { Ok(Value::Null) }))
                .build()
                .unwrap();
            registry.register(b).unwrap()
        })
        .collect();
    (registry, handles)
}

/// JS → engine → handler → result in the page; here: invoke → handler → result envelope as text.
#[divan::bench]
fn invoke_trivial_action(bencher: Bencher) {
    let (registry, _h) = registry(1);
    bencher.bench_local(|| {
        let r = block_on(
            registry
                .invoke(AgentInvocation::new("view:demo.counter.increment").input(json!({})), InvokeOptions::default()),
        )
        .unwrap();
        serde_json::to_string(&r).unwrap()
    });
}

/// `snapshot()` of 100 components (4 capabilities each) as the JSON text the page parses.
#[divan::bench]
fn snapshot_100_components(bencher: Bencher) {
    let (registry, _h) = registry(100);
    let ctx = SnapshotContext::default();
    assert_eq!(registry.snapshot(&ctx).components.len(), 100);
    bencher.bench_local(|| registry.snapshot(&ctx).to_json().to_string());
}
