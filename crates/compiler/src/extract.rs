//! Extract: what one module declares, imports and exports, and where it calls the contract
//! macros of `@agent-surface/core`. Only calls whose callee resolves to an import from that
//! package count: a local function with the same name, or an import shadowed by a parameter or
//! an inner declaration, is not a contract.

use crate::parse::span_of;
pub use crate::prefilter::CORE_PACKAGE;
use crate::source::{SourceFile, Span};
use std::sync::Arc;
// Fx hashing: the keys are the project's own identifiers and spans, and SipHash over them was a
// fiftieth of a cold compile.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use swc_ecma_ast::*;
use swc_ecma_visit::{Visit, VisitWith};

/// A parsed module and its index.
#[derive(Debug)]
pub struct ModuleInfo {
    pub file: Arc<SourceFile>,
    pub module: Module,
    pub index: ModuleIndex,
}

/// The values `@agent-surface/core` exports (`packages/core/src/index.ts`): the spec's macros,
/// schema constructors, errors and runtime functions. An import of any other value is an error
/// (AS0015): a misspelled macro would otherwise compile to nothing. The package's test
/// `compiler-exports.test.js` fails when this list and the package disagree.
pub const CORE_VALUE_EXPORTS: &[&str] = &[
    "AgentSchemaError",
    "AgentSurfaceDefinitionError",
    "CapabilityAuthorityError",
    "action",
    "actionContract",
    "assertCapabilityAuthority",
    "blake3Hex",
    "canonicalJson",
    "createAgentExposureGateway",
    "createAgentSurfaceRegistry",
    "createAgentToolset",
    "createCapabilityAuthority",
    "createFetchProcedureExecutor",
    "defineAgentComponent",
    "defineAgentComponentContract",
    "defineAgentProcedureContract",
    "defineExternalAgentToolContract",
    "emptyObjectSchema",
    "fromJsonSchema",
    "fromStandardSchema",
    "isCapabilityAuthority",
    "observation",
    "observationContract",
    "readAuditRecords",
];

/// The types the package's declarations export (`dist/*.d.ts`, checked the same way). `import type { … }` is never checked; these
/// may also be imported without `type` (TypeScript allows it unless `verbatimModuleSyntax`).
pub const CORE_TYPE_EXPORTS: &[&str] = &[
    "ActionBinding",
    "AgentActionContext",
    "AgentActionContract",
    "AgentActionDefinition",
    "AgentActionDescriptor",
    "AgentAudit",
    "AgentCapabilityErrorCode",
    "AgentCapabilityErrorPayload",
    "AgentComponentBinding",
    "AgentComponentContract",
    "AgentComponentContractDefinition",
    "AgentComponentDefinition",
    "AgentComponentDescriptor",
    "AgentComponentHandlers",
    "AgentConcurrency",
    "AgentConfirmation",
    "AgentConsumer",
    "AgentContractBinding",
    "AgentDiscoveryContext",
    "AgentEffect",
    "AgentEnvironment",
    "AgentExposureGateway",
    "AgentForwardedProcedureHandlers",
    "AgentInvocation",
    "AgentInvocationResult",
    "AgentObservationContract",
    "AgentObservationDefinition",
    "AgentObservationDescriptor",
    "AgentOperationContract",
    "AgentOperationContractDefinition",
    "AgentOperationEffect",
    "AgentOperationHandlers",
    "AgentPolicy",
    "AgentPolicyContext",
    "AgentPolicyInvokeContext",
    "AgentProcedureBinding",
    "AgentProcedureCall",
    "AgentProcedureContract",
    "AgentProcedureContractDefinition",
    "AgentProcedureDescriptor",
    "AgentProcedureExecutor",
    "AgentReadContext",
    "AgentRegistrationHandle",
    "AgentRetry",
    "AgentRouteInfo",
    "AgentSchema",
    "AgentSchemaIssue",
    "AgentSurfaceEvent",
    "AgentSurfaceLimits",
    "AgentSurfaceRegistry",
    "AgentSurfaceSnapshot",
    "AgentTool",
    "AgentToolset",
    "AgentToolsetOptions",
    "AgentViewEffect",
    "AuditRecord",
    "AuditSink",
    "AuthorizeDecision",
    "CapabilityAuthority",
    "CapabilityAuthorityErrorKind",
    "CapabilityContractManifest",
    "CapabilityExplanation",
    "CapabilityPolicyAttachment",
    "ConfirmationController",
    "ContractLocations",
    "ContractProvenance",
    "DiscoveryDecision",
    "ExposeOptions",
    "ExposedTools",
    "ExternalAgentToolBinding",
    "ExternalAgentToolContract",
    "ExternalAgentToolContractDefinition",
    "FetchProcedureExecutorOptions",
    "FromJsonSchema",
    "InvokeOptions",
    "JsonSchema",
    "JsonValue",
    "ManifestActionContract",
    "ManifestComponentContract",
    "ManifestContract",
    "ManifestObservationContract",
    "ManifestOperationContract",
    "ObservationBinding",
    "PendingConfirmation",
    "PolicyDecision",
    "PreconditionFailure",
    "RegistrationCandidate",
    "RegistryOptions",
    "SchemaViolation",
    "SnapshotContext",
    "SourceLocation",
    "StandardSchemaV1",
    "SurfaceExplanation",
    "Unsubscribe",
];

/// Whether `@agent-surface/core` exports `name` (a value or a type).
pub fn is_core_export(name: &str) -> bool {
    CORE_VALUE_EXPORTS.contains(&name) || CORE_TYPE_EXPORTS.contains(&name)
}

/// "did you mean `x`?" among the core package's exports.
pub fn core_suggestion(name: &str) -> Option<String> {
    crate::diagnostics::closest(name, CORE_VALUE_EXPORTS.iter().chain(CORE_TYPE_EXPORTS).copied())
        .map(|c| format!("did you mean `{c}`?"))
}

/// Whether an import source looks like a misspelling of the core package: within two edits
/// (case-sensitive: npm names are lowercase, and [`crate::prefilter::mentions_core_near_miss`]
/// guarantees such a file is parsed).
pub fn is_core_near_miss(source: &str) -> bool {
    // The edit distance is at least the difference in length (in characters, as strsim counts):
    // most sources (`react`, `zod`, `./x`) are ruled out without computing it, and this runs for
    // every call of an imported function.
    if source.chars().count().abs_diff(CORE_PACKAGE.chars().count()) > 2 {
        return false;
    }
    source != CORE_PACKAGE && strsim::levenshtein(source, CORE_PACKAGE) <= 2
}

/// The three macros that declare a whole contract (the roots of the manifest).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RootMacro {
    Component,
    Procedure,
    ExternalTool,
}

impl RootMacro {
    pub fn from_export(name: &str) -> Option<RootMacro> {
        match name {
            "defineAgentComponentContract" => Some(RootMacro::Component),
            "defineAgentProcedureContract" => Some(RootMacro::Procedure),
            "defineExternalAgentToolContract" => Some(RootMacro::ExternalTool),
            _ => None,
        }
    }
    pub fn export_name(self) -> &'static str {
        match self {
            RootMacro::Component => "defineAgentComponentContract",
            RootMacro::Procedure => "defineAgentProcedureContract",
            RootMacro::ExternalTool => "defineExternalAgentToolContract",
        }
    }
}

/// How a local name was imported.
#[derive(Clone, Debug, PartialEq)]
pub enum ImportKind {
    Named(String),
    Default,
    Namespace,
}

#[derive(Clone, Debug)]
pub struct Import {
    pub source: String,
    pub kind: ImportKind,
    pub span: Span,
}

/// Where a `const` initializer lives in the module body.
#[derive(Copy, Clone, Debug)]
pub struct ConstRef {
    pub item: usize,
    pub declarator: usize,
}

/// A module-level binding.
#[derive(Clone, Debug)]
pub enum Binding {
    Const {
        init: Option<ConstRef>,
        span: Span,
    },
    /// `let` or `var`: never statically evaluated.
    Mutable {
        keyword: &'static str,
        span: Span,
    },
    /// A TypeScript `enum` (evaluated to its object, reverse mappings included, as tsc emits it).
    Enum {
        item: usize,
        span: Span,
    },
    /// A function, class, destructured const...: a runtime value.
    Other {
        what: &'static str,
        span: Span,
    },
}

impl Binding {
    pub fn span(&self) -> Span {
        match self {
            Binding::Const { span, .. }
            | Binding::Mutable { span, .. }
            | Binding::Enum { span, .. }
            | Binding::Other { span, .. } => *span,
        }
    }
}

/// What an exported name refers to.
#[derive(Clone, Debug)]
pub enum Export {
    /// A binding of this module (or one it imports and re-exports by name).
    Local { local: String, span: Span },
    /// `export { a as b } from "./x"`.
    Reexport { source: String, imported: String, span: Span },
    /// `export * as ns from "./x"`.
    ReexportNamespace { source: String, span: Span },
    /// `export default <expression>` (item index of the statement).
    DefaultExpr { item: usize, span: Span },
    /// `export default function/class`.
    DefaultOther { span: Span },
}

/// A call of a root macro.
#[derive(Clone, Debug)]
pub struct MacroCall {
    pub kind: RootMacro,
    /// The whole call expression.
    pub span: Span,
    /// The callee (for the manifest's `source` position).
    pub callee_span: Span,
    /// Where the provenance argument is inserted: after the last argument, or after `(`.
    pub insert_at: u32,
    pub has_args: bool,
}

/// `contract.bind({ instanceId: "literal", ... })`: the static instance id of a binding.
#[derive(Clone, Debug)]
pub struct BindCall {
    /// The name `.bind` is called on.
    pub target: String,
    pub instance_id: String,
    /// The string literal.
    pub span: Span,
}

/// A call of a name imported from a package that looks like a misspelled core package
/// (`@agent-surfce/core`): its contracts are not compiled (AS0016).
#[derive(Clone, Debug)]
pub struct NearMissCall {
    /// The local name called (or the namespace).
    pub local: String,
    /// The package as written.
    pub source: String,
    /// The call expression.
    pub span: Span,
}

/// `core.name(...)` through a namespace import where the package exports no `name` (AS0015).
#[derive(Clone, Debug)]
pub struct UnknownCoreMember {
    pub name: String,
    /// The property.
    pub span: Span,
}

/// Everything evaluation needs to know about a module, by name.
#[derive(Debug, Default)]
pub struct ModuleIndex {
    pub imports: HashMap<String, Import>,
    pub bindings: HashMap<String, Binding>,
    pub exports: HashMap<String, Export>,
    pub star_exports: Vec<(String, Span)>,
    pub macro_calls: Vec<MacroCall>,
    pub bind_calls: Vec<BindCall>,
    /// Calls through imports from a near-miss of the core package, in source order.
    pub near_miss_calls: Vec<NearMissCall>,
    /// Calls of names a core namespace import does not export, in source order.
    pub unknown_core_members: Vec<UnknownCoreMember>,
}

impl ModuleIndex {
    /// The core export a local name refers to (`defineC` → `defineAgentComponentContract`).
    pub fn core_import(&self, local: &str) -> Option<&str> {
        match self.imports.get(local) {
            Some(Import { source, kind: ImportKind::Named(name), .. }) if source == CORE_PACKAGE => Some(name),
            _ => None,
        }
    }

    pub fn is_core_namespace(&self, local: &str) -> bool {
        matches!(self.imports.get(local), Some(Import { source, kind: ImportKind::Namespace | ImportKind::Default, .. }) if source == CORE_PACKAGE)
    }
}

pub fn str_value(s: &Str) -> String {
    s.value.to_atom_lossy().to_string()
}

fn export_name(n: &ModuleExportName) -> String {
    match n {
        ModuleExportName::Ident(i) => i.sym.to_string(),
        ModuleExportName::Str(s) => str_value(s),
    }
}

/// Builds the index of a parsed module.
pub fn index_module(file: &SourceFile, module: &Module) -> ModuleIndex {
    let mut index = ModuleIndex::default();
    let sp = |s: swc_common::Span| span_of(file, s);

    for (item_idx, item) in module.body.iter().enumerate() {
        match item {
            ModuleItem::ModuleDecl(ModuleDecl::Import(import)) => {
                if import.type_only {
                    continue;
                }
                let source = str_value(&import.src);
                for spec in &import.specifiers {
                    let (local, kind, span) = match spec {
                        ImportSpecifier::Named(n) => {
                            if n.is_type_only {
                                continue;
                            }
                            let imported =
                                n.imported.as_ref().map(export_name).unwrap_or_else(|| n.local.sym.to_string());
                            let kind =
                                if imported == "default" { ImportKind::Default } else { ImportKind::Named(imported) };
                            (n.local.sym.to_string(), kind, n.span)
                        }
                        ImportSpecifier::Default(d) => (d.local.sym.to_string(), ImportKind::Default, d.span),
                        ImportSpecifier::Namespace(ns) => (ns.local.sym.to_string(), ImportKind::Namespace, ns.span),
                    };
                    index.imports.insert(local, Import { source: source.clone(), kind, span: sp(span) });
                }
            }
            ModuleItem::ModuleDecl(ModuleDecl::ExportDecl(ExportDecl { decl, .. })) => {
                for (name, span) in declare(&mut index, decl, item_idx, file) {
                    index.exports.insert(name.clone(), Export::Local { local: name, span });
                }
            }
            ModuleItem::Stmt(Stmt::Decl(decl)) => {
                declare(&mut index, decl, item_idx, file);
            }
            ModuleItem::ModuleDecl(ModuleDecl::ExportNamed(named)) => {
                if named.type_only {
                    continue;
                }
                let source = named.src.as_ref().map(|s| str_value(s));
                for spec in &named.specifiers {
                    match spec {
                        ExportSpecifier::Named(n) => {
                            if n.is_type_only {
                                continue;
                            }
                            let orig = export_name(&n.orig);
                            let exported = n.exported.as_ref().map(export_name).unwrap_or_else(|| orig.clone());
                            let export = match &source {
                                Some(source) => {
                                    Export::Reexport { source: source.clone(), imported: orig, span: sp(n.span) }
                                }
                                None => Export::Local { local: orig, span: sp(n.span) },
                            };
                            index.exports.insert(exported, export);
                        }
                        ExportSpecifier::Namespace(ns) => {
                            if let Some(source) = &source {
                                index.exports.insert(
                                    export_name(&ns.name),
                                    Export::ReexportNamespace { source: source.clone(), span: sp(ns.span) },
                                );
                            }
                        }
                        ExportSpecifier::Default(d) => {
                            if let Some(source) = &source {
                                index.exports.insert(
                                    d.exported.sym.to_string(),
                                    Export::Reexport {
                                        source: source.clone(),
                                        imported: "default".into(),
                                        span: sp(d.exported.span),
                                    },
                                );
                            }
                        }
                    }
                }
            }
            ModuleItem::ModuleDecl(ModuleDecl::ExportAll(all)) if !all.type_only => {
                index.star_exports.push((str_value(&all.src), sp(all.span)));
            }
            ModuleItem::ModuleDecl(ModuleDecl::ExportDefaultExpr(e)) => {
                let export = match &*e.expr {
                    Expr::Ident(id) => Export::Local { local: id.sym.to_string(), span: sp(e.span) },
                    _ => Export::DefaultExpr { item: item_idx, span: sp(e.span) },
                };
                index.exports.insert("default".into(), export);
            }
            ModuleItem::ModuleDecl(ModuleDecl::ExportDefaultDecl(d)) => {
                index.exports.insert("default".into(), Export::DefaultOther { span: sp(d.span) });
            }
            _ => {}
        }
    }

    let mut finder = MacroFinder {
        index: &index,
        file,
        scopes: Vec::new(),
        calls: Vec::new(),
        binds: Vec::new(),
        near_miss: Vec::new(),
        unknown_members: Vec::new(),
    };
    module.visit_with(&mut finder);
    let (calls, binds, near_miss, unknown) = (finder.calls, finder.binds, finder.near_miss, finder.unknown_members);
    index.macro_calls = calls;
    index.bind_calls = binds;
    index.near_miss_calls = near_miss;
    index.unknown_core_members = unknown;
    index
}

/// Records the module-level bindings of a declaration; returns the declared names.
fn declare(index: &mut ModuleIndex, decl: &Decl, item: usize, file: &SourceFile) -> Vec<(String, Span)> {
    let sp = |s: swc_common::Span| span_of(file, s);
    let mut names = Vec::new();
    match decl {
        Decl::Var(var) => {
            for (i, d) in var.decls.iter().enumerate() {
                let binding_span = sp(d.span);
                match &d.name {
                    Pat::Ident(id) => {
                        let binding = match var.kind {
                            VarDeclKind::Const => Binding::Const {
                                init: d.init.as_ref().map(|_| ConstRef { item, declarator: i }),
                                span: binding_span,
                            },
                            VarDeclKind::Let => Binding::Mutable { keyword: "let", span: binding_span },
                            VarDeclKind::Var => Binding::Mutable { keyword: "var", span: binding_span },
                        };
                        index.bindings.insert(id.id.sym.to_string(), binding);
                        names.push((id.id.sym.to_string(), binding_span));
                    }
                    pat => {
                        let mut found = Vec::new();
                        pat_names(pat, &mut found);
                        for n in found {
                            index.bindings.insert(
                                n.clone(),
                                Binding::Other { what: "a destructured binding", span: binding_span },
                            );
                            names.push((n, binding_span));
                        }
                    }
                }
            }
        }
        Decl::Fn(f) => {
            index
                .bindings
                .insert(f.ident.sym.to_string(), Binding::Other { what: "a function", span: sp(f.ident.span) });
            names.push((f.ident.sym.to_string(), sp(f.ident.span)));
        }
        Decl::Class(c) => {
            index.bindings.insert(c.ident.sym.to_string(), Binding::Other { what: "a class", span: sp(c.ident.span) });
            names.push((c.ident.sym.to_string(), sp(c.ident.span)));
        }
        Decl::TsEnum(e) => {
            index.bindings.insert(e.id.sym.to_string(), Binding::Enum { item, span: sp(e.id.span) });
            names.push((e.id.sym.to_string(), sp(e.id.span)));
        }
        Decl::Using(u) => {
            for d in &u.decls {
                let mut found = Vec::new();
                pat_names(&d.name, &mut found);
                for n in found {
                    index.bindings.insert(n.clone(), Binding::Other { what: "a `using` binding", span: sp(d.span) });
                    names.push((n, sp(d.span)));
                }
            }
        }
        Decl::TsInterface(_) | Decl::TsTypeAlias(_) | Decl::TsModule(_) => {}
    }
    names
}

/// Names bound by a pattern.
pub fn pat_names(pat: &Pat, out: &mut Vec<String>) {
    match pat {
        Pat::Ident(i) => out.push(i.id.sym.to_string()),
        Pat::Array(a) => a.elems.iter().flatten().for_each(|p| pat_names(p, out)),
        Pat::Object(o) => {
            for p in &o.props {
                match p {
                    ObjectPatProp::KeyValue(kv) => pat_names(&kv.value, out),
                    ObjectPatProp::Assign(a) => out.push(a.key.id.sym.to_string()),
                    ObjectPatProp::Rest(r) => pat_names(&r.arg, out),
                }
            }
        }
        Pat::Assign(a) => pat_names(&a.left, out),
        Pat::Rest(r) => pat_names(&r.arg, out),
        Pat::Expr(_) | Pat::Invalid(_) => {}
    }
}

/// Finds root macro calls, tracking inner scopes so shadowed names do not count.
struct MacroFinder<'a> {
    index: &'a ModuleIndex,
    file: &'a SourceFile,
    scopes: Vec<HashSet<String>>,
    calls: Vec<MacroCall>,
    binds: Vec<BindCall>,
    near_miss: Vec<NearMissCall>,
    unknown_members: Vec<UnknownCoreMember>,
}

impl MacroFinder<'_> {
    fn shadowed(&self, name: &str) -> bool {
        self.scopes.iter().any(|s| s.contains(name))
    }

    fn root_macro(&self, callee: &Expr) -> Option<RootMacro> {
        match callee {
            Expr::Ident(id) => {
                let name = id.sym.as_str();
                if self.shadowed(name) {
                    return None;
                }
                self.index.core_import(name).and_then(RootMacro::from_export)
            }
            Expr::Member(MemberExpr { obj, prop: MemberProp::Ident(prop), .. }) => match &**obj {
                Expr::Ident(ns) if !self.shadowed(ns.sym.as_str()) && self.index.is_core_namespace(ns.sym.as_str()) => {
                    RootMacro::from_export(prop.sym.as_str())
                }
                _ => None,
            },
            Expr::Paren(p) => self.root_macro(&p.expr),
            _ => None,
        }
    }

    /// A call through an import from a near-miss of the core package (`f(...)` or `ns.f(...)`).
    fn near_miss_call(&self, callee: &Expr, call_span: Span) -> Option<NearMissCall> {
        let local = match callee {
            Expr::Ident(id) => id.sym.as_str(),
            Expr::Member(MemberExpr { obj, .. }) => match &**obj {
                Expr::Ident(ns) => ns.sym.as_str(),
                _ => return None,
            },
            Expr::Paren(p) => return self.near_miss_call(&p.expr, call_span),
            _ => return None,
        };
        if self.shadowed(local) {
            return None;
        }
        let import = self.index.imports.get(local)?;
        is_core_near_miss(&import.source).then(|| NearMissCall {
            local: local.to_string(),
            source: import.source.clone(),
            span: call_span,
        })
    }

    /// `ns.name(...)` on a core namespace import where the package has no value `name`.
    fn unknown_core_member(&self, callee: &Expr) -> Option<UnknownCoreMember> {
        match callee {
            Expr::Paren(p) => self.unknown_core_member(&p.expr),
            Expr::Member(MemberExpr { obj, prop: MemberProp::Ident(prop), .. }) => match &**obj {
                Expr::Ident(ns)
                    if !self.shadowed(ns.sym.as_str())
                        && self.index.is_core_namespace(ns.sym.as_str())
                        && !CORE_VALUE_EXPORTS.contains(&prop.sym.as_str()) =>
                {
                    Some(UnknownCoreMember { name: prop.sym.to_string(), span: span_of(self.file, prop.span) })
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// `name.bind({ instanceId: "..." })` with a string literal instance id.
    fn bind_call(&self, callee: &Expr, call: &CallExpr) -> Option<BindCall> {
        let Expr::Member(MemberExpr { obj, prop: MemberProp::Ident(prop), .. }) = callee else { return None };
        let Expr::Ident(target) = &**obj else { return None };
        if prop.sym != "bind" || self.shadowed(target.sym.as_str()) {
            return None;
        }
        let Expr::Object(o) = &*call.args.first()?.expr else { return None };
        o.props.iter().find_map(|p| {
            let PropOrSpread::Prop(p) = p else { return None };
            let Prop::KeyValue(kv) = &**p else { return None };
            let key = match &kv.key {
                PropName::Ident(i) => i.sym.to_string(),
                PropName::Str(s) => str_value(s),
                _ => return None,
            };
            let Expr::Lit(Lit::Str(s)) = &*kv.value else { return None };
            (key == "instanceId").then(|| BindCall {
                target: target.sym.to_string(),
                instance_id: str_value(s),
                span: span_of(self.file, s.span),
            })
        })
    }

    /// Runs `f` in a scope declaring `names`. Only names of the module's scope can be shadowed
    /// in a way that matters (imports decide macros, module-level bindings decide `.bind`
    /// targets), so the others are not tracked: most scopes then track nothing.
    fn with_scope(&mut self, mut names: Vec<String>, f: impl FnOnce(&mut Self)) {
        names.retain(|n| self.index.imports.contains_key(n) || self.index.bindings.contains_key(n));
        if names.is_empty() {
            return f(self);
        }
        self.scopes.push(names.into_iter().collect());
        f(self);
        self.scopes.pop();
    }
}

/// Names declared directly in a list of statements (hoisting approximated: the whole block).
fn block_names(stmts: &[Stmt]) -> Vec<String> {
    let mut out = Vec::new();
    for s in stmts {
        if let Stmt::Decl(d) = s {
            match d {
                Decl::Var(v) => v.decls.iter().for_each(|d| pat_names(&d.name, &mut out)),
                Decl::Fn(f) => out.push(f.ident.sym.to_string()),
                Decl::Class(c) => out.push(c.ident.sym.to_string()),
                _ => {}
            }
        }
    }
    out
}

impl Visit for MacroFinder<'_> {
    fn visit_call_expr(&mut self, call: &CallExpr) {
        if let Callee::Expr(callee) = &call.callee {
            if let Some(kind) = self.root_macro(callee) {
                let span = span_of(self.file, call.span);
                let (insert_at, has_args) = match call.args.last() {
                    Some(last) => {
                        use swc_common::Spanned;
                        (span_of(self.file, last.span()).hi, true)
                    }
                    None => {
                        // after the `(`: find it after the callee
                        let callee_end = {
                            use swc_common::Spanned;
                            span_of(self.file, callee.span()).hi
                        };
                        let rest = &self.file.text[callee_end as usize..span.hi as usize];
                        let open =
                            rest.find('(').map(|i| callee_end + i as u32 + 1).unwrap_or(span.hi.saturating_sub(1));
                        (open, false)
                    }
                };
                let callee_span = {
                    use swc_common::Spanned;
                    span_of(self.file, callee.span())
                };
                self.calls.push(MacroCall { kind, span, callee_span, insert_at, has_args });
            }
            if let Some(bind) = self.bind_call(callee, call) {
                self.binds.push(bind);
            }
            if let Some(near) = self.near_miss_call(callee, span_of(self.file, call.span)) {
                self.near_miss.push(near);
            }
            if let Some(unknown) = self.unknown_core_member(callee) {
                self.unknown_members.push(unknown);
            }
        }
        call.visit_children_with(self);
    }

    fn visit_function(&mut self, f: &Function) {
        let mut names = Vec::new();
        for p in &f.params {
            pat_names(&p.pat, &mut names);
        }
        if let Some(body) = &f.body {
            names.extend(block_names(&body.stmts));
        }
        self.with_scope(names, |s| f.visit_children_with(s));
    }

    fn visit_arrow_expr(&mut self, a: &ArrowExpr) {
        let mut names = Vec::new();
        for p in &a.params {
            pat_names(p, &mut names);
        }
        if let ArrowFunctionBody::FunctionBody(b) = &*a.body {
            names.extend(block_names(&b.stmts));
        }
        self.with_scope(names, |s| a.visit_children_with(s));
    }

    fn visit_block_stmt(&mut self, b: &BlockStmt) {
        let names = block_names(&b.stmts);
        self.with_scope(names, |s| b.visit_children_with(s));
    }

    fn visit_catch_clause(&mut self, c: &CatchClause) {
        let mut names = Vec::new();
        if let Some(p) = &c.param {
            pat_names(p, &mut names);
        }
        self.with_scope(names, |s| c.visit_children_with(s));
    }

    fn visit_fn_decl(&mut self, f: &FnDecl) {
        f.function.visit_with(self);
    }
}

/// The call expressions of the module's root macro calls, in `index.macro_calls` order.
pub fn find_calls(m: &ModuleInfo) -> Vec<CallExpr> {
    struct Collect<'a> {
        file: &'a SourceFile,
        /// span → index in `macro_calls` (a file may hold thousands of contracts).
        wanted: HashMap<Span, usize>,
        found: Vec<Option<CallExpr>>,
    }
    impl Visit for Collect<'_> {
        fn visit_call_expr(&mut self, call: &CallExpr) {
            let span = span_of(self.file, call.span);
            if let Some(&i) = self.wanted.get(&span) {
                if self.found[i].is_none() {
                    self.found[i] = Some(call.clone());
                }
            }
            call.visit_children_with(self);
        }
    }
    let wanted = m.index.macro_calls.iter().enumerate().map(|(i, c)| (c.span, i)).collect();
    let mut c = Collect { file: &m.file, wanted, found: vec![None; m.index.macro_calls.len()] };
    m.module.visit_with(&mut c);
    c.found.into_iter().map(|c| c.expect("every indexed macro call is found again")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    fn index(src: &str) -> ModuleIndex {
        let f = SourceFile::new(FileId(0), "a.ts".into(), "a.ts".into(), src.into());
        let m = crate::parse::parse_module(&f).unwrap();
        index_module(&f, &m)
    }

    #[test]
    fn named_aliased_and_namespace_imports_are_macros() {
        let i = index(
            "import { defineAgentComponentContract, defineAgentProcedureContract as defP } from '@agent-surface/core';\n\
             import * as as from '@agent-surface/core';\n\
             defineAgentComponentContract({}); defP({}); as.defineExternalAgentToolContract({});",
        );
        let kinds: Vec<RootMacro> = i.macro_calls.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, vec![RootMacro::Component, RootMacro::Procedure, RootMacro::ExternalTool]);
    }

    #[test]
    fn local_functions_and_shadowing_are_not_macros() {
        let i = index(
            "function defineAgentComponentContract(x: any) { return x }\n\
             defineAgentComponentContract({});\n",
        );
        assert!(i.macro_calls.is_empty());
        let i = index(
            "import { defineAgentComponentContract as d } from '@agent-surface/core';\n\
             function f(d: any) { d({}); }\n\
             { const d = (x: any) => x; d({}); }\n\
             import { defineAgentComponentContract as other } from './not-core';\n other({});",
        );
        assert!(i.macro_calls.is_empty(), "{:?}", i.macro_calls);
    }

    #[test]
    fn provenance_insertion_points() {
        let src = "import { defineAgentComponentContract as d } from '@agent-surface/core';\nd({ a: 1 },);\nd();";
        let i = index(src);
        assert_eq!(&src[..i.macro_calls[0].insert_at as usize].chars().last().unwrap().to_string(), "}");
        assert!(i.macro_calls[0].has_args);
        assert_eq!(&src[i.macro_calls[1].insert_at as usize..], ");");
        assert!(!i.macro_calls[1].has_args);
    }

    #[test]
    fn exports_and_bindings() {
        let i = index(
            "export const a = 1; let b = 2; export { b as c }; export { x as y } from './x';\n\
             export * from './all'; export * as ns from './ns'; export default { k: 1 };\n\
             function f() {} const { d } = { d: 1 };",
        );
        assert!(matches!(i.bindings["a"], Binding::Const { .. }));
        assert!(matches!(i.bindings["b"], Binding::Mutable { keyword: "let", .. }));
        assert!(matches!(i.bindings["f"], Binding::Other { what: "a function", .. }));
        assert!(matches!(i.bindings["d"], Binding::Other { .. }));
        assert!(matches!(&i.exports["c"], Export::Local { local, .. } if local == "b"));
        assert!(matches!(&i.exports["y"], Export::Reexport { imported, .. } if imported == "x"));
        assert!(matches!(&i.exports["ns"], Export::ReexportNamespace { .. }));
        assert!(matches!(&i.exports["default"], Export::DefaultExpr { .. }));
        assert_eq!(i.star_exports[0].0, "./all");
    }
}
