//! Check: the rules a compiled contract must satisfy. What is valid is decided once, in the
//! runtime crate (`agent_surface_model::definition::validate_contract`, the same function the
//! registry runs at registration); each rule here owns a family of violations and turns them
//! into diagnostics: a code, a message, the span the violation's JSON pointer maps back to, and
//! help. Uniqueness across files is the one rule that needs the whole project.

pub mod id_grammar;
pub mod imports;
pub mod planes;
pub mod schema_subset;
pub mod sizes;
pub mod uniqueness;
pub mod webmcp_projection;
pub mod wire_names;

use crate::contracts::BuiltContract;
use crate::diagnostics::Diagnostic;
use crate::source::SourceDb;
use agent_surface_model::definition::{validate_contract, DefinitionViolation, DefinitionViolationKind as Kind};
use agent_surface_model::limits::AgentSurfaceLimits;

/// Runs every per-contract rule.
pub fn check_contract(c: &BuiltContract, limits: &AgentSurfaceLimits, db: &SourceDb) -> Vec<Diagnostic> {
    let violations = validate_contract(&c.contract, limits);
    // Wire names are derived from ids: only worth a warning once the ids are valid.
    let ids_valid = !violations.iter().any(|v| matches!(v.kind, Kind::Id(_) | Kind::IdMismatch { .. }));
    let mut out: Vec<Diagnostic> =
        violations.into_iter().map(|v| with_use_site(diagnose(c, &v, db), c, &v.pointer)).collect();
    if ids_valid {
        out.extend(wire_names::check(c));
    }
    // Only schemas of the subset are projected (a schema error is already reported).
    if !out.iter().any(|d| {
        d.code.info().category == crate::diagnostics::Category::Schema
            && d.severity == crate::diagnostics::Severity::Error
    }) {
        out.extend(webmcp_projection::check(c));
    }
    out
}

/// When the offending value is written elsewhere (a constant, another file), also show where
/// this contract uses it.
fn with_use_site(mut d: Diagnostic, c: &BuiltContract, pointer: &[String]) -> Diagnostic {
    if let Some(used) = c.tree.use_site(pointer) {
        let p = d.primary.span;
        let inside = used.file == p.file && used.lo >= p.lo && used.hi <= p.hi;
        let covers = used.file == p.file && p.lo >= used.lo && p.hi <= used.hi;
        if !inside && !covers && !d.related.iter().any(|r| r.span == used) {
            d = d.related(used, "used here");
        }
    }
    d
}

fn diagnose(c: &BuiltContract, v: &DefinitionViolation, db: &SourceDb) -> Diagnostic {
    match &v.kind {
        Kind::Id(_) | Kind::IdMismatch { .. } => id_grammar::diagnose(c, v, db),
        Kind::DescriptionEmpty | Kind::DescriptionTooLong { .. } | Kind::MetaTooLarge { .. } => sizes::diagnose(c, v),
        Kind::EffectNotAllowed(_) | Kind::ConfirmationNotAllowed(_) => planes::diagnose(c, v),
        Kind::Schema(_) => schema_subset::diagnose(c, v),
        Kind::DuplicateCapabilityName { .. } => uniqueness::diagnose_capability(c, v),
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Compiles small in-memory projects for rule tests.
    use crate::compile::{compile, Compilation};
    use crate::config::Config;
    use crate::project::Project;

    pub const PRELUDE: &str = "import { defineAgentComponentContract, defineAgentProcedureContract, defineExternalAgentToolContract, observationContract, actionContract, fromJsonSchema, emptyObjectSchema } from '@agent-surface/core';\n";

    /// Compiles `files` (path, text) written into a fresh temporary project.
    pub fn compile_files(files: &[(&str, &str)]) -> (Compilation, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let root = crate::paths::normalize(&std::fs::canonicalize(dir.path()).unwrap());
        let c = compile(Project::new(Config::load(&root).unwrap())).unwrap();
        (c, dir)
    }

    /// Compiles one file (with the core imports prepended) and returns `(code, line:col, message)`.
    pub fn diagnostics_of(body: &str) -> Vec<(String, String, String)> {
        let text = format!("{PRELUDE}{body}");
        let (c, _dir) = compile_files(&[("src/contract.ts", &text)]);
        c.diagnostics
            .iter()
            .map(|d| {
                let f = c.project.db.get(d.primary.span.file);
                let lc = f.line_col(d.primary.span.lo);
                (d.code.id().to_string(), format!("{}:{}", lc.line, lc.column), d.message.clone())
            })
            .collect()
    }

    /// The codes only.
    pub fn codes_of(body: &str) -> Vec<String> {
        diagnostics_of(body).into_iter().map(|d| d.0).collect()
    }

    /// The text under the first diagnostic's primary span.
    pub fn first_span_text(body: &str) -> String {
        let text = format!("{PRELUDE}{body}");
        let (c, _dir) = compile_files(&[("src/contract.ts", &text)]);
        let d = c.diagnostics.first().expect("a diagnostic");
        let f = c.project.db.get(d.primary.span.file);
        f.text[d.primary.span.lo as usize..d.primary.span.hi as usize].to_string()
    }
}
