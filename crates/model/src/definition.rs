//! Whole-contract validation, shared by the compiler (compile errors) and the registry
//! (`AgentSurfaceDefinitionError`). It only walks the contract and calls the rules of
//! [`crate::rules`] (which apply [`crate::ids`], [`crate::effects`],
//! [`agent_surface_schema::subset`] and [`crate::limits`]); no rule is stated here.
//!
//! The walk fixes the order violations are reported in, which the compiler's output shows:
//! for a component its `type` and `id`, description, meta, then each observation (by name:
//! name, description, meta, output schema), each action (by name: name, description, meta,
//! effect/confirmation, input schema, output schema), and last the names shared by an
//! observation and an action; for a procedure or external tool its id, description, meta,
//! effect/confirmation, input schema, output schema.

use crate::effects::CapabilityKind;
use crate::limits::AgentSurfaceLimits;
use crate::manifest::{ComponentContract, ManifestContract, OperationContract};
use crate::rules::violation::seg;
use crate::rules::{id_grammar, planes, schema_subset, sizes, uniqueness};

pub use crate::rules::sizes::description_len;
pub use crate::rules::violation::{DefinitionViolation, DefinitionViolationKind};

/// Validates one contract against every definition rule and the given limits. Returns all
/// violations; empty means valid. Description limits: component
/// `limits.max_component_description`, everything else `limits.max_capability_description`,
/// both counted in UTF-16 code units.
pub fn validate_contract(contract: &ManifestContract, limits: &AgentSurfaceLimits) -> Vec<DefinitionViolation> {
    let mut out = Vec::new();
    match contract {
        ManifestContract::Component(c) => component(c, limits, &mut out),
        ManifestContract::Procedure(o) => operation(o, CapabilityKind::DomainProcedure, limits, &mut out),
        ManifestContract::ExternalTool(o) => operation(o, CapabilityKind::ExternalTool, limits, &mut out),
    }
    out
}

fn component(c: &ComponentContract, limits: &AgentSurfaceLimits, out: &mut Vec<DefinitionViolation>) {
    let root: &[String] = &[];
    id_grammar::check_component(c, out);
    sizes::check_description(root, &c.description, limits.max_component_description, out);
    sizes::check_meta(root, &c.meta, limits.max_meta_bytes, out);

    let max = limits.max_capability_description;
    for (name, o) in &c.observations {
        let base = seg(&["observations", name]);
        id_grammar::check_capability_name(&base, name, out);
        sizes::check_description(&base, &o.description, max, out);
        sizes::check_meta(&base, &o.meta, limits.max_meta_bytes, out);
        schema_subset::check(&base, "outputSchema", &o.output_schema, limits, out);
    }
    for (name, a) in &c.actions {
        let base = seg(&["actions", name]);
        id_grammar::check_capability_name(&base, name, out);
        sizes::check_description(&base, &a.description, max, out);
        sizes::check_meta(&base, &a.meta, limits.max_meta_bytes, out);
        planes::check(&base, CapabilityKind::ViewAction, a.effect, a.confirmation, out);
        schema_subset::check(&base, "inputSchema", &a.input_schema, limits, out);
        if let Some(output) = &a.output_schema {
            schema_subset::check(&base, "outputSchema", output, limits, out);
        }
    }
    uniqueness::check(c, out);
}

fn operation(
    o: &OperationContract,
    kind: CapabilityKind,
    limits: &AgentSurfaceLimits,
    out: &mut Vec<DefinitionViolation>,
) {
    let root: &[String] = &[];
    id_grammar::check_operation(o, kind, out);
    sizes::check_description(root, &o.description, limits.max_capability_description, out);
    sizes::check_meta(root, &o.meta, limits.max_meta_bytes, out);
    planes::check(root, kind, o.effect, o.confirmation, out);
    schema_subset::check(root, "inputSchema", &o.input_schema, limits, out);
    if let Some(output) = &o.output_schema {
        schema_subset::check(root, "outputSchema", output, limits, out);
    }
}

#[cfg(test)]
mod tests {
    //! The composition: every rule runs, in the documented order. Each rule's own tests are in
    //! its file under `rules/`.
    use super::*;
    use crate::effects::Effect;
    use crate::ids::component_contract_id;
    use crate::manifest::samples::{sample_component, sample_external, sample_procedure};
    use crate::manifest::ObservationContract;
    use crate::rules::testing::{comp, validate};
    use serde_json::json;
    use DefinitionViolationKind as K;

    #[test]
    fn valid_samples_pass() {
        assert_eq!(comp(sample_component()), vec![]);
        assert_eq!(validate(ManifestContract::Procedure(sample_procedure())), vec![]);
        assert_eq!(validate(ManifestContract::ExternalTool(sample_external())), vec![]);
    }

    #[test]
    fn reports_everything_at_once() {
        let mut c = sample_component();
        c.r#type = "X".into();
        c.id = component_contract_id("X");
        c.description = String::new();
        c.actions.get_mut("select").unwrap().effect = Effect::Mutation;
        c.actions.get_mut("open").unwrap().input_schema = json!({"allOf": []});
        let vs = comp(c);
        let kinds: Vec<&str> = vs
            .iter()
            .map(|v| match v.kind {
                K::Id(_) => "id",
                K::DescriptionEmpty => "description",
                K::EffectNotAllowed(_) => "effect",
                K::Schema(_) => "schema",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, vec!["id", "description", "schema", "effect"]);
    }

    #[test]
    fn a_component_reports_in_walk_order() {
        let mut c = sample_component();
        c.id = "view:x".into();
        c.meta.insert("k".into(), json!("v".repeat(3000)));
        let mut o = ObservationContract::new("", json!({"not": {}}));
        o.meta.insert("k".into(), json!("v".repeat(3000)));
        c.observations.insert("Open".into(), o);
        c.observations.insert("select".into(), ObservationContract::new("Selection", json!({})));
        let a = c.actions.get_mut("select").unwrap();
        a.effect = Effect::Mutation;
        a.description = "s".repeat(301);
        a.input_schema = json!({"not": {}});
        a.output_schema = Some(json!({"oneOf": []}));
        let got: Vec<String> = comp(c).iter().map(|v| v.json_pointer()).collect();
        assert_eq!(
            got,
            vec![
                "/id",
                "/meta",
                "/observations/Open",
                "/observations/Open/description",
                "/observations/Open/meta",
                "/observations/Open/outputSchema/not",
                "/actions/select/description",
                "/actions/select/effect",
                "/actions/select/inputSchema/not",
                "/actions/select/outputSchema/oneOf",
                "/actions/select",
            ]
        );
    }

    #[test]
    fn an_operation_reports_in_walk_order() {
        let mut p = sample_procedure();
        p.id = "domain:x".into();
        p.description = " ".into();
        p.meta.insert("k".into(), json!("v".repeat(3000)));
        p.confirmation = crate::effects::Confirmation::Never;
        p.input_schema = json!({"not": {}});
        p.output_schema = Some(json!({"oneOf": []}));
        let got: Vec<String> = validate(ManifestContract::Procedure(p)).iter().map(|v| v.json_pointer()).collect();
        assert_eq!(
            got,
            vec!["/id", "/description", "/meta", "/confirmation", "/inputSchema/not", "/outputSchema/oneOf"]
        );
    }
}
