//! Evaluate: turn the expressions of a contract definition into values, statically. Literals,
//! object/array literals, spreads, `const` bindings of this and other project modules (named,
//! default, re-exported and barrel exports), `as const`/`satisfies`/type assertions, template
//! literals, `+` on strings and unary minus are evaluated; everything else is a diagnostic that
//! points at the sub-expression and says why.
//!
//! This module holds the evaluator and the expressions that need no other module (literals,
//! templates, operators, arrays, objects); `bindings` resolves names (this module's scope,
//! imports, re-exports, barrels, enums, the core package's exports), `calls` the calls and
//! member reads (core helpers, `new RegExp`, zod callees), and `zod_calls` interprets zod
//! builder and method calls into [`crate::zod::model`] and converts with [`crate::zod::emit`].

use crate::diagnostics::{Code, Diagnostic};
use crate::extract::{str_value, ModuleInfo};
use crate::memo::{CacheKey, Cached, Event, Memo};
use crate::numbers::js_number_string;
use crate::parse::span_of;
use crate::project::Project;
use crate::source::Span;
use crate::value::{Node, Prop as VProp, Val};
use std::collections::HashMap;
use std::sync::Arc;
use swc_common::Spanned;
use swc_ecma_ast::*;

mod ark_calls;
mod bindings;
mod calls;
mod memo;
mod projections;
mod schema_libs;
mod typebox_calls;
mod valibot_calls;
mod zod3_calls;
mod zod_calls;

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

/// One evaluation session (one contract file); caches constants so each is evaluated (and
/// reported) once. With the project's memo ([`crate::memo`]) a constant is evaluated once per
/// compile for every file, and replayed into each file's session as if the file had evaluated
/// it; without it ([`Evaluator::alone`]) the file evaluates everything itself.
pub struct Evaluator<'p> {
    pub(crate) project: &'p Project,
    pub diagnostics: Vec<Diagnostic>,
    stack: Vec<CacheKey>,
    cache: HashMap<CacheKey, Cached, rustc_hash::FxBuildHasher>,
    /// What each getter and `z.lazy` evaluated to (once each, where a conversion needs it).
    pub(crate) targets: crate::zod::model::Targets,
    /// `z.toJSONSchema` calls in output mode → whether input mode would differ.
    zod_output_mode: HashMap<Span, bool>,
    /// `fromStandardSchema(...)` calls whose JSON Schema was converted in output mode and
    /// would differ in input mode.
    pub output_mode_schemas: std::collections::HashSet<Span>,
    /// The root of the last `z.toJSONSchema` conversion (to check it converts the schema that
    /// `fromStandardSchema` validates with).
    last_converted: Option<(crate::zod::model::ZodId, crate::zod::emit::Io)>,
    /// The memo constants come from (`None`: evaluated here).
    memo: Option<&'p Memo>,
    /// The file being compiled: conversions of its own schemas are not kept for other files.
    pub(crate) home: Option<crate::source::FileId>,
    /// The next `z.toJSONSchema` is the `jsonSchema` of a `fromStandardSchema`: its result can
    /// stay one JSON leaf ([`Val::Json`]).
    pub(crate) keep_json: bool,
    /// Computing a memo entry: what the evaluation does is recorded, not reported.
    frame: Option<Vec<Event>>,
    /// The Valibot schema and mode the `jsonSchema` of the `fromStandardSchema` being evaluated
    /// was converted from (set only for a conversion written there directly).
    pub(crate) last_valibot: Option<(Arc<crate::valibot::Schema>, crate::valibot::convert::TypeMode)>,
    /// The parameters of the projections being evaluated (`xs.map((x) => ...)`).
    locals: Vec<projections::Local>,
    /// Reading a missing property gives `undefined` (in a `filter` predicate) instead of an error.
    lenient: bool,
    /// The memo cannot reproduce what evaluating alone would do here (a cycle through a
    /// constant, a replay that does not fit): the file must be evaluated alone.
    diverged: bool,
}

type M = Arc<ModuleInfo>;

impl<'p> Evaluator<'p> {
    /// A file's session, with constants from the project's memo.
    pub fn new(project: &'p Project) -> Self {
        Self::with(project, Some(&project.memo), None)
    }

    /// A file's session that evaluates everything itself (what [`Evaluator::new`] must equal).
    pub fn alone(project: &'p Project) -> Self {
        Self::with(project, None, None)
    }

    /// A session computing one memo entry: an empty cache, its events recorded.
    fn frame(project: &'p Project) -> Self {
        Self::with(project, Some(&project.memo), Some(Vec::new()))
    }

    fn with(project: &'p Project, memo: Option<&'p Memo>, frame: Option<Vec<Event>>) -> Self {
        Evaluator {
            project,
            diagnostics: Vec::new(),
            stack: Vec::new(),
            cache: HashMap::default(),
            targets: Default::default(),
            zod_output_mode: HashMap::new(),
            output_mode_schemas: Default::default(),
            last_converted: None,
            memo,
            home: None,
            keep_json: false,
            frame,
            last_valibot: None,
            locals: Vec::new(),
            lenient: false,
            diverged: false,
        }
    }

    /// Whether the memo could not reproduce this session: its results must not be used, and
    /// the file must be evaluated [`Evaluator::alone`].
    pub fn diverged(&self) -> bool {
        self.diverged
    }

    /// Reports a diagnostic (records it, in a frame).
    pub(crate) fn report(&mut self, d: Diagnostic) {
        match &mut self.frame {
            Some(events) => events.push(Event::Diag(d)),
            None => self.diagnostics.push(d),
        }
    }

    /// A point to discard the diagnostics reported after ([`Evaluator::discard_since`]).
    pub(crate) fn mark(&self) -> usize {
        match &self.frame {
            Some(events) => events.len(),
            None => self.diagnostics.len(),
        }
    }

    /// Drops the diagnostics reported since `mark`; what was cached meanwhile stays cached.
    pub(crate) fn discard_since(&mut self, mark: usize) {
        match &mut self.frame {
            Some(events) => {
                let tail: Vec<Event> = events.drain(mark..).collect();
                for e in tail {
                    match e {
                        Event::Diag(_) => {}
                        Event::Memo(entry, _) => events.push(Event::Memo(entry, true)),
                        Event::Thunk(t, entry, _) => events.push(Event::Thunk(t, entry, true)),
                        other => events.push(other),
                    }
                }
            }
            None => self.diagnostics.truncate(mark),
        }
    }

    fn record(&mut self, e: impl FnOnce() -> Event) {
        if let Some(events) = &mut self.frame {
            events.push(e());
        }
    }

    pub(crate) fn set_last_converted(&mut self, v: Option<(crate::zod::model::ZodId, crate::zod::emit::Io)>) {
        self.record(|| Event::SetLastConverted(v.clone()));
        self.last_converted = v;
    }

    pub(crate) fn observe_last_converted(&mut self) -> Option<(crate::zod::model::ZodId, crate::zod::emit::Io)> {
        let v = self.last_converted.clone();
        self.record(|| Event::ObserveLastConverted(v.clone()));
        v
    }

    pub(crate) fn note_output_mode(&mut self, span: Span, differs: bool) {
        self.record(|| Event::OutputMode(span, differs));
        self.zod_output_mode.insert(span, differs);
    }

    pub(crate) fn observe_output_mode(&mut self, span: Span) -> Option<bool> {
        let v = self.zod_output_mode.get(&span).copied();
        self.record(|| Event::ObserveOutputMode(span, v));
        v
    }

    pub(crate) fn note_output_mode_schema(&mut self, span: Span) {
        self.record(|| Event::OutputModeSchema(span));
        self.output_mode_schemas.insert(span);
    }

    pub(crate) fn sp(&self, m: &M, s: swc_common::Span) -> Span {
        span_of(&m.file, s)
    }

    pub(crate) fn error<T>(&mut self, d: Diagnostic) -> Option<T> {
        self.report(d);
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
        if self.diverged {
            return None;
        }
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
            Lit::Regex(r) => Val::Regex(crate::zod::model::Regex::fresh(r.exp.to_string(), r.flags.to_string())),
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
                                let t = crate::zod::model::ThunkId::new(crate::zod::model::Thunk {
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
