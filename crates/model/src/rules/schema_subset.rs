//! Rule: every schema of a contract compiles into a validator: it stays inside the supported
//! JSON Schema subset (`agent_surface_schema::subset`, within the limits' size and depth), and
//! none of its `$ref`s loops back to the same value without descending (what only compiling
//! finds). A contract whose schema cannot be compiled could never be invoked (found by fuzzing).
//!
//! Reports [`DefinitionViolationKind::Schema`], one per schema violation, pointing into the
//! schema field; the compiler maps them in `rules/schema_subset.rs`.

use super::violation::{field, DefinitionViolation, DefinitionViolationKind};
use crate::limits::AgentSurfaceLimits;
use agent_surface_schema::validate::Validator;
use serde_json::Value;

/// The schema in `field_name` (`inputSchema`, `outputSchema`) of the value at `base`, against
/// the schema limits of `limits`. The subset checker's violations come in its order, each
/// pointer prefixed with `base` and the field.
pub fn check(
    base: &[String],
    field_name: &str,
    schema: &Value,
    limits: &AgentSurfaceLimits,
    out: &mut Vec<DefinitionViolation>,
) {
    let violations = Validator::check(schema, limits).err().unwrap_or_default();
    for sv in violations {
        let mut pointer = field(base, field_name);
        pointer.extend(sv.pointer.iter().cloned());
        let (message, help) = (sv.message.clone(), sv.help.clone());
        out.push(DefinitionViolation { pointer, kind: DefinitionViolationKind::Schema(sv), message, help });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::definition::validate_contract;
    use crate::effects::{default_governance, CapabilityKind, Effect};
    use crate::manifest::samples::{sample_component, sample_procedure};
    use crate::manifest::{ActionContract, ManifestContract};
    use crate::rules::testing::{comp, ptr, validate};
    use agent_surface_schema::subset::SchemaViolationKind;
    use serde_json::json;
    use DefinitionViolationKind as K;

    fn schema(s: Value, limits: &AgentSurfaceLimits) -> Vec<DefinitionViolation> {
        let mut out = Vec::new();
        check(&ptr(&["actions", "a"]), "inputSchema", &s, limits, &mut out);
        out
    }

    #[test]
    fn subset_schemas_pass() {
        let s =
            json!({"type": "object", "properties": {"n": {"$ref": "#/$defs/n"}}, "$defs": {"n": {"type": "integer"}}});
        assert_eq!(schema(s, &AgentSurfaceLimits::default()), vec![]);
        assert_eq!(schema(json!({}), &AgentSurfaceLimits::default()), vec![]);
    }

    #[test]
    fn violations_point_through_the_field() {
        let vs = schema(json!({"not": {}}), &AgentSurfaceLimits::default());
        assert_eq!(vs.len(), 1);
        assert_eq!(vs[0].json_pointer(), "/actions/a/inputSchema/not");
        assert!(matches!(&vs[0].kind, K::Schema(sv) if sv.pointer == ptr(&["not"]) && sv.message == vs[0].message));
    }

    #[test]
    fn a_ref_that_loops_without_descending_fails() {
        // Inside the subset, but no validator can be compiled from it.
        let s = json!({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}});
        assert!(!schema(s, &AgentSurfaceLimits::default()).is_empty());
    }

    // Through the composition (`validate_contract`).

    #[test]
    fn schema_violations_get_field_pointers() {
        let mut c = sample_component();
        c.actions.insert(
            "select".into(),
            ActionContract::new(
                "Select",
                json!({"type": "object", "properties": {"ids": {"type": "string", "format": "ipv4"}}}),
                default_governance(CapabilityKind::ViewAction, Effect::LocalState),
            ),
        );
        c.actions.get_mut("select").unwrap().output_schema = Some(json!({"oneOf": []}));
        c.observations.get_mut("readState").unwrap().output_schema = json!(true);
        let vs = comp(c);
        let got: Vec<Vec<String>> = vs.iter().map(|v| v.pointer.clone()).collect();
        assert_eq!(
            got,
            vec![
                ptr(&["observations", "readState", "outputSchema"]),
                ptr(&["actions", "select", "inputSchema", "properties", "ids", "format"]),
                ptr(&["actions", "select", "outputSchema", "oneOf"]),
            ]
        );
        assert!(
            matches!(&vs[1].kind, K::Schema(sv) if sv.kind == SchemaViolationKind::UnsupportedFormat { format: "ipv4".into() }
            && sv.pointer == ptr(&["properties", "ids", "format"]))
        );
        assert_eq!(vs[1].json_pointer(), "/actions/select/inputSchema/properties/ids/format");
        assert!(vs[2].help.as_deref().unwrap().contains("anyOf"));

        let mut p = sample_procedure();
        p.input_schema = json!({"$ref": "#/$defs/nope"});
        p.output_schema = Some(json!({"additionalProperties": {}}));
        let vs = validate(ManifestContract::Procedure(p));
        assert_eq!(
            vs.iter().map(|v| v.json_pointer()).collect::<Vec<_>>(),
            vec!["/inputSchema/$ref", "/outputSchema/additionalProperties"]
        );
    }

    #[test]
    fn schema_limits_come_from_limits() {
        let mut p = sample_procedure();
        p.input_schema = json!({"type": "array", "items": {"type": "array", "items": {}}});
        let strict = AgentSurfaceLimits { max_schema_depth: 2, ..Default::default() };
        let vs = validate_contract(&ManifestContract::Procedure(p.clone()), &strict);
        assert!(matches!(&vs[0].kind, K::Schema(sv) if sv.kind == SchemaViolationKind::TooDeep { depth: 3, max: 2 }));
        assert_eq!(vs[0].pointer, ptr(&["inputSchema", "items", "items"]));
        assert_eq!(validate(ManifestContract::Procedure(p)), vec![]);
    }
}
