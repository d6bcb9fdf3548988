//! Rule: uniqueness. A component type, a procedure id or an external tool id is declared once
//! in the whole project (AS0501, AS0503); a capability name is used once per component, across
//! observations and actions (AS0502). Both locations are in the diagnostic. The first
//! declaration (by file path, then position) stays in the manifest; later ones fail.

use crate::contracts::{BuiltContract, CompiledContract};
use crate::diagnostics::{Code, Diagnostic};
use crate::source::SourceDb;
use agent_surface_model::definition::{DefinitionViolation, DefinitionViolationKind as Kind};
use agent_surface_model::manifest::ManifestContract;
use std::sync::Arc;

pub fn diagnose_capability(c: &BuiltContract, v: &DefinitionViolation) -> Diagnostic {
    let Kind::DuplicateCapabilityName { name } = &v.kind else { unreachable!() };
    let obs = c.key_span_at(&["observations".to_string(), name.clone()]);
    let act = c.key_span_at(&["actions".to_string(), name.clone()]);
    Diagnostic::new(
        Code::DuplicateCapabilityName,
        act,
        format!("`{name}` is both an observation and an action of this component"),
    )
    .label("declared as an action here")
    .related(obs, "declared as an observation here")
    .help("capability ids are `view:<type>.<name>`: give the observation and the action different names")
}

/// Splits contracts (sorted by id, then file, then position) into the kept ones and
/// diagnostics for every later duplicate.
pub fn check(contracts: Vec<Arc<CompiledContract>>, db: &SourceDb) -> (Vec<Arc<CompiledContract>>, Vec<Diagnostic>) {
    let mut kept: Vec<Arc<CompiledContract>> = Vec::with_capacity(contracts.len());
    let mut diags = Vec::new();
    for c in contracts {
        if let Some(first) = kept.last().filter(|k| k.contract().id() == c.contract().id()) {
            let (code, what) = match c.contract() {
                ManifestContract::Component(_) => (Code::DuplicateComponentType, "component type"),
                ManifestContract::Procedure(_) => (Code::DuplicateOperationId, "procedure id"),
                ManifestContract::ExternalTool(_) => (Code::DuplicateOperationId, "external tool id"),
            };
            let id_ptr = match c.contract() {
                ManifestContract::Component(_) => "type",
                _ => "id",
            };
            let name = match c.contract() {
                ManifestContract::Component(cc) => cc.r#type.clone(),
                other => other.id().to_string(),
            };
            let first_span = first.span_at(&[id_ptr.to_string()]);
            let first_file = db.get(first_span.file);
            let lc = first_file.line_col(first_span.lo);
            diags.push(
                Diagnostic::new(
                    code,
                    c.span_at(&[id_ptr.to_string()]),
                    format!("the {what} \"{name}\" is already declared in {}:{}", first_file.rel, lc.line),
                )
                .label("declared again here")
                .related(first_span, "first declared here")
                .help(format!("each {what} is declared once per project: rename one, or import the existing contract")),
            );
            continue;
        }
        kept.push(c);
    }
    (kept, diags)
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn distinct_ids_pass() {
        let body = "defineAgentComponentContract({ type: 'a', description: 'd' });\ndefineAgentComponentContract({ type: 'b', description: 'd' });";
        assert_eq!(codes_of(body), Vec::<String>::new());
    }

    #[test]
    fn duplicate_component_types_across_files_name_both_locations() {
        let one = format!("{PRELUDE}defineAgentComponentContract({{ type: 'devices.table', description: 'd' }});\n");
        let (c, _dir) = compile_files(&[("src/a.ts", &one), ("src/b.ts", &one)]);
        assert_eq!(c.diagnostics.len(), 1);
        let d = &c.diagnostics[0];
        assert_eq!(d.code.id(), "AS0501");
        assert_eq!(c.project.db.get(d.primary.span.file).rel, "src/b.ts");
        assert_eq!(c.project.db.get(d.related[0].span.file).rel, "src/a.ts");
        assert_eq!(c.contracts.len(), 1);
        assert_eq!(c.failed, 1);
    }

    #[test]
    fn duplicate_procedure_ids() {
        let body = "defineAgentProcedureContract({ id: 'domain:a.b', description: 'd', input: emptyObjectSchema, effect: 'read' });\n\
                    defineAgentProcedureContract({ id: 'domain:a.b', description: 'e', input: emptyObjectSchema, effect: 'read' });";
        assert_eq!(codes_of(body), vec!["AS0503"]);
    }

    #[test]
    fn a_name_used_as_observation_and_action() {
        let body = "defineAgentComponentContract({ type: 'a', description: 'd', \
            observations: { sel: observationContract({ description: 'o', output: emptyObjectSchema }) }, \
            actions: { sel: actionContract({ description: 'a', input: emptyObjectSchema, effect: 'local-state' }) } });";
        assert_eq!(codes_of(body), vec!["AS0502"]);
    }
}
