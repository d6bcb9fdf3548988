//! Calls and member accesses: the contract helpers of `@agent-surface/core`
//! (`observationContract`, `fromJsonSchema`, `fromStandardSchema`, ...), zod callees (handed to
//! `zod_calls`), `new RegExp(...)`, and property reads of evaluated values.

use super::{Evaluator, M};
use crate::diagnostics::{closest, Code, Diagnostic};
use crate::extract::{str_value, Binding, CORE_PACKAGE};
use crate::numbers::js_number_string;
use crate::source::Span;
use crate::value::{Node, Val};
use swc_common::Spanned;
use swc_ecma_ast::*;

impl Evaluator<'_> {
    pub(super) fn eval_member(&mut self, m: &M, mem: &MemberExpr, span: Span) -> Option<Node> {
        self.eval_member_inner(m, mem, span).map(|n| n.via(span))
    }

    pub(super) fn eval_member_inner(&mut self, m: &M, mem: &MemberExpr, span: Span) -> Option<Node> {
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
        if matches!(obj.val, Val::Lazy(..)) {
            return self.lazy_member(obj, &key, span);
        }
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
            // ArkType (`crate::arktype`).
            Val::ArkFn(_) | Val::Ark(_) => {
                let obj = Node::new(obj.span, obj.val);
                self.ark_member(&obj, &key, span)
            }
            Val::Regex(r) if key == "source" => Some(Node::new(span, Val::Str(r.source))),
            Val::Valibot(v) => self.valibot_member(&v, &key, span),
            Val::TypeBox(t) => self.typebox_member(&t, &key, span),
            other => self.not_static(key_span, format!("cannot read `{key}` of {}", other.describe())),
        }
    }

    pub(super) fn eval_call(&mut self, m: &M, call: &CallExpr, span: Span) -> Option<Node> {
        let Callee::Expr(callee) = &call.callee else {
            return self.not_static(span, "this call is not evaluated statically");
        };
        if let Some(result) = self.eval_projection(m, call, span) {
            return result;
        }
        if let Some(lib) = self.schema_lib_callee(m, callee)? {
            return self.schema_lib_call(m, lib, call, span);
        }
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
                        _ => Val::Schema(std::sync::Arc::new(*boxed)),
                    },
                ))
            }
            "fromStandardSchema" => self.eval_from_standard_schema(m, call, span),
            root @ ("defineAgentComponentContract"
            | "defineAgentProcedureContract"
            | "defineExternalAgentToolContract") => self.error(
                Diagnostic::new(
                    Code::InvalidArguments,
                    span,
                    format!("`{root}` declares a whole contract and cannot be nested in another definition"),
                )
                .help("declare it at module level and bind it separately"),
            ),
            // `actionContrat(...)`: not a macro nested in the wrong place but a name the package
            // does not have (its import is reported too, AS0015).
            unknown if !crate::extract::CORE_VALUE_EXPORTS.contains(&unknown) => {
                let d = Diagnostic::new(
                    Code::UnknownCoreExport,
                    span,
                    format!("`{unknown}` is not a function of {CORE_PACKAGE}"),
                )
                .label("no such export");
                self.error(d.maybe_help(crate::extract::core_suggestion(unknown)))
            }
            other => self.error(
                Diagnostic::new(
                    Code::NotStatic,
                    span,
                    format!("`{other}` of {CORE_PACKAGE} runs at run time and is not evaluated statically"),
                )
                .label("runs at run time"),
            ),
        }
    }

    /// The zod function or method a callee evaluates to (`Some(None)`: not zod; `None`: an
    /// error was reported while evaluating the receiver).
    pub(super) fn zod_callee(&mut self, m: &M, callee: &Expr) -> Option<Option<Val>> {
        match callee {
            Expr::Paren(p) => self.zod_callee(m, &p.expr),
            Expr::Ident(id) => {
                let zod_import = m
                    .index
                    .imports
                    .get(id.sym.as_str())
                    .is_some_and(|i| crate::zod::is_zod_source(&i.source) || i.source == crate::arktype::PACKAGE);
                if !zod_import {
                    return Some(None);
                }
                let span = self.sp(m, id.span);
                let v = self.eval_ident(m, id.sym.as_str(), span)?;
                Some(matches!(v.val, Val::ZodFn(_) | Val::ArkFn(_)).then_some(v.val))
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
                Some(
                    matches!(v.val, Val::ZodFn(_) | Val::ZodMethod(..) | Val::ArkFn(_) | Val::ArkMethod(..))
                        .then_some(v.val),
                )
            }
            _ => Some(None),
        }
    }

    /// `new RegExp(source, flags?)` with static arguments.
    pub(super) fn eval_new(&mut self, m: &M, n: &NewExpr, span: Span) -> Option<Node> {
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
        Some(Node::new(span, Val::Regex(crate::zod::model::Regex::fresh(source, flags))))
    }

    /// The core export a callee refers to (directly, aliased, through a namespace, or through a
    /// project module that re-exports it).
    pub(super) fn core_callee(&mut self, m: &M, callee: &Expr) -> Option<String> {
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
                    let before = self.mark();
                    let v = self.eval_ident(m, name, span);
                    self.discard_since(before);
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

    pub(super) fn single_object_arg(&mut self, m: &M, call: &CallExpr, span: Span, callee: &str) -> Option<Node> {
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
    pub(super) fn eval_from_standard_schema(&mut self, m: &M, call: &CallExpr, span: Span) -> Option<Node> {
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
        self.set_last_converted(None);
        self.last_valibot = None;
        let json = match json_expr {
            JsonSchemaExpr::Ident(id) => {
                let s = self.sp(m, id.span);
                self.eval_ident(m, id.sym.as_str(), s)
            }
            JsonSchemaExpr::Expr(e) => {
                let mut conversion = false;
                if let Expr::Call(inner) = unwrap_ts(e) {
                    let Callee::Expr(callee) = &inner.callee else { return None };
                    // zod 4's z.toJSONSchema, or zod 3's zodToJsonSchema (`crate::zod::v3`).
                    // ArkType's T.toJsonSchema() (`crate::arktype`): `None` when T was refused.
                    // Valibot's toJsonSchema (`crate::valibot`).
                    let converter = self.zod_callee(m, callee)?;
                    let is_zod = matches!(converter, Some(Val::ZodFn(ref f))
                        if f == "toJSONSchema" || f == "v3.toJSONSchema" || f == crate::zod::v3::CONVERTER)
                        || matches!(converter, Some(Val::ArkMethod(_, ref f)) if f == "toJsonSchema")
                        || self.is_schema_lib_converter(m, callee);
                    conversion = is_zod;
                    if !is_zod {
                        let s = self.sp(m, inner.span);
                        return self.error(
                            Diagnostic::new(Code::SchemaNotEvaluable, s, "only the schema libraries' converters docs/schemas.md lists and literal JSON Schemas are evaluated statically")
                                .label("a converter the compiler cannot run")
                                .help("use a converter docs/schemas.md lists (zod, zod-to-json-schema, Valibot's toJsonSchema, ArkType's .toJsonSchema(); TypeBox values go to fromJsonSchema as they are), or pass the JSON Schema literally: `fromJsonSchema({ type: \"object\", ... })`"),
                        );
                    }
                }
                self.keep_json = conversion;
                let v = self.eval(m, e);
                self.keep_json = false;
                v
            }
        }?;
        let is_object = match &json.val {
            Val::Object(_) => true,
            Val::Json(j) => j.is_object(),
            _ => false,
        };
        if !is_object {
            return self.error(Diagnostic::new(
                Code::InvalidArguments,
                json.span,
                format!("`jsonSchema` must be an object, found {}", json.val.describe()),
            ));
        }
        // The validator and the JSON Schema must describe the same zod schema.
        if let Some((converted, io)) = self.observe_last_converted() {
            let before = self.mark();
            let validated = self.eval(m, &call.args[0].expr);
            self.discard_since(before);
            if let Some(Node { val: Val::Zod(v), span: vspan, via, .. }) = validated {
                // Two spellings of the same schema are fine; a different schema is not.
                let same = v == converted || self.same_json_schema(&v, &converted, io);
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
        self.check_valibot_pair(m, call, json.span)?;
        // Remember an output-mode conversion on the schema itself, for the `input` warning.
        let output_mode = self.observe_output_mode(json.span);
        let mut schema = Node::new(span, Val::Schema(std::sync::Arc::new(json)));
        if output_mode == Some(true) {
            schema.via = None;
            self.note_output_mode_schema(span);
        }
        Some(schema)
    }
}

/// `RegExp.prototype.source` of `new RegExp(s)`: `/` escaped, empty as `(?:)`, line breaks escaped.
pub(super) fn js_regexp_source(s: &str) -> String {
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

pub(super) enum JsonSchemaExpr<'a> {
    Expr(&'a Expr),
    Ident(&'a Ident),
}

pub(super) fn unwrap_ts(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => unwrap_ts(&p.expr),
        Expr::TsAs(x) => unwrap_ts(&x.expr),
        Expr::TsSatisfies(x) => unwrap_ts(&x.expr),
        Expr::TsConstAssertion(x) => unwrap_ts(&x.expr),
        Expr::TsNonNull(x) => unwrap_ts(&x.expr),
        other => other,
    }
}
