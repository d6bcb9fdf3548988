//! Rule: ids follow the grammar of DECISIONS §2.
//!
//! - component type: 1–8 segments `[a-z][a-zA-Z0-9_-]{0,31}` joined by `.`, ≤ 96 chars
//!   (`devices.table`) — AS0101
//! - observation and action names: `[a-z][a-zA-Z0-9_]{0,47}` — AS0102
//! - procedure ids: `domain:` + 2–8 segments — AS0103
//! - external tool ids: `external:` + 1–8 segments — AS0104
//!
//! The diagnostic points at the offending character when the id is a plain string literal.

use crate::contracts::BuiltContract;
use crate::diagnostics::{Code, Diagnostic};
use crate::extract::{Binding, Export, ImportKind, ModuleInfo};
use crate::project::Project;
use crate::source::{SourceDb, Span};
use crate::value::Val;
use agent_surface_model::definition::{DefinitionViolation, DefinitionViolationKind};
use agent_surface_model::ids::{IdError, IdErrorReason, IdKind};
use swc_ecma_ast::{Decl, ExportDecl, ModuleDecl, ModuleItem, Stmt};

pub fn diagnose(c: &BuiltContract, v: &DefinitionViolation, db: &SourceDb) -> Diagnostic {
    let err = match &v.kind {
        DefinitionViolationKind::Id(err) => err,
        // The compiler derives `view:<type>` itself; a mismatch can only come from a hand-made
        // contract, but it still deserves a diagnostic rather than a panic.
        _ => return Diagnostic::new(Code::InvalidComponentType, c.span_at(&v.pointer), v.message.clone()),
    };
    let (code, span) = match err.kind {
        IdKind::ComponentType => (Code::InvalidComponentType, c.span_at(&v.pointer)),
        IdKind::CapabilityName => (Code::InvalidCapabilityName, c.key_span_at(&v.pointer)),
        IdKind::ProcedureId => (Code::InvalidProcedureId, c.span_at(&v.pointer)),
        IdKind::ExternalToolId => (Code::InvalidExternalToolId, c.span_at(&v.pointer)),
        _ => (Code::InvalidComponentType, c.span_at(&v.pointer)),
    };
    let what = match code {
        Code::InvalidComponentType => "component type",
        Code::InvalidCapabilityName => "capability name",
        Code::InvalidProcedureId => "procedure id",
        _ => "external tool id",
    };
    let value = v.pointer.last().cloned().unwrap_or_default();
    let id_text = match code {
        Code::InvalidCapabilityName => value,
        _ => match &c.tree.at_pointer(&v.pointer).0.val {
            Val::Str(s) => s.clone(),
            _ => value,
        },
    };
    let narrowed =
        char_level(err).then(|| err.position.and_then(|pos| narrow_to_char(db, span, &id_text, pos))).flatten();
    Diagnostic::new(code, narrowed.unwrap_or(span), format!("invalid {what} \"{id_text}\": {}", err.message))
        .label(short_reason(err))
}

/// AS0105: literal instance ids in `.bind()` calls on contracts (declared in this module or
/// imported from a project module that declares them).
pub fn check_bind_calls(project: &Project, module: &ModuleInfo) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for bind in &module.index.bind_calls {
        if !is_contract(project, module, &bind.target) {
            continue;
        }
        if let Err(err) = agent_surface_model::ids::check_instance_id(&bind.instance_id) {
            let narrowed = char_level(&err)
                .then(|| err.position.and_then(|pos| narrow_to_char(&project.db, bind.span, &bind.instance_id, pos)))
                .flatten();
            out.push(
                Diagnostic::new(
                    Code::InvalidInstanceId,
                    narrowed.unwrap_or(bind.span),
                    format!("invalid instance id \"{}\": {}", bind.instance_id, err.message),
                )
                .label(short_reason(&err)),
            );
        }
    }
    out
}

/// Whether `name` in `module` is a contract: a `const` initialized by a root macro call here,
/// or an import of such a `const` from a project module.
fn is_contract(project: &Project, module: &ModuleInfo, name: &str) -> bool {
    if let Some(Binding::Const { init: Some(r), .. }) = module.index.bindings.get(name) {
        return const_is_macro_call(module, r.item, r.declarator);
    }
    let Some(import) = module.index.imports.get(name) else { return false };
    let ImportKind::Named(export) = &import.kind else { return false };
    let Some(path) = project.resolve(&module.file.path, &import.source) else { return false };
    exported_contract(project, &path, export, 0)
}

/// Whether export `name` of the module at `path` is a contract constant, following
/// `export { a as b } from`, `export *` and imports re-exported by name (bounded depth, so an
/// import cycle cannot loop).
fn exported_contract(project: &Project, path: &std::path::Path, name: &str, depth: usize) -> bool {
    if depth > 16 {
        return false;
    }
    let Ok(target) = project.load(path) else { return false };
    match target.index.exports.get(name) {
        Some(Export::Local { local, .. }) => match target.index.bindings.get(local) {
            Some(Binding::Const { init: Some(r), .. }) => const_is_macro_call(&target, r.item, r.declarator),
            Some(_) => false,
            None => match target.index.imports.get(local) {
                Some(i) => match (&i.kind, project.resolve(&target.file.path, &i.source)) {
                    (ImportKind::Named(n), Some(p)) => exported_contract(project, &p, n, depth + 1),
                    _ => false,
                },
                None => false,
            },
        },
        Some(Export::Reexport { source, imported, .. }) => project
            .resolve(&target.file.path, source)
            .is_some_and(|p| exported_contract(project, &p, imported, depth + 1)),
        Some(_) => false,
        None => target.index.star_exports.iter().any(|(source, _)| {
            project.resolve(&target.file.path, source).is_some_and(|p| exported_contract(project, &p, name, depth + 1))
        }),
    }
}

fn const_is_macro_call(module: &ModuleInfo, item: usize, declarator: usize) -> bool {
    use swc_common::Spanned;
    let decl = match &module.module.body[item] {
        ModuleItem::Stmt(Stmt::Decl(Decl::Var(v))) => &v.decls[declarator],
        ModuleItem::ModuleDecl(ModuleDecl::ExportDecl(ExportDecl { decl: Decl::Var(v), .. })) => &v.decls[declarator],
        _ => return false,
    };
    let Some(init) = &decl.init else { return false };
    let span = crate::parse::span_of(&module.file, init.span());
    module.index.macro_calls.iter().any(|c| c.span == span)
}

/// Whether the error is about one character (then the diagnostic points at it).
fn char_level(err: &IdError) -> bool {
    matches!(err.reason, IdErrorReason::BadStart | IdErrorReason::BadChar)
}

fn short_reason(err: &IdError) -> String {
    match err.reason {
        IdErrorReason::BadStart | IdErrorReason::BadChar => "not allowed here".into(),
        IdErrorReason::Empty => "empty".into(),
        IdErrorReason::MissingPrefix => match err.kind {
            IdKind::ProcedureId => "missing the `domain:` prefix".into(),
            IdKind::ExternalToolId => "missing the `external:` prefix".into(),
            _ => "missing prefix".into(),
        },
        IdErrorReason::SegmentTooLong => "a segment is too long".into(),
        IdErrorReason::TooManySegments => "too many segments".into(),
        IdErrorReason::TooFewSegments => "too few segments".into(),
        IdErrorReason::TooLong => "too long".into(),
        IdErrorReason::EmptySegment => "empty segment".into(),
    }
}

/// The span of the `pos`-th character of `id` inside a string literal at `span`, if the
/// literal's text is exactly the id between quotes (no escapes), so the byte math is exact.
fn narrow_to_char(db: &SourceDb, span: Span, id: &str, pos: usize) -> Option<Span> {
    let file = db.get(span.file);
    let text = file.text.get(span.lo as usize..span.hi as usize)?;
    let inner = text.get(1..text.len().checked_sub(1)?)?;
    if inner != id {
        return None;
    }
    let (byte, ch) = id.char_indices().nth(pos)?;
    let lo = span.lo + 1 + byte as u32;
    Some(Span::new(span.file, lo, lo + ch.len_utf8() as u32))
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    const GOOD: &str = "export const c = defineAgentComponentContract({ type: 'devices.table', description: 'Devices', \
        observations: { readState: observationContract({ description: 'state', output: emptyObjectSchema }) }, \
        actions: { select_rows: actionContract({ description: 'select', input: emptyObjectSchema, effect: 'local-state' }) } });\n\
        export const p = defineAgentProcedureContract({ id: 'domain:devices.reboot', description: 'Reboot', input: emptyObjectSchema, effect: 'mutation' });\n\
        export const e = defineExternalAgentToolContract({ id: 'external:reports', description: 'Export', input: emptyObjectSchema, effect: 'read' });\n";

    #[test]
    fn valid_ids_pass() {
        assert_eq!(codes_of(GOOD), Vec::<String>::new());
    }

    #[test]
    fn component_type_points_at_the_offending_character() {
        let body = "defineAgentComponentContract({ type: 'devices.Table', description: 'd' });";
        let d = diagnostics_of(body);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].0, "AS0101");
        assert_eq!(first_span_text(body), "T");
        assert!(d[0].2.contains("'T'"), "{}", d[0].2);
    }

    #[test]
    fn capability_names_point_at_the_key() {
        let body = "defineAgentComponentContract({ type: 'a', description: 'd', actions: { 'Select-Rows': actionContract({ description: 's', input: emptyObjectSchema, effect: 'local-state' }) } });";
        assert_eq!(codes_of(body), vec!["AS0102"]);
        // the first character already breaks the grammar: the span narrows to it
        assert_eq!(first_span_text(body), "S");
    }

    #[test]
    fn literal_instance_ids_in_bind_calls() {
        let contract = format!("{PRELUDE}export const table = defineAgentComponentContract({{ type: 'devices.table', description: 'd' }});\n");
        let (c, _dir) = compile_files(&[
            ("src/contract.ts", &contract),
            // no core import here: the instanceId prefilter still sees it
            ("src/Table.tsx", "import { table } from './contract';\nexport const a = table.bind({ instanceId: 'primary' });\nexport const b = table.bind({ instanceId: 'bad id' });\nconst other = { bind: (x: any) => x };\nother.bind({ instanceId: 'not a contract' });\n"),
        ]);
        let codes: Vec<&str> = c.diagnostics.iter().map(|d| d.code.id()).collect();
        assert_eq!(codes, vec!["AS0105"]);
        let d = &c.diagnostics[0];
        let f = c.project.db.get(d.primary.span.file);
        assert_eq!(&f.text[d.primary.span.lo as usize..d.primary.span.hi as usize], " ");
    }

    #[test]
    fn procedure_and_external_ids() {
        let body = "defineAgentProcedureContract({ id: 'domain:reboot', description: 'd', input: emptyObjectSchema, effect: 'mutation' });\n\
                    defineExternalAgentToolContract({ id: 'reports.export', description: 'd', input: emptyObjectSchema, effect: 'read' });";
        assert_eq!(codes_of(body), vec!["AS0103", "AS0104"]);
    }
}
