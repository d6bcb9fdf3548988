//! Small, valid contracts and a manifest of them, for tests in this and dependent crates.

use super::{
    ActionContract, CapabilityContractManifest, ComponentContract, Generator, ManifestContract, ObservationContract,
    OperationContract,
};
use crate::effects::{default_governance, CapabilityKind, Effect};
use serde_json::json;

pub fn sample_component() -> ComponentContract {
    let mut c = ComponentContract::new("devices.table", "The devices table");
    c.observations.insert("readState".into(), ObservationContract::new("Visible rows", json!({"type": "object"})));
    let mut select = ActionContract::new(
        "Select rows",
        json!({"type": "object", "properties": {"ids": {"type": "array", "items": {"type": "string"}}}}),
        default_governance(CapabilityKind::ViewAction, Effect::LocalState),
    );
    select.output_schema = Some(json!({"type": "null"}));
    c.actions.insert("select".into(), select);
    c.actions.insert(
        "open".into(),
        ActionContract::new(
            "Open details",
            json!({"type": "object"}),
            default_governance(CapabilityKind::ViewAction, Effect::Navigation),
        ),
    );
    c.tags.push("table".into());
    c.meta.insert("owner".into(), json!("devices-team"));
    c
}

pub fn sample_procedure() -> OperationContract {
    OperationContract::new(
        "domain:devices.delete",
        "Delete devices",
        json!({"type": "object", "properties": {"ids": {"type": "array"}}, "required": ["ids"]}),
        default_governance(CapabilityKind::DomainProcedure, Effect::Destructive),
    )
}

pub fn sample_external() -> OperationContract {
    let mut t = OperationContract::new(
        "external:crm.export",
        "Export to the CRM",
        json!({"type": "object"}),
        default_governance(CapabilityKind::ExternalTool, Effect::ExternalSideEffect),
    );
    t.output_schema = Some(json!({"type": "string"}));
    t.policies.push(json!({"name": "admins-only"}));
    t
}

pub fn generator() -> Generator {
    Generator { name: "agent-surface".into(), version: "0.1.0".into() }
}

pub fn sample_manifest_value() -> serde_json::Value {
    sample_manifest().to_value()
}

pub fn sample_manifest() -> CapabilityContractManifest {
    CapabilityContractManifest::assemble(
        generator(),
        vec![
            ManifestContract::Procedure(sample_procedure()),
            ManifestContract::Component(sample_component()),
            ManifestContract::ExternalTool(sample_external()),
        ],
        0,
    )
}
