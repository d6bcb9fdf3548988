//! Imports of the core package that would otherwise compile to nothing: a name
//! `@agent-surface/core` does not export (`defineAgentComponentContrat`, AS0015), and calls
//! through an import from a package whose name is a near miss of it (`@agent-surfce/core`,
//! AS0016). Neither call is a contract, so without these the manifest would silently lack it.

use crate::diagnostics::{Code, Diagnostic};
use crate::extract::{core_suggestion, ImportKind, ModuleIndex, CORE_PACKAGE};

/// What the import rules found in one module.
#[derive(Default)]
pub struct ImportFindings {
    pub diagnostics: Vec<Diagnostic>,
    /// Unknown core names imported or called: each may be a contract that is missing, so the
    /// manifest cannot claim to be complete.
    pub errors: u32,
}

pub fn check(index: &ModuleIndex) -> ImportFindings {
    let mut out = ImportFindings::default();
    let mut unknown: Vec<_> = index
        .imports
        .values()
        .filter(|i| i.source == CORE_PACKAGE)
        .filter_map(|i| match &i.kind {
            ImportKind::Named(name) if !crate::extract::is_core_export(name) => Some((i.span, name.clone())),
            _ => None,
        })
        .collect();
    unknown.sort_by_key(|(span, _)| span.lo);
    for (span, name) in unknown {
        let d = Diagnostic::new(Code::UnknownCoreExport, span, format!("`{name}` is not exported by {CORE_PACKAGE}"))
            .label("no such export");
        out.diagnostics.push(d.maybe_help(core_suggestion(&name)));
        out.errors += 1;
    }
    for m in &index.unknown_core_members {
        let d =
            Diagnostic::new(Code::UnknownCoreExport, m.span, format!("`{}` is not exported by {CORE_PACKAGE}", m.name))
                .label("no such export");
        out.diagnostics.push(d.maybe_help(core_suggestion(&m.name)));
        out.errors += 1;
    }
    // One warning per imported name, at its first call.
    let mut seen = std::collections::HashSet::new();
    for call in &index.near_miss_calls {
        if !seen.insert(call.local.as_str()) {
            continue;
        }
        let mut d = Diagnostic::new(
            Code::MisspelledCorePackage,
            call.span,
            format!("did you mean `{CORE_PACKAGE}`? contracts imported from `{}` are not compiled", call.source),
        )
        .label(format!("`{}` is imported from `{}`", call.local, call.source));
        if let Some(import) = index.imports.get(&call.local) {
            d = d.related(import.span, "imported here");
        }
        out.diagnostics.push(d.help(format!("import it from `{CORE_PACKAGE}`")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{FileId, SourceFile};

    fn check_src(src: &str) -> ImportFindings {
        let f = SourceFile::new(FileId(0), "a.ts".into(), "a.ts".into(), src.into());
        let m = crate::parse::parse_module(&f).unwrap();
        check(&crate::extract::index_module(&f, &m))
    }

    #[test]
    fn unknown_core_names_are_errors_with_a_suggestion() {
        let f = check_src("import { defineAgentComponentContrat } from '@agent-surface/core';\n");
        assert_eq!(f.errors, 1);
        assert_eq!(f.diagnostics[0].help.as_deref(), Some("did you mean `defineAgentComponentContract`?"));
        let f = check_src("import * as core from '@agent-surface/core';\ncore.actionContrat({});\n");
        assert_eq!(f.errors, 1);
        assert_eq!(f.diagnostics[0].help.as_deref(), Some("did you mean `actionContract`?"));
    }

    #[test]
    fn real_exports_and_types_are_fine() {
        let f = check_src(
            "import type { Nonexistent } from '@agent-surface/core';\n\
             import { type AlsoNot, AgentSchema, JsonValue, createCapabilityAuthority, emptyObjectSchema } from '@agent-surface/core';\n\
             import * as core from '@agent-surface/core';\ncore.fromJsonSchema({});\n",
        );
        assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
    }

    #[test]
    fn near_miss_packages_warn_once_per_name_when_called() {
        let f = check_src(
            "import { defineAgentComponentContract as d } from '@agent-surfce/core';\n\
             import * as ns from '@agent-surface/cor';\nimport { other } from '@workspace/core';\n\
             d({}); d({}); ns.actionContract({}); other({});\n",
        );
        assert_eq!(f.errors, 0);
        let messages: Vec<&str> = f.diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "did you mean `@agent-surface/core`? contracts imported from `@agent-surfce/core` are not compiled",
                "did you mean `@agent-surface/core`? contracts imported from `@agent-surface/cor` are not compiled",
            ]
        );
        assert!(f.diagnostics.iter().all(|d| !d.is_error()));
        assert!(check_src("import { d } from '@agent-surfce/core';\n").diagnostics.is_empty(), "no call, no warning");
        let siblings =
            "import { a } from '@agent-surface/vite';\nimport { b } from '@agent-surface/react';\na(); b();\n";
        assert!(check_src(siblings).diagnostics.is_empty(), "the project's other packages are not near misses");
    }
}
