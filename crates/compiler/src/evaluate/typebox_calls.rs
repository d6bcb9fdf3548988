//! TypeBox builder calls, statically: each builds the object the builder returns at run time.

use super::Evaluator;
use crate::diagnostics::{Code, Diagnostic};
use crate::extract::{ImportKind, ModuleInfo};
use crate::source::Span;
use crate::typebox::{Flavor, TbVal};
use crate::value::{Node, Prop, Val};
use std::sync::Arc;
use swc_common::Spanned;
use swc_ecma_ast::*;

type M = Arc<ModuleInfo>;

/// Builders whose JSON Schema leaves the supported subset (or is not JSON): (name, why, instead).
const REFUSED: &[(&str, &str, &str)] = &[
    (
        "Tuple",
        "Type.Tuple is an array-valued `items` (a tuple), outside the supported subset",
        "use Type.Object({...}) with named fields, or Type.Array(...) of one type",
    ),
    (
        "Record",
        "Type.Record is `patternProperties`, outside the supported subset",
        "list the keys with Type.Object({...}), or use Type.Array(Type.Object({ key, value }))",
    ),
    (
        "Intersect",
        "Type.Intersect is `allOf`, outside the supported subset",
        "merge the objects: Type.Object({ ...A.properties, ...B.properties })",
    ),
    (
        "Never",
        "Type.Never is `not: {}`, outside the supported subset",
        "leave the property out (additionalProperties: false refuses unknown keys)",
    ),
    (
        "Not",
        "Type.Not is `not`, outside the supported subset",
        "list the accepted values with Type.Union of Type.Literal",
    ),
    ("Date", "Type.Date is not a JSON type", "use Type.String({ format: \"date-time\" })"),
    ("Uint8Array", "Type.Uint8Array is not a JSON type", "pass a URL or an id string"),
    ("BigInt", "Type.BigInt is not a JSON type", "use Type.Integer() or a digit string"),
    ("Undefined", "Type.Undefined is not a JSON type", "make the property optional with Type.Optional(...)"),
    ("Void", "Type.Void is not a JSON type", "make the property optional with Type.Optional(...)"),
    ("Symbol", "Type.Symbol is not a JSON type", "use a Type.Union of Type.Literal strings"),
    ("Function", "Type.Function is not a JSON type", "functions are not JSON values; pass data"),
    ("Constructor", "Type.Constructor is not a JSON type", "describe the data with Type.Object({...})"),
    ("Promise", "Type.Promise is not a JSON type", "describe the resolved value"),
    ("RegExp", "Type.RegExp is not a JSON Schema (`type: \"RegExp\"`)", "use Type.String({ pattern: \"...\" })"),
    ("Iterator", "Type.Iterator is not a JSON type", "use Type.Array(...)"),
    ("AsyncIterator", "Type.AsyncIterator is not a JSON type", "use Type.Array(...)"),
    (
        "Recursive",
        "Type.Recursive is not evaluated statically (`$id`/`$ref: \"T0\"`)",
        "write the recursive schema as a literal with `$defs` and `{ $ref: \"#/$defs/Node\" }` in fromJsonSchema",
    ),
    (
        "Ref",
        "Type.Ref is a `$ref` to a TypeBox `$id`, outside the supported subset",
        "use the schema itself, or a literal with `$defs` in fromJsonSchema",
    ),
    ("TemplateLiteral", "Type.TemplateLiteral is not evaluated statically", "use Type.String({ pattern: \"...\" })"),
];

fn obj(span: Span, props: Vec<Prop>) -> Node {
    Node::new(span, Val::Object(props))
}

fn prop(key: &str, span: Span, val: Val) -> Prop {
    Prop { key: key.to_string(), key_span: span, value: Node::new(span, val) }
}

fn node_prop(key: &str, span: Span, value: Node) -> Prop {
    Prop { key: key.to_string(), key_span: span, value }
}

/// `Type.Optional`'s marker off: the schema a property or an item holds.
fn plain(n: Node) -> Node {
    match n.val {
        Val::TypeBoxOptional(inner) => *inner,
        _ => n,
    }
}

/// A builder's own keys merged with its options: 1.x spreads the options last (they win), 0.34
/// first (the builder's keys win).
fn merge(flavor: Flavor, fields: Vec<Prop>, options: Vec<Prop>) -> Vec<Prop> {
    let mut out = Vec::new();
    let (first, second) = match flavor {
        Flavor::V1 => (fields, options),
        Flavor::V034 => (options, fields),
    };
    for p in first.into_iter().chain(second) {
        Node::set(&mut out, p);
    }
    out
}

impl Evaluator<'_> {
    /// The value of an import from `typebox` or `@sinclair/typebox`.
    pub(crate) fn typebox_import(&self, flavor: Flavor, kind: &ImportKind, span: Span) -> Node {
        let v = match kind {
            ImportKind::Named(n) if n == "Type" => TbVal::Ns(flavor),
            ImportKind::Named(n) => TbVal::Fn(flavor, n.clone()),
            ImportKind::Default | ImportKind::Namespace => TbVal::Ns(flavor),
        };
        Node::new(span, Val::TypeBox(v))
    }

    pub(crate) fn typebox_member(&mut self, obj: &TbVal, key: &str, span: Span) -> Option<Node> {
        match obj {
            TbVal::Ns(f) if key == "Type" => Some(Node::new(span, Val::TypeBox(TbVal::Ns(*f)))),
            TbVal::Ns(f) => Some(Node::new(span, Val::TypeBox(TbVal::Fn(*f, key.to_string())))),
            other => self.not_static(span, format!("cannot read `{key}` of {}", other.describe())),
        }
    }

    fn tb_refuse<T>(&mut self, span: Span, message: impl Into<String>, help: impl Into<String>) -> Option<T> {
        self.error(
            Diagnostic::new(Code::UnsupportedTypeBox, span, message).label("outside the supported subset").help(help),
        )
    }

    /// Argument `i`, evaluated (`None` when absent).
    fn tb_arg(&mut self, m: &M, call: &CallExpr, i: usize) -> Option<Option<Node>> {
        match call.args.get(i) {
            None => Some(None),
            Some(a) if a.spread.is_some() => {
                let s = self.sp(m, a.expr.span());
                self.not_static(s, "spread arguments are not evaluated statically")
            }
            Some(a) => self.eval(m, &a.expr).map(Some),
        }
    }

    /// The options argument `i`: its properties (none when absent).
    fn tb_options(&mut self, m: &M, call: &CallExpr, i: usize) -> Option<Vec<Prop>> {
        match self.tb_arg(m, call, i)? {
            None => Some(Vec::new()),
            Some(Node { val: Val::Object(props), .. }) => Some(props),
            Some(Node { val: Val::Undefined, .. }) => Some(Vec::new()),
            Some(n) => {
                self.not_static(n.span, format!("TypeBox options must be an object, found {}", n.val.describe()))
            }
        }
    }

    /// A schema argument (an object value, optional marker kept).
    fn tb_schema(&mut self, m: &M, call: &CallExpr, i: usize, what: &str, span: Span) -> Option<Node> {
        match self.tb_arg(m, call, i)? {
            Some(n) if matches!(n.val, Val::Object(_) | Val::TypeBoxOptional(_)) => Some(n),
            Some(n) => self.not_static(
                n.via.unwrap_or(n.span),
                format!("{what} expects a TypeBox schema, found {}", n.val.describe()),
            ),
            None => self.not_static(span, format!("{what} expects a TypeBox schema argument")),
        }
    }

    fn tb_schema_list(&mut self, m: &M, call: &CallExpr, what: &str, span: Span) -> Option<Vec<Node>> {
        let Some(list) = self.tb_arg(m, call, 0)? else {
            return self.not_static(span, format!("{what} expects an array of schemas"));
        };
        let Val::Array(items) = list.val else {
            return self
                .not_static(list.span, format!("{what} expects an array of schemas, found {}", list.val.describe()));
        };
        for n in &items {
            if !matches!(n.val, Val::Object(_) | Val::TypeBoxOptional(_)) {
                return self.not_static(n.span, format!("{what} expects TypeBox schemas, found {}", n.val.describe()));
            }
        }
        Some(items.into_iter().map(plain).collect())
    }

    /// The properties of an object schema argument (with their optional markers).
    fn tb_object(&mut self, m: &M, call: &CallExpr, i: usize, what: &str, span: Span) -> Option<Vec<Prop>> {
        let n = plain(self.tb_schema(m, call, i, what, span)?);
        let Val::Object(props) = &n.val else { unreachable!("checked by tb_schema") };
        let is_object = props.iter().any(|p| p.key == "type" && matches!(&p.value.val, Val::Str(s) if s == "object"));
        match props.iter().find(|p| p.key == "properties").map(|p| &p.value.val) {
            Some(Val::Object(_)) if is_object => Some(props.clone()),
            _ => self.not_static(n.via.unwrap_or(n.span), format!("{what} expects a Type.Object schema")),
        }
    }

    /// `{ type: "object", required?, properties }` from properties with optional markers.
    fn tb_object_fields(&self, span: Span, properties: Vec<Prop>, all_required: bool) -> Vec<Prop> {
        let required: Vec<Node> = properties
            .iter()
            .filter(|p| all_required || !matches!(p.value.val, Val::TypeBoxOptional(_)))
            .map(|p| Node::new(span, Val::Str(p.key.clone())))
            .collect();
        let mut fields = vec![prop("type", span, Val::Str("object".into()))];
        if !required.is_empty() {
            fields.push(prop("required", span, Val::Array(required)));
        }
        fields.push(prop("properties", span, Val::Object(properties)));
        fields
    }

    /// A TypeBox builder call.
    pub(crate) fn typebox_call(
        &mut self,
        m: &M,
        flavor: Flavor,
        name: &str,
        call: &CallExpr,
        span: Span,
    ) -> Option<Node> {
        let name_span = match &call.callee {
            Callee::Expr(e) => match &**e {
                Expr::Member(MemberExpr { prop: MemberProp::Ident(p), .. }) => self.sp(m, p.span),
                other => self.sp(m, other.span()),
            },
            _ => span,
        };
        if let Some((_, why, instead)) = REFUSED.iter().find(|(n, _, _)| *n == name) {
            return self.tb_refuse(name_span, *why, *instead);
        }
        let what = format!("Type.{name}");
        let simple = |t: &str| vec![prop("type", span, Val::Str(t.into()))];
        let props = match name {
            "String" | "Number" | "Integer" | "Boolean" | "Null" => {
                let opts = self.tb_options(m, call, 0)?;
                merge(flavor, simple(&name.to_ascii_lowercase()), opts)
            }
            "Any" | "Unknown" | "Unsafe" => self.tb_options(m, call, 0)?,
            "Literal" => {
                let v = self.tb_arg(m, call, 0)?;
                let t = match v.as_ref().map(|n| &n.val) {
                    Some(Val::Str(_)) => "string",
                    Some(Val::Num(_)) => "number",
                    Some(Val::Bool(_)) => "boolean",
                    _ => {
                        return self.tb_refuse(
                            name_span,
                            "Type.Literal needs a string, number or boolean",
                            "write the literal value itself",
                        )
                    }
                };
                let opts = self.tb_options(m, call, 1)?;
                let v = v.expect("checked");
                merge(flavor, vec![prop("type", span, Val::Str(t.into())), node_prop("const", span, v)], opts)
            }
            "Array" => {
                let item = plain(self.tb_schema(m, call, 0, &what, span)?);
                let opts = self.tb_options(m, call, 1)?;
                merge(flavor, vec![prop("type", span, Val::Str("array".into())), node_prop("items", span, item)], opts)
            }
            "Object" => {
                let Some(shape) = self.tb_arg(m, call, 0)? else {
                    return self.not_static(span, "Type.Object expects an object of schemas");
                };
                let Val::Object(properties) = shape.val else {
                    return self.not_static(
                        shape.span,
                        format!("Type.Object expects an object of schemas, found {}", shape.val.describe()),
                    );
                };
                for p in &properties {
                    if !matches!(p.value.val, Val::Object(_) | Val::TypeBoxOptional(_)) {
                        return self.not_static(
                            p.value.via.unwrap_or(p.value.span),
                            format!(
                                "the property `{}` of Type.Object must be a TypeBox schema, found {}",
                                p.key,
                                p.value.val.describe()
                            ),
                        );
                    }
                }
                let opts = self.tb_options(m, call, 1)?;
                if let Some(ap) = opts.iter().find(|p| p.key == "additionalProperties") {
                    if !matches!(ap.value.val, Val::Bool(_)) {
                        return self.tb_refuse(
                            ap.key_span,
                            "a schema-valued `additionalProperties` is outside the supported subset",
                            "use `additionalProperties: false` and declare every property",
                        );
                    }
                }
                merge(flavor, self.tb_object_fields(span, properties, false), opts)
            }
            "Optional" | "ReadonlyOptional" => {
                let inner = plain(self.tb_schema(m, call, 0, &what, span)?);
                return Some(Node::new(span, Val::TypeBoxOptional(Box::new(inner))));
            }
            "Readonly" => return self.tb_schema(m, call, 0, &what, span),
            "Union" => {
                let items = self.tb_schema_list(m, call, &what, span)?;
                let opts = self.tb_options(m, call, 1)?;
                return self.tb_union(flavor, items, opts, span, name_span);
            }
            "Enum" => {
                let Some(arg) = self.tb_arg(m, call, 0)? else {
                    return self.not_static(span, "Type.Enum expects an enum object");
                };
                let values: Vec<Node> = match arg.val {
                    // Object.keys minus numeric keys (the reverse mappings of numeric TS enums).
                    Val::Object(props) => props.into_iter().filter(|p| p.key.parse::<f64>().is_err()).map(|p| p.value).collect(),
                    Val::Array(items) if flavor == Flavor::V1 => items,
                    Val::Array(_) => {
                        return self.tb_refuse(
                            arg.span,
                            "@sinclair/typebox 0.34 reads an array given to Type.Enum as an object with keys \"0\", \"1\", ... (not its values)",
                            "pass an enum object: Type.Enum({ X: \"x\", Y: \"y\" }), or a Type.Union of Type.Literal",
                        )
                    }
                    other => return self.not_static(arg.span, format!("Type.Enum expects an enum object, found {}", other.describe())),
                };
                if values.is_empty() {
                    return self.tb_refuse(
                        name_span,
                        "an empty Type.Enum has no value (`enum: []` / `not: {}`), outside the supported subset",
                        "list at least one value",
                    );
                }
                let opts = self.tb_options(m, call, 1)?;
                match flavor {
                    Flavor::V1 => merge(flavor, vec![prop("enum", span, Val::Array(values))], opts),
                    Flavor::V034 => {
                        let mut literals = Vec::new();
                        for v in values {
                            let t = match v.val {
                                Val::Str(_) => "string",
                                Val::Num(_) => "number",
                                _ => return self.not_static(v.span, "Type.Enum values must be strings or numbers"),
                            };
                            literals.push(obj(
                                span,
                                vec![node_prop("const", span, v), prop("type", span, Val::Str(t.into()))],
                            ));
                        }
                        return self.tb_union(flavor, literals, opts, span, name_span);
                    }
                }
            }
            "KeyOf" => {
                let source = self.tb_object(m, call, 0, &what, span)?;
                let keys = object_properties(&source);
                if keys.is_empty() {
                    return self.tb_refuse(
                        name_span,
                        "Type.KeyOf of an object without properties is `not: {}`, outside the supported subset",
                        "give the object at least one property",
                    );
                }
                let literals: Vec<Node> = keys
                    .iter()
                    .map(|p| {
                        obj(
                            span,
                            vec![
                                prop("type", span, Val::Str("string".into())),
                                prop("const", span, Val::Str(p.key.clone())),
                            ],
                        )
                    })
                    .collect();
                let opts = self.tb_options(m, call, 1)?;
                if literals.len() == 1 {
                    // One key: the literal itself, in both lines.
                    let Val::Object(props) = literals.into_iter().next().expect("one").val else {
                        unreachable!("built above")
                    };
                    return Some(obj(span, merge(flavor, props, opts)));
                }
                return self.tb_union(flavor, literals, opts, span, name_span);
            }
            "Partial" | "Required" => {
                let source = self.tb_object(m, call, 0, &what, span)?;
                let opts = self.tb_options(m, call, 1)?;
                let properties: Vec<Prop> = object_properties(&source)
                    .into_iter()
                    .map(|p| {
                        let value = plain(p.value);
                        let value = if name == "Partial" {
                            Node::new(value.span, Val::TypeBoxOptional(Box::new(value)))
                        } else {
                            value
                        };
                        Prop { value, ..p }
                    })
                    .collect();
                let mut fields = self.tb_object_fields(span, properties, name == "Required");
                if name == "Partial" {
                    fields.retain(|p| p.key != "required");
                }
                self.tb_derived(flavor, &source, fields, opts)
            }
            "Pick" | "Omit" => {
                let source = self.tb_object(m, call, 0, &what, span)?;
                let Some(keys) = self.tb_arg(m, call, 1)? else {
                    return self.not_static(span, format!("{what} expects an array of keys"));
                };
                let Val::Array(keys) = keys.val else {
                    return self.not_static(
                        keys.span,
                        format!("{what} expects an array of keys, found {}", keys.val.describe()),
                    );
                };
                let mut names = Vec::new();
                for k in keys {
                    match k.val {
                        Val::Str(s) => names.push(s),
                        other => {
                            return self
                                .not_static(k.span, format!("{what} expects string keys, found {}", other.describe()))
                        }
                    }
                }
                let opts = self.tb_options(m, call, 2)?;
                let required: Vec<String> = match source.iter().find(|p| p.key == "required").map(|p| &p.value.val) {
                    Some(Val::Array(r)) => {
                        r.iter().filter_map(|n| if let Val::Str(s) = &n.val { Some(s.clone()) } else { None }).collect()
                    }
                    _ => Vec::new(),
                };
                let keep = |k: &str| names.iter().any(|n| n == k) == (name == "Pick");
                let properties: Vec<Prop> = object_properties(&source).into_iter().filter(|p| keep(&p.key)).collect();
                let req: Vec<Node> =
                    required.iter().filter(|k| keep(k)).map(|k| Node::new(span, Val::Str(k.clone()))).collect();
                let mut fields = vec![prop("type", span, Val::Str("object".into()))];
                if !req.is_empty() {
                    fields.push(prop("required", span, Val::Array(req)));
                }
                fields.push(prop("properties", span, Val::Object(properties)));
                self.tb_derived(flavor, &source, fields, opts)
            }
            "Composite" if flavor == Flavor::V034 => {
                let items = self.tb_schema_list(m, call, &what, span)?;
                let mut properties: Vec<Prop> = Vec::new();
                let mut required: Vec<Node> = Vec::new();
                for item in items {
                    let Val::Object(ps) = &item.val else { unreachable!("checked") };
                    for p in object_properties(ps) {
                        if properties.iter().any(|q| q.key == p.key) {
                            return self.tb_refuse(p.key_span, format!("Type.Composite of objects that share the key `{}` is an intersection of their schemas", p.key), "give each object its own keys, or merge them by hand with Type.Object");
                        }
                        properties.push(p);
                    }
                    if let Some(Val::Array(r)) = ps.iter().find(|p| p.key == "required").map(|p| &p.value.val) {
                        required.extend(r.iter().cloned());
                    }
                }
                let opts = self.tb_options(m, call, 1)?;
                let mut fields = vec![prop("type", span, Val::Str("object".into()))];
                if !required.is_empty() {
                    fields.push(prop("required", span, Val::Array(required)));
                }
                fields.push(prop("properties", span, Val::Object(properties)));
                merge(flavor, fields, opts)
            }
            other => {
                return self.error(
                    Diagnostic::new(
                        Code::NotStatic,
                        name_span,
                        format!("`Type.{other}` is not a TypeBox builder the compiler evaluates"),
                    )
                    .label("unknown TypeBox builder")
                    .help("docs/schemas.md lists the TypeBox builders that are evaluated"),
                )
            }
        };
        Some(obj(span, props))
    }

    /// `Type.Union`: `anyOf`; 0.34 returns a single member itself (options merged).
    fn tb_union(
        &mut self,
        flavor: Flavor,
        items: Vec<Node>,
        opts: Vec<Prop>,
        span: Span,
        name_span: Span,
    ) -> Option<Node> {
        if items.is_empty() {
            return self.tb_refuse(
                name_span,
                "an empty Type.Union has no value (`not: {}`), outside the supported subset",
                "list at least one member",
            );
        }
        if flavor == Flavor::V034 && items.len() == 1 {
            let only = items.into_iter().next().expect("one");
            let Val::Object(props) = only.val else { unreachable!("schemas are objects") };
            return Some(obj(span, merge(Flavor::V034, props, opts)));
        }
        Some(obj(span, merge(flavor, vec![prop("anyOf", span, Val::Array(items))], opts)))
    }

    /// `Partial`/`Required`/`Pick`/`Omit`: 1.x keeps only the new object and its options; 0.34
    /// also keeps the source's other keys (description, additionalProperties, ...).
    fn tb_derived(&self, flavor: Flavor, source: &[Prop], fields: Vec<Prop>, opts: Vec<Prop>) -> Vec<Prop> {
        match flavor {
            Flavor::V1 => merge(Flavor::V1, fields, opts),
            Flavor::V034 => {
                let mut out: Vec<Prop> = source
                    .iter()
                    .filter(|p| !matches!(p.key.as_str(), "type" | "required" | "properties"))
                    .cloned()
                    .collect();
                for p in fields.into_iter().chain(opts) {
                    Node::set(&mut out, p);
                }
                out
            }
        }
    }
}

/// The `properties` of an object schema's keys.
fn object_properties(source: &[Prop]) -> Vec<Prop> {
    match source.iter().find(|p| p.key == "properties").map(|p| &p.value.val) {
        Some(Val::Object(ps)) => ps.clone(),
        _ => Vec::new(),
    }
}
