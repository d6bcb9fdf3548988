//! Names to values: identifiers of a module's top-level scope, imports of other project
//! modules (named, default, namespace, re-exported and barrel exports), enums, and the core
//! package's own exports, each evaluated once per session.

use super::{empty_object_schema, json_to_node, Evaluator, CORE_FUNCTIONS, M};
use crate::diagnostics::{closest, Code, Diagnostic};
use crate::extract::{str_value, Binding, Export, ImportKind, CORE_PACKAGE};
use crate::memo::{CacheKey, Event};
use crate::numbers::js_number_string;
use crate::project::LoadError;
use crate::source::{PathKey, Span};
use crate::value::{Node, Prop as VProp, Val};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use swc_ecma_ast::*;

impl Evaluator<'_> {
    /// Evaluates an identifier in module `m`'s top-level scope.
    pub fn eval_ident(&mut self, m: &M, name: &str, use_span: Span) -> Option<Node> {
        self.eval_ident_inner(m, name, use_span).map(|n| n.via(use_span))
    }

    pub(super) fn eval_ident_inner(&mut self, m: &M, name: &str, use_span: Span) -> Option<Node> {
        if let Some(local) = self.local(m, name) {
            return Some(local);
        }
        if let Some(binding) = m.index.bindings.get(name).cloned() {
            return self.eval_binding(m, name, &binding, use_span);
        }
        if let Some(import) = m.index.imports.get(name).cloned() {
            if let Some(flavor) = crate::typebox::flavor_of(&import.source) {
                return Some(self.typebox_import(flavor, &import.kind, use_span));
            }
            if crate::valibot::is_valibot_source(&import.source) {
                return Some(self.valibot_import(&import.kind, use_span));
            }
            // ArkType (`crate::arktype`).
            if import.source == crate::arktype::PACKAGE {
                return match &import.kind {
                    ImportKind::Named(n) => self.ark_import(Some(n), use_span),
                    _ => self.ark_import(None, use_span),
                };
            }
            if crate::zod::is_zod_source(&import.source) {
                return Some(match &import.kind {
                    ImportKind::Named(n) => self.zod_import_from(&import.source, Some(n), use_span),
                    ImportKind::Default | ImportKind::Namespace => self.zod_import_from(&import.source, None, use_span),
                });
            }
            let path = match self.resolve_import_source(m, &import.source, use_span, name)? {
                Resolved::Core => {
                    return match &import.kind {
                        ImportKind::Named(export) => self.core_export(export, use_span),
                        ImportKind::Namespace | ImportKind::Default => Some(Node::new(use_span, Val::CoreNamespace)),
                    }
                }
                Resolved::File(path) => path,
            };
            return match &import.kind {
                ImportKind::Named(export) => self.eval_export(&path, export, use_span),
                ImportKind::Default => self.eval_export(&path, "default", use_span),
                ImportKind::Namespace => Some(Node::new(use_span, Val::Namespace(path))),
            };
        }
        match name {
            "undefined" => Some(Node::new(use_span, Val::Undefined)),
            "NaN" | "Infinity" => self.not_static(use_span, format!("`{name}` is not a JSON number")),
            _ => {
                let known = m.index.bindings.keys().chain(m.index.imports.keys()).map(String::as_str);
                let d =
                    Diagnostic::new(Code::UnresolvedName, use_span, format!("`{name}` is not defined in this module"))
                        .label("not a module-level constant or import");
                let d = match closest(name, known) {
                    Some(c) => d.help(format!("did you mean `{c}`?")),
                    None => d.help("definitions can only use module-level `const` bindings and imports; globals and local variables exist only at run time"),
                };
                self.error(d)
            }
        }
    }

    pub(super) fn eval_binding(&mut self, m: &M, name: &str, binding: &Binding, use_span: Span) -> Option<Node> {
        match binding {
            Binding::Const { init: Some(r), .. } => {
                let key = (PathKey::new(&m.file.path), name.to_string());
                let item = &m.module.body[r.item];
                let decl = match item {
                    ModuleItem::Stmt(Stmt::Decl(Decl::Var(v))) => &v.decls[r.declarator],
                    ModuleItem::ModuleDecl(ModuleDecl::ExportDecl(ExportDecl { decl: Decl::Var(v), .. })) => {
                        &v.decls[r.declarator]
                    }
                    _ => return self.not_static(use_span, "internal: constant not found"),
                };
                let init = decl.init.as_ref().expect("const with initializer");
                self.with_memo(key, m, use_span, |ev| ev.eval(m, init))
            }
            Binding::Enum { item, span } => {
                let key = (PathKey::new(&m.file.path), name.to_string());
                let (item, span) = (*item, *span);
                self.with_memo(key, m, use_span, |ev| ev.eval_enum(m, item, span))
            }
            Binding::Const { init: None, span } => self.error(
                Diagnostic::new(Code::NotStatic, use_span, format!("`{name}` is declared without a value"))
                    .related(*span, "declared here"),
            ),
            Binding::Mutable { keyword, span } => self.error(
                Diagnostic::new(
                    Code::MutableBinding,
                    use_span,
                    format!("`{name}` is declared with `{keyword}`; only `const` bindings are evaluated statically"),
                )
                .label(format!("`{keyword}` binding"))
                .related(*span, format!("declared with `{keyword}` here"))
                .help(format!("declare it with `const` if it never changes: `const {name} = ...`")),
            ),
            Binding::Other { what, span } => self.error(
                Diagnostic::new(Code::NotStatic, use_span, format!("`{name}` is {what}, not a static value"))
                    .related(*span, "declared here"),
            ),
        }
    }

    /// A TypeScript enum as tsc emits it: members in order, numeric members auto-incremented,
    /// reverse mappings for numeric values.
    pub(super) fn eval_enum(&mut self, m: &M, item: usize, span: Span) -> Option<Node> {
        let decl = match &m.module.body[item] {
            ModuleItem::Stmt(Stmt::Decl(Decl::TsEnum(e))) => e.clone(),
            ModuleItem::ModuleDecl(ModuleDecl::ExportDecl(ExportDecl { decl: Decl::TsEnum(e), .. })) => e.clone(),
            _ => return self.not_static(span, "internal: enum not found"),
        };
        let mut props: Vec<VProp> = Vec::new();
        let mut next = Some(0.0);
        for member in &decl.members {
            let key = match &member.id {
                TsEnumMemberId::Ident(i) => i.sym.to_string(),
                TsEnumMemberId::Str(s) => str_value(s),
            };
            let key_span = self.sp(m, member.span);
            let value = match &member.init {
                Some(init) => self.eval(m, init)?,
                None => match next {
                    Some(n) => Node::new(key_span, Val::Num(n)),
                    None => {
                        return self.not_static(key_span, "an enum member after a string member needs an initializer")
                    }
                },
            };
            next = match value.val {
                Val::Num(n) => Some(n + 1.0),
                _ => None,
            };
            if let Val::Num(n) = value.val {
                Node::set(
                    &mut props,
                    VProp { key: js_number_string(n), key_span, value: Node::new(key_span, Val::Str(key.clone())) },
                );
            }
            Node::set(&mut props, VProp { key, key_span, value });
        }
        Some(Node::new(span, Val::Object(props)))
    }

    /// Runs `f` with cycle detection and caching under `key`.
    pub(super) fn with_cache(
        &mut self,
        key: CacheKey,
        use_span: Span,
        f: impl FnOnce(&mut Self) -> Option<Node>,
    ) -> Option<Node> {
        if let Some(cached) = self.cache.get(&key) {
            return (**cached).clone();
        }
        if self.stack.contains(&key) {
            if self.frame.is_some() {
                // Which way round the cycle is reported depends on where the file entered it.
                self.diverged = true;
                return None;
            }
            let mut chain: Vec<String> = Vec::new();
            for (p, n) in self.stack.iter().skip_while(|k| **k != key).chain(std::iter::once(&key)) {
                let step = format!("`{}` ({})", n.trim_start_matches("export:"), self.project.rel(&p.0));
                if chain.last() != Some(&step) {
                    chain.push(step);
                }
            }
            let d = Diagnostic::new(Code::CircularReference, use_span, format!("circular reference: {}", chain.join(" → ")))
                .label("refers back to itself")
                .help("a value cannot contain itself; for recursive data use `$defs` and `{ $ref: \"#/$defs/Node\" }` in the JSON Schema, or move the shared part into a constant both sides import");
            return self.error(d);
        }
        self.record(|| Event::Begin(key.clone()));
        self.stack.push(key.clone());
        let result = f(self);
        self.stack.pop();
        let cached = Arc::new(result.clone());
        self.record(|| Event::End(key.clone(), cached.clone()));
        self.cache.insert(key, cached);
        result
    }

    pub(super) fn core_export(&mut self, export: &str, span: Span) -> Option<Node> {
        if export == "emptyObjectSchema" {
            let json = json_to_node(&empty_object_schema(), span);
            return Some(Node::new(span, Val::Schema(Arc::new(json))));
        }
        if CORE_FUNCTIONS.contains(&export) {
            return Some(Node::new(span, Val::CoreExport(export.to_string())));
        }
        self.not_static(span, format!("`{export}` of {CORE_PACKAGE} is not a static value"))
    }

    pub(super) fn resolve_import_source(
        &mut self,
        m: &M,
        source: &str,
        use_span: Span,
        name: &str,
    ) -> Option<Resolved> {
        if source == CORE_PACKAGE {
            return Some(Resolved::Core);
        }
        if let Some(path) = self.project.resolve(&m.file.path, source) {
            return Some(Resolved::File(path));
        }
        let relative = source.starts_with('.') || source.starts_with('/');
        let d = if relative {
            let d = Diagnostic::new(
                Code::UnresolvedName,
                use_span,
                format!("cannot resolve `{source}` from {}", m.file.rel),
            )
            .label(format!("`{name}` is imported from `{source}`"));
            match similar_module(&m.file.path, source) {
                Some(s) => d.help(format!("did you mean `{s}`?")),
                None => d.help(
                    "check the path: it is resolved like TypeScript does (extensions, index files, `.js` → `.ts`)",
                ),
            }
        } else {
            Diagnostic::new(Code::NotStatic, use_span, format!("`{name}` comes from the package `{source}`, which the compiler does not evaluate"))
                .help("define the value in a project file as a literal `const`, or map the import with `paths` in agent-surface.config.json")
        };
        self.error(d)
    }

    pub(super) fn load(&mut self, path: &Path, use_span: Span) -> Option<M> {
        match self.project.load(path) {
            Ok(m) => Some(m),
            Err(LoadError::Syntax { file }) => self.error(Diagnostic::new(
                Code::NotStatic,
                use_span,
                format!("cannot evaluate: {} has syntax errors", file.rel),
            )),
            Err(LoadError::Unreadable { file, reason }) => self.error(
                Diagnostic::new(
                    Code::NotStatic,
                    use_span,
                    format!("cannot evaluate: {} cannot be read ({reason})", file.rel),
                )
                .help(format!("fix {} first (see its AS0002 diagnostic): save it as UTF-8", file.rel)),
            ),
            Err(LoadError::NotFound) => self.error(Diagnostic::new(
                Code::UnresolvedName,
                use_span,
                format!("cannot evaluate: {} does not exist", self.project.rel(path)),
            )),
        }
    }

    /// Evaluates export `name` of the module at `path`, following re-exports and barrels.
    pub fn eval_export(&mut self, path: &Path, name: &str, use_span: Span) -> Option<Node> {
        let key = (PathKey::new(path), format!("export:{name}"));
        let path = path.to_path_buf();
        let name = name.to_string();
        self.with_cache(key, use_span, move |ev| ev.eval_export_uncached(&path, &name, use_span))
            .map(|n| n.via(use_span))
    }

    pub(super) fn eval_export_uncached(&mut self, path: &Path, name: &str, use_span: Span) -> Option<Node> {
        let m = self.load(path, use_span)?;
        if let Some(export) = m.index.exports.get(name).cloned() {
            return match export {
                Export::Local { local, .. } => self.eval_ident(&m, &local, use_span),
                Export::Reexport { source, imported, span } => {
                    match self.resolve_import_source(&m, &source, span, &imported)? {
                        Resolved::Core => self.core_export(&imported, use_span),
                        Resolved::File(target) => self.eval_export(&target, &imported, use_span),
                    }
                }
                Export::ReexportNamespace { source, span } => {
                    match self.resolve_import_source(&m, &source, span, name)? {
                        Resolved::Core => Some(Node::new(use_span, Val::CoreNamespace)),
                        Resolved::File(target) => Some(Node::new(use_span, Val::Namespace(target))),
                    }
                }
                Export::DefaultExpr { item, .. } => match &m.module.body[item] {
                    ModuleItem::ModuleDecl(ModuleDecl::ExportDefaultExpr(e)) => self.eval(&m, &e.expr),
                    _ => self.not_static(use_span, "internal: default export not found"),
                },
                Export::DefaultOther { span } => self.error(
                    Diagnostic::new(
                        Code::NotStatic,
                        use_span,
                        format!("the default export of {} is a function or class, not a static value", m.file.rel),
                    )
                    .related(span, "exported here"),
                ),
            };
        }
        if name != "default" {
            let found = self.project.star_export(&m, name);
            if let Some(target) = found {
                return self.eval_export(&target, name, use_span);
            }
        }
        let d = Diagnostic::new(Code::UnresolvedName, use_span, format!("{} has no export named `{name}`", m.file.rel));
        let d = match closest(name, self.export_names(&m).iter().map(String::as_str)) {
            Some(c) => d.help(format!("did you mean `{c}`?")),
            None => d.help(format!("export it from {}, or import it from the module that declares it", m.file.rel)),
        };
        self.error(d)
    }

    /// Every name a module exports, including through `export *` (for "did you mean").
    pub(super) fn export_names(&self, m: &M) -> Vec<String> {
        let mut names: Vec<String> = m.index.exports.keys().cloned().collect();
        let mut visited = HashSet::new();
        let mut stack = vec![m.clone()];
        while let Some(cur) = stack.pop() {
            if !visited.insert(cur.file.path.clone()) {
                continue;
            }
            for (source, _) in &cur.index.star_exports {
                if let Some(t) = self.project.resolve(&cur.file.path, source).and_then(|p| self.project.load(&p).ok()) {
                    names.extend(t.index.exports.keys().filter(|k| *k != "default").cloned());
                    stack.push(t);
                }
            }
        }
        names.sort();
        names.dedup();
        names
    }
}

/// A relative specifier naming an existing sibling module close to `source` (a typo'd path).
pub(super) fn similar_module(from: &Path, source: &str) -> Option<String> {
    let (dir_part, stem) = match source.rfind('/') {
        Some(i) => (&source[..i], &source[i + 1..]),
        None => (".", source),
    };
    let stem = stem.trim_end_matches(".js").trim_end_matches(".ts").trim_end_matches(".tsx");
    let dir = crate::paths::normalize(&from.parent()?.join(dir_part));
    // A folder listing is not an input the project tracks: the result is not reused.
    crate::inputs::note_untracked();
    let mut stems: Vec<String> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let p = e.path();
            if p.is_dir() {
                return p.join("index.ts").is_file().then(|| e.file_name().to_string_lossy().into_owned());
            }
            if !crate::discover::is_source_file(&p) {
                return None;
            }
            p.file_stem().map(|s| s.to_string_lossy().into_owned())
        })
        .collect();
    stems.sort();
    let found = closest(stem, stems.iter().map(String::as_str))?;
    Some(format!("{dir_part}/{found}"))
}

pub(super) enum Resolved {
    Core,
    File(PathBuf),
}
