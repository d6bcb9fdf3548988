//! ArkType (`crate::arktype`): `type(def)`, `type.enumerated(...)`, `type.unit(v)`,
//! `type.or(...)`, the methods that shape the JSON Schema (`.describe`, `.configure`, `.array`,
//! `.or`, `.optional`, `.default`, `.onUndeclaredKey`, object `.pick/.omit/.partial/
//! .required/.merge`) and `T.toJsonSchema()`. Definitions are evaluated values (strings of
//! ArkType's grammar, object literals, tuples `[def, "[]"]` / `[def, "=", value]`, types).

use super::{json_to_node, Evaluator, M};
use crate::arktype::{self as ark, ArkType, Branch, Object, Prop, PropMod};
use crate::diagnostics::{Code, Diagnostic};
use crate::source::Span;
use crate::value::{Node, Val};
use serde_json::Value as Json;
use std::sync::Arc;
use swc_ecma_ast::*;

impl Evaluator<'_> {
    /// The value of an import from arktype.
    pub(super) fn ark_import(&mut self, imported: Option<&str>, span: Span) -> Option<Node> {
        match imported {
            Some("type") => Some(Node::new(span, Val::ArkFn("type".into()))),
            Some(other) => self.error(
                Diagnostic::new(Code::NotStatic, span, format!("`{other}` of arktype is not evaluated statically"))
                    .help("build types with `type(...)` (import { type } from \"arktype\")"),
            ),
            None => self.not_static(span, "import { type } from \"arktype\" to build types statically"),
        }
    }

    /// `obj.key` where `obj` is ArkType's `type` or a type.
    pub(super) fn ark_member(&mut self, obj: &Node, key: &str, span: Span) -> Option<Node> {
        match &obj.val {
            Val::ArkFn(f) if f == "type" => Some(Node::new(span, Val::ArkFn(format!("type.{key}")))),
            Val::Ark(t) => Some(Node::new(span, Val::ArkMethod(t.clone(), key.to_string()))),
            _ => self.not_static(span, format!("cannot read `{key}` here")),
        }
    }

    fn ark_refusal(&mut self, span: Span, r: ark::Refusal) -> Option<Node> {
        self.error(
            Diagnostic::new(Code::UnsupportedArkType, span, format!("{}: {}", r.construct, r.message))
                .label("not converted inside the supported subset")
                .help(r.help),
        )
    }

    fn ark_value(&mut self, span: Span, r: Result<ArkType, ark::Refusal>) -> Option<Node> {
        match r {
            Ok(t) => Some(Node::new(span, Val::Ark(Arc::new(t)))),
            Err(r) => self.ark_refusal(span, r),
        }
    }

    /// A call of an ArkType function or method.
    pub(super) fn ark_call(&mut self, m: &M, callee: Val, call: &CallExpr, span: Span) -> Option<Node> {
        let mut args = Vec::new();
        for a in &call.args {
            if a.spread.is_some() {
                return self.not_static(span, "spread arguments are not evaluated here");
            }
            // Functions (.narrow, .pipe) are never evaluated.
            if matches!(&*a.expr, Expr::Arrow(_) | Expr::Fn(_)) {
                args.push(Node::new(span, Val::Undefined));
                continue;
            }
            args.push(self.eval(m, &a.expr)?);
        }
        match callee {
            Val::ArkFn(f) => match f.as_str() {
                "type" => {
                    if args.len() != 1 {
                        return self.not_static(span, "type(...) is evaluated with one definition");
                    }
                    let def = args.pop().expect("one");
                    let t = self.ark_def(&def)?;
                    Some(Node::new(span, Val::Ark(Arc::new(t))))
                }
                "type.enumerated" | "type.unit" => {
                    let mut branches = Vec::new();
                    for a in &args {
                        match a.to_json() {
                            Ok(v @ (Json::String(_) | Json::Number(_) | Json::Bool(_) | Json::Null)) => {
                                branches.push(Arc::new(ArkType::of(vec![Branch::Unit(v)])))
                            }
                            _ => {
                                return self
                                    .not_static(a.span, "type.enumerated takes strings, numbers, booleans or null")
                            }
                        }
                    }
                    let r = ark::union(&branches);
                    self.ark_value(span, r)
                }
                "type.or" => {
                    let mut parts = Vec::new();
                    for a in &args {
                        parts.push(Arc::new(self.ark_def(a)?));
                    }
                    let r = ark::union(&parts);
                    self.ark_value(span, r)
                }
                other => self.ark_refusal(
                    span,
                    ark::Refusal {
                        construct: format!("`{other}`"),
                        message: "this ArkType function is not evaluated statically".into(),
                        help: "use type(...), type.enumerated(...), type.unit(...) or type.or(...)".into(),
                    },
                ),
            },
            Val::ArkMethod(t, name) => self.ark_method(t, &name, args, span),
            other => self.not_static(span, format!("{} cannot be called", other.describe())),
        }
    }

    fn ark_method(&mut self, t: Arc<ArkType>, name: &str, mut args: Vec<Node>, span: Span) -> Option<Node> {
        let with = |_: &mut Self, t: ArkType| Some(Node::new(span, Val::Ark(Arc::new(t))));
        let object = |t: &ArkType| match t.branches.as_deref() {
            Some([Branch::Object(o)]) if t.meta.is_empty() => Some(o.clone()),
            _ => None,
        };
        let keys = |args: &[Node]| -> Option<Vec<String>> {
            args.iter().map(|a| if let Val::Str(s) = &a.val { Some(s.clone()) } else { None }).collect()
        };
        match name {
            "toJsonSchema" => {
                if !args.is_empty() {
                    return self.not_static(span, "toJsonSchema() is evaluated without options");
                }
                if t.modifier.is_some() {
                    return self.ark_refusal(
                        span,
                        ark::Refusal {
                            construct: ".optional() / .default() at the root".into(),
                            message: "ArkType keeps them for object properties".into(),
                            help: "convert the type itself".into(),
                        },
                    );
                }
                match ark::to_json_schema(&t) {
                    Ok(j) => {
                        let keep = std::mem::take(&mut self.keep_json);
                        if keep {
                            return Some(Node::new(span, Val::Json(Arc::new(j))));
                        }
                        Some(json_to_node(&j, span))
                    }
                    Err(r) => self.ark_refusal(span, r),
                }
            }
            "describe" => match args.first().map(|a| &a.val) {
                Some(Val::Str(s)) => {
                    let mut n = (*t).clone();
                    n.meta.retain(|(k, _)| k != "description");
                    n.meta.push(("description".into(), Json::String(s.clone())));
                    with(self, n)
                }
                _ => self.not_static(span, ".describe() expects a string"),
            },
            "configure" => {
                let Some(Node { val: Val::Object(props), .. }) = args.first() else {
                    return self.not_static(span, ".configure() expects an object literal");
                };
                let mut n = (*t).clone();
                for p in props.clone() {
                    if !matches!(p.key.as_str(), "description" | "title" | "examples") {
                        return self.ark_refusal(
                            p.key_span,
                            ark::Refusal {
                                construct: format!("configure({{ {} }})", p.key),
                                message: "only description, title and examples are evaluated".into(),
                                help: "configure description, title or examples".into(),
                            },
                        );
                    }
                    let Ok(v) = p.value.to_json() else { return self.not_static(p.value.span, "metadata must be JSON") };
                    n.meta.retain(|(k, _)| *k != p.key);
                    n.meta.push((p.key, v));
                }
                with(self, n)
            }
            "array" => with(self, ark::array_of((*t).clone())),
            "or" => {
                let Some(def) = args.pop() else { return self.not_static(span, ".or() expects a definition") };
                let other = self.ark_def(&def)?;
                let r = ark::union(&[t, Arc::new(other)]);
                self.ark_value(span, r)
            }
            "optional" => {
                let mut n = (*t).clone();
                n.modifier = Some(PropMod::Optional);
                with(self, n)
            }
            "default" => {
                let Some(Ok(v)) = args.first().map(|a| a.to_json()) else {
                    return self.not_static(span, ".default() expects a JSON value");
                };
                let mut n = (*t).clone();
                n.modifier = Some(PropMod::Default(v));
                with(self, n)
            }
            "onUndeclaredKey" => match (object(&t), args.first().map(|a| &a.val)) {
                (Some(mut o), Some(Val::Str(s))) => {
                    o.closed = s == "reject" || s == "delete";
                    with(self, ArkType::of(vec![Branch::Object(o)]))
                }
                _ => self.not_static(span, ".onUndeclaredKey() is evaluated on an object type with \"reject\", \"delete\" or \"ignore\""),
            },
            "pick" | "omit" | "partial" | "required" | "merge" => {
                let Some(mut o) = object(&t) else {
                    return self.not_static(span, format!(".{name}() is evaluated on an undescribed object type"));
                };
                match name {
                    "pick" | "omit" => {
                        let Some(ks) = keys(&args) else { return self.not_static(span, format!(".{name}() expects key strings")) };
                        o.props.retain(|p| ks.contains(&p.key) == (name == "pick"));
                    }
                    "partial" => o.props.iter_mut().for_each(|p| p.optional = true),
                    "required" => o.props.iter_mut().for_each(|p| {
                        p.optional = false;
                        p.default = None;
                    }),
                    _ => {
                        let Some(def) = args.pop() else { return self.not_static(span, ".merge() expects an object") };
                        let other = self.ark_def(&def)?;
                        let Some(extra) = object(&other) else {
                            return self.not_static(span, ".merge() is evaluated with an object definition");
                        };
                        for p in extra.props {
                            match o.props.iter_mut().find(|q| q.key == p.key) {
                                Some(slot) => *slot = p,
                                None => o.props.push(p),
                            }
                        }
                        o.closed = extra.closed || o.closed;
                    }
                }
                with(self, ArkType::of(vec![Branch::Object(o)]))
            }
            "pipe" | "narrow" | "to" | "morph" | "filter" | "satisfying" | "brand" | "and" | "intersect" => self.ark_refusal(
                span,
                ark::Refusal {
                    construct: format!(".{name}()"),
                    message: "a morph, predicate or intersection: ArkType's toJsonSchema throws on it or this compiler does not reproduce it".into(),
                    help: "declare the plain input type, and transform or check the rest in the procedure".into(),
                },
            ),
            other => self.not_static(span, format!("`.{other}()` of an ArkType type is not evaluated statically")),
        }
    }

    /// An ArkType definition: a string of its grammar, an object literal, a tuple
    /// `[def, "[]"]` or `[def, "=", value]`, or a type.
    fn ark_def(&mut self, def: &Node) -> Option<ArkType> {
        match &def.val {
            Val::Ark(t) => Some((**t).clone()),
            Val::Str(s) => match ark::parse(s) {
                Ok(t) => Some(t),
                Err(r) => {
                    self.ark_refusal(def.val_span(), r);
                    None
                }
            },
            Val::Array(items) => match items.as_slice() {
                [inner, Node { val: Val::Str(op), .. }] if op == "[]" => Some(ark::array_of(self.ark_def(inner)?)),
                [inner, Node { val: Val::Str(op), .. }, value] if op == "=" => {
                    let mut t = self.ark_def(inner)?;
                    let Ok(v) = value.to_json() else { return self.not_static(value.span, "a default must be JSON") };
                    t.modifier = Some(PropMod::Default(v));
                    Some(t)
                }
                _ => {
                    self.ark_refusal(
                        def.val_span(),
                        ark::Refusal {
                            construct: "a tuple definition".into(),
                            message: "ArkType emits `prefixItems` for tuples, outside the subset".into(),
                            help: "use an object with named properties, or `[def, \"[]\"]` for an array".into(),
                        },
                    );
                    None
                }
            },
            Val::Object(props) => {
                let mut o = Object { props: Vec::new(), closed: false };
                for p in props {
                    let key = p.key.as_str();
                    if key == "+" {
                        match &p.value.val {
                            Val::Str(s) if s == "reject" || s == "delete" => o.closed = true,
                            Val::Str(s) if s == "ignore" => o.closed = false,
                            _ => return self.not_static(p.value.span, "\"+\" is \"reject\", \"delete\" or \"ignore\""),
                        }
                        continue;
                    }
                    if key.starts_with('[') {
                        self.ark_refusal(
                            p.key_span,
                            ark::Refusal {
                                construct: format!("the index signature `{key}`"),
                                message: "ArkType emits a schema `additionalProperties`, outside the subset".into(),
                                help: "list the keys as properties".into(),
                            },
                        );
                        return None;
                    }
                    let (name, mut optional) = match key.strip_suffix('?') {
                        Some(k) => (k.to_string(), true),
                        None => (key.to_string(), false),
                    };
                    let mut default = None;
                    let mut value = match &p.value.val {
                        Val::Str(s) => match ark::split_default(s) {
                            Some((d, lit)) => {
                                let Some(v) = ark::default_literal(lit) else {
                                    return self.not_static(
                                        p.value.span,
                                        "a default in a string definition is evaluated when it is a literal",
                                    );
                                };
                                default = Some(v);
                                match ark::parse(d) {
                                    Ok(t) => t,
                                    Err(r) => {
                                        self.ark_refusal(p.value.val_span(), r);
                                        return None;
                                    }
                                }
                            }
                            None => self.ark_def(&p.value)?,
                        },
                        _ => self.ark_def(&p.value)?,
                    };
                    match value.modifier.take() {
                        Some(PropMod::Optional) => optional = true,
                        Some(PropMod::Default(v)) => default = Some(v),
                        None => {}
                    }
                    if optional && default.is_some() {
                        return self.not_static(p.key_span, "an optional key with a default");
                    }
                    o.props.push(Prop { key: name, value: Arc::new(value), optional, default });
                }
                Some(ArkType::of(vec![Branch::Object(o)]))
            }
            other => self.not_static(def.val_span(), format!("an ArkType definition cannot be {}", other.describe())),
        }
    }
}
