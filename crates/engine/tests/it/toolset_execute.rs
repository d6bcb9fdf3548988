//! `execute`: invocationId from the tool-call id, registrationId + surfaceVersion of the catalog
//! the tool came from, never a panic; `wait` mode (one call → one final result, the user
//! answering from another task), `two-phase` mode (CONFIRMATION_REQUIRED to the model, the
//! identical retry carries the remembered confirmation), meta-mode envelopes, cancellation.

use crate::toolset_support::*;
use agent_surface_engine::binding::{execute_fn, read_sync, ActionBinding, ObservationBinding};
use agent_surface_engine::registry::AgentSurfaceRegistry;
use agent_surface_engine::signal::{AbortController, AbortReason};
use agent_surface_engine::toolset::{
    create_agent_toolset, AgentToolset, AgentToolsetOptions, ConfirmationMode, ToolCall, ToolsetMode, Topology,
};
use agent_surface_model::errors::{ErrorCode, Retry};
use serde_json::json;
use std::time::Duration;

fn toolset(registry: &AgentSurfaceRegistry, topology: Topology) -> AgentToolset {
    create_agent_toolset(registry, AgentToolsetOptions { topology: Some(topology), ..Default::default() }).unwrap()
}

fn cid_of(r: &agent_surface_engine::invoke::AgentInvocationResult) -> String {
    r.error.as_ref().unwrap().details.as_ref().unwrap()["confirmationId"].as_str().unwrap().to_string()
}

const IDS: &str = r#"{"ids": ["dev_abc123", "dev_def456"]}"#;

#[tokio::test]
async fn invocation_id_comes_from_the_tool_call() {
    let a = authority();
    let registry = registry(&a);
    let runs = Runs::default();
    let r2 = runs.clone();
    let nav = a
        .component("app.nav")
        .unwrap()
        .bind()
        .observation("currentRoute", ObservationBinding::new(read_sync(|_| json!({"path": "/"}))))
        .action(
            "navigate",
            ActionBinding::new(execute_fn(move |input, ctx| {
                r2.hit();
                async move { Ok(json!({"to": input["to"], "invocationId": ctx.invocation_id})) }
            })),
        )
        .build()
        .unwrap();
    let _n = registry.register(nav).unwrap();
    let toolset = toolset(&registry, Topology::Remote);
    let r = toolset.execute("view_app_nav_navigate", json!({"to": "/reports"}), Some("call_7".into())).await;
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(r.invocation_id, "call_7");
    assert_eq!(r.output.as_ref().unwrap()["invocationId"], "call_7", "the handler sees it too");
    assert_eq!(r.capability_id, "view:app.nav.navigate");
    assert_eq!(r.surface_version, registry.version());
    // A transport retry of the same call is answered from the idempotency window.
    let again = toolset.execute("view_app_nav_navigate", json!({"to": "/reports"}), Some("call_7".into())).await;
    assert_eq!(again, r);
    assert_eq!(runs.get(), 1);
    // Without a tool-call id the registry makes one up.
    let fresh = toolset.execute("view_app_nav_navigate", json!({"to": "/reports"}), None).await;
    assert!(fresh.invocation_id.starts_with("inv_"), "{}", fresh.invocation_id);
    assert_eq!(runs.get(), 2);
}

#[tokio::test]
async fn execute_never_panics() {
    let a = authority();
    let registry = registry(&a);
    let nav = a
        .component("app.nav")
        .unwrap()
        .bind()
        .observation(
            "currentRoute",
            ObservationBinding::new(read_sync(|_| crate::common::deliberate_panic("a buggy read handler"))),
        )
        .action(
            "navigate",
            ActionBinding::new(execute_fn(|_, _| async { crate::common::deliberate_panic("a buggy handler") })),
        )
        .build()
        .unwrap();
    let _n = registry.register(nav).unwrap();
    let toolset = toolset(&registry, Topology::Embedded);
    for (name, input) in
        [("view_app_nav_navigate", json!({"to": "/devices"})), ("view_app_nav_currentRoute", json!({}))]
    {
        let r = toolset.execute(name, input, Some(format!("p-{name}"))).await;
        assert_eq!(r.code(), Some(ErrorCode::ExecutionFailed), "{r:?}");
        assert_eq!(r.invocation_id, format!("p-{name}"));
        assert!(!r.error.unwrap().message.contains("buggy"), "internal text stays internal");
    }
    // Unknown tools, bad input, a meta verb in direct mode: envelopes.
    let r = toolset.execute("no_such_tool", json!({}), Some("x".into())).await;
    assert_eq!(r.code(), Some(ErrorCode::CapabilityNotFound));
    assert_eq!(r.error.as_ref().unwrap().retry, Retry::WithChanges);
    let r = toolset.execute("surface_invoke", json!({"capabilityId": "view:app.nav.navigate"}), None).await;
    assert_eq!(r.code(), Some(ErrorCode::CapabilityNotFound));
    let r = toolset.execute("view_app_nav_navigate", json!({"to": 42}), None).await;
    assert_eq!(r.code(), Some(ErrorCode::InvalidInput));
    let r = toolset.execute("view_app_nav_navigate", json!("not an object"), None).await;
    assert_eq!(r.code(), Some(ErrorCode::InvalidInput));
    // After dispose of the registry: CANCELLED, not a panic.
    registry.dispose();
    let r = toolset.execute("view_app_nav_navigate", json!({"to": "/devices"}), None).await;
    assert!(!r.is_ok());
}

#[tokio::test]
async fn a_kept_tool_carries_its_catalogs_registration_and_version() {
    let a = authority();
    let registry = registry(&a);
    let first = registry.register(devices_table(&a, "main", Runs::default())).unwrap();
    let toolset = toolset(&registry, Topology::Remote);
    let kept = toolset.tools().into_iter().find(|t| t.name == "view_devices_table_readState").unwrap();
    let ok = toolset.execute_tool(&kept, json!({}), ToolCall::id("k0")).await;
    assert!(ok.is_ok(), "{ok:?}");
    assert_eq!(ok.surface_version, registry.version());

    // Unmounted: the tool from the old catalog names a tombstoned registration.
    first.unregister();
    let r = toolset.execute_tool(&kept, json!({}), ToolCall::id("k1")).await;
    assert_eq!(r.code(), Some(ErrorCode::ComponentUnmounted), "{r:?}");
    assert_eq!(r.invocation_id, "k1");

    // Re-mounted: the old registration is stale, the live one is named.
    let second = registry.register(devices_table(&a, "main", Runs::default())).unwrap();
    assert_ne!(second.registration_id(), first.registration_id());
    let r = toolset.execute_tool(&kept, json!({}), ToolCall::id("k2")).await;
    assert_eq!(r.code(), Some(ErrorCode::StaleCapability), "{r:?}");
    assert_eq!(r.invocation_id, "k2");
    assert_eq!(r.error.unwrap().details.unwrap()["liveRegistrationId"], second.registration_id());

    // By name, the toolset routes through its newest catalog (refreshed on the change).
    let r = toolset.execute("view_devices_table_readState", json!({}), Some("k3".into())).await;
    assert!(r.is_ok(), "{r:?}");
    let fresh = toolset.tools().into_iter().find(|t| t.name == "view_devices_table_readState").unwrap();
    assert!(toolset.execute_tool(&fresh, json!({}), ToolCall::id("k4")).await.is_ok());
}

#[tokio::test]
async fn a_kept_destructive_tool_is_stale_after_any_surface_change() {
    let a = authority();
    let registry = registry(&a);
    let table = registry.register(devices_table(&a, "main", Runs::default())).unwrap();
    let toolset = toolset(&registry, Topology::Remote);
    let tools = toolset.tools();
    let decommission = tools.iter().find(|t| t.name == "domain_devices_decommission").unwrap();
    let reboot = tools.iter().find(|t| t.name == "domain_devices_reboot").unwrap();
    let _nav = registry.register(app_nav(&a)).unwrap();
    table.invalidate();
    let input: serde_json::Value = serde_json::from_str(IDS).unwrap();
    let r = toolset.execute_tool(decommission, input.clone(), ToolCall::id("s1")).await;
    assert_eq!(r.code(), Some(ErrorCode::StaleCapability), "{r:?}");
    assert_eq!(r.error.unwrap().details.unwrap()["reason"], "surface-version-mismatch");
    // Only dangerous effects check the version.
    assert!(toolset.execute_tool(reboot, input, ToolCall::id("s2")).await.is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_mode_gives_one_final_result() {
    let a = authority();
    let registry = registry(&a);
    let runs = Runs::default();
    let _t = registry.register(devices_table(&a, "main", runs.clone())).unwrap();
    let toolset = toolset(&registry, Topology::Embedded);
    assert_eq!(toolset.confirmation_mode(), ConfirmationMode::Wait);
    let input: serde_json::Value = serde_json::from_str(IDS).unwrap();

    for (approve, call) in [(true, "w1"), (false, "w2")] {
        // The user, in another task, answers the dialog once it shows up.
        let confirmations = registry.confirmations();
        let user = tokio::spawn(async move {
            loop {
                if let Some(p) = confirmations.pending().first() {
                    assert_eq!(p.capability_id, "domain:devices.decommission");
                    assert!(p.summary.contains("dev_abc123"), "{}", p.summary);
                    confirmations.resolve(&p.confirmation_id, approve).unwrap();
                    return;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        });
        let r = tokio::time::timeout(
            Duration::from_secs(10),
            toolset.execute("domain_devices_decommission", input.clone(), Some(call.into())),
        )
        .await
        .expect("settles");
        user.await.unwrap();
        assert_eq!(r.invocation_id, call);
        if approve {
            assert!(r.is_ok(), "{r:?}");
            assert_eq!(r.output.unwrap()["removed"], json!(["dev_abc123", "dev_def456"]));
        } else {
            assert_eq!(r.code(), Some(ErrorCode::ConfirmationDenied), "{r:?}");
        }
        assert!(registry.confirmations().pending().is_empty());
    }
    assert_eq!(runs.get(), 1, "ran once, for the approved call only");

    // A caller that gives up while waiting gets CANCELLED, and nothing runs.
    let controller = AbortController::new();
    let call = ToolCall::id("w3").signal(controller.signal());
    let c2 = controller.clone();
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        c2.abort(AbortReason::Cancelled);
    });
    let r = toolset.execute_call("domain_devices_decommission", input.clone(), call).await;
    canceller.await.unwrap();
    assert_eq!(r.code(), Some(ErrorCode::Cancelled), "{r:?}");
    assert_eq!(runs.get(), 1);
}

#[tokio::test]
async fn two_phase_mode_returns_confirmation_required_and_the_retry_runs_once() {
    let a = authority();
    let registry = registry(&a);
    let runs = Runs::default();
    let _t = registry.register(devices_table(&a, "main", runs.clone())).unwrap();
    let toolset = toolset(&registry, Topology::Remote);
    assert_eq!(toolset.confirmation_mode(), ConfirmationMode::TwoPhase);
    let input: serde_json::Value = serde_json::from_str(IDS).unwrap();

    let first = toolset.execute("domain_devices_decommission", input.clone(), Some("t1".into())).await;
    assert_eq!(first.code(), Some(ErrorCode::ConfirmationRequired), "{first:?}");
    assert_eq!(first.error.as_ref().unwrap().retry, Retry::AfterConfirmation);
    assert!(first.error.as_ref().unwrap().message.contains("repeat this call with the same arguments"), "{first:?}");
    assert_eq!(first.invocation_id, "t1");
    let cid = cid_of(&first);
    assert!(cid.starts_with("cnf_"));
    assert_eq!(registry.confirmations().pending().len(), 1);

    // The model retries before the user answered: the same confirmation, no second dialog.
    let early = toolset.execute("domain_devices_decommission", input.clone(), Some("t2".into())).await;
    assert_eq!(early.code(), Some(ErrorCode::ConfirmationRequired));
    assert_eq!(cid_of(&early), cid);
    assert_eq!(registry.confirmations().pending().len(), 1);
    assert_eq!(runs.get(), 0);

    // Different arguments are a different request: they need their own confirmation.
    let other = toolset.execute("domain_devices_decommission", json!({"ids": ["dev_zzz999"]}), Some("t3".into())).await;
    assert_eq!(other.code(), Some(ErrorCode::ConfirmationRequired));
    let other_cid = cid_of(&other);
    assert_ne!(other_cid, cid);

    // The user approves the first one; the identical retry runs, once.
    registry.confirmations().resolve(&cid, true).unwrap();
    let done = toolset.execute("domain_devices_decommission", input.clone(), Some("t4".into())).await;
    assert!(done.is_ok(), "{done:?}");
    assert_eq!(done.invocation_id, "t4");
    assert_eq!(runs.get(), 1);
    // A transport retry of that call replays the result; it does not run again.
    let replay = toolset.execute("domain_devices_decommission", input.clone(), Some("t4".into())).await;
    assert_eq!(replay, done);
    assert_eq!(runs.get(), 1);
    // The evidence was single use: the next identical call asks again.
    let next = toolset.execute("domain_devices_decommission", input.clone(), Some("t5".into())).await;
    assert_eq!(next.code(), Some(ErrorCode::ConfirmationRequired));
    assert_ne!(cid_of(&next), cid);
    assert_eq!(runs.get(), 1);

    // A denial is final for that confirmation; the following identical call starts over.
    registry.confirmations().resolve(&other_cid, false).unwrap();
    let denied =
        toolset.execute("domain_devices_decommission", json!({"ids": ["dev_zzz999"]}), Some("t6".into())).await;
    assert_eq!(denied.code(), Some(ErrorCode::ConfirmationDenied));
    let again = toolset.execute("domain_devices_decommission", json!({"ids": ["dev_zzz999"]}), Some("t7".into())).await;
    assert_eq!(again.code(), Some(ErrorCode::ConfirmationRequired));
    assert_eq!(runs.get(), 1);
}

#[tokio::test]
async fn two_phase_confirmations_are_per_toolset_consumer() {
    // An approval obtained through one toolset does not run through another consumer's.
    let a = authority();
    let registry = registry(&a);
    let runs = Runs::default();
    let _t = registry.register(devices_table(&a, "main", runs.clone())).unwrap();
    let alice = create_agent_toolset(
        &registry,
        AgentToolsetOptions {
            consumer: agent_surface_engine::snapshot::AgentConsumer::new(
                agent_surface_engine::snapshot::ConsumerKind::Test,
                "alice",
            ),
            topology: Some(Topology::Remote),
            ..Default::default()
        },
    )
    .unwrap();
    let bob = create_agent_toolset(
        &registry,
        AgentToolsetOptions {
            consumer: agent_surface_engine::snapshot::AgentConsumer::new(
                agent_surface_engine::snapshot::ConsumerKind::Test,
                "bob",
            ),
            topology: Some(Topology::Remote),
            ..Default::default()
        },
    )
    .unwrap();
    let input: serde_json::Value = serde_json::from_str(IDS).unwrap();
    let r = alice.execute("domain_devices_decommission", input.clone(), Some("a1".into())).await;
    registry.confirmations().resolve(&cid_of(&r), true).unwrap();
    let b = bob.execute("domain_devices_decommission", input.clone(), Some("b1".into())).await;
    assert_eq!(b.code(), Some(ErrorCode::ConfirmationRequired));
    assert_eq!(runs.get(), 0);
    assert!(alice.execute("domain_devices_decommission", input, Some("a2".into())).await.is_ok());
    assert_eq!(runs.get(), 1);
}

#[tokio::test]
async fn meta_mode_envelopes() {
    let a = authority();
    let registry = registry(&a);
    let runs = Runs::default();
    let table = registry.register(devices_table(&a, "main", runs.clone())).unwrap();
    let toolset = create_agent_toolset(
        &registry,
        AgentToolsetOptions { mode: ToolsetMode::Meta, topology: Some(Topology::Remote), ..Default::default() },
    )
    .unwrap();

    let d = toolset.execute("surface_discover", json!({}), Some("m1".into())).await;
    assert!(d.is_ok());
    assert_eq!(d.invocation_id, "m1");
    let snap = d.output.unwrap();
    let comp = &snap["components"][0];
    assert_eq!(comp["type"], "devices.table");
    assert_eq!(comp["registrationId"], table.registration_id());
    let version = snap["surfaceVersion"].as_str().unwrap().to_string();
    assert_eq!(d.surface_version, version);

    let r = toolset
        .execute(
            "surface_read",
            json!({"capabilityId": "view:devices.table.readState", "registrationId": table.registration_id()}),
            Some("m2".into()),
        )
        .await;
    assert_eq!(r.output.unwrap()["sort"], "name");
    let r = toolset
        .execute(
            "surface_invoke",
            json!({"capabilityId": "view:devices.table.sortBy", "input": {"column": "status"}}),
            Some("m3".into()),
        )
        .await;
    assert_eq!(r.output.unwrap()["echo"], json!({"column": "status", "direction": "asc"}));

    // Two-phase through the envelope: the model carries the confirmationId itself.
    let call = json!({"capabilityId": "domain:devices.decommission", "surfaceVersion": version, "input": serde_json::from_str::<serde_json::Value>(IDS).unwrap()});
    let first = toolset.execute("surface_invoke", call.clone(), Some("m4".into())).await;
    assert_eq!(first.code(), Some(ErrorCode::ConfirmationRequired));
    let cid = cid_of(&first);
    registry.confirmations().resolve(&cid, true).unwrap();
    let mut retry = call.clone();
    retry["confirmationId"] = json!(cid);
    let done = toolset.execute("surface_invoke", retry, Some("m5".into())).await;
    assert!(done.is_ok(), "{done:?}");
    assert_eq!(runs.get(), 1);

    // The registrationId from discovery is checked: a re-mount makes it stale.
    table.unregister();
    let again = registry.register(devices_table(&a, "main", Runs::default())).unwrap();
    let r = toolset
        .execute(
            "surface_read",
            json!({"capabilityId": "view:devices.table.readState", "registrationId": comp["registrationId"]}),
            Some("m6".into()),
        )
        .await;
    assert_eq!(r.code(), Some(ErrorCode::StaleCapability), "{r:?}");
    assert_eq!(r.error.unwrap().details.unwrap()["liveRegistrationId"], again.registration_id());
    let r = toolset.execute("surface_read", json!({}), None).await;
    assert_eq!(r.code(), Some(ErrorCode::CapabilityNotFound));
}

#[tokio::test]
async fn cancellation_maps_to_cancelled() {
    let a = authority();
    let registry = registry(&a);
    let nav = a
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
    let _n = registry.register(nav).unwrap();
    let toolset = toolset(&registry, Topology::Remote);
    let controller = AbortController::new();
    let c2 = controller.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(30)).await;
        c2.abort(AbortReason::Cancelled);
    });
    let r = toolset
        .execute_call(
            "view_app_nav_navigate",
            json!({"to": "/devices"}),
            ToolCall::id("c1").signal(controller.signal()),
        )
        .await;
    assert_eq!(r.code(), Some(ErrorCode::Cancelled), "{r:?}");
    assert_eq!(r.invocation_id, "c1");
}

// Toolset: `AgentTool.execute(input, call: { toolCallId? }): Promise<AgentInvocationResult>` is a
// method of the tool: it behaves as the toolset's execute_tool (same catalog route).
#[tokio::test]
async fn a_tool_executes_itself_through_its_toolset() {
    let a = authority();
    let registry = registry(&a);
    let first = registry.register(devices_table(&a, "main", Runs::default())).unwrap();
    let toolset = toolset(&registry, Topology::Remote);
    let tool = toolset.tools().into_iter().find(|t| t.name == "view_devices_table_readState").unwrap();
    let ok = tool.execute(json!({}), ToolCall::id("self0")).await;
    assert!(ok.is_ok(), "{ok:?}");
    assert_eq!(ok.invocation_id, "self0");
    first.unregister();
    let r = tool.execute(json!({}), ToolCall::id("self1")).await;
    assert_eq!(r.code(), Some(ErrorCode::ComponentUnmounted), "the tool keeps its catalog's route: {r:?}");
}

#[tokio::test]
async fn a_tool_without_a_live_toolset_answers_not_found() {
    let a = authority();
    let registry = registry(&a);
    registry.register(devices_table(&a, "main", Runs::default())).unwrap();
    let toolset = toolset(&registry, Topology::Remote);
    let tool = toolset.tools().into_iter().find(|t| t.name == "view_devices_table_readState").unwrap();
    drop(toolset);
    let r = tool.execute(json!({}), ToolCall::id("gone")).await;
    assert_eq!(r.code(), Some(ErrorCode::CapabilityNotFound), "{r:?}");
    assert_eq!(r.invocation_id, "gone");
    let snap = registry.snapshot(&Default::default());
    let detached = agent_surface_engine::toolset::direct_tools(&snap).into_iter().next().unwrap();
    assert_eq!(detached.execute(json!({}), ToolCall::default()).await.code(), Some(ErrorCode::CapabilityNotFound));
}
