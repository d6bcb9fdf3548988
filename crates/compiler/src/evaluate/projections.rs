//! Pure projections over constant data (issue 29): `xs.map(arrow)`, `xs.filter(arrow)`,
//! `Object.keys/values/entries(o)`, over array and object literals (`as const` included) of this
//! or another project module. The data is read lazily: an element is a [`Val::Lazy`] (its
//! expression, unevaluated), and only the fields the arrow reads are evaluated, so a field the
//! projection never reads (an icon component) does not matter. A field that is read and cannot
//! be evaluated is reported where it is read, with a related location at the value's origin.
//!
//! The arrow takes an identifier, an object pattern (`({ value }) => value`) or an array pattern
//! (`([key, value]) => ...`), and an optional index; its body is an expression or a single
//! `return`. `filter` understands `===`, `!==`, `==`, `!=`, `!`, `&&`, `||` and truthiness.

use super::{Evaluator, M};
use crate::diagnostics::{Code, Diagnostic};
use crate::extract::{str_value, Binding, Export, ImportKind};
use crate::memo::Event;
use crate::numbers::js_number_string;
use crate::source::Span;
use crate::value::{array_index, Node, Val};
use swc_common::Spanned;
use swc_ecma_ast::*;

/// A parameter of a projection's arrow, bound while its body is evaluated.
#[derive(Clone, Debug)]
pub(crate) struct Local {
    name: String,
    node: Node,
    /// The constant-evaluation depth and file it belongs to: a constant evaluated meanwhile
    /// (another scope) does not see it.
    depth: usize,
    file: std::path::PathBuf,
}

fn unwrap(e: &Expr) -> &Expr {
    super::calls::unwrap_ts(e)
}

/// The arrow of a projection: its parameters and returned expression.
struct Arrow<'a> {
    params: Vec<&'a Pat>,
    body: &'a Expr,
}

fn arrow_of(e: &Expr) -> Option<Arrow<'_>> {
    match unwrap(e) {
        Expr::Arrow(a) => {
            let body = match &*a.body {
                ArrowFunctionBody::Expr(e) => &**e,
                ArrowFunctionBody::FunctionBody(b) => match b.stmts.as_slice() {
                    [Stmt::Return(ReturnStmt { arg: Some(e), .. })] => &**e,
                    _ => return None,
                },
            };
            Some(Arrow { params: a.params.iter().collect(), body })
        }
        Expr::Fn(f) => {
            let body = match f.function.body.as_ref()?.stmts.as_slice() {
                [Stmt::Return(ReturnStmt { arg: Some(e), .. })] => &**e,
                _ => return None,
            };
            Some(Arrow { params: f.function.params.iter().map(|p| &p.pat).collect(), body })
        }
        _ => None,
    }
}

fn static_key(k: &PropName) -> Option<String> {
    match k {
        PropName::Ident(i) => Some(i.sym.to_string()),
        PropName::Str(s) => Some(str_value(s)),
        PropName::Num(n) => Some(js_number_string(n.value)),
        _ => None,
    }
}

/// The keys of an object literal in JS own-key order, with their value expressions; `None` when
/// a spread, computed key or method makes them unknowable without evaluating.
fn literal_entries(o: &ObjectLit) -> Option<Vec<(String, &Expr)>> {
    let mut out: Vec<(String, &Expr)> = Vec::new();
    for p in &o.props {
        let PropOrSpread::Prop(p) = p else { return None };
        let (key, value): (String, &Expr) = match &**p {
            Prop::KeyValue(kv) => (static_key(&kv.key)?, &kv.value),
            _ => return None,
        };
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some(existing) => existing.1 = value,
            None => out.push((key, value)),
        }
    }
    // Array-index keys first, ascending; the rest in insertion order.
    let (mut idx, rest): (Vec<_>, Vec<_>) = out.into_iter().partition(|(k, _)| array_index(k).is_some());
    idx.sort_by_key(|(k, _)| array_index(k));
    idx.extend(rest);
    Some(idx)
}

impl Evaluator<'_> {
    /// The local a name resolves to in this scope, if it is a projection's parameter.
    pub(super) fn local(&self, m: &M, name: &str) -> Option<Node> {
        if self.locals.is_empty() {
            return None;
        }
        let depth = self.stack.len();
        self.locals
            .iter()
            .rev()
            .find(|l| l.name == name && l.depth == depth && l.file == m.file.path)
            .map(|l| l.node.clone())
    }

    /// Diagnostics reported since `mark`, taken out (what was cached meanwhile stays cached).
    fn take_since(&mut self, mark: usize) -> Vec<Diagnostic> {
        let taken = match &self.frame {
            Some(events) => events[mark..]
                .iter()
                .filter_map(|e| match e {
                    Event::Diag(d) => Some(d.clone()),
                    _ => None,
                })
                .collect(),
            None => self.diagnostics[mark..].to_vec(),
        };
        self.discard_since(mark);
        taken
    }

    /// Evaluates `expr` of `module` eagerly, with no local in scope; a failure is reported at
    /// `use_span` (where the projection reads it) with the value's origin as related location.
    fn eager_at(&mut self, module: &M, expr: &Expr, use_span: Span, what: &str) -> Option<Node> {
        let locals = std::mem::take(&mut self.locals);
        let mark = self.mark();
        let v = self.eval(module, expr);
        self.locals = locals;
        if v.is_some() {
            return v;
        }
        let taken = self.take_since(mark);
        let origin = self.sp(module, expr.span());
        let first = taken.into_iter().next()?;
        let mut d = Diagnostic::new(first.code, use_span, format!("{what} cannot be evaluated: {}", first.message))
            .label("read here")
            .related(
                first.primary.span,
                if first.primary.span == origin {
                    "the value is defined here".to_string()
                } else {
                    "because of this".to_string()
                },
            );
        if first.primary.span != origin {
            d = d.related(origin, "the value is defined here");
        }
        d.help = first.help.or_else(|| {
            Some("a projection reads only the fields it uses: make the fields it reads literals or constants".into())
        });
        self.error(d)
    }

    /// `expr` as a possibly lazy value: array and object literals (through constants and imports
    /// of project modules) stay unevaluated; anything else is evaluated.
    fn lazy_of(&mut self, m: &M, expr: &Expr, depth: usize) -> Option<Node> {
        let span = self.sp(m, expr.span());
        if depth > 32 {
            return self.eval(m, expr);
        }
        match unwrap(expr) {
            e @ (Expr::Array(_) | Expr::Object(_)) => {
                Some(Node::new(self.sp(m, e.span()), Val::Lazy(Box::new(e.clone()), m.clone())))
            }
            Expr::Ident(id) => {
                let name = id.sym.as_str();
                if let Some(n) = self.local(m, name) {
                    return Some(n.via(span));
                }
                if let Some(Binding::Const { init: Some(r), .. }) = m.index.bindings.get(name) {
                    let item = &m.module.body[r.item];
                    let decl = match item {
                        ModuleItem::Stmt(Stmt::Decl(Decl::Var(v))) => v.decls.get(r.declarator),
                        ModuleItem::ModuleDecl(ModuleDecl::ExportDecl(ExportDecl { decl: Decl::Var(v), .. })) => {
                            v.decls.get(r.declarator)
                        }
                        _ => None,
                    };
                    if let Some(init) = decl.and_then(|d| d.init.as_deref()) {
                        if matches!(unwrap(init), Expr::Array(_) | Expr::Object(_) | Expr::Ident(_)) {
                            let m = m.clone();
                            return self.lazy_of(&m, init, depth + 1).map(|n| n.via(span));
                        }
                    }
                    return self.eval(m, expr);
                }
                if let Some(import) = m.index.imports.get(name).cloned() {
                    if let (ImportKind::Named(export), false) =
                        (&import.kind, import.source == crate::extract::CORE_PACKAGE)
                    {
                        if let Some(target) = self.project.resolve(&m.file.path, &import.source) {
                            if let Ok(tm) = self.project.load(&target) {
                                if let Some(Export::Local { local, .. }) =
                                    tm.index.exports.get(export.as_str()).cloned()
                                {
                                    if let Some(n) = self.lazy_ident(&tm, &local, depth + 1) {
                                        return Some(n.via(span));
                                    }
                                }
                            }
                        }
                    }
                }
                self.eval(m, expr)
            }
            Expr::Member(mem) => {
                let key = match &mem.prop {
                    MemberProp::Ident(i) => i.sym.to_string(),
                    _ => return self.eval(m, expr),
                };
                let obj = self.lazy_of(m, &mem.obj, depth + 1)?;
                match &obj.val {
                    Val::Lazy(..) => self.lazy_member(obj, &key, span),
                    _ => self.eval(m, expr),
                }
            }
            Expr::Call(call) => match self.projection(m, call, span)? {
                Some(items) => Some(Node::new(span, Val::Array(items))),
                None => self.eval(m, expr),
            },
            _ => self.eval(m, expr),
        }
    }

    /// A constant of another module, lazily (its initializer's literal is not evaluated);
    /// `None` when `local` is not a constant with a literal or name initializer (the caller
    /// evaluates).
    fn lazy_ident(&mut self, tm: &M, local: &str, depth: usize) -> Option<Node> {
        let Some(Binding::Const { init: Some(r), .. }) = tm.index.bindings.get(local).cloned() else { return None };
        let decl = match &tm.module.body[r.item] {
            ModuleItem::Stmt(Stmt::Decl(Decl::Var(v))) => v.decls.get(r.declarator),
            ModuleItem::ModuleDecl(ModuleDecl::ExportDecl(ExportDecl { decl: Decl::Var(v), .. })) => {
                v.decls.get(r.declarator)
            }
            _ => None,
        };
        let init = decl.and_then(|d| d.init.clone())?;
        if !matches!(unwrap(&init), Expr::Array(_) | Expr::Object(_) | Expr::Ident(_)) {
            return None;
        }
        self.lazy_of(tm, &init, depth)
    }

    /// `obj.key` of a lazy value: only that property's expression is read.
    pub(super) fn lazy_member(&mut self, obj: Node, key: &str, use_span: Span) -> Option<Node> {
        let Val::Lazy(expr, module) = &obj.val else { return None };
        let (expr, module) = (expr.clone(), module.clone());
        match unwrap(&expr) {
            Expr::Object(o) => match literal_entries(o) {
                Some(entries) => match entries.iter().find(|(k, _)| k == key) {
                    Some((_, value)) => {
                        let value: Expr = (*value).clone();
                        self.lazy_field(&module, &value, key, use_span)
                    }
                    None if self.lenient => Some(Node::new(use_span, Val::Undefined)),
                    None => {
                        let keys: Vec<String> = entries.iter().map(|(k, _)| format!("`{k}`")).collect();
                        let help = match crate::diagnostics::closest(key, entries.iter().map(|(k, _)| k.as_str())) {
                            Some(c) => format!("did you mean `{c}`? the element has {}", keys.join(", ")),
                            None => format!("the element has {}", keys.join(", ")),
                        };
                        self.error(
                            Diagnostic::new(
                                Code::UnresolvedName,
                                use_span,
                                format!("the element has no property `{key}`"),
                            )
                            .label("no such property")
                            .related(obj.span, "the element is defined here")
                            .help(help),
                        )
                    }
                },
                None => {
                    let full = self.eager_at(&module, &expr, use_span, "an element of the projection")?;
                    self.member_of_value(full, key, use_span)
                }
            },
            Expr::Array(a)
                if key == "length" && a.elems.iter().all(|e| e.as_ref().is_some_and(|e| e.spread.is_none())) =>
            {
                Some(Node::new(use_span, Val::Num(a.elems.len() as f64)))
            }
            Expr::Array(a)
                if key.parse::<usize>().is_ok()
                    && a.elems.iter().all(|e| e.as_ref().is_some_and(|e| e.spread.is_none())) =>
            {
                let i: usize = key.parse().expect("checked");
                match a.elems.get(i).and_then(|e| e.as_ref()) {
                    Some(e) => {
                        let e: Expr = (*e.expr).clone();
                        self.lazy_field(&module, &e, key, use_span)
                    }
                    None => Some(Node::new(use_span, Val::Undefined)),
                }
            }
            _ => {
                let full = self.eager_at(&module, &expr, use_span, "an element of the projection")?;
                self.member_of_value(full, key, use_span)
            }
        }
    }

    /// A property's value expression: literals stay lazy, the rest is evaluated (errors at the use).
    fn lazy_field(&mut self, module: &M, value: &Expr, key: &str, use_span: Span) -> Option<Node> {
        match unwrap(value) {
            Expr::Array(_) | Expr::Object(_) => Some(
                Node::new(self.sp(module, value.span()), Val::Lazy(Box::new(unwrap(value).clone()), module.clone()))
                    .via(use_span),
            ),
            _ => self.eager_at(module, value, use_span, &format!("`{key}`")).map(|n| n.via(use_span)),
        }
    }

    fn member_of_value(&mut self, full: Node, key: &str, use_span: Span) -> Option<Node> {
        match full.val {
            Val::Object(props) => match props.into_iter().find(|p| p.key == key) {
                Some(p) => Some(p.value.via(use_span)),
                None if self.lenient => Some(Node::new(use_span, Val::Undefined)),
                None => self.not_static(use_span, format!("the element has no property `{key}`")),
            },
            Val::Array(items) if key == "length" => Some(Node::new(use_span, Val::Num(items.len() as f64))),
            Val::Array(items) => match key.parse::<usize>().ok().and_then(|i| items.get(i).cloned()) {
                Some(v) => Some(v),
                None => Some(Node::new(use_span, Val::Undefined)),
            },
            other => self.not_static(use_span, format!("cannot read `{key}` of {}", other.describe())),
        }
    }

    /// The elements of a lazy or evaluated array (each possibly lazy).
    fn elements(&mut self, v: Node, what: &str, use_span: Span) -> Option<Vec<Node>> {
        match v.val {
            Val::Array(items) => Some(items),
            Val::Lazy(expr, module) => match unwrap(&expr) {
                Expr::Array(a) => {
                    let mut out = Vec::new();
                    for e in a.elems.iter() {
                        let Some(e) = e else {
                            return self.not_static(v.span, "an array hole is not a JSON value");
                        };
                        if e.spread.is_some() {
                            let inner = self.lazy_of(&module, &e.expr, 1)?;
                            out.extend(self.elements(inner, what, use_span)?);
                        } else {
                            out.push(self.lazy_of(&module, &e.expr, 1)?);
                        }
                    }
                    Some(out)
                }
                _ => self.not_static(use_span, format!("{what} needs an array, found an object")),
            },
            other => self.not_static(use_span, format!("{what} needs an array, found {}", other.describe())),
        }
    }

    /// The entries of a lazy or evaluated object: (key, value possibly lazy).
    fn entries(&mut self, v: Node, what: &str, use_span: Span) -> Option<Vec<(String, Node)>> {
        match v.val {
            Val::Object(props) => Some(props.into_iter().map(|p| (p.key, p.value)).collect()),
            Val::Array(items) => Some(items.into_iter().enumerate().map(|(i, n)| (i.to_string(), n)).collect()),
            Val::Lazy(expr, module) => match unwrap(&expr) {
                Expr::Object(o) => match literal_entries(o) {
                    Some(entries) => {
                        let mut out = Vec::new();
                        for (k, e) in entries {
                            let e: Expr = e.clone();
                            let n = self.lazy_field(&module, &e, &k, use_span)?;
                            out.push((k, n));
                        }
                        Some(out)
                    }
                    None => {
                        let full = self.eager_at(&module, &expr, use_span, what)?;
                        self.entries(full, what, use_span)
                    }
                },
                Expr::Array(_) => {
                    let items =
                        self.elements(Node::new(v.span, Val::Lazy(expr.clone(), module.clone())), what, use_span)?;
                    Some(items.into_iter().enumerate().map(|(i, n)| (i.to_string(), n)).collect())
                }
                _ => self.not_static(use_span, format!("{what} needs an object")),
            },
            other => self.not_static(use_span, format!("{what} needs an object, found {}", other.describe())),
        }
    }

    /// A projection call's elements (possibly lazy), `Ok(None)` when `call` is not a projection.
    /// `None`: an error was reported.
    pub(super) fn projection(&mut self, m: &M, call: &CallExpr, span: Span) -> Option<Option<Vec<Node>>> {
        let Callee::Expr(callee) = &call.callee else { return Some(None) };
        let Expr::Member(MemberExpr { obj, prop: MemberProp::Ident(method), .. }) = unwrap(callee) else {
            return Some(None);
        };
        let method = method.sym.as_str();
        // Object.keys / values / entries
        if let Expr::Ident(o) = unwrap(obj) {
            if o.sym == "Object" && !m.index.bindings.contains_key("Object") && !m.index.imports.contains_key("Object")
            {
                if !matches!(method, "keys" | "values" | "entries") || call.args.len() != 1 {
                    return Some(None);
                }
                let what = format!("Object.{method}");
                let target = self.lazy_of(m, &call.args[0].expr, 0)?;
                let entries = self.entries(target, &what, span)?;
                return Some(Some(
                    entries
                        .into_iter()
                        .map(|(k, v)| match method {
                            "keys" => Node::new(span, Val::Str(k)),
                            "values" => v,
                            _ => Node::new(span, Val::Array(vec![Node::new(span, Val::Str(k)), v])),
                        })
                        .collect(),
                ));
            }
        }
        if !matches!(method, "map" | "filter") || call.args.len() != 1 || call.args[0].spread.is_some() {
            return Some(None);
        }
        let Some(arrow) = arrow_of(&call.args[0].expr) else { return Some(None) };
        if arrow.params.is_empty() || arrow.params.len() > 2 {
            return Some(None);
        }
        let what = format!("`.{method}`");
        let receiver = self.lazy_of(m, obj, 0)?;
        // A schema library's own method of that name (ArkType's `T.filter(...)`) is the library's
        // call, evaluated (or refused) by its own rules, not a projection over data.
        if !matches!(
            receiver.val,
            Val::Array(_)
                | Val::Lazy(..)
                | Val::Object(_)
                | Val::Json(_)
                | Val::Str(_)
                | Val::Num(_)
                | Val::Bool(_)
                | Val::Null
                | Val::Undefined
        ) {
            return Some(None);
        }
        let items = self.elements(receiver, &what, span)?;
        let mut out = Vec::new();
        let mut ok = true;
        for (i, item) in items.into_iter().enumerate() {
            let before = self.locals.len();
            let bound = self.bind(m, arrow.params[0], item.clone())
                && arrow.params.get(1).is_none_or(|p| self.bind(m, p, Node::new(span, Val::Num(i as f64))));
            if !bound {
                self.locals.truncate(before);
                let s = self.sp(m, arrow.params[0].span());
                return self.not_static(s, "a projection's parameter must be a name, `{ a, b }` or `[a, b]`");
            }
            if method == "map" {
                match self.eval(m, arrow.body) {
                    Some(v) => out.push(v),
                    None => ok = false,
                }
            } else {
                let lenient = std::mem::replace(&mut self.lenient, true);
                let keep = self.predicate(m, arrow.body);
                self.lenient = lenient;
                match keep {
                    Some(true) => out.push(item),
                    Some(false) => {}
                    None => ok = false,
                }
            }
            self.locals.truncate(before);
            if !ok {
                break;
            }
        }
        ok.then_some(Some(out))
    }

    /// Binds a parameter pattern to a value (`false`: a pattern not supported).
    fn bind(&mut self, m: &M, pat: &Pat, value: Node) -> bool {
        let depth = self.stack.len();
        let file = m.file.path.clone();
        match pat {
            Pat::Ident(b) => {
                self.locals.push(Local { name: b.id.sym.to_string(), node: value, depth, file });
                true
            }
            Pat::Object(o) => {
                for p in &o.props {
                    let (key, target): (String, Option<&Pat>) = match p {
                        ObjectPatProp::Assign(a) if a.value.is_none() => (a.key.sym.to_string(), None),
                        ObjectPatProp::KeyValue(kv) => match static_key(&kv.key) {
                            Some(k) => (k, Some(&*kv.value)),
                            None => return false,
                        },
                        _ => return false,
                    };
                    let span = self.sp(m, p.span());
                    let lenient = std::mem::replace(&mut self.lenient, true);
                    let v = self.read(value.clone(), &key, span);
                    self.lenient = lenient;
                    let v = v.unwrap_or_else(|| Node::new(span, Val::Undefined));
                    match target {
                        None => self.locals.push(Local { name: key, node: v, depth, file: file.clone() }),
                        Some(t) => {
                            if !self.bind(m, t, v) {
                                return false;
                            }
                        }
                    }
                }
                true
            }
            Pat::Array(a) => {
                for (i, p) in a.elems.iter().enumerate() {
                    let Some(p) = p else { continue };
                    let span = self.sp(m, p.span());
                    let v = self
                        .read(value.clone(), &i.to_string(), span)
                        .unwrap_or_else(|| Node::new(span, Val::Undefined));
                    if !self.bind(m, p, v) {
                        return false;
                    }
                }
                true
            }
            _ => false,
        }
    }

    /// `v[key]` of a lazy or evaluated value.
    fn read(&mut self, v: Node, key: &str, span: Span) -> Option<Node> {
        match &v.val {
            Val::Lazy(..) => self.lazy_member(v, key, span),
            _ => self.member_of_value(v, key, span),
        }
    }

    /// A `filter` body as a boolean.
    fn predicate(&mut self, m: &M, e: &Expr) -> Option<bool> {
        match unwrap(e) {
            Expr::Unary(UnaryExpr { op: UnaryOp::Bang, arg, .. }) => self.predicate(m, arg).map(|b| !b),
            Expr::Bin(b) if matches!(b.op, BinaryOp::LogicalAnd | BinaryOp::LogicalOr) => {
                let l = self.predicate(m, &b.left)?;
                match (b.op, l) {
                    (BinaryOp::LogicalAnd, false) => Some(false),
                    (BinaryOp::LogicalOr, true) => Some(true),
                    _ => self.predicate(m, &b.right),
                }
            }
            Expr::Bin(b) if matches!(b.op, BinaryOp::EqEqEq | BinaryOp::NotEqEq | BinaryOp::EqEq | BinaryOp::NotEq) => {
                let l = self.eval(m, &b.left);
                let r = self.eval(m, &b.right);
                let (l, r) = (l?, r?);
                let same = match (&l.val, &r.val) {
                    (Val::Str(a), Val::Str(b)) => a == b,
                    (Val::Num(a), Val::Num(b)) => a == b,
                    (Val::Bool(a), Val::Bool(b)) => a == b,
                    (Val::Null, Val::Null) | (Val::Undefined, Val::Undefined) => true,
                    (Val::Null, Val::Undefined) | (Val::Undefined, Val::Null) => {
                        matches!(b.op, BinaryOp::EqEq | BinaryOp::NotEq)
                    }
                    (a, b) if is_primitive(a) && is_primitive(b) => false,
                    _ => {
                        let s = self.sp(m, b.span);
                        return self.not_static(
                            s,
                            "a projection compares strings, numbers, booleans, null and undefined only",
                        );
                    }
                };
                Some(if matches!(b.op, BinaryOp::EqEqEq | BinaryOp::EqEq) { same } else { !same })
            }
            other => {
                let v = self.eval(m, other)?;
                Some(match v.val {
                    Val::Undefined | Val::Null => false,
                    Val::Bool(b) => b,
                    Val::Num(n) => n != 0.0 && !n.is_nan(),
                    Val::Str(s) => !s.is_empty(),
                    _ => true,
                })
            }
        }
    }

    /// Evaluates every lazy part of a projection's result (errors at `use_span`).
    pub(super) fn force(&mut self, n: Node, use_span: Span) -> Option<Node> {
        match n.val {
            Val::Lazy(expr, module) => {
                let v = self.eager_at(&module, &expr, use_span, "an element of the projection")?;
                Some(Node { via: n.via, ..v })
            }
            Val::Array(items) => {
                let mut out = Vec::new();
                for i in items {
                    out.push(self.force(i, use_span)?);
                }
                Some(Node { val: Val::Array(out), ..n })
            }
            Val::Object(props) => {
                let mut out = Vec::new();
                for mut p in props {
                    p.value = self.force(p.value, use_span)?;
                    out.push(p);
                }
                Some(Node { val: Val::Object(out), ..n })
            }
            _ => Some(n),
        }
    }

    /// The hook of calls: a projection, evaluated and forced.
    pub(super) fn eval_projection(&mut self, m: &M, call: &CallExpr, span: Span) -> Option<Option<Node>> {
        let items = match self.projection(m, call, span) {
            None => return Some(None),
            Some(None) => return None,
            Some(Some(items)) => items,
        };
        Some(self.force(Node::new(span, Val::Array(items)), span))
    }
}

fn is_primitive(v: &Val) -> bool {
    matches!(v, Val::Str(_) | Val::Num(_) | Val::Bool(_) | Val::Null | Val::Undefined)
}
