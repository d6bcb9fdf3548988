//! Evaluate: turn the expressions of a contract definition into values, statically. Literals,
//! object/array literals, spreads, `const` bindings of this and other project modules (named,
//! default, re-exported and barrel exports), `as const`/`satisfies`/type assertions, template
//! literals, `+` on strings and unary minus are evaluated; everything else is a diagnostic that
//! points at the sub-expression and says why.

use crate::diagnostics::{closest, Code, Diagnostic};
use crate::extract::{str_value, Binding, Export, ImportKind, CORE_PACKAGE};
use crate::parse::span_of;
use crate::project::{LoadError, ModuleInfo, Project};
use crate::source::{PathKey, Span};
use crate::value::{js_number_string, Node, Prop as VProp, Val};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use swc_common::Spanned;
use swc_ecma_ast::*;

/// The JSON Schema `emptyObjectSchema` stands for.
pub fn empty_object_schema() -> serde_json::Value {
    serde_json::json!({ "type": "object", "properties": {}, "additionalProperties": false })
}

/// Exports of `@agent-surface/core` that the evaluator knows.
const CORE_FUNCTIONS: &[&str] = &[
    "defineAgentComponentContract",
    "defineAgentProcedureContract",
    "defineExternalAgentToolContract",
    "observationContract",
    "actionContract",
    "fromJsonSchema",
    "fromStandardSchema",
];

/// One evaluation session; caches constants so each is evaluated (and reported) once.
pub struct Evaluator<'p> {
    pub(crate) project: &'p Project,
    pub diagnostics: Vec<Diagnostic>,
    stack: Vec<(PathKey, String)>,
    cache: HashMap<(PathKey, String), Option<Node>, rustc_hash::FxBuildHasher>,
    /// The zod schemas built so far (identity matters: see [`crate::zod::model`]).
    pub(crate) zod: crate::zod::model::Arena,
    /// `z.toJSONSchema` calls in output mode → whether input mode would differ.
    pub(crate) zod_output_mode: HashMap<Span, bool>,
    /// `fromStandardSchema(...)` calls whose JSON Schema was converted in output mode and
    /// would differ in input mode.
    pub output_mode_schemas: std::collections::HashSet<Span>,
    /// The root of the last `z.toJSONSchema` conversion (to check it converts the schema that
    /// `fromStandardSchema` validates with).
    pub(crate) last_converted: Option<(crate::zod::model::ZodId, crate::zod::emit::Io)>,
}

type M = Arc<ModuleInfo>;

impl<'p> Evaluator<'p> {
    pub fn new(project: &'p Project) -> Self {
        Evaluator {
            project,
            diagnostics: Vec::new(),
            stack: Vec::new(),
            cache: HashMap::default(),
            zod: Default::default(),
            zod_output_mode: HashMap::new(),
            output_mode_schemas: Default::default(),
            last_converted: None,
        }
    }

    pub(crate) fn sp(&self, m: &M, s: swc_common::Span) -> Span {
        span_of(&m.file, s)
    }

    pub(crate) fn error<T>(&mut self, d: Diagnostic) -> Option<T> {
        self.diagnostics.push(d);
        None
    }

    pub(crate) fn not_static<T>(&mut self, span: Span, message: impl Into<String>) -> Option<T> {
        self.error(Diagnostic::new(Code::NotStatic, span, message))
    }

    /// Evaluates the arguments of a root macro call.
    pub fn eval_args(&mut self, m: &M, call: &CallExpr) -> Vec<Option<Node>> {
        call.args
            .iter()
            .map(|a| {
                if let Some(spread) = a.spread {
                    let span = self.sp(m, spread);
                    return self.not_static(span, "spread arguments are not evaluated statically");
                }
                self.eval(m, &a.expr)
            })
            .collect()
    }

    /// Evaluates an expression of module `m`.
    pub fn eval(&mut self, m: &M, expr: &Expr) -> Option<Node> {
        let span = self.sp(m, expr.span());
        match expr {
            Expr::Lit(lit) => self.eval_lit(m, lit),
            Expr::Paren(p) => self.eval(m, &p.expr),
            Expr::TsAs(e) => self.eval(m, &e.expr),
            Expr::TsSatisfies(e) => self.eval(m, &e.expr),
            Expr::TsConstAssertion(e) => self.eval(m, &e.expr),
            Expr::TsTypeAssertion(e) => self.eval(m, &e.expr),
            Expr::TsNonNull(e) => self.eval(m, &e.expr),
            Expr::TsInstantiation(e) => self.eval(m, &e.expr),
            Expr::Tpl(tpl) => self.eval_tpl(m, tpl, span),
            Expr::Unary(u) => self.eval_unary(m, u, span),
            Expr::Bin(b) => self.eval_bin(m, b, span),
            Expr::Array(a) => self.eval_array(m, a, span),
            Expr::Object(o) => self.eval_object(m, o, span),
            Expr::Ident(id) => self.eval_ident(m, id.sym.as_str(), span),
            Expr::Member(mem) => self.eval_member(m, mem, span),
            Expr::Call(call) => self.eval_call(m, call, span),
            Expr::Arrow(a) => Some(Node::new(span, Val::Function(returned_expr_of_arrow(a), Some(m.clone())))),
            Expr::Fn(f) => Some(Node::new(span, Val::Function(returned_expr_of_fn(&f.function), Some(m.clone())))),
            Expr::Cond(_) => self.not_static(span, "a conditional expression depends on runtime values"),
            Expr::New(n) => self.eval_new(m, n, span),
            Expr::Await(_) => self.not_static(span, "`await` depends on runtime values"),
            Expr::OptChain(_) => self.not_static(span, "optional chaining depends on runtime values"),
            Expr::JSXElement(_) | Expr::JSXFragment(_) => self.not_static(span, "JSX is not a JSON value"),
            Expr::Class(_) => self.not_static(span, "a class is not a static value"),
            _ => self.not_static(span, "this expression is not evaluated statically"),
        }
    }

    fn eval_lit(&mut self, m: &M, lit: &Lit) -> Option<Node> {
        let span = self.sp(m, lit.span());
        let val = match lit {
            Lit::Str(s) => Val::Str(str_value(s)),
            Lit::Num(n) => Val::Num(n.value),
            Lit::Bool(b) => Val::Bool(b.value),
            Lit::Null(_) => Val::Null,
            Lit::BigInt(_) => return self.not_static(span, "a bigint is not a JSON value"),
            Lit::Regex(r) => Val::Regex(self.zod.new_regex(r.exp.to_string(), r.flags.to_string())),
            Lit::JSXText(_) => return self.not_static(span, "JSX text is not a JSON value"),
        };
        Some(Node::new(span, val))
    }

    fn eval_tpl(&mut self, m: &M, tpl: &Tpl, span: Span) -> Option<Node> {
        let mut out = String::new();
        for (i, q) in tpl.quasis.iter().enumerate() {
            match &q.cooked {
                Some(c) => out.push_str(&c.to_atom_lossy()),
                None => return self.not_static(self.sp(m, q.span), "invalid escape in a template literal"),
            }
            if let Some(e) = tpl.exprs.get(i) {
                let v = self.eval(m, e)?;
                match v.val {
                    Val::Str(s) => out.push_str(&s),
                    Val::Num(n) => out.push_str(&js_number_string(n)),
                    Val::Bool(b) => out.push_str(if b { "true" } else { "false" }),
                    other => {
                        return self.not_static(
                            v.span,
                            format!("a template substitution must be a string or number, found {}", other.describe()),
                        )
                    }
                }
            }
        }
        Some(Node::new(span, Val::Str(out)))
    }

    fn eval_unary(&mut self, m: &M, u: &UnaryExpr, span: Span) -> Option<Node> {
        match u.op {
            UnaryOp::Minus | UnaryOp::Plus => {
                let v = self.eval(m, &u.arg)?;
                match v.val {
                    Val::Num(n) => Some(Node::new(span, Val::Num(if u.op == UnaryOp::Minus { -n } else { n }))),
                    other => self.not_static(
                        v.span,
                        format!("unary `{}` needs a number, found {}", u.op.as_str(), other.describe()),
                    ),
                }
            }
            UnaryOp::Void => Some(Node::new(span, Val::Undefined)),
            op => self.not_static(span, format!("the operator `{}` is not evaluated statically", op.as_str())),
        }
    }

    fn eval_bin(&mut self, m: &M, b: &BinExpr, span: Span) -> Option<Node> {
        if b.op != BinaryOp::Add {
            return self.not_static(
                span,
                format!(
                    "the operator `{}` is not evaluated statically (only `+` on strings and numbers)",
                    b.op.as_str()
                ),
            );
        }
        let l = self.eval(m, &b.left);
        let r = self.eval(m, &b.right);
        let (l, r) = (l?, r?);
        let val = match (&l.val, &r.val) {
            (Val::Str(a), Val::Str(c)) => Val::Str(format!("{a}{c}")),
            (Val::Str(a), Val::Num(n)) => Val::Str(format!("{a}{}", js_number_string(*n))),
            (Val::Num(n), Val::Str(c)) => Val::Str(format!("{}{c}", js_number_string(*n))),
            (Val::Num(a), Val::Num(c)) => Val::Num(a + c),
            _ => {
                return self.not_static(
                    span,
                    format!("`+` of {} and {} is not evaluated statically", l.val.describe(), r.val.describe()),
                )
            }
        };
        Some(Node::new(span, val))
    }

    fn eval_array(&mut self, m: &M, a: &ArrayLit, span: Span) -> Option<Node> {
        let mut items = Vec::new();
        let mut ok = true;
        for elem in &a.elems {
            let Some(elem) = elem else {
                self.not_static::<Node>(span, "an array hole is not a JSON value");
                ok = false;
                continue;
            };
            let Some(v) = self.eval(m, &elem.expr) else {
                ok = false;
                continue;
            };
            if elem.spread.is_some() {
                match v.val {
                    Val::Array(inner) => items.extend(inner),
                    other => {
                        self.not_static::<Node>(
                            v.span,
                            format!("only arrays can be spread into an array, found {}", other.describe()),
                        );
                        ok = false;
                    }
                }
            } else {
                items.push(v);
            }
        }
        ok.then(|| Node::new(span, Val::Array(items)))
    }

    fn prop_key(&mut self, m: &M, key: &PropName) -> Option<(String, Span)> {
        let span = self.sp(m, key.span());
        match key {
            PropName::Ident(i) => Some((i.sym.to_string(), span)),
            PropName::Str(s) => Some((str_value(s), span)),
            PropName::Num(n) => Some((js_number_string(n.value), span)),
            PropName::Computed(c) => {
                let v = self.eval(m, &c.expr)?;
                match v.val {
                    Val::Str(s) => Some((s, span)),
                    Val::Num(n) => Some((js_number_string(n), span)),
                    other => {
                        self.not_static::<Node>(
                            v.span,
                            format!("a computed key must be a string, found {}", other.describe()),
                        );
                        None
                    }
                }
            }
            PropName::BigInt(_) => {
                self.not_static::<Node>(span, "a bigint key is not evaluated statically");
                None
            }
        }
    }

    fn eval_object(&mut self, m: &M, o: &ObjectLit, span: Span) -> Option<Node> {
        let mut props: Vec<VProp> = Vec::new();
        let mut ok = true;
        for p in &o.props {
            match p {
                PropOrSpread::Spread(s) => match self.eval(m, &s.expr) {
                    Some(v) => match v.val {
                        Val::Object(inner) => inner.into_iter().for_each(|p| Node::set(&mut props, p)),
                        Val::Undefined | Val::Null => {}
                        other => {
                            self.not_static::<Node>(
                                v.span,
                                format!("only objects can be spread into an object, found {}", other.describe()),
                            );
                            ok = false;
                        }
                    },
                    None => ok = false,
                },
                PropOrSpread::Prop(prop) => match &**prop {
                    swc_ecma_ast::Prop::KeyValue(kv) => {
                        let key = self.prop_key(m, &kv.key);
                        let value = self.eval(m, &kv.value);
                        match (key, value) {
                            (Some((key, key_span)), Some(value)) => {
                                Node::set(&mut props, VProp { key, key_span, value })
                            }
                            _ => ok = false,
                        }
                    }
                    swc_ecma_ast::Prop::Shorthand(id) => {
                        let key_span = self.sp(m, id.span);
                        match self.eval_ident(m, id.sym.as_str(), key_span) {
                            Some(value) => Node::set(&mut props, VProp { key: id.sym.to_string(), key_span, value }),
                            None => ok = false,
                        }
                    }
                    swc_ecma_ast::Prop::Getter(g) => {
                        // A getter is deferred (zod shapes use them for recursive schemas).
                        let key = self.prop_key(m, &g.key);
                        let body = g.function.body.as_ref().and_then(|b| single_return(&b.stmts));
                        match (key, body) {
                            (Some((key, key_span)), Some(expr)) => {
                                let t = self.zod.add_thunk(crate::zod::model::Thunk {
                                    module: m.clone(),
                                    expr: Box::new(expr.clone()),
                                    span: key_span,
                                });
                                Node::set(
                                    &mut props,
                                    VProp { key, key_span, value: Node::new(key_span, Val::Getter(t)) },
                                );
                            }
                            _ => {
                                let s = self.sp(m, prop.span());
                                self.not_static::<Node>(
                                    s,
                                    "a getter is evaluated only when its body is `return <expression>`",
                                );
                                ok = false;
                            }
                        }
                    }
                    swc_ecma_ast::Prop::Method(_) | swc_ecma_ast::Prop::Setter(_) => {
                        let s = self.sp(m, prop.span());
                        self.not_static::<Node>(s, "methods and setters run code; a definition holds data only")
                            .or_else(|| {
                                ok = false;
                                None
                            });
                    }
                    swc_ecma_ast::Prop::Assign(_) => {
                        let s = self.sp(m, prop.span());
                        self.not_static::<Node>(s, "this property form is not evaluated statically");
                        ok = false;
                    }
                },
            }
        }
        ok.then(|| Node::new(span, Val::Object(props)))
    }

    /// Evaluates an identifier in module `m`'s top-level scope.
    pub fn eval_ident(&mut self, m: &M, name: &str, use_span: Span) -> Option<Node> {
        self.eval_ident_inner(m, name, use_span).map(|n| n.via(use_span))
    }

    fn eval_ident_inner(&mut self, m: &M, name: &str, use_span: Span) -> Option<Node> {
        if let Some(binding) = m.index.bindings.get(name).cloned() {
            return self.eval_binding(m, name, &binding, use_span);
        }
        if let Some(import) = m.index.imports.get(name).cloned() {
            if crate::zod::is_zod_source(&import.source) {
                return Some(match &import.kind {
                    ImportKind::Named(n) => self.zod_import(Some(n), use_span),
                    ImportKind::Default | ImportKind::Namespace => self.zod_import(None, use_span),
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

    fn eval_binding(&mut self, m: &M, name: &str, binding: &Binding, use_span: Span) -> Option<Node> {
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
                self.with_cache(key, use_span, |ev| ev.eval(m, init))
            }
            Binding::Enum { item, span } => {
                let key = (PathKey::new(&m.file.path), name.to_string());
                let (item, span) = (*item, *span);
                self.with_cache(key, use_span, |ev| ev.eval_enum(m, item, span))
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
    fn eval_enum(&mut self, m: &M, item: usize, span: Span) -> Option<Node> {
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
    fn with_cache(
        &mut self,
        key: (PathKey, String),
        use_span: Span,
        f: impl FnOnce(&mut Self) -> Option<Node>,
    ) -> Option<Node> {
        if let Some(cached) = self.cache.get(&key) {
            return cached.clone();
        }
        if self.stack.contains(&key) {
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
        self.stack.push(key.clone());
        let result = f(self);
        self.stack.pop();
        self.cache.insert(key, result.clone());
        result
    }

    fn core_export(&mut self, export: &str, span: Span) -> Option<Node> {
        if export == "emptyObjectSchema" {
            let json = json_to_node(&empty_object_schema(), span);
            return Some(Node::new(span, Val::Schema(Box::new(json))));
        }
        if CORE_FUNCTIONS.contains(&export) {
            return Some(Node::new(span, Val::CoreExport(export.to_string())));
        }
        self.not_static(span, format!("`{export}` of {CORE_PACKAGE} is not a static value"))
    }

    fn resolve_import_source(&mut self, m: &M, source: &str, use_span: Span, name: &str) -> Option<Resolved> {
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

    fn load(&mut self, path: &Path, use_span: Span) -> Option<M> {
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

    fn eval_export_uncached(&mut self, path: &Path, name: &str, use_span: Span) -> Option<Node> {
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
            let project = self.project;
            let found = project.star_export(&m.file.path, name, || self.find_star_export(&m, name, &mut Vec::new()));
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
    fn export_names(&self, m: &M) -> Vec<String> {
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

    /// Which module behind `export *` declares `name` (first match in source order).
    fn find_star_export(&mut self, m: &M, name: &str, visited: &mut Vec<crate::source::FileId>) -> Option<PathBuf> {
        // By file id: a barrel has tens of modules, and hashing paths dominated this search.
        if visited.contains(&m.file.id) {
            return None;
        }
        visited.push(m.file.id);
        for (source, _) in &m.index.star_exports {
            let Some(target) = self.project.resolve(&m.file.path, source) else { continue };
            let Ok(tm) = self.project.load(&target) else { continue };
            if tm.index.exports.contains_key(name) {
                return Some(target);
            }
            if let Some(found) = self.find_star_export(&tm, name, visited) {
                return Some(found);
            }
        }
        None
    }

    fn eval_member(&mut self, m: &M, mem: &MemberExpr, span: Span) -> Option<Node> {
        self.eval_member_inner(m, mem, span).map(|n| n.via(span))
    }

    fn eval_member_inner(&mut self, m: &M, mem: &MemberExpr, span: Span) -> Option<Node> {
        let obj = self.eval(m, &mem.obj)?;
        let (key, key_span) = match &mem.prop {
            MemberProp::Ident(i) => (i.sym.to_string(), self.sp(m, i.span)),
            MemberProp::Computed(c) => {
                let k = self.eval(m, &c.expr)?;
                match k.val {
                    Val::Str(s) => (s, k.span),
                    Val::Num(n) => (js_number_string(n), k.span),
                    other => {
                        return self.not_static(
                            k.span,
                            format!("a computed member must be a string or number, found {}", other.describe()),
                        )
                    }
                }
            }
            MemberProp::PrivateName(p) => {
                return self.not_static(self.sp(m, p.span), "private fields are not static values")
            }
        };
        match obj.val {
            Val::Object(props) => match props.iter().position(|p| p.key == key) {
                Some(i) => Some(props.into_iter().nth(i).expect("index in range").value),
                None => {
                    let object = match &*mem.obj {
                        Expr::Ident(i) => format!("`{}`", i.sym),
                        _ => "the object".to_string(),
                    };
                    let keys: Vec<&str> = props.iter().map(|p| p.key.as_str()).collect();
                    let d =
                        Diagnostic::new(Code::UnresolvedName, key_span, format!("{object} has no property `{key}`"))
                            .label("no such property");
                    let list = keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
                    let d = match closest(&key, keys.iter().copied()) {
                        Some(c) => d.help(format!("did you mean `{c}`? {object} has {list}")),
                        None if keys.is_empty() => d.help(format!("{object} has no properties")),
                        None => d.help(format!("{object} has {list}")),
                    };
                    self.error(d)
                }
            },
            Val::Array(items) => match key.parse::<usize>().ok().and_then(|i| items.get(i).cloned()) {
                Some(v) => Some(v),
                None if key == "length" => Some(Node::new(span, Val::Num(items.len() as f64))),
                None => self.not_static(key_span, format!("index `{key}` is out of range")),
            },
            Val::Namespace(path) => self.eval_export(&path, &key, span),
            Val::CoreNamespace => self.core_export(&key, span),
            Val::ZodNs(_) | Val::Zod(_) => {
                let obj = Node::new(obj.span, obj.val);
                self.zod_member(&obj, &key, span)
            }
            Val::Regex(r) if key == "source" => Some(Node::new(span, Val::Str(r.source))),
            other => self.not_static(key_span, format!("cannot read `{key}` of {}", other.describe())),
        }
    }

    fn eval_call(&mut self, m: &M, call: &CallExpr, span: Span) -> Option<Node> {
        let Callee::Expr(callee) = &call.callee else {
            return self.not_static(span, "this call is not evaluated statically");
        };
        if let Some(z) = self.zod_callee(m, callee)? {
            return self.zod_call(m, z, call, span);
        }
        let Some(core) = self.core_callee(m, callee) else {
            return self.error(
                Diagnostic::new(Code::NotStatic, span, "a function call is not evaluated statically")
                    .label("runs at run time")
                    .help("only the @agent-surface/core macros and schema constructors are evaluated; compute the value as a literal `const` instead"),
            );
        };
        match core.as_str() {
            "observationContract" | "actionContract" | "fromJsonSchema" => {
                let arg = self.single_object_arg(m, call, span, &core)?;
                let boxed = Box::new(arg);
                Some(Node::new(
                    span,
                    match core.as_str() {
                        "observationContract" => Val::Observation(boxed),
                        "actionContract" => Val::Action(boxed),
                        _ => Val::Schema(boxed),
                    },
                ))
            }
            "fromStandardSchema" => self.eval_from_standard_schema(m, call, span),
            root => self.error(
                Diagnostic::new(
                    Code::InvalidArguments,
                    span,
                    format!("`{root}` declares a whole contract and cannot be nested in another definition"),
                )
                .help("declare it at module level and bind it separately"),
            ),
        }
    }

    /// The zod function or method a callee evaluates to (`Some(None)`: not zod; `None`: an
    /// error was reported while evaluating the receiver).
    fn zod_callee(&mut self, m: &M, callee: &Expr) -> Option<Option<Val>> {
        match callee {
            Expr::Paren(p) => self.zod_callee(m, &p.expr),
            Expr::Ident(id) => {
                let zod_import =
                    m.index.imports.get(id.sym.as_str()).is_some_and(|i| crate::zod::is_zod_source(&i.source));
                if !zod_import {
                    return Some(None);
                }
                let span = self.sp(m, id.span);
                let v = self.eval_ident(m, id.sym.as_str(), span)?;
                Some(matches!(v.val, Val::ZodFn(_)).then_some(v.val))
            }
            Expr::Member(mem) => {
                // Only receivers that can be zod values: names, calls, member chains.
                if !matches!(&*mem.obj, Expr::Ident(_) | Expr::Call(_) | Expr::Member(_) | Expr::Paren(_)) {
                    return Some(None);
                }
                if let Expr::Ident(id) = &*mem.obj {
                    let name = id.sym.as_str();
                    let known = m.index.bindings.get(name).is_some_and(|b| matches!(b, Binding::Const { .. }))
                        || m.index.imports.get(name).is_some_and(|i| i.source != CORE_PACKAGE);
                    if !known {
                        return Some(None);
                    }
                }
                let span = self.sp(m, mem.span);
                let v = self.eval_member(m, mem, span)?;
                Some(matches!(v.val, Val::ZodFn(_) | Val::ZodMethod(..)).then_some(v.val))
            }
            _ => Some(None),
        }
    }

    /// `new RegExp(source, flags?)` with static arguments.
    fn eval_new(&mut self, m: &M, n: &NewExpr, span: Span) -> Option<Node> {
        let is_regexp =
            matches!(&*n.callee, Expr::Ident(i) if i.sym == "RegExp" && !m.index.bindings.contains_key("RegExp"));
        if !is_regexp {
            return self.not_static(span, "`new` creates a runtime object");
        }
        let args = n.args.as_deref().unwrap_or(&[]);
        let mut strings = Vec::new();
        for a in args {
            let v = self.eval(m, &a.expr)?;
            match v.val {
                Val::Str(s) => strings.push(s),
                Val::Regex(r) => strings.push(r.source),
                other => {
                    return self
                        .not_static(v.span, format!("new RegExp needs string arguments, found {}", other.describe()))
                }
            }
        }
        let source = js_regexp_source(strings.first().map(String::as_str).unwrap_or(""));
        let flags = strings.get(1).cloned().unwrap_or_default();
        Some(Node::new(span, Val::Regex(self.zod.new_regex(source, flags))))
    }

    /// The core export a callee refers to (directly, aliased, through a namespace, or through a
    /// project module that re-exports it).
    fn core_callee(&mut self, m: &M, callee: &Expr) -> Option<String> {
        match callee {
            Expr::Paren(p) => self.core_callee(m, &p.expr),
            Expr::Ident(id) => {
                let name = id.sym.as_str();
                if let Some(export) = m.index.core_import(name) {
                    return Some(export.to_string());
                }
                if m.index.bindings.contains_key(name) {
                    return None;
                }
                // a project module re-exporting a core function
                if m.index.imports.contains_key(name) {
                    let span = self.sp(m, id.span);
                    let before = self.diagnostics.len();
                    let v = self.eval_ident(m, name, span);
                    self.diagnostics.truncate(before);
                    if let Some(Node { val: Val::CoreExport(e), .. }) = v {
                        return Some(e);
                    }
                }
                None
            }
            Expr::Member(MemberExpr { obj, prop: MemberProp::Ident(prop), .. }) => match &**obj {
                Expr::Ident(ns) if m.index.is_core_namespace(ns.sym.as_str()) => Some(prop.sym.to_string()),
                _ => None,
            },
            _ => None,
        }
    }

    fn single_object_arg(&mut self, m: &M, call: &CallExpr, span: Span, callee: &str) -> Option<Node> {
        if call.args.len() != 1 || call.args[0].spread.is_some() {
            let at = match call.args.get(1) {
                Some(extra) => self.sp(m, extra.expr.span()),
                None => span,
            };
            let label = if call.args.len() > 1 { "unexpected argument" } else { "needs one object argument" };
            return self.error(
                Diagnostic::new(
                    Code::InvalidArguments,
                    at,
                    format!("`{callee}` takes exactly one object argument, found {} arguments", call.args.len()),
                )
                .label(label),
            );
        }
        let v = self.eval(m, &call.args[0].expr)?;
        if !matches!(v.val, Val::Object(_)) {
            return self.error(Diagnostic::new(
                Code::InvalidArguments,
                v.span,
                format!("`{callee}` takes an object literal, found {}", v.val.describe()),
            ));
        }
        Some(v)
    }

    /// `fromStandardSchema(schema, { jsonSchema })`: the first argument is a runtime validator
    /// and is never evaluated; the JSON Schema is.
    fn eval_from_standard_schema(&mut self, m: &M, call: &CallExpr, span: Span) -> Option<Node> {
        let Some(options) = call.args.get(1).filter(|_| call.args.len() == 2) else {
            return self.error(
                Diagnostic::new(
                    Code::InvalidArguments,
                    span,
                    "`fromStandardSchema` takes two arguments: the schema and `{ jsonSchema }`",
                )
                .help("fromStandardSchema(Schema, { jsonSchema: z.toJSONSchema(Schema, { io: \"input\" }) })"),
            );
        };
        let json_expr = match &*options.expr {
            Expr::Object(o) => o.props.iter().find_map(|p| match p {
                PropOrSpread::Prop(p) => match &**p {
                    swc_ecma_ast::Prop::KeyValue(kv)
                        if matches!(&kv.key, PropName::Ident(i) if i.sym == "jsonSchema")
                            || matches!(&kv.key, PropName::Str(s) if str_value(s) == "jsonSchema") =>
                    {
                        Some(JsonSchemaExpr::Expr(&kv.value))
                    }
                    swc_ecma_ast::Prop::Shorthand(id) if id.sym == "jsonSchema" => Some(JsonSchemaExpr::Ident(id)),
                    _ => None,
                },
                _ => None,
            }),
            _ => None,
        };
        let options_span = self.sp(m, options.expr.span());
        let Some(json_expr) = json_expr else {
            return self.error(
                Diagnostic::new(
                    Code::SchemaNotEvaluable,
                    options_span,
                    "the options of `fromStandardSchema` must be an object literal with a `jsonSchema` property",
                )
                .help("fromStandardSchema(Schema, { jsonSchema: {...} })"),
            );
        };
        self.last_converted = None;
        let json = match json_expr {
            JsonSchemaExpr::Ident(id) => {
                let s = self.sp(m, id.span);
                self.eval_ident(m, id.sym.as_str(), s)
            }
            JsonSchemaExpr::Expr(e) => {
                if let Expr::Call(inner) = unwrap_ts(e) {
                    let Callee::Expr(callee) = &inner.callee else { return None };
                    let is_zod =
                        matches!(self.zod_callee(m, callee), Some(Some(Val::ZodFn(ref f))) if f == "toJSONSchema");
                    if !is_zod {
                        let s = self.sp(m, inner.span);
                        return self.error(
                            Diagnostic::new(Code::SchemaNotEvaluable, s, "only zod's `z.toJSONSchema(...)` and literal JSON Schemas are evaluated statically")
                                .label("a converter the compiler cannot run")
                                .help("for valibot, arktype or another library, pass the JSON Schema literally: `fromJsonSchema({ type: \"object\", ... })`, or build the schema with zod"),
                        );
                    }
                }
                self.eval(m, e)
            }
        }?;
        if !matches!(json.val, Val::Object(_)) {
            return self.error(Diagnostic::new(
                Code::InvalidArguments,
                json.span,
                format!("`jsonSchema` must be an object, found {}", json.val.describe()),
            ));
        }
        // The validator and the JSON Schema must describe the same zod schema.
        if let Some((converted, io)) = self.last_converted {
            let before = self.diagnostics.len();
            let validated = self.eval(m, &call.args[0].expr);
            self.diagnostics.truncate(before);
            if let Some(Node { val: Val::Zod(v), span: vspan, via, .. }) = validated {
                // Two spellings of the same schema are fine; a different schema is not.
                let same = v == converted
                    || crate::zod::emit::to_json_schema(&self.zod, v, io).ok()
                        == crate::zod::emit::to_json_schema(&self.zod, converted, io).ok();
                if !same {
                    return self.error(
                        Diagnostic::new(Code::InvalidArguments, via.unwrap_or(vspan), "`fromStandardSchema` validates one zod schema but its `jsonSchema` is converted from another")
                            .label("validated with this schema")
                            .related(json.span, "JSON Schema converted from a different schema here")
                            .help("pass the same schema to both: fromStandardSchema(X, { jsonSchema: z.toJSONSchema(X, { io: \"input\" }) })"),
                    );
                }
            }
        }
        // Remember an output-mode conversion on the schema itself, for the `input` warning.
        let output_mode = self.zod_output_mode.get(&json.span).copied();
        let mut schema = Node::new(span, Val::Schema(Box::new(json)));
        if output_mode == Some(true) {
            schema.via = None;
            self.output_mode_schemas.insert(span);
        }
        Some(schema)
    }
}

/// A relative specifier naming an existing sibling module close to `source` (a typo'd path).
fn similar_module(from: &Path, source: &str) -> Option<String> {
    let (dir_part, stem) = match source.rfind('/') {
        Some(i) => (&source[..i], &source[i + 1..]),
        None => (".", source),
    };
    let stem = stem.trim_end_matches(".js").trim_end_matches(".ts").trim_end_matches(".tsx");
    let dir = crate::project::normalize(&from.parent()?.join(dir_part));
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

/// The expression a zero-parameter arrow function returns (`() => x`, `() => { return x }`).
fn returned_expr_of_arrow(a: &ArrowExpr) -> Option<Box<Expr>> {
    if !a.params.is_empty() {
        return None;
    }
    match &*a.body {
        ArrowFunctionBody::Expr(e) => Some(e.clone()),
        ArrowFunctionBody::FunctionBody(b) => single_return(&b.stmts).map(|e| Box::new(e.clone())),
    }
}

fn returned_expr_of_fn(f: &Function) -> Option<Box<Expr>> {
    if !f.params.is_empty() {
        return None;
    }
    f.body.as_ref().and_then(|b| single_return(&b.stmts)).map(|e| Box::new(e.clone()))
}

/// The expression of a body that is exactly `return <expr>;`.
fn single_return(stmts: &[Stmt]) -> Option<&Expr> {
    match stmts {
        [Stmt::Return(ReturnStmt { arg: Some(e), .. })] => Some(e),
        _ => None,
    }
}

/// `RegExp.prototype.source` of `new RegExp(s)`: `/` escaped, empty as `(?:)`, line breaks escaped.
fn js_regexp_source(s: &str) -> String {
    if s.is_empty() {
        return "(?:)".into();
    }
    let mut out = String::new();
    let mut escaped = false;
    let mut in_class = false;
    for c in s.chars() {
        match c {
            '\\' if !escaped => {
                escaped = true;
                out.push(c);
                continue;
            }
            '[' if !escaped => in_class = true,
            ']' if !escaped => in_class = false,
            '/' if !escaped && !in_class => out.push('\\'),
            '\n' => {
                out.push_str("\\n");
                escaped = false;
                continue;
            }
            '\r' => {
                out.push_str("\\r");
                escaped = false;
                continue;
            }
            _ => {}
        }
        out.push(c);
        escaped = false;
    }
    out
}

enum JsonSchemaExpr<'a> {
    Expr(&'a Expr),
    Ident(&'a Ident),
}

enum Resolved {
    Core,
    File(PathBuf),
}

fn unwrap_ts(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => unwrap_ts(&p.expr),
        Expr::TsAs(x) => unwrap_ts(&x.expr),
        Expr::TsSatisfies(x) => unwrap_ts(&x.expr),
        Expr::TsConstAssertion(x) => unwrap_ts(&x.expr),
        Expr::TsNonNull(x) => unwrap_ts(&x.expr),
        other => other,
    }
}

/// A JSON value as a node tree whose every node carries `span` (for values the compiler made up,
/// such as `emptyObjectSchema`).
pub fn json_to_node(v: &serde_json::Value, span: Span) -> Node {
    use serde_json::Value;
    let val = match v {
        Value::Null => Val::Null,
        Value::Bool(b) => Val::Bool(*b),
        Value::Number(n) => Val::Num(n.as_f64().unwrap_or(0.0)),
        Value::String(s) => Val::Str(s.clone()),
        Value::Array(a) => Val::Array(a.iter().map(|x| json_to_node(x, span)).collect()),
        Value::Object(o) => Val::Object(
            o.iter().map(|(k, x)| VProp { key: k.clone(), key_span: span, value: json_to_node(x, span) }).collect(),
        ),
    };
    Node::new(span, val)
}
