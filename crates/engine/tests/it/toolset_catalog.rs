//! The catalog: options and their defaults, stable descriptions vs volatile state, `subscribe`
//! (fires on any catalog change including state-only ones, never in meta mode), scope as a
//! floor, budget only in meta mode, and per-instance tools for several live instances.

use crate::toolset_support::*;
use agent_surface_engine::registry::{AvailabilityOverride, RegistrationPatch};
use agent_surface_engine::snapshot::SnapshotBudget;
use agent_surface_engine::toolset::{
    create_agent_toolset, AgentTool, AgentToolsetOptions, ConfirmationMode, ToolsetError, ToolsetMode, Topology,
};
use agent_surface_model::errors::ErrorCode;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

fn direct() -> AgentToolsetOptions {
    AgentToolsetOptions { topology: Some(Topology::Embedded), ..Default::default() }
}

fn meta() -> AgentToolsetOptions {
    AgentToolsetOptions { mode: ToolsetMode::Meta, topology: Some(Topology::Remote), ..Default::default() }
}

/// Everything but `state`, as bytes: what goes into a provider's tool block.
fn definitions(tools: &[AgentTool]) -> String {
    let defs: Vec<Value> = tools.iter().map(|t| json!({"name": t.name, "description": t.description, "inputSchema": t.input_schema, "outputSchema": t.output_schema})).collect();
    serde_json::to_string(&defs).unwrap()
}

fn states(tools: &[AgentTool]) -> BTreeMap<String, Value> {
    tools.iter().map(|t| (t.name.clone(), serde_json::to_value(&t.state).unwrap())).collect()
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
}

#[test]
fn topology_and_confirmations_defaults() {
    let a = authority();
    let registry = registry(&a);
    let with = |topology, confirmations| {
        create_agent_toolset(&registry, AgentToolsetOptions { topology, confirmations, ..Default::default() })
    };
    assert_eq!(with(Some(Topology::Embedded), None).unwrap().confirmation_mode(), ConfirmationMode::Wait);
    assert_eq!(with(Some(Topology::Remote), None).unwrap().confirmation_mode(), ConfirmationMode::TwoPhase);
    // An explicit value overrides the topology's default.
    assert_eq!(
        with(Some(Topology::Remote), Some(ConfirmationMode::Wait)).unwrap().confirmation_mode(),
        ConfirmationMode::Wait
    );
    assert_eq!(
        with(Some(Topology::Embedded), Some(ConfirmationMode::TwoPhase)).unwrap().confirmation_mode(),
        ConfirmationMode::TwoPhase
    );
    assert_eq!(with(None, Some(ConfirmationMode::TwoPhase)).unwrap().confirmation_mode(), ConfirmationMode::TwoPhase);
    // Neither: programmer misuse, there is no ambiguous global default.
    let err = with(None, None).err().expect("refused");
    assert_eq!(err, ToolsetError::MissingTopology);
    assert!(err.to_string().contains("topology") && err.to_string().contains("confirmations"), "{err}");
    // Direct is the default mode.
    assert_eq!(with(Some(Topology::Remote), None).unwrap().mode(), ToolsetMode::Direct);
}

#[test]
fn budget_is_meta_mode_only() {
    let a = authority();
    let registry = registry(&a);
    let budget = Some(SnapshotBudget { max_components: Some(1), max_bytes: None });
    let err = create_agent_toolset(&registry, AgentToolsetOptions { budget: budget.clone(), ..direct() })
        .err()
        .expect("refused in direct mode");
    assert_eq!(err, ToolsetError::BudgetInDirectMode);
    assert!(err.to_string().contains("meta"), "{err}");

    // In meta mode it truncates `surface_discover`, with the marker.
    let _t = registry.register(devices_table(&a, "main", Runs::default())).unwrap();
    let _n = registry.register(app_nav(&a)).unwrap();
    let toolset = create_agent_toolset(&registry, AgentToolsetOptions { budget, ..meta() }).unwrap();
    let r = block_on(toolset.execute("surface_discover", json!({}), Some("d1".into())));
    assert!(r.is_ok(), "{r:?}");
    let out = r.output.unwrap();
    assert_eq!(out["components"].as_array().unwrap().len(), 1);
    assert_eq!(out["truncated"]["droppedComponents"], 1);
}

#[test]
fn descriptions_are_stable_when_only_state_changes() {
    let a = authority();
    let registry = registry(&a);
    let table = registry.register(devices_table(&a, "main", Runs::default())).unwrap();
    let _nav = registry.register(app_nav(&a)).unwrap();
    let toolset = create_agent_toolset(&registry, direct()).unwrap();
    let fired = Arc::new(Mutex::new(Vec::<Vec<AgentTool>>::new()));
    let f = fired.clone();
    toolset.subscribe(move |tools| f.lock().unwrap().push(tools.to_vec()));

    let before = toolset.tools();
    assert!(before.iter().all(|t| t.state.available));
    for t in &before {
        assert!(t.description.starts_with('['), "prefixed: {}", t.description);
    }
    let prefix = |name: &str| {
        before.iter().find(|t| t.name == name).unwrap().description.split("] ").next().unwrap().to_string() + "]"
    };
    assert_eq!(prefix("view_devices_table_readState"), "[view · read · never]");
    assert_eq!(prefix("view_devices_table_sortBy"), "[view · local-state · never]");
    assert_eq!(prefix("view_app_nav_navigate"), "[view · navigation · never]");
    assert_eq!(prefix("domain_devices_decommission"), "[domain · destructive · required]");
    assert_eq!(prefix("domain_devices_reboot"), "[domain · mutation · never]");

    // A pushed availability override: state only.
    table.update(RegistrationPatch {
        availability: Some(BTreeMap::from([(
            "sortBy".to_string(),
            AvailabilityOverride { available: false, reason: Some("loading".into()) },
        )])),
        ..Default::default()
    });
    let after = toolset.tools();
    assert_eq!(definitions(&after), definitions(&before), "byte-identical definitions");
    assert_ne!(states(&after), states(&before));
    let sort = after.iter().find(|t| t.name == "view_devices_table_sortBy").unwrap();
    assert!(!sort.state.available);
    assert_eq!(sort.state.unavailable_reason.as_deref(), Some("loading"));
    assert!(!sort.description.contains("loading"), "no live state in the description");
    {
        let fired = fired.lock().unwrap();
        assert_eq!(fired.len(), 1, "subscribe fires for a state-only change");
        assert_eq!(states(&fired[0]), states(&after), "with the new catalog");
    }

    // `enabled: false`: everything of the registration unavailable, definitions unchanged.
    table.update(RegistrationPatch { enabled: Some(false), ..Default::default() });
    let disabled = toolset.tools();
    assert_eq!(definitions(&disabled), definitions(&before));
    for t in disabled.iter().filter(|t| t.name.starts_with("view_devices_table") || t.name.starts_with("domain_")) {
        assert!(!t.state.available, "{} is disabled", t.name);
    }
    assert!(disabled.iter().find(|t| t.name == "view_app_nav_navigate").unwrap().state.available);
    assert_eq!(fired.lock().unwrap().len(), 2);

    // And back: the original state, the original bytes.
    table.update(RegistrationPatch {
        enabled: Some(true),
        availability: Some(BTreeMap::from([(
            "sortBy".to_string(),
            AvailabilityOverride { available: true, reason: None },
        )])),
    });
    let restored = toolset.tools();
    assert_eq!(definitions(&restored), definitions(&before));
    assert_eq!(states(&restored), states(&before));
    assert_eq!(fired.lock().unwrap().len(), 3);

    // A version bump that changes nothing a host can render is not announced.
    table.invalidate();
    assert_eq!(fired.lock().unwrap().len(), 3);
}

#[test]
fn calling_an_unavailable_tool_says_why() {
    let a = authority();
    let registry = registry(&a);
    let table = registry.register(devices_table(&a, "main", Runs::default())).unwrap();
    let toolset = create_agent_toolset(&registry, direct()).unwrap();
    table.update(RegistrationPatch {
        availability: Some(BTreeMap::from([(
            "sortBy".to_string(),
            AvailabilityOverride { available: false, reason: Some("loading".into()) },
        )])),
        ..Default::default()
    });
    let r = block_on(toolset.execute("view_devices_table_sortBy", json!({"column": "name"}), Some("c1".into())));
    assert_eq!(r.code(), Some(ErrorCode::CapabilityNotAvailable));
}

#[test]
fn subscribe_follows_mounts_and_unsubscribe_stops_it() {
    let a = authority();
    let registry = registry(&a);
    let toolset = create_agent_toolset(&registry, direct()).unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let last = Arc::new(Mutex::new(Vec::<String>::new()));
    let (c, l) = (count.clone(), last.clone());
    let id = toolset.subscribe(move |tools| {
        c.fetch_add(1, Ordering::SeqCst);
        *l.lock().unwrap() = tools.iter().map(|t| t.name.clone()).collect();
    });
    assert!(toolset.tools().is_empty());
    let nav = registry.register(app_nav(&a)).unwrap();
    assert_eq!(count.load(Ordering::SeqCst), 1);
    assert_eq!(*last.lock().unwrap(), ["view_app_nav_currentRoute", "view_app_nav_navigate"]);
    nav.unregister();
    assert_eq!(count.load(Ordering::SeqCst), 2);
    assert!(last.lock().unwrap().is_empty());
    toolset.unsubscribe(id);
    let _nav = registry.register(app_nav(&a)).unwrap();
    assert_eq!(count.load(Ordering::SeqCst), 2);
    // dispose ends everything, including the registry subscription.
    let count2 = Arc::new(AtomicUsize::new(0));
    let c2 = count2.clone();
    toolset.subscribe(move |_| {
        c2.fetch_add(1, Ordering::SeqCst);
    });
    toolset.dispose();
    let _t = registry.register(devices_table(&a, "main", Runs::default())).unwrap();
    assert_eq!(count2.load(Ordering::SeqCst), 0);
}

#[test]
fn meta_mode_never_fires_and_its_catalog_is_constant() {
    let a = authority();
    let registry = registry(&a);
    let toolset = create_agent_toolset(&registry, meta()).unwrap();
    let fired = Arc::new(AtomicUsize::new(0));
    let f = fired.clone();
    toolset.subscribe(move |_| {
        f.fetch_add(1, Ordering::SeqCst);
    });
    let before = toolset.tools();
    let table = registry.register(devices_table(&a, "main", Runs::default())).unwrap();
    table.update(RegistrationPatch { enabled: Some(false), ..Default::default() });
    let _second = registry.register(devices_table(&a, "second", Runs::default())).unwrap();
    table.unregister();
    assert_eq!(fired.load(Ordering::SeqCst), 0);
    assert_eq!(toolset.tools(), before);
    assert_eq!(
        before.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        ["surface_discover", "surface_invoke", "surface_read"]
    );
    for t in &before {
        assert!(t.description.starts_with("[experimental]"), "{}", t.description);
    }
}

#[test]
fn scope_is_a_floor_in_direct_mode() {
    let a = authority();
    let registry = registry(&a);
    let _t = registry.register(devices_table(&a, "main", Runs::default())).unwrap();
    let _n = registry.register(app_nav(&a)).unwrap();
    let toolset =
        create_agent_toolset(&registry, AgentToolsetOptions { scope: Some(vec!["app".into()]), ..direct() }).unwrap();
    let names: Vec<String> = toolset.tools().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["view_app_nav_currentRoute", "view_app_nav_navigate"]);
    let r = block_on(toolset.execute("view_devices_table_readState", json!({}), None));
    assert_eq!(r.code(), Some(ErrorCode::CapabilityNotFound));
}

#[test]
fn meta_scope_only_narrows_the_floor() {
    let a = authority();
    let registry = registry(&a);
    let _t = registry.register(devices_table(&a, "main", Runs::default())).unwrap();
    let _n = registry.register(app_nav(&a)).unwrap();
    let toolset =
        create_agent_toolset(&registry, AgentToolsetOptions { scope: Some(vec!["devices".into()]), ..meta() }).unwrap();
    let discover = |input: Value| block_on(toolset.execute("surface_discover", input, None)).output.unwrap();
    let types = |out: &Value| {
        out["components"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["type"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };

    // No model scope: the floor.
    let out = discover(json!({}));
    assert_eq!(types(&out), ["devices.table"]);
    assert!(out.get("scopeRejected").is_none());
    // Narrower: accepted.
    let out = discover(json!({"scope": ["devices.table"]}));
    assert_eq!(types(&out), ["devices.table"]);
    assert!(out.get("scopeRejected").is_none());
    // Outside or wider than the floor: rejected, and said so.
    let out = discover(json!({"scope": ["app", "devices.table"]}));
    assert_eq!(types(&out), ["devices.table"]);
    assert_eq!(out["scopeRejected"]["prefixes"], json!(["app"]));
    let out = discover(json!({"scope": ["app.nav"]}));
    assert!(types(&out).is_empty(), "never widened");
    assert_eq!(out["scopeRejected"]["prefixes"], json!(["app.nav"]));
    // Reading outside the floor is not found either.
    let r = block_on(toolset.execute("surface_read", json!({"capabilityId": "view:app.nav.currentRoute"}), None));
    assert_eq!(r.code(), Some(ErrorCode::CapabilityNotFound));
    let r =
        block_on(toolset.execute("surface_read", json!({"capabilityId": "view:devices.table.readSelection"}), None));
    assert!(r.is_ok(), "{r:?}");
}

#[test]
fn several_live_instances_get_per_instance_tools() {
    let a = authority();
    let registry = registry(&a);
    let _one = registry.register(devices_table(&a, "main", Runs::default())).unwrap();
    let toolset = create_agent_toolset(&registry, direct()).unwrap();
    let single: Vec<String> = toolset.tools().into_iter().map(|t| t.name).collect();
    assert!(single.contains(&"view_devices_table_readState".to_string()));

    // A second instance, whose readState says which instance it is.
    let second = a
        .component("devices.table")
        .unwrap()
        .bind()
        .instance("archive")
        .observation(
            "readState",
            agent_surface_engine::binding::ObservationBinding::new(agent_surface_engine::binding::read_sync(
                |_| json!({"rows": [], "sort": "status", "filter": "archived"}),
            )),
        )
        .observation(
            "readSelection",
            agent_surface_engine::binding::ObservationBinding::new(agent_surface_engine::binding::read_sync(
                |_| json!({"ids": []}),
            )),
        )
        .action(
            "selectRows",
            agent_surface_engine::binding::ActionBinding::new(agent_surface_engine::binding::execute_fn(
                |_, _| async { Ok(json!(null)) },
            )),
        )
        .action(
            "clearSelection",
            agent_surface_engine::binding::ActionBinding::new(agent_surface_engine::binding::execute_fn(
                |_, _| async { Ok(json!(null)) },
            )),
        )
        .action(
            "sortBy",
            agent_surface_engine::binding::ActionBinding::new(agent_surface_engine::binding::execute_fn(
                |_, _| async { Ok(json!(null)) },
            )),
        )
        .action(
            "filter",
            agent_surface_engine::binding::ActionBinding::new(agent_surface_engine::binding::execute_fn(
                |_, _| async { Ok(json!(null)) },
            )),
        )
        .build()
        .unwrap();
    let _two = registry.register(second).unwrap();
    let tools = toolset.tools();
    assert_wire_names(&tools);
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"view_devices_table_readState__main"), "{names:?}");
    assert!(names.contains(&"view_devices_table_readState__archive"), "{names:?}");
    assert!(!names.contains(&"view_devices_table_readState"), "no ambiguous name while two are live");
    // Procedures are not per instance: one tool each.
    assert_eq!(names.iter().filter(|n| n.starts_with("domain_devices_decommission")).count(), 1);
    let archive = tools.iter().find(|t| t.name == "view_devices_table_readState__archive").unwrap();
    assert!(archive.description.contains("(instance \"archive\")"), "{}", archive.description);
    assert_eq!(toolset.wire_name_map()["view_devices_table_readState__archive"], "view:devices.table.readState");

    // Each tool reaches its own instance; no AMBIGUOUS_INSTANCE.
    let r = block_on(toolset.execute("view_devices_table_readState__archive", json!({}), None));
    assert_eq!(r.output.unwrap()["filter"], "archived");
    let r = block_on(toolset.execute("view_devices_table_readState__main", json!({}), None));
    assert_eq!(r.output.unwrap()["filter"], "");
    // The single-instance name is gone from this catalog.
    let r = block_on(toolset.execute("view_devices_table_readState", json!({}), None));
    assert_eq!(r.code(), Some(ErrorCode::CapabilityNotFound));
}
