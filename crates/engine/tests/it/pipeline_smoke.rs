//! End-to-end through the runtime with the example app's compiled manifest: authority →
//! bind → register → snapshot → invoke (observation, action with defaults, confirmation flow,
//! timeout with a manual clock).

use agent_surface_engine::authority::CapabilityAuthority;
use agent_surface_engine::binding::{execute_fn, read_sync, ActionBinding, ObservationBinding};
use agent_surface_engine::host::ManualClock;
use agent_surface_engine::host::ManualTimer;
use agent_surface_engine::invoke::{AgentInvocation, InvokeOptions};
use agent_surface_engine::registry::{AgentSurfaceRegistry, RegistryOptions};
use agent_surface_engine::snapshot::SnapshotContext;
use agent_surface_model::errors::ErrorCode;
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn authority() -> CapabilityAuthority {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/devices-app/agent-surface.manifest.json"
    ))
    .unwrap();
    CapabilityAuthority::from_json_str(&text).unwrap()
}

fn devices_table(a: &CapabilityAuthority, runs: Arc<AtomicUsize>) -> agent_surface_engine::binding::BoundComponent {
    let sorted = runs.clone();
    a.component("devices.table")
        .unwrap()
        .bind()
        .instance("main")
        .observation(
            "readState",
            ObservationBinding::new(read_sync(|_| json!({"rows": [], "sort": "name", "filter": ""}))),
        )
        .observation("readSelection", ObservationBinding::new(read_sync(|_| json!({"ids": []}))))
        .action("selectRows", ActionBinding::new(execute_fn(|_, _| async { Ok(json!(null)) })))
        .action("clearSelection", ActionBinding::new(execute_fn(|_, _| async { Ok(json!(null)) })))
        .action(
            "sortBy",
            ActionBinding::new(execute_fn(move |input, _| {
                sorted.fetch_add(1, Ordering::SeqCst);
                async move { Ok(json!({"echo": input})) }
            })),
        )
        .action("filter", ActionBinding::new(execute_fn(|_, _| async { Ok(json!(null)) })))
        .procedure(
            a.procedure("domain:devices.decommission")
                .unwrap()
                .bind(execute_fn(|input, ctx| async move {
                    assert!(ctx.confirmation.is_some(), "a destructive procedure runs only with evidence");
                    Ok(json!({"removed": input["ids"]}))
                }))
                .unwrap(),
        )
        .build()
        .unwrap()
}

#[test]
fn the_whole_pipeline_on_the_example_manifest() {
    futures::executor::block_on(async {
        let a = authority();
        let runs = Arc::new(AtomicUsize::new(0));
        let registry = AgentSurfaceRegistry::new(RegistryOptions::new(a.clone()));
        let handle = registry.register(devices_table(&a, runs.clone())).unwrap();
        let snap = registry.snapshot(&SnapshotContext::default());
        assert_eq!(snap.components.len(), 1);
        assert_eq!(snap.components[0].actions.len(), 4);
        assert_eq!(snap.procedures[0].capability_id, "domain:devices.decommission");

        let r = registry
            .invoke(AgentInvocation::new("view:devices.table.readState"), InvokeOptions::default())
            .await
            .unwrap();
        assert!(r.is_ok(), "{r:?}");
        assert_eq!(r.output.unwrap()["sort"], "name");

        // Defaults from the zod schema are applied before the handler sees the input.
        let r = registry
            .invoke(
                AgentInvocation::new("view:devices.table.sortBy").id("t1").input(json!({"column": "status"})),
                InvokeOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(r.output.as_ref().unwrap()["echo"], json!({"column": "status", "direction": "asc"}));
        // The same id and request is answered from the idempotency window, not re-run.
        let again = registry
            .invoke(
                AgentInvocation::new("view:devices.table.sortBy").id("t1").input(json!({"column": "status"})),
                InvokeOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(again, r);
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        let conflict = registry
            .invoke(
                AgentInvocation::new("view:devices.table.sortBy").id("t1").input(json!({"column": "name"})),
                InvokeOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(conflict.code(), Some(ErrorCode::InvocationConflict));

        let bad = registry
            .invoke(
                AgentInvocation::new("view:devices.table.sortBy").input(json!({"column": "nope"})),
                InvokeOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(bad.code(), Some(ErrorCode::InvalidInput));

        // Destructive procedure: confirmation required, approved, retried, runs once.
        let req = AgentInvocation::new("domain:devices.decommission").id("d1").input(json!({"ids": ["dev_abcdef"]}));
        let first = registry.invoke(req.clone(), InvokeOptions::default()).await.unwrap();
        assert_eq!(first.code(), Some(ErrorCode::ConfirmationRequired));
        let cid = first.error.unwrap().details.unwrap()["confirmationId"].as_str().unwrap().to_string();
        assert_eq!(registry.confirmations().pending().len(), 1);
        registry.confirmations().resolve(&cid, true).unwrap();
        let done = registry.invoke(req.clone().confirmation(&cid), InvokeOptions::default()).await.unwrap();
        assert!(done.is_ok(), "{done:?}");
        let replay = registry.invoke(req.id("d2").confirmation(&cid), InvokeOptions::default()).await.unwrap();
        assert_eq!(replay.code(), Some(ErrorCode::ConfirmationExpired));

        handle.unregister();
        let gone = registry
            .invoke(
                AgentInvocation::new("view:devices.table.readState").registration(handle.registration_id()),
                InvokeOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(gone.code(), Some(ErrorCode::ComponentUnmounted));
    });
}

#[test]
fn timeouts_follow_the_injected_clock() {
    let clock = ManualClock::new(1_000_000);
    let rt = ManualTimer::new(clock.clone());
    let a = authority();
    let registry =
        AgentSurfaceRegistry::new(RegistryOptions::new(a.clone()).clock(Arc::new(clock)).timer(Arc::new(rt.clone())));
    let bound = a
        .component("app.nav")
        .unwrap()
        .bind()
        .observation("currentRoute", ObservationBinding::new(read_sync(|_| json!({"path": "/"}))))
        .action(
            "navigate",
            ActionBinding::new(execute_fn(|_, ctx| async move {
                ctx.signal.aborted().await;
                Ok(json!(null))
            })),
        )
        .build()
        .unwrap();
    registry.register(bound).unwrap();
    let mut pool = futures::executor::LocalPool::new();
    let r2 = registry.clone();
    let fut = async move {
        r2.invoke(
            AgentInvocation::new("view:app.nav.navigate").input(json!({"to": "/devices"})),
            InvokeOptions::default(),
        )
        .await
        .unwrap()
    };
    let handle = futures::task::LocalSpawnExt::spawn_local_with_handle(&pool.spawner(), fut).unwrap();
    pool.run_until_stalled();
    assert_eq!(rt.pending_timers(), 1);
    rt.advance(9_999);
    pool.run_until_stalled();
    rt.advance(1);
    let r = pool.run_until(handle);
    assert_eq!(r.code(), Some(ErrorCode::Timeout));
}
