//! Wire names: every name in every mode matches `^[A-Za-z0-9_-]{1,64}$` and is unique — for the
//! example app, for ids at the grammar's length limits, for ids that collide once sanitized and
//! for many live instances with long instance ids — and `wire_name_map()` is the authority that
//! maps them back.

use crate::toolset_support::*;
use agent_surface_engine::registry::AgentSurfaceRegistry;
use agent_surface_engine::toolset::{
    catalog_from_manifest, create_agent_toolset, wire_name, AgentToolsetOptions, ToolsetMode, Topology,
};
use std::collections::BTreeSet;

fn options(mode: ToolsetMode) -> AgentToolsetOptions {
    AgentToolsetOptions { mode, topology: Some(Topology::Remote), ..Default::default() }
}

/// Every capability id a registry exposes (observations, actions, procedures).
fn live_capability_ids(registry: &AgentSurfaceRegistry) -> BTreeSet<String> {
    let snap = registry.snapshot(&Default::default());
    let mut ids = BTreeSet::new();
    for c in &snap.components {
        ids.extend(c.observations.iter().map(|o| o.capability_id.to_string()));
        ids.extend(c.actions.iter().map(|a| a.capability_id.to_string()));
    }
    ids.extend(snap.procedures.iter().map(|p| p.capability_id.to_string()));
    ids
}

#[test]
fn the_grammar_by_construction() {
    assert_eq!(wire_name("view:devices.table.readState"), "view_devices_table_readState");
    assert_eq!(wire_name("domain:devices.decommission"), "domain_devices_decommission");
    assert_eq!(wire_name("external:reports.export"), "external_reports_export");
    // At 64 characters the name is kept; one more and it is cut and hashed.
    let at_limit = format!("domain:{}", "a".repeat(57));
    assert_eq!(wire_name(&at_limit).len(), 64);
    assert_eq!(wire_name(&at_limit), at_limit.replace(':', "_"));
    let over = format!("domain:{}", "a".repeat(58));
    let w = wire_name(&over);
    assert!(wire_safe(&w) && w.len() == 64, "{w}");
    assert_eq!(&w[..55], &over.replace(':', "_")[..55]);
    assert_eq!(w.as_bytes()[55], b'_');
    // Deterministic, and distinct for ids that share the first 55 characters.
    assert_eq!(wire_name(&over), w);
    assert_ne!(wire_name(&format!("{over}b")), w);
    // Characters outside the grammar (instance ids allow `.` and `:`) never leak.
    assert!(wire_safe(&wire_name("view:a.b.c__tenant:42.eu")));
    assert!(wire_safe(&wire_name("")), "even an empty id gets a valid name");
}

#[test]
fn the_example_app_in_every_mode() {
    let a = authority();
    for mode in [ToolsetMode::Direct, ToolsetMode::Meta] {
        let tools = catalog_from_manifest(&a, mode);
        assert_wire_names(&tools);
    }
    let direct: Vec<String> = catalog_from_manifest(&a, ToolsetMode::Direct).into_iter().map(|t| t.name).collect();
    assert_eq!(
        direct,
        [
            "domain_devices_decommission",
            "domain_devices_label",
            "domain_devices_ping",
            "domain_devices_reboot",
            "domain_devices_rename",
            "domain_devices_tag",
            "external_reports_export",
            "view_app_nav_currentRoute",
            "view_app_nav_navigate",
            "view_devices_table_clearSelection",
            "view_devices_table_filter",
            "view_devices_table_readSelection",
            "view_devices_table_readState",
            "view_devices_table_selectRows",
            "view_devices_table_sortBy",
        ]
    );
    let meta: Vec<String> = catalog_from_manifest(&a, ToolsetMode::Meta).into_iter().map(|t| t.name).collect();
    assert_eq!(meta, ["surface_discover", "surface_invoke", "surface_read"]);
}

#[test]
fn ids_at_the_length_limits() {
    let a = long_id_manifest();
    // Preview catalog: every contract, procedures and external tools of 8 × 32 characters.
    let tools = catalog_from_manifest(&a, ToolsetMode::Direct);
    assert_wire_names(&tools);
    assert_eq!(tools.len(), 6 + 6 + 3 * 3);
    let ids: BTreeSet<&str> = tools.iter().map(|t| t.capability_id().unwrap()).collect();
    assert_eq!(ids.len(), tools.len(), "every tool names a distinct capability");
    for t in &tools {
        let id = t.capability_id().unwrap();
        assert!(id.len() > 64, "the fixture is about ids longer than a wire name: {id}");
        assert_eq!(t.name.len(), 64);
    }

    // Live: one instance with a 128-character instance id, then a second one, so every
    // capability is addressed per instance (`<id>__<instance>`, hashed).
    let registry = registry(&a);
    let long_instance = format!("i{}", "n".repeat(127));
    let _h: Vec<_> = bind_all(&a, &long_instance).into_iter().map(|b| registry.register(b).unwrap()).collect();
    let _h2: Vec<_> = bind_all(&a, "second").into_iter().map(|b| registry.register(b).unwrap()).collect();
    let toolset = create_agent_toolset(&registry, options(ToolsetMode::Direct)).unwrap();
    let tools = toolset.tools();
    assert_wire_names(&tools);
    assert_eq!(tools.len(), 2 * 3 * 3, "three capabilities per component, three types, two instances");
    let map = toolset.wire_name_map();
    assert_eq!(map.len(), tools.len());
    let mut per_capability: std::collections::BTreeMap<&str, usize> = Default::default();
    for t in &tools {
        assert_eq!(map.get(&t.name).map(String::as_str), t.capability_id());
        *per_capability.entry(t.capability_id().unwrap()).or_default() += 1;
    }
    assert!(per_capability.values().all(|n| *n == 2), "one tool per instance: {per_capability:?}");
}

#[test]
fn ids_that_collide_once_sanitized() {
    let a = colliding_manifest();
    // `view:ab.c_d.read` and `view:ab_c.d.read` both sanitize to `view_ab_c_d_read`.
    assert_eq!(wire_name("view:ab.c_d.read"), wire_name("view:ab_c.d.read"));
    assert_eq!(wire_name("domain:x.y_z"), wire_name("domain:x_y.z"));
    let tools = catalog_from_manifest(&a, ToolsetMode::Direct);
    assert_wire_names(&tools);
    assert_eq!(tools.len(), 4 + 2 + 2);
    let ids: BTreeSet<&str> = tools.iter().map(|t| t.capability_id().unwrap()).collect();
    assert_eq!(ids.len(), 8);
    // Deterministic: the same catalog twice gives the same names in the same order.
    let again: Vec<String> = catalog_from_manifest(&a, ToolsetMode::Direct).into_iter().map(|t| t.name).collect();
    assert_eq!(again, tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>());

    // Live registry: the same, and the map resolves each shortened name.
    let registry = registry(&a);
    let _h: Vec<_> = bind_all(&a, "default").into_iter().map(|b| registry.register(b).unwrap()).collect();
    let toolset = create_agent_toolset(&registry, options(ToolsetMode::Direct)).unwrap();
    let tools = toolset.tools();
    assert_wire_names(&tools);
    let map = toolset.wire_name_map();
    let mapped: BTreeSet<String> = map.values().cloned().collect();
    assert_eq!(mapped, live_capability_ids(&registry), "every live capability has exactly one name");
    for (name, id) in &map {
        // Shortened names are not decodable by string surgery; the map is the authority.
        if name != &wire_name(id) {
            assert!(!name.contains(':') && !name.contains('.'));
        }
    }
}

#[test]
fn the_map_is_authoritative_and_empty_in_meta_mode() {
    let a = authority();
    let registry = registry(&a);
    let _t = registry.register(devices_table(&a, "main", Runs::default())).unwrap();
    let _n = registry.register(app_nav(&a)).unwrap();
    let toolset = create_agent_toolset(&registry, options(ToolsetMode::Direct)).unwrap();
    let tools = toolset.tools();
    assert_wire_names(&tools);
    let map = toolset.wire_name_map();
    assert_eq!(map.len(), tools.len());
    for t in &tools {
        assert_eq!(map[&t.name], t.capability_id().unwrap());
    }
    assert_eq!(map.values().cloned().collect::<BTreeSet<_>>(), live_capability_ids(&registry));

    let meta = create_agent_toolset(&registry, options(ToolsetMode::Meta)).unwrap();
    let tools = meta.tools();
    assert_wire_names(&tools);
    assert!(meta.wire_name_map().is_empty(), "meta tool names are not capability ids");
}
