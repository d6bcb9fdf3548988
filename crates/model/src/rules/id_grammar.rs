//! Rule: ids follow the grammar of [`crate::ids`] (DECISIONS §2): a component's `type` and the
//! names of its observations and actions, a procedure's `domain:` id, an external tool's
//! `external:` id. A component's `id` must be `view:` + its `type`.
//!
//! Reports [`DefinitionViolationKind::Id`] (with the grammar's help) and
//! [`DefinitionViolationKind::IdMismatch`]; the compiler maps both in `rules/id_grammar.rs`.

use super::violation::{field, DefinitionViolation, DefinitionViolationKind};
use crate::effects::CapabilityKind;
use crate::ids::{
    check_capability_name as capability_name_grammar, check_component_type, check_external_tool_id, check_procedure_id,
    component_contract_id, IdError, IdKind,
};
use crate::manifest::{ComponentContract, OperationContract};

/// An example of a valid id of `kind`, the help of every id violation.
fn id_help(kind: IdKind) -> &'static str {
    match kind {
        IdKind::ComponentType => "component types look like \"devices.table\"",
        IdKind::ComponentContractId => "component contract ids look like \"view:devices.table\"",
        IdKind::CapabilityName => "capability names look like \"readState\" or \"select_rows\"",
        IdKind::CapabilityId => "capability ids look like \"view:devices.table.readState\"",
        IdKind::ProcedureId => "procedure ids look like \"domain:devices.delete\"",
        IdKind::ExternalToolId => "external tool ids look like \"external:crm.export\"",
        IdKind::InstanceId => "instance ids look like \"default\" or \"row-42\"",
    }
}

fn report(pointer: Vec<String>, result: Result<(), IdError>, out: &mut Vec<DefinitionViolation>) {
    if let Err(e) = result {
        let help = Some(id_help(e.kind).to_string());
        let message = e.message.clone();
        out.push(DefinitionViolation { pointer, kind: DefinitionViolationKind::Id(e), message, help });
    }
}

/// A component's `type` (at `/type`), then whether its `id` (at `/id`) is `view:<type>`.
pub fn check_component(c: &ComponentContract, out: &mut Vec<DefinitionViolation>) {
    report(field(&[], "type"), check_component_type(&c.r#type), out);
    let expected = component_contract_id(&c.r#type);
    if c.id != expected {
        out.push(DefinitionViolation {
            pointer: field(&[], "id"),
            message: format!("component contract id \"{}\" does not match its type; expected \"{expected}\"", c.id),
            kind: DefinitionViolationKind::IdMismatch { expected },
            help: None,
        });
    }
}

/// The name of the observation or action at `base` (`["actions", name]`); the violation
/// points at the capability itself, whose key is the name.
pub fn check_capability_name(base: &[String], name: &str, out: &mut Vec<DefinitionViolation>) {
    report(base.to_vec(), capability_name_grammar(name), out);
}

/// The `id` of a procedure (`domain:`) or an external tool (`external:`), by `kind`.
pub fn check_operation(o: &OperationContract, kind: CapabilityKind, out: &mut Vec<DefinitionViolation>) {
    let result = match kind {
        CapabilityKind::ExternalTool => check_external_tool_id(&o.id),
        _ => check_procedure_id(&o.id),
    };
    report(field(&[], "id"), result, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::IdErrorReason;
    use crate::manifest::samples::{sample_component, sample_external, sample_procedure};
    use crate::manifest::{ManifestContract, ObservationContract};
    use crate::rules::testing::{comp, ptr, validate};
    use crate::rules::violation::seg;
    use serde_json::json;
    use DefinitionViolationKind as K;

    fn component(c: &ComponentContract) -> Vec<DefinitionViolation> {
        let mut out = Vec::new();
        check_component(c, &mut out);
        out
    }

    #[test]
    fn valid_ids_pass() {
        assert_eq!(component(&sample_component()), vec![]);
        let mut out = Vec::new();
        check_capability_name(&seg(&["actions", "select_rows"]), "select_rows", &mut out);
        check_operation(&sample_procedure(), CapabilityKind::DomainProcedure, &mut out);
        check_operation(&sample_external(), CapabilityKind::ExternalTool, &mut out);
        assert_eq!(out, vec![]);
    }

    #[test]
    fn bad_type_and_mismatched_id_are_both_reported_type_first() {
        let mut c = sample_component();
        c.r#type = "Devices".into();
        let vs = component(&c);
        assert_eq!(vs.iter().map(|v| v.pointer.clone()).collect::<Vec<_>>(), vec![ptr(&["type"]), ptr(&["id"])]);
        assert_eq!(vs[0].help.as_deref(), Some(id_help(IdKind::ComponentType)));
        assert_eq!(vs[1].kind, K::IdMismatch { expected: "view:Devices".into() });
        assert_eq!(vs[1].help, None);
    }

    #[test]
    fn the_operation_kind_picks_the_grammar() {
        let mut out = Vec::new();
        check_operation(&sample_procedure(), CapabilityKind::ExternalTool, &mut out);
        check_operation(&sample_external(), CapabilityKind::DomainProcedure, &mut out);
        let kinds: Vec<IdKind> = out
            .iter()
            .map(|v| match &v.kind {
                K::Id(e) => e.kind,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(kinds, vec![IdKind::ExternalToolId, IdKind::ProcedureId]);
        assert!(out.iter().all(|v| v.pointer == ptr(&["id"])));
    }

    #[test]
    fn a_bad_capability_name_points_at_the_capability() {
        let mut out = Vec::new();
        check_capability_name(&seg(&["observations", "9lives"]), "9lives", &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].pointer, ptr(&["observations", "9lives"]));
        assert_eq!(out[0].help.as_deref(), Some(id_help(IdKind::CapabilityName)));
    }

    // Through the composition (`validate_contract`).

    #[test]
    fn component_type_and_id() {
        let mut c = sample_component();
        c.r#type = "Devices.table".into();
        c.id = component_contract_id(&c.r#type);
        let vs = comp(c);
        assert_eq!(vs.len(), 1, "{vs:#?}");
        assert_eq!(vs[0].pointer, ptr(&["type"]));
        let K::Id(e) = &vs[0].kind else { panic!("{vs:?}") };
        assert_eq!((e.reason, e.position), (IdErrorReason::BadStart, Some(0)));
        assert!(vs[0].message.contains("segment \"Devices\""));

        let mut c = sample_component();
        c.id = "view:other".into();
        let vs = comp(c);
        assert_eq!(vs.len(), 1);
        assert_eq!(
            (vs[0].pointer.clone(), vs[0].kind.clone()),
            (ptr(&["id"]), K::IdMismatch { expected: "view:devices.table".into() })
        );
    }

    #[test]
    fn capability_names() {
        let mut c = sample_component();
        c.observations.insert("Read-State".into(), ObservationContract::new("x", json!({})));
        c.actions.insert("do-it".into(), c.actions["open"].clone());
        let vs = comp(c);
        let got: Vec<(Vec<String>, IdErrorReason)> = vs
            .iter()
            .map(|v| match &v.kind {
                K::Id(e) => (v.pointer.clone(), e.reason),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (ptr(&["observations", "Read-State"]), IdErrorReason::BadStart),
                (ptr(&["actions", "do-it"]), IdErrorReason::BadChar),
            ]
        );
    }

    #[test]
    fn operation_ids() {
        let mut p = sample_procedure();
        p.id = "external:devices.delete".into();
        let vs = validate(ManifestContract::Procedure(p));
        assert_eq!(vs[0].pointer, ptr(&["id"]));
        assert!(
            matches!(&vs[0].kind, K::Id(e) if e.reason == IdErrorReason::MissingPrefix && e.kind == IdKind::ProcedureId)
        );
        assert_eq!(vs[0].help.as_deref(), Some("procedure ids look like \"domain:devices.delete\""));

        let mut t = sample_external();
        t.id = "domain:crm.export".into();
        let vs = validate(ManifestContract::ExternalTool(t));
        assert!(matches!(&vs[0].kind, K::Id(e) if e.kind == IdKind::ExternalToolId));

        let mut p = sample_procedure();
        p.id = "domain:devices".into();
        let vs = validate(ManifestContract::Procedure(p));
        assert!(matches!(&vs[0].kind, K::Id(e) if e.reason == IdErrorReason::TooFewSegments));
    }
}
