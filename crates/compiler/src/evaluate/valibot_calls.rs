//! Valibot calls, statically: imports of `valibot` and `@valibot/to-json-schema`, builder and
//! action calls into [`crate::valibot::Schema`]/[`crate::valibot::Action`], and `toJsonSchema(S, options)`.

use super::{json_to_node, Evaluator};
use crate::diagnostics::{Code, Diagnostic};
use crate::extract::{ImportKind, ModuleInfo};
use crate::source::Span;
use crate::valibot::convert::{Converter, Refusal, TypeMode};
use crate::valibot::{snake, Action, Kind, ObjectMode, PipeItem, Req, Schema, Thunk, VbVal};
use crate::value::{Node, Prop, Val};
use serde_json::Value as Json;
use std::sync::Arc;
use swc_common::Spanned;
use swc_ecma_ast::*;

type M = Arc<ModuleInfo>;

const SIMPLE: &[&str] = &["string", "number", "boolean", "null", "any", "unknown", "never"];
const WRAPPERS: &[&str] = &["optional", "exactOptional", "undefinedable", "nullable", "nullish"];
const NO_ARG_ACTIONS: &[&str] = &[
    "email",
    "rfcEmail",
    "url",
    "uuid",
    "isoDate",
    "isoDateTime",
    "isoTimestamp",
    "isoTime",
    "ipv4",
    "ipv6",
    "integer",
    "safeInteger",
    "nonEmpty",
    "empty",
    "base64",
];
const NUM_ACTIONS: &[&str] = &[
    "minLength",
    "maxLength",
    "length",
    "minValue",
    "maxValue",
    "gtValue",
    "ltValue",
    "multipleOf",
    "entries",
    "minEntries",
    "maxEntries",
];
const STR_ACTIONS: &[&str] = &["startsWith", "endsWith", "includes", "description", "title"];
/// Built-in regular expressions of Valibot 1.5.0 that the converter writes as `pattern`.
const REGEX_ACTIONS: &[(&str, &str)] = &[
    ("digits", r"^\d+$"),
    ("hexadecimal", r"^(?:0[hx])?[\da-fA-F]+$"),
    ("slug", r"^[\da-z]+(?:[-_][\da-z]+)*$"),
    ("decimal", r"^[+-]?(?:\d*\.)?\d+$"),
    ("octal", r"^(?:0o)?[0-7]+$"),
    ("ulid", r"^[0-7][\da-hjkmnp-tv-zA-HJKMNP-TV-Z]{25}$"),
    ("nanoid", r"^[\w-]+$"),
    ("cuid2", r"^[a-z][\da-z]*$"),
    ("hexColor", r"^#(?:[\da-fA-F]{3,4}|[\da-fA-F]{6}|[\da-fA-F]{8})$"),
    ("ksuid", r"^[a-zA-Z0-9]{27}$"),
    ("bic", r"^[A-Z]{6}(?!00)[\dA-Z]{2}(?:[\dA-Z]{3})?$"),
];
/// Other Valibot actions: known, never converted (the converter throws on them).
const OTHER_VALIDATIONS: &[&str] = &[
    "bytes",
    "check",
    "checkItems",
    "creditCard",
    "domain",
    "emoji",
    "everyItem",
    "excludes",
    "finite",
    "graphemes",
    "hash",
    "imei",
    "ip",
    "isbn",
    "isoTimeSecond",
    "isoWeek",
    "isrc",
    "jwsCompact",
    "mac",
    "mac48",
    "mac64",
    "maxBytes",
    "maxGraphemes",
    "maxSize",
    "maxWords",
    "mimeType",
    "minBytes",
    "minGraphemes",
    "minSize",
    "minWords",
    "notBytes",
    "notEntries",
    "notGraphemes",
    "notLength",
    "notSize",
    "notWords",
    "partialCheck",
    "rawCheck",
    "size",
    "someItem",
    "words",
    "flavor",
    "brand",
    "readonly",
];
const TRANSFORMATIONS: &[&str] = &[
    "transform",
    "rawTransform",
    "toNumber",
    "toString",
    "toBoolean",
    "toDate",
    "toBigint",
    "toLowerCase",
    "toUpperCase",
    "toMinValue",
    "toMaxValue",
    "trim",
    "trimStart",
    "trimEnd",
    "normalize",
    "parseJson",
    "stringifyJson",
    "findItem",
    "mapItems",
    "filterItems",
    "sortItems",
    "reduceItems",
];
/// Schemas the converter refuses or converts outside the subset: (name, message, help).
const OTHER_SCHEMAS: &[(&str, &str, &str)] = &[
    (
        "tuple",
        "v.tuple converts to `prefixItems`, outside the supported subset",
        "use v.object({...}) with named fields, or v.array(...) of one type",
    ),
    (
        "strictTuple",
        "v.strictTuple converts to `prefixItems`, outside the supported subset",
        "use v.object({...}) with named fields, or v.array(...) of one type",
    ),
    (
        "looseTuple",
        "v.looseTuple converts to `prefixItems`, outside the supported subset",
        "use v.object({...}) with named fields, or v.array(...) of one type",
    ),
    (
        "tupleWithRest",
        "v.tupleWithRest converts to `prefixItems`, outside the supported subset",
        "use v.object({...}) with named fields, or v.array(...) of one type",
    ),
    (
        "record",
        "v.record converts to `propertyNames` and a schema-valued `additionalProperties`, outside the supported subset",
        "list the keys with v.object({...}), or use v.array(v.object({ key, value }))",
    ),
    (
        "variant",
        "v.variant converts to `oneOf`, outside the supported subset",
        "use v.union([...]) of objects tagged with v.literal(...): it converts to anyOf",
    ),
    (
        "intersect",
        "v.intersect converts to `allOf`, outside the supported subset",
        "merge the objects: v.object({ ...A.entries, ...B.entries })",
    ),
    (
        "date",
        "The \"date\" schema cannot be converted to JSON Schema.",
        "use v.pipe(v.string(), v.isoDateTime()) and parse the date in the handler",
    ),
    (
        "bigint",
        "The \"bigint\" schema cannot be converted to JSON Schema.",
        "use v.number() or a digit string: v.pipe(v.string(), v.digits())",
    ),
    (
        "undefined",
        "The \"undefined\" schema cannot be converted to JSON Schema.",
        "leave the key optional with v.optional(...)",
    ),
    ("void", "The \"void\" schema cannot be converted to JSON Schema.", "leave the key optional with v.optional(...)"),
    ("symbol", "The \"symbol\" schema cannot be converted to JSON Schema.", "use a v.picklist([...]) of strings"),
    (
        "function",
        "The \"function\" schema cannot be converted to JSON Schema.",
        "functions are not JSON values; pass data",
    ),
    (
        "instance",
        "The \"instance\" schema cannot be converted to JSON Schema.",
        "describe the data with v.object({...})",
    ),
    (
        "map",
        "The \"map\" schema cannot be converted to JSON Schema.",
        "use v.object({...}) or v.array(v.object({ key, value }))",
    ),
    ("set", "The \"set\" schema cannot be converted to JSON Schema.", "use v.array(...)"),
    ("blob", "The \"blob\" schema cannot be converted to JSON Schema.", "pass a URL or an id string"),
    ("file", "The \"file\" schema cannot be converted to JSON Schema.", "pass a URL or an id string"),
    ("promise", "The \"promise\" schema cannot be converted to JSON Schema.", "describe the resolved value"),
    ("nan", "The \"nan\" schema cannot be converted to JSON Schema.", "use v.number()"),
    ("custom", "The \"custom\" schema cannot be converted to JSON Schema.", "build the schema from Valibot's builders"),
    (
        "nonOptional",
        "The \"non_optional\" schema cannot be converted to JSON Schema.",
        "use the wrapped schema itself: a key is required unless wrapped in v.optional",
    ),
    (
        "nonNullable",
        "The \"non_nullable\" schema cannot be converted to JSON Schema.",
        "use the wrapped schema without v.nullable",
    ),
    (
        "nonNullish",
        "The \"non_nullish\" schema cannot be converted to JSON Schema.",
        "use the wrapped schema without v.nullish",
    ),
];

fn other_schema(name: &str) -> Option<(&'static str, &'static str)> {
    OTHER_SCHEMAS.iter().find(|(n, m, _)| *n == name && !m.is_empty()).map(|(_, m, h)| (*m, *h))
}

fn is_known(name: &str) -> bool {
    SIMPLE.contains(&name)
        || WRAPPERS.contains(&name)
        || NO_ARG_ACTIONS.contains(&name)
        || NUM_ACTIONS.contains(&name)
        || STR_ACTIONS.contains(&name)
        || REGEX_ACTIONS.iter().any(|(n, _)| *n == name)
        || OTHER_VALIDATIONS.contains(&name)
        || TRANSFORMATIONS.contains(&name)
        || other_schema(name).is_some()
        || matches!(
            name,
            "array"
                | "object"
                | "strictObject"
                | "looseObject"
                | "objectWithRest"
                | "literal"
                | "picklist"
                | "enum"
                | "enum_"
                | "union"
                | "lazy"
                | "pipe"
                | "fallback"
                | "regex"
                | "value"
                | "values"
                | "notValue"
                | "notValues"
                | "metadata"
                | "examples"
                | "toJsonSchema"
        )
}

impl Evaluator<'_> {
    /// The value of an import from `valibot` or `@valibot/to-json-schema`.
    pub(crate) fn valibot_import(&self, kind: &ImportKind, span: Span) -> Node {
        let v = match kind {
            ImportKind::Named(n) => VbVal::Fn(n.clone()),
            ImportKind::Default | ImportKind::Namespace => VbVal::Ns,
        };
        Node::new(span, Val::Valibot(v))
    }

    /// `obj.key` where `obj` is a Valibot value (`v.string`, `Schema.entries`).
    pub(crate) fn valibot_member(&mut self, obj: &VbVal, key: &str, span: Span) -> Option<Node> {
        match obj {
            VbVal::Ns => Some(Node::new(span, Val::Valibot(VbVal::Fn(key.to_string())))),
            VbVal::Schema(s) if key == "entries" => match &s.kind {
                Kind::Object { entries, .. } => Some(Node::new(
                    span,
                    Val::Object(
                        entries
                            .iter()
                            .map(|(k, e)| Prop {
                                key: k.clone(),
                                key_span: span,
                                value: Node::new(span, Val::Valibot(VbVal::Schema(e.clone()))),
                            })
                            .collect(),
                    ),
                )),
                _ => self.not_static(span, "`entries` exists only on Valibot object schemas"),
            },
            VbVal::Schema(s) if key == "options" => match &s.kind {
                Kind::Options { options: Some(o), .. } => Some(json_to_node(&Json::Array(o.clone()), span)),
                _ => self.not_static(span, "`options` is read statically only from v.picklist and v.enum"),
            },
            other => self.not_static(span, format!("cannot read `{key}` of {}", other.describe())),
        }
    }

    /// A call of a Valibot function.
    pub(crate) fn valibot_call(&mut self, m: &M, name: &str, call: &CallExpr, span: Span) -> Option<Node> {
        let name_span = match &call.callee {
            Callee::Expr(e) => match &**e {
                Expr::Member(MemberExpr { prop: MemberProp::Ident(p), .. }) => self.sp(m, p.span),
                other => self.sp(m, other.span()),
            },
            _ => span,
        };
        if !is_known(name) {
            return self.error(
                Diagnostic::new(
                    Code::NotStatic,
                    name_span,
                    format!("`{name}` is not a Valibot function the compiler evaluates"),
                )
                .label("unknown Valibot function")
                .help("docs/schemas.md lists the Valibot builders and actions that convert"),
            );
        }
        if name == "toJsonSchema" {
            return self.valibot_to_json_schema(m, call, span);
        }
        let schema = |kind: Kind| {
            Some(Node::new(span, Val::Valibot(VbVal::Schema(Arc::new(Schema { kind, pipe: None, span: name_span })))))
        };
        if SIMPLE.contains(&name) {
            return schema(match name {
                "string" => Kind::String,
                "number" => Kind::Number,
                "boolean" => Kind::Boolean,
                "null" => Kind::Null,
                "any" => Kind::Any,
                "unknown" => Kind::Unknown,
                _ => Kind::Never,
            });
        }
        if let Some((message, help)) = other_schema(name) {
            return schema(Kind::Other { ty: snake(name), message, help });
        }
        if WRAPPERS.contains(&name) {
            let wrapped = self.vb_schema_arg(m, call, 0, name)?;
            let default = match call.args.get(1) {
                None => None,
                Some(a) if matches!(name, "optional" | "exactOptional" | "undefinedable" | "nullable" | "nullish") => {
                    self.vb_default(m, &a.expr)?
                }
                Some(_) => None,
            };
            let ty: &'static str = match name {
                "optional" => "optional",
                "exactOptional" => "exact_optional",
                "undefinedable" => "undefinedable",
                "nullable" => "nullable",
                _ => "nullish",
            };
            return schema(Kind::Wrap { ty, wrapped, default });
        }
        match name {
            "array" => {
                let item = self.vb_schema_arg(m, call, 0, "v.array")?;
                return schema(Kind::Array(item));
            }
            "object" | "strictObject" | "looseObject" | "objectWithRest" => {
                let entries = self.vb_entries(m, call, name)?;
                let mode = match name {
                    "object" => ObjectMode::Object,
                    "strictObject" => ObjectMode::Strict,
                    "looseObject" => ObjectMode::Loose,
                    _ => ObjectMode::Rest(self.vb_schema_arg(m, call, 1, "v.objectWithRest")?),
                };
                return schema(Kind::Object { mode, entries });
            }
            "literal" => {
                let v = self.eval(m, &call.args.first()?.expr)?;
                let json = match v.val {
                    Val::Undefined => None,
                    _ => v.to_json().ok(),
                };
                return schema(Kind::Literal(json));
            }
            "picklist" => {
                let v = self.eval(m, &call.args.first()?.expr)?;
                let Val::Array(items) = &v.val else {
                    return self.not_static(v.span, format!("v.picklist takes an array, found {}", v.val.describe()));
                };
                let options = items.iter().map(|n| n.to_json().ok()).collect::<Option<Vec<_>>>();
                return schema(Kind::Options { ty: "picklist", options });
            }
            "enum" | "enum_" => {
                let v = self.eval(m, &call.args.first()?.expr)?;
                let Val::Object(props) = &v.val else {
                    return self.not_static(v.span, format!("v.enum takes an enum object, found {}", v.val.describe()));
                };
                // Valibot drops the reverse mappings of TypeScript's numeric enums.
                let mut options = Some(Vec::new());
                for p in props {
                    let reverse = match (&p.value.val, p.key.parse::<f64>()) {
                        (Val::Str(s), Ok(n)) if crate::numbers::js_number_string(n) == p.key => {
                            props.iter().any(|q| &q.key == s && matches!(q.value.val, Val::Num(x) if x == n))
                        }
                        _ => false,
                    };
                    if reverse {
                        continue;
                    }
                    match (p.value.to_json().ok(), options.as_mut()) {
                        (Some(j), Some(o)) => o.push(j),
                        _ => options = None,
                    }
                }
                return schema(Kind::Options { ty: "enum", options });
            }
            "union" => {
                let options = self.vb_schema_list(m, call, "v.union")?;
                return schema(Kind::Union(options));
            }
            "lazy" => {
                let v = self.eval(m, &call.args.first()?.expr)?;
                let Val::Function(Some(expr), Some(module)) = v.val else {
                    return self.not_static(v.span, "v.lazy takes `() => Schema`");
                };
                return schema(Kind::Lazy(Arc::new(Thunk { module, expr, span: v.span })));
            }
            "fallback" => {
                let inner = self.vb_schema_arg(m, call, 0, "v.fallback")?;
                let copy = Schema { kind: inner.kind.clone(), pipe: inner.pipe.clone(), span: name_span };
                return Some(Node::new(span, Val::Valibot(VbVal::Schema(Arc::new(copy)))));
            }
            "pipe" => {
                let first = self.vb_schema_arg(m, call, 0, "v.pipe")?;
                let mut pipe = vec![PipeItem::Schema(first.clone())];
                let mut ok = true;
                for a in call.args.iter().skip(1) {
                    match self.eval(m, &a.expr).map(|n| (n.span, n.val)) {
                        Some((_, Val::Valibot(VbVal::Schema(s)))) => pipe.push(PipeItem::Schema(s)),
                        Some((_, Val::Valibot(VbVal::Action(x)))) => pipe.push(PipeItem::Action(x)),
                        Some((s, other)) => {
                            self.not_static::<Node>(
                                s,
                                format!("v.pipe takes Valibot schemas and actions, found {}", other.describe()),
                            );
                            ok = false;
                        }
                        None => ok = false,
                    }
                }
                if !ok {
                    return None;
                }
                let piped = Schema { kind: first.kind.clone(), pipe: Some(pipe), span: name_span };
                return Some(Node::new(span, Val::Valibot(VbVal::Schema(Arc::new(piped)))));
            }
            _ => {}
        }
        // Actions.
        let req = if NUM_ACTIONS.contains(&name) {
            let v = self.eval(m, &call.args.first()?.expr)?;
            match v.val {
                Val::Num(n) => Req::Num(n),
                other => {
                    return self.not_static(v.span, format!("v.{name} needs a number, found {}", other.describe()))
                }
            }
        } else if STR_ACTIONS.contains(&name) {
            let v = self.eval(m, &call.args.first()?.expr)?;
            match v.val {
                Val::Str(s) => Req::Str(s),
                other => {
                    return self.not_static(v.span, format!("v.{name} needs a string, found {}", other.describe()))
                }
            }
        } else if let Some((_, source)) = REGEX_ACTIONS.iter().find(|(n, _)| *n == name) {
            Req::Regex { source: source.to_string(), flags: "u".into() }
        } else if name == "regex" {
            let v = self.eval(m, &call.args.first()?.expr)?;
            match v.val {
                Val::Regex(r) => Req::Regex { source: r.source, flags: r.flags },
                other => {
                    return self
                        .not_static(v.span, format!("v.regex needs a regular expression, found {}", other.describe()))
                }
            }
        } else if matches!(name, "value" | "notValue") {
            let v = self.eval(m, &call.args.first()?.expr)?;
            Req::Value(v.to_json().ok())
        } else if matches!(name, "values" | "notValues") {
            let v = self.eval(m, &call.args.first()?.expr)?;
            match &v.val {
                Val::Array(items) => Req::Values(items.iter().map(|n| n.to_json().ok()).collect()),
                other => {
                    return self.not_static(v.span, format!("v.{name} needs an array, found {}", other.describe()))
                }
            }
        } else if name == "metadata" {
            let v = self.eval(m, &call.args.first()?.expr)?;
            let Val::Object(props) = &v.val else {
                return self.not_static(v.span, format!("v.metadata needs an object, found {}", v.val.describe()));
            };
            let mut entries = Vec::new();
            for p in props {
                match p.value.to_json() {
                    Ok(j) => entries.push((p.key.clone(), j)),
                    Err(bad) if matches!(bad.val, Val::Undefined) => {}
                    Err(bad) => {
                        return self.not_static(
                            bad.span,
                            format!("metadata values must be JSON, found {}", bad.val.describe()),
                        )
                    }
                }
            }
            Req::Metadata(entries)
        } else if name == "examples" {
            let v = self.eval(m, &call.args.first()?.expr)?;
            match v.to_json() {
                Ok(Json::Array(items)) => Req::Examples(items),
                _ => return self.not_static(v.span, "v.examples needs an array of JSON values"),
            }
        } else {
            Req::None
        };
        let action = Action {
            ty: snake(name),
            name: name.to_string(),
            transformation: TRANSFORMATIONS.contains(&name),
            req,
            span: name_span,
        };
        Some(Node::new(span, Val::Valibot(VbVal::Action(Arc::new(action)))))
    }

    fn vb_schema_arg(&mut self, m: &M, call: &CallExpr, i: usize, what: &str) -> Option<Arc<Schema>> {
        let Some(a) = call.args.get(i) else {
            let s = self.sp(m, call.span);
            return self.not_static(s, format!("{what} expects a Valibot schema argument"));
        };
        let v = self.eval(m, &a.expr)?;
        match v.val {
            Val::Valibot(VbVal::Schema(s)) => Some(s),
            other => self.not_static(
                v.via.unwrap_or(v.span),
                format!("{what} expects a Valibot schema, found {}", other.describe()),
            ),
        }
    }

    fn vb_schema_list(&mut self, m: &M, call: &CallExpr, what: &str) -> Option<Vec<Arc<Schema>>> {
        let v = self.eval(m, &call.args.first()?.expr)?;
        let Val::Array(items) = v.val else {
            return self.not_static(v.span, format!("{what} takes an array of schemas, found {}", v.val.describe()));
        };
        let mut out = Vec::new();
        for n in items {
            match n.val {
                Val::Valibot(VbVal::Schema(s)) => out.push(s),
                other => {
                    return self.not_static(n.span, format!("{what} takes Valibot schemas, found {}", other.describe()))
                }
            }
        }
        Some(out)
    }

    fn vb_entries(&mut self, m: &M, call: &CallExpr, what: &str) -> Option<Vec<(String, Arc<Schema>)>> {
        let v = self.eval(m, &call.args.first()?.expr)?;
        let Val::Object(props) = v.val else {
            return self.not_static(v.span, format!("v.{what} takes an object of schemas, found {}", v.val.describe()));
        };
        let mut out = Vec::new();
        for p in props {
            match p.value.val {
                Val::Valibot(VbVal::Schema(s)) => out.push((p.key, s)),
                other => {
                    return self.not_static(
                        p.value.via.unwrap_or(p.value.span),
                        format!(
                            "the entry `{}` of v.{what} must be a Valibot schema, found {}",
                            p.key,
                            other.describe()
                        ),
                    )
                }
            }
        }
        Some(out)
    }

    /// A wrapper's default: a JSON value, or `() => value`.
    fn vb_default(&mut self, m: &M, e: &Expr) -> Option<Option<Json>> {
        let v = self.eval(m, e)?;
        let v = match v.val {
            Val::Function(Some(body), Some(module)) => self.eval(&module, &body)?,
            Val::Function(..) => {
                return self.not_static(v.span, "a default function is evaluated only when it is `() => value`")
            }
            _ => v,
        };
        if matches!(v.val, Val::Undefined) {
            return Some(None);
        }
        match v.to_json() {
            Ok(j) => Some(Some(j)),
            Err(bad) => {
                self.not_static(bad.span, format!("a default must be a JSON value, found {}", bad.val.describe()))
            }
        }
    }

    /// Converts `s` as `toJsonSchema` would (`None`: refused; nothing is reported).
    pub(crate) fn valibot_json(&mut self, s: &Arc<Schema>, mode: TypeMode) -> Option<Json> {
        let mut resolve = |t: &Arc<Thunk>| -> Result<Arc<Schema>, Refusal> {
            let before = self.mark();
            let v = self.eval(&t.module, &t.expr);
            self.discard_since(before);
            match v.map(|n| n.val) {
                Some(Val::Valibot(VbVal::Schema(s))) => Ok(s),
                _ => {
                    Err(Refusal { span: t.span, construct: String::new(), message: String::new(), help: String::new() })
                }
            }
        };
        Converter::new(mode, &mut resolve).run(s).ok()
    }

    /// `fromStandardSchema(S, { jsonSchema: toJsonSchema(X, ...) })`: S and X must be the same
    /// Valibot schema (or two spellings converting to the same JSON Schema).
    pub(crate) fn check_valibot_pair(&mut self, m: &M, call: &CallExpr, json_span: Span) -> Option<()> {
        let Some((converted, mode)) = self.last_valibot.take() else { return Some(()) };
        let Some(first) = call.args.first() else { return Some(()) };
        let before = self.mark();
        let validated = self.eval(m, &first.expr);
        self.discard_since(before);
        let Some(Node { val: Val::Valibot(VbVal::Schema(v)), span, via, .. }) = validated else { return Some(()) };
        if Arc::ptr_eq(&v, &converted) {
            return Some(());
        }
        let (a, b) = (self.valibot_json(&v, mode), self.valibot_json(&converted, mode));
        if a.is_some() && a == b {
            return Some(());
        }
        self.error(
            Diagnostic::new(Code::InvalidArguments, via.unwrap_or(span), "`fromStandardSchema` validates one Valibot schema but its `jsonSchema` is converted from another")
                .label("validated with this schema")
                .related(json_span, "JSON Schema converted from a different schema here")
                .help("pass the same schema to both: fromStandardSchema(S, { jsonSchema: toJsonSchema(S, { target: \"draft-2020-12\", typeMode: \"input\" }) })"),
        )
    }

    /// `toJsonSchema(S, { target: "draft-2020-12", typeMode })`.
    fn valibot_to_json_schema(&mut self, m: &M, call: &CallExpr, span: Span) -> Option<Node> {
        let root = self.vb_schema_arg(m, call, 0, "toJsonSchema")?;
        let mut mode = TypeMode::Ignore;
        let mut target = None;
        if let Some(opts) = call.args.get(1) {
            let v = self.eval(m, &opts.expr)?;
            let Val::Object(props) = &v.val else {
                return self.not_static(
                    v.span,
                    format!("the options of toJsonSchema must be an object, found {}", v.val.describe()),
                );
            };
            for p in props {
                match (p.key.as_str(), &p.value.val) {
                    ("target", Val::Str(t)) => target = Some((t.clone(), p.value.span)),
                    ("typeMode", Val::Str(t)) if t == "ignore" => mode = TypeMode::Ignore,
                    ("typeMode", Val::Str(t)) if t == "input" => mode = TypeMode::Input,
                    ("typeMode", Val::Str(t)) if t == "output" => mode = TypeMode::Output,
                    (key, _) => return self.error(
                        Diagnostic::new(
                            Code::SchemaNotEvaluable,
                            p.key_span,
                            format!("the option `{key}` of toJsonSchema is not evaluated statically"),
                        )
                        .label("unsupported option")
                        .help(
                            "pass only `target: \"draft-07\" | \"draft-2020-12\"` and `typeMode: \"input\" | \"output\" | \"ignore\"`",
                        ),
                    ),
                }
            }
        }
        // draft-07 (the converter's default target) and draft 2020-12 come out alike from this
        // converter (v.lazy's definitions go under `$defs` in both); draft-07's root `$schema` is
        // dropped, as for zod-to-json-schema, and the page's fromStandardSchema drops it the same way.
        let draft_07 = match &target {
            Some((t, _)) if t == "draft-2020-12" => false,
            None => true,
            Some((t, _)) if t == "draft-07" => true,
            Some((t, s)) => {
                return self.error(
                    Diagnostic::new(
                        Code::UnsupportedValibot,
                        *s,
                        format!("toJsonSchema with `target: \"{t}\"` writes a JSON Schema outside the supported subset"),
                    )
                    .label("not draft-07 or draft 2020-12")
                    .help("convert with `toJsonSchema(S)` or `toJsonSchema(S, { target: \"draft-2020-12\" })` (add `typeMode: \"input\"` for inputs)"),
                );
            }
        };
        let mut resolve = |t: &Arc<Thunk>| -> Result<Arc<Schema>, Refusal> {
            let before = self.mark();
            let v = self.eval(&t.module, &t.expr);
            match v.map(|n| n.val) {
                Some(Val::Valibot(VbVal::Schema(s))) => Ok(s),
                _ => {
                    self.discard_since(before);
                    Err(Refusal {
                        span: t.span,
                        construct: "v.lazy".into(),
                        message: "the getter of v.lazy does not evaluate to a Valibot schema".into(),
                        help: "write `v.lazy(() => Schema)` with a module-level `const` schema".into(),
                    })
                }
            }
        };
        let result = Converter::new(mode, &mut resolve).run(&root);
        if self.keep_json {
            self.last_valibot = Some((root.clone(), mode));
        }
        let json = match result {
            Ok(j) => j,
            Err(r) => {
                return self.error(
                    Diagnostic::new(Code::UnsupportedValibot, r.span, format!("{}: {}", r.construct, r.message))
                        .label("outside the supported subset")
                        .related(span, "converted to JSON Schema here")
                        .help(r.help),
                )
            }
        };
        let json = if draft_07 {
            let mut json = json;
            if let Some(o) = json.as_object_mut() {
                o.remove("$schema");
            }
            json
        } else {
            json
        };
        Some(if self.keep_json { Node::new(span, Val::Json(Arc::new(json))) } else { json_to_node(&json, span) })
    }
}
