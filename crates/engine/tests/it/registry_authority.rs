//! Issue 4, Authority and Bindings: one test per normative rule of core-api.md §"Contract,
//! binding, and authority", §"Authority and external exposure" and DECISIONS §5.

use crate::registry_support::*;
use agent_surface_engine::authority::{AuthorityError, CapabilityAuthority, ContractKind};
use agent_surface_engine::binding::{
    execute_fn, read_sync, ActionBinding, AgentComponentDefinition, AgentConcurrency, BindingError,
};
use agent_surface_engine::registry::{AgentSurfaceRegistry, DefinitionError, RegistrationStatus, RegistryOptions};
use agent_surface_engine::snapshot::SnapshotContext;
use agent_surface_model::effects::{default_governance, CapabilityKind, Effect};
use agent_surface_model::limits::AgentSurfaceLimits;
use agent_surface_model::manifest::{manifest_hash, ActionContract, ManifestContract};
use serde_json::{json, Value};
use std::collections::BTreeSet;

fn rehash(v: &mut Value) {
    let h = manifest_hash(v);
    v["manifestHash"] = h.into();
}

fn refusal(v: Value) -> AuthorityError {
    CapabilityAuthority::new(v).expect_err("the manifest must be refused")
}

// --- Authority creation -------------------------------------------------------------------

// "Creation verifies format version, completeness.status, each contract hash, declaration
// uniqueness, and the complete manifest hash." (the accepting case)
#[test]
fn authority_accepts_a_complete_verified_manifest() {
    let m = standard_manifest();
    let a = CapabilityAuthority::new(m.to_value()).unwrap();
    assert_eq!(a.manifest(), &m);
    assert_eq!(a.manifest_hash(), m.manifest_hash);
}

// "Creation verifies format version".
#[test]
fn authority_refuses_an_unsupported_format_version() {
    let mut v = standard_manifest().to_value();
    v["formatVersion"] = 1.into();
    rehash(&mut v);
    let e = refusal(v);
    assert!(matches!(e, AuthorityError::UnsupportedFormatVersion { found: Some(ref f) } if f == &json!(1)), "{e:?}");
    assert_eq!(e.kind(), "unsupported-format-version");
    let mut v = standard_manifest().to_value();
    v.as_object_mut().unwrap().remove("formatVersion");
    assert!(matches!(refusal(v), AuthorityError::UnsupportedFormatVersion { found: None }));
}

// "Creation verifies ... completeness.status" (DECISIONS §4: "CapabilityAuthority creation
// refuses" an incomplete manifest).
#[test]
fn authority_refuses_an_incomplete_manifest() {
    let m = agent_surface_model::manifest::CapabilityContractManifest::assemble(
        generator(),
        vec![component("devices.table", 0, &["readState"], &[])],
        1,
    );
    assert!(m.verify_hashes().is_ok(), "hashes are fine: only the status is wrong");
    let e = refusal(m.to_value());
    assert_eq!(e, AuthorityError::Incomplete { failed: 1 });
    // A status of "complete" that still counts failures is incomplete too.
    let mut v = standard_manifest().to_value();
    v["completeness"]["failed"] = 2.into();
    rehash(&mut v);
    assert_eq!(refusal(v), AuthorityError::Incomplete { failed: 2 });
}

// A contract removed from the manifest (even with every hash recomputed) is refused:
// completeness.contracts no longer matches.
#[test]
fn authority_refuses_a_contract_count_mismatch() {
    let mut v = standard_manifest().to_value();
    v["contracts"].as_array_mut().unwrap().pop();
    rehash(&mut v);
    let e = refusal(v);
    assert!(matches!(e, AuthorityError::CountMismatch { declared: 10, actual: 9 }), "{e:?}");
}

// "Creation verifies ... each contract hash"; "Each failure is a distinct typed error naming
// the contract and field" (issue 4).
#[test]
fn authority_refuses_a_contract_hash_mismatch_naming_the_contract() {
    let mut v = standard_manifest().to_value();
    let i = v["contracts"].as_array().unwrap().iter().position(|c| c["id"] == "view:devices.table").unwrap();
    v["contracts"][i]["actions"]["select"]["effect"] = "navigation".into();
    rehash(&mut v);
    let e = refusal(v);
    assert!(matches!(e, AuthorityError::ContractHashMismatch { ref id, .. } if id == "view:devices.table"), "{e:?}");
    assert_eq!(e.contract(), Some("view:devices.table"));
    assert_eq!(e.kind(), "contract-hash-mismatch");
    assert!(e.to_string().contains("contractHash"), "names the field: {e}");
}

// "Creation verifies ... declaration uniqueness".
#[test]
fn authority_refuses_duplicate_declarations() {
    let m = assemble(vec![
        component("devices.table", 0, &["readState"], &[]),
        component("devices.table", 1, &["readState"], &[]),
    ]);
    let e = refusal(m.to_value());
    assert_eq!(e, AuthorityError::DuplicateId { id: "view:devices.table".into() });
    assert_eq!(e.contract(), Some("view:devices.table"));
}

// Contracts are sorted by id (DECISIONS §4); reordering them is an edit the authority sees.
#[test]
fn authority_refuses_unsorted_contracts() {
    let mut v = standard_manifest().to_value();
    v["contracts"].as_array_mut().unwrap().swap(0, 1);
    rehash(&mut v);
    let e = refusal(v);
    assert!(matches!(e, AuthorityError::NotSorted { .. }), "{e:?}");
}

// "Creation verifies ... the complete manifest hash".
#[test]
fn authority_refuses_a_manifest_hash_mismatch() {
    let mut v = standard_manifest().to_value();
    v["generator"]["version"] = "9.9.9".into();
    let e = refusal(v);
    assert!(matches!(e, AuthorityError::ManifestHashMismatch { .. }), "{e:?}");
    assert_eq!(e.contract(), None);
}

// register "DOES throw AgentSurfaceDefinitionError ... for structural defects": a contract
// the compiler would refuse (here: an oversize description) never becomes an authority.
#[test]
fn authority_refuses_a_structurally_invalid_contract_naming_the_field() {
    let mut c = component("devices.table", 0, &["readState"], &[]);
    if let ManifestContract::Component(c) = &mut c {
        c.description = "x".repeat(501);
    }
    let e = refusal(assemble(vec![c]).to_value());
    match e {
        AuthorityError::InvalidContract { ref id, ref pointer, .. } => {
            assert_eq!(id, "view:devices.table");
            assert_eq!(pointer, "/description");
        }
        other => panic!("{other:?}"),
    }
    // A plane violation (a view action with a domain effect).
    let mut c = component("devices.table", 0, &[], &["select"]);
    if let ManifestContract::Component(c) = &mut c {
        c.actions.insert(
            "select".into(),
            ActionContract::new(
                "Selects",
                empty_input(),
                default_governance(CapabilityKind::ViewAction, Effect::Mutation),
            ),
        );
    }
    let e = refusal(assemble(vec![c]).to_value());
    assert!(
        matches!(e, AuthorityError::InvalidContract { ref pointer, .. } if pointer == "/actions/select/effect"),
        "{e:?}"
    );
}

// "Each failure is a distinct typed error" (issue 4).
#[test]
fn authority_refusals_are_distinct_typed_errors() {
    let mut kinds = BTreeSet::new();
    let base = standard_manifest().to_value();
    let mut edits: Vec<Value> = Vec::new();
    let mut v = base.clone();
    v["formatVersion"] = 7.into();
    edits.push(v);
    let mut v = base.clone();
    v["completeness"]["status"] = "incomplete".into();
    edits.push(v);
    let mut v = base.clone();
    v["completeness"]["contracts"] = 3.into();
    edits.push(v);
    let mut v = base.clone();
    v["contracts"][0]["description"] = "edited".into();
    edits.push(v);
    let mut v = base.clone();
    v["contracts"].as_array_mut().unwrap().swap(0, 1);
    edits.push(v);
    let mut v = base.clone();
    v["manifestHash"] = "blake3:00".into();
    edits.push(v);
    edits.push(assemble(vec![component("a.b", 0, &[], &[]), component("a.b", 0, &[], &[])]).to_value());
    let mut v = base.clone();
    v["unexpected"] = true.into();
    edits.push(v);
    for v in edits {
        kinds.insert(refusal(v).kind());
    }
    kinds.insert(CapabilityAuthority::from_json_str("{").unwrap_err().kind());
    assert_eq!(kinds.len(), 9, "{kinds:?}");
}

// "It then clones and deep-freezes the manifest": immutable (no mutating API, a copy of the
// input) and shareable (Clone + Send + Sync, clones are the same authority).
#[test]
fn authority_is_immutable_and_shareable() {
    fn shareable<T: Clone + Send + Sync + 'static>() {}
    shareable::<CapabilityAuthority>();
    let mut v = standard_manifest().to_value();
    let a = CapabilityAuthority::new(v.clone()).unwrap();
    v["generator"]["name"] = "mutated after creation".into();
    assert_eq!(a.manifest().generator.name, "registry-tests", "the authority keeps its own copy");
    let b = a.clone();
    assert_eq!(a, b);
    assert!(std::ptr::eq(a.manifest(), b.manifest()), "clones share one frozen manifest");
    let c = std::thread::spawn(move || b.component("devices.table").unwrap().id().to_string()).join().unwrap();
    assert_eq!(c, "view:devices.table");
    let other = CapabilityAuthority::new(standard_manifest().to_value()).unwrap();
    assert_ne!(a, other, "each creation mints a distinct authority");
}

// "Contracts come from the authority (authority.component(..), .procedure(..),
// .external_tool(..))"; unknown ids are refused.
#[test]
fn contracts_come_only_from_the_authority_by_kind() {
    let a = authority();
    assert_eq!(a.component("devices.table").unwrap().id(), "view:devices.table");
    assert_eq!(a.component("view:devices.table").unwrap().id(), "view:devices.table");
    assert_eq!(a.procedure("domain:devices.reboot").unwrap().contract().effect, Effect::Mutation);
    assert_eq!(a.external_tool("external:reports.export").unwrap().id(), "external:reports.export");
    let e = a.component("devices.nope").unwrap_err();
    assert_eq!((e.kind, e.id.as_str()), (ContractKind::Component, "view:devices.nope"));
    assert_eq!(a.procedure("external:reports.export").unwrap_err().kind, ContractKind::Procedure);
    assert_eq!(a.external_tool("domain:devices.reboot").unwrap_err().kind, ContractKind::ExternalTool);
    assert!(a.procedure("view:devices.table").is_err());
}

// createAgentSurfaceRegistry({ authority }) "refuses construction without it": the authority
// is the constructor's mandatory argument (a registry without one does not type-check).
#[test]
fn registry_construction_requires_the_authority() {
    let a = authority();
    let r = AgentSurfaceRegistry::new(RegistryOptions::new(a.clone()));
    assert_eq!(r.authority(), &a);
}

// The registry "rejects raw ... bindings": AgentComponentDefinition carries no compiler proof.
#[test]
fn register_refuses_a_raw_agent_component_definition() {
    let a = authority();
    let (r, _) = registry(&a);
    let raw = AgentComponentDefinition {
        component_type: "devices.table".into(),
        instance_id: "default".into(),
        description: "The devices.table component".into(),
        observations: ["readState".to_string(), "readSelection".to_string()].into(),
        actions: ["select".to_string(), "sort".to_string()].into(),
    };
    assert_eq!(r.register(raw).err(), Some(DefinitionError::Unverified("devices.table".into())));
    assert_eq!(r.version(), "0");
}

// DECISIONS §5: a registry rejects "provenance from another manifest" — even a second
// authority over identical bytes.
#[test]
fn register_refuses_a_contract_from_another_authority() {
    let a = authority();
    let other = authority();
    let (r, _) = registry(&a);
    let foreign = bind(&other, "devices.table", "main");
    assert_eq!(r.register(foreign).err(), Some(DefinitionError::ForeignProvenance("view:devices.table".into())));
    let other_manifest = CapabilityAuthority::new(
        assemble(vec![component("devices.table", 10, &["readState", "readSelection"], &["select", "sort"])]).to_value(),
    )
    .unwrap();
    assert!(matches!(
        r.register(bind(&other_manifest, "devices.table", "main")),
        Err(DefinitionError::ForeignProvenance(_))
    ));
    assert!(r.snapshot(&SnapshotContext::default()).components.is_empty());
}

// The same ceiling for procedure references bound into a component.
#[test]
fn register_refuses_a_procedure_bound_from_another_authority() {
    let a = authority();
    let other = authority();
    let (r, _) = registry(&a);
    let p =
        other.procedure("domain:devices.reboot").unwrap().bind(execute_fn(|_, _| async { Ok(json!(null)) })).unwrap();
    let b = bind_with(&a, "devices.table", "main", |b| b.procedure(p));
    assert_eq!(r.register(b).err(), Some(DefinitionError::ForeignProvenance("domain:devices.reboot".into())));
}

// --- Bindings -----------------------------------------------------------------------------

// "Every declared observation needs a read binding".
#[test]
fn bind_without_a_read_for_a_declared_observation_fails() {
    let a = authority();
    let e = a
        .component("devices.detail")
        .unwrap()
        .bind()
        .action("close", execute_fn(|_, _| async { Ok(json!(null)) }))
        .build()
        .err();
    assert_eq!(
        e,
        Some(BindingError::MissingRead { contract: "view:devices.detail".into(), name: "readDevice".into() })
    );
}

// "... and every declared action needs an execute binding".
#[test]
fn bind_without_an_execute_for_a_declared_action_fails() {
    let a = authority();
    let e =
        a.component("devices.detail").unwrap().bind().observation("readDevice", read_sync(|_| json!({}))).build().err();
    assert_eq!(e, Some(BindingError::MissingExecute { contract: "view:devices.detail".into(), name: "close".into() }));
}

// "missing or extra names are errors" (issue 4): an observation the contract does not declare.
#[test]
fn bind_with_an_extra_observation_name_fails() {
    let a = authority();
    let c = a.component("devices.detail").unwrap();
    let e = c
        .bind()
        .observation("readDevice", read_sync(|_| json!({})))
        .observation("readSecrets", read_sync(|_| json!({})))
        .action("close", execute_fn(|_, _| async { Ok(json!(null)) }))
        .build()
        .err();
    assert_eq!(
        e,
        Some(BindingError::UnknownObservation { contract: "view:devices.detail".into(), name: "readSecrets".into() })
    );
}

// "missing or extra names are errors": an action the contract does not declare.
#[test]
fn bind_with_an_extra_action_name_fails() {
    let a = authority();
    let e = a
        .component("devices.detail")
        .unwrap()
        .bind()
        .observation("readDevice", read_sync(|_| json!({})))
        .action("close", execute_fn(|_, _| async { Ok(json!(null)) }))
        .action("delete", execute_fn(|_, _| async { Ok(json!(null)) }))
        .build()
        .err();
    assert_eq!(e, Some(BindingError::UnknownAction { contract: "view:devices.detail".into(), name: "delete".into() }));
}

// instanceId "MUST match the id grammar" (DECISIONS §2: `[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}`),
// "Defaults to \"default\"".
#[test]
fn bind_with_an_invalid_instance_id_fails_and_the_default_is_default() {
    let a = authority();
    for bad in ["", "-row", "row 1", "row/1", &"r".repeat(129)] {
        let e = a
            .component("low.widget")
            .unwrap()
            .bind()
            .instance(bad)
            .observation("readWidget", read_sync(|_| json!({})))
            .build()
            .err();
        assert!(matches!(e, Some(BindingError::InvalidInstanceId(_))), "{bad:?}: {e:?}");
    }
    let ok = a
        .component("low.widget")
        .unwrap()
        .bind()
        .instance("row-42:a.b_c")
        .observation("readWidget", read_sync(|_| json!({})))
        .build()
        .unwrap();
    assert_eq!(ok.instance_id(), "row-42:a.b_c");
    let default =
        a.component("low.widget").unwrap().bind().observation("readWidget", read_sync(|_| json!({}))).build().unwrap();
    assert_eq!(default.instance_id(), "default");
}

// "parallel requires an integer max ≥ 1 ... an invalid group throws AgentSurfaceDefinitionError
// at registration" (here: already at bind, before anything can register).
#[test]
fn bind_with_parallel_concurrency_below_one_fails() {
    let a = authority();
    let bad = AgentConcurrency::Parallel { max: 0, queue_depth: None };
    let e = a
        .component("devices.detail")
        .unwrap()
        .bind()
        .observation("readDevice", read_sync(|_| json!({})))
        .action("close", ActionBinding::new(execute_fn(|_, _| async { Ok(json!(null)) })).concurrency(bad.clone()))
        .build()
        .err();
    assert_eq!(e, Some(BindingError::InvalidConcurrency { name: "close".into() }));
    let e = a
        .procedure("domain:devices.reboot")
        .unwrap()
        .bind(ActionBinding::new(execute_fn(|_, _| async { Ok(json!(null)) })).concurrency(bad))
        .err();
    assert_eq!(e, Some(BindingError::InvalidConcurrency { name: "domain:devices.reboot".into() }));
    let ok = a.procedure("domain:devices.reboot").unwrap().bind(
        ActionBinding::new(execute_fn(|_, _| async { Ok(json!(null)) }))
            .concurrency(AgentConcurrency::Parallel { max: 1, queue_depth: Some(0) }),
    );
    assert!(ok.is_ok());
}

// "Capability key = component key + capability name; duplicates inside one definition are
// structural (AgentSurfaceDefinitionError, always thrown)": a procedure referenced twice.
#[test]
fn bind_with_a_duplicate_procedure_reference_fails() {
    let a = authority();
    let p =
        || a.procedure("domain:devices.reboot").unwrap().bind(execute_fn(|_, _| async { Ok(json!(null)) })).unwrap();
    let c = a.component("low.widget").unwrap();
    let e = c.bind().observation("readWidget", read_sync(|_| json!({}))).procedure(p()).procedure(p()).build().err();
    assert_eq!(
        e,
        Some(BindingError::DuplicateProcedure {
            contract: "view:low.widget".into(),
            id: "domain:devices.reboot".into()
        })
    );
}

// `procedures` are "Domain references": an external tool is exposed through the gateway,
// never as a component's procedure.
#[test]
fn bind_with_an_external_tool_as_procedure_fails() {
    let a = authority();
    let t =
        a.external_tool("external:reports.export").unwrap().bind(execute_fn(|_, _| async { Ok(json!(null)) })).unwrap();
    let e = a
        .component("low.widget")
        .unwrap()
        .bind()
        .observation("readWidget", read_sync(|_| json!({})))
        .procedure(t)
        .build()
        .err();
    assert_eq!(
        e,
        Some(BindingError::NotAProcedure { contract: "view:low.widget".into(), id: "external:reports.export".into() })
    );
}

// "Bindings may add runtime policies and availability, but cannot change contract identity or
// governance": what the snapshot shows is the manifest's text and governance.
#[test]
fn bindings_cannot_change_identity_or_governance() {
    let a = authority();
    let (r, _) = registry(&a);
    let b = bind_with(&a, "app.nav", "main", |b| {
        b.action(
            "navigate",
            ActionBinding::new(execute_fn(|_, _| async { Ok(json!(null)) })).when(|| false, "no-route"),
        )
        .enabled(true)
    });
    r.register(b).unwrap();
    let snap = r.snapshot(&SnapshotContext::default());
    let nav = &snap.components[0];
    let ManifestContract::Component(contract) =
        a.manifest().contracts.iter().find(|c| c.id() == "view:app.nav").unwrap().clone()
    else {
        unreachable!()
    };
    assert_eq!(nav.description, contract.description);
    let act = &nav.actions[0];
    assert_eq!(
        (act.effect, act.idempotent, act.reversible, act.confirmation),
        (
            contract.actions["navigate"].effect,
            contract.actions["navigate"].idempotent,
            contract.actions["navigate"].reversible,
            contract.actions["navigate"].confirmation
        )
    );
    assert_eq!(*act.input_schema, contract.actions["navigate"].input_schema);
    assert_eq!(
        (act.available, act.unavailable_reason.as_deref()),
        (false, Some("no-route")),
        "availability is the binding's to add"
    );
}

// "structural defects → AgentSurfaceDefinitionError" with the registry's limits ("All defaults
// are overridable via RegistryOptions.limits. Implementations MUST enforce every limit"): a
// description within the authority's limits but over the registry's is refused at register.
#[test]
fn register_enforces_the_registry_limits_on_contracts() {
    let a = authority();
    let limits = AgentSurfaceLimits { max_component_description: 10, ..AgentSurfaceLimits::default() };
    let (r, _) = registry_with(&a, |o| o.limits(limits));
    let e = r.register(bind(&a, "low.widget", "default")).err();
    assert!(
        matches!(e, Some(DefinitionError::Invalid { ref id, ref pointer, .. }) if id == "view:low.widget" && pointer == "/description"),
        "{e:?}"
    );
    assert_eq!(r.version(), "0");
    // With default limits the same binding registers.
    let (r, _) = registry(&a);
    assert_eq!(r.register(bind(&a, "low.widget", "default")).unwrap().status(), RegistrationStatus::Active);
}
