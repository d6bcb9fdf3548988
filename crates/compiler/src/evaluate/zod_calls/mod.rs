//! Evaluating zod builder calls (`z.object({...}).extend(...).describe(...)`) into the schema
//! graph, and `z.toJSONSchema(X, { io })` into JSON. Arguments that are functions (refine,
//! transform, ...) are never evaluated: they only run at run time and do not shape the schema.

use super::Evaluator;
use crate::diagnostics::{Code, Diagnostic};
use crate::extract::ModuleInfo;
use crate::source::Span;
use crate::value::{Node, Prop, Val};
use crate::zod::model::{Catchall, Check, Field, Kind, Regex, Thunk, ZodId};
use crate::zod::patterns;
use serde_json::Value as Json;
use std::sync::Arc;
use swc_common::Spanned;
use swc_ecma_ast::*;

mod methods;

type M = Arc<ModuleInfo>;

/// Methods whose arguments are functions or messages that never shape the JSON Schema.
const OPAQUE_METHODS: &[&str] = &[
    "refine",
    "superRefine",
    "overwrite",
    "trim",
    "toLowerCase",
    "toUpperCase",
    "normalize",
    "finite",
    "check_custom",
];

/// zod builders whose JSON Schema leaves the subset, with the alternative to suggest.
fn unsupported_builder(name: &str) -> Option<(&'static str, &'static str)> {
    Some(match name {
        "discriminatedUnion" | "xor" => (
            "zod emits `oneOf`, which is outside the supported subset",
            "use z.union([...]) of objects tagged with z.literal(...): it becomes anyOf of const-tagged objects",
        ),
        "tuple" => (
            "zod emits `prefixItems`, which is outside the supported subset",
            "use z.object({...}) with named fields, or z.array(...) of one type",
        ),
        "record" | "partialRecord" | "looseRecord" => (
            "zod emits `propertyNames` and a schema `additionalProperties`, outside the subset",
            "list the keys with z.object({...}), or use z.array(z.object({ key, value }))",
        ),
        "json" => (
            "z.json() is recursive at the root (`$ref: \"#\"`), outside the subset",
            "describe the expected shape with z.object({...})",
        ),
        "looseObject" => {
            ("zod emits `additionalProperties: {}`, outside the subset", "use z.object({...}) or z.strictObject({...})")
        }
        "never" => ("zod emits `not: {}`, outside the subset", "leave the field out of the object"),
        "date" => ("Date cannot be represented in JSON Schema", "use z.iso.datetime() (an ISO-8601 string)"),
        "bigint" | "int64" | "uint64" => {
            ("BigInt cannot be represented in JSON Schema", "use z.int() or a string with a pattern")
        }
        "symbol" => ("Symbols cannot be represented in JSON Schema", "use a string or an enum"),
        "undefined" | "void" => {
            ("undefined cannot be represented in JSON Schema", "make the field optional with .optional()")
        }
        "nan" => ("NaN cannot be represented in JSON Schema", "use z.number()"),
        "map" => ("Map cannot be represented in JSON Schema", "use z.object({...}) or an array of entries"),
        "set" => ("Set cannot be represented in JSON Schema", "use z.array(...)"),
        "custom" | "instanceof" => {
            ("custom types cannot be represented in JSON Schema", "describe the value's JSON shape with zod builders")
        }
        "function" => ("functions cannot be represented in JSON Schema", "agents exchange JSON values only"),
        "file" => ("files cannot cross the agent boundary (JSON values only)", "pass a URL or an id string"),
        "promise" => (
            "a promise is not a JSON value (zod emits the inner schema silently; we refuse)",
            "use the inner schema directly",
        ),
        "success" => {
            ("z.success() changes the value's meaning (zod emits a boolean schema; we refuse)", "use z.boolean()")
        }
        "ipv4" | "ipv6" | "cidrv4" | "cidrv6" | "base64" | "base64url" | "emoji" | "nanoid" | "cuid" | "cuid2"
        | "ulid" | "xid" | "ksuid" | "jwt" | "e164" | "hostname" | "hex" | "mac" | "hash" => (
            "zod emits a `format` outside date-time, date, uuid, email, uri",
            "use z.string().regex(...) with the pattern you need, and say the format in .describe()",
        ),
        _ => return None,
    })
}

/// String-check methods whose zod output leaves the subset.
fn unsupported_string_method(name: &str) -> Option<(&'static str, &'static str)> {
    Some(match name {
        "startsWith" | "endsWith" | "includes" | "lowercase" | "uppercase" => (
            "zod emits a `format` such as \"starts_with\" next to the pattern, outside the subset",
            "express the condition as one .regex(...), e.g. .regex(/^usr_/)",
        ),
        _ => return unsupported_builder(name),
    })
}

pub(super) fn unsupported(construct: String, (message, help): (&str, &str)) -> Kind {
    Kind::Unsupported { construct, message: message.to_string(), help: help.to_string() }
}

impl Evaluator<'_> {
    /// The value of an import from zod.
    pub(crate) fn zod_import(&self, imported: Option<&str>, span: Span) -> Node {
        match imported {
            None | Some("z") | Some("default") => Node::new(span, Val::ZodNs("")),
            Some(name) => Node::new(span, Val::ZodFn(name.to_string())),
        }
    }

    /// `obj.key` where `obj` is a zod value.
    pub(crate) fn zod_member(&mut self, obj: &Node, key: &str, span: Span) -> Option<Node> {
        match &obj.val {
            // zod 3's namespace (`crate::zod::v3`): its own builders.
            Val::ZodNs(ns) if ns.starts_with("v3") => Some(self.zod3_member(ns, key, span)),
            Val::ZodNs(ns) => {
                let path = if ns.is_empty() { key.to_string() } else { format!("{ns}.{key}") };
                let val = match path.as_str() {
                    "iso" => Val::ZodNs("iso"),
                    "coerce" => Val::ZodNs("coerce"),
                    "regexes" => Val::ZodNs("regexes"),
                    p if p.starts_with("regexes.") => match builtin_regex(&p["regexes.".len()..]) {
                        Some(r) => Val::Regex(r),
                        None => return self.not_static(span, format!("`z.{p}` is not a regex the compiler knows")),
                    },
                    _ => Val::ZodFn(path),
                };
                Some(Node::new(span, val))
            }
            Val::Zod(id) => {
                let id = id.clone();
                if key == "shape" {
                    if let Kind::Object { shape, .. } = &id.kind {
                        let props = shape
                            .iter()
                            .map(|(k, f)| Prop {
                                key: k.clone(),
                                key_span: span,
                                value: Node::new(
                                    span,
                                    match f {
                                        Field::Schema(s) => Val::Zod(s.clone()),
                                        Field::Getter(t) => Val::Getter(t.clone()),
                                    },
                                ),
                            })
                            .collect();
                        return Some(Node::new(span, Val::Object(props)));
                    }
                }
                // `.options` and `.enum` of an enum, `.options` of a union, `.element` of an array.
                match (key, &id.kind) {
                    ("options", Kind::Enum(values)) => {
                        let items = values.iter().map(|v| crate::evaluate::json_to_node(v, span)).collect();
                        return Some(Node::new(span, Val::Array(items)));
                    }
                    ("enum", Kind::Enum(values)) => {
                        let props = values
                            .iter()
                            .filter_map(|v| {
                                let key = match v {
                                    Json::String(s) => s.clone(),
                                    Json::Number(n) => n.to_string(),
                                    _ => return None,
                                };
                                Some(Prop { key, key_span: span, value: crate::evaluate::json_to_node(v, span) })
                            })
                            .collect();
                        return Some(Node::new(span, Val::Object(props)));
                    }
                    ("options", Kind::Union { options }) => {
                        let items = options.iter().map(|o| Node::new(span, Val::Zod(o.clone()))).collect();
                        return Some(Node::new(span, Val::Array(items)));
                    }
                    ("element", Kind::Array { element }) => return Some(Node::new(span, Val::Zod(element.clone()))),
                    _ => {}
                }
                Some(Node::new(span, Val::ZodMethod(id, key.to_string())))
            }
            _ => None,
        }
    }

    /// Evaluates a call of a zod function or method.
    pub(crate) fn zod_call(&mut self, m: &M, callee: Val, call: &CallExpr, span: Span) -> Option<Node> {
        match callee {
            // ArkType (`crate::arktype`).
            Val::ArkFn(_) | Val::ArkMethod(..) => self.ark_call(m, callee, call, span),
            // zod 3's API and its converter (`crate::zod::v3`).
            Val::ZodFn(name) if name.starts_with("v3.") || name == crate::zod::v3::CONVERTER => {
                self.zod3_builder(m, &name, call, span)
            }
            Val::ZodMethod(id, name) if id.v3 => self.zod3_method(m, id, &name, call, span),
            Val::ZodFn(name) => self.zod_builder(m, &name, call, span),
            Val::ZodMethod(id, name) => self.zod_method(m, id, &name, call, span),
            other => self.not_static(span, format!("{} cannot be called", other.describe())),
        }
    }

    pub(super) fn arg(&mut self, m: &M, call: &CallExpr, i: usize) -> Option<Option<Node>> {
        match call.args.get(i) {
            None => Some(None),
            Some(a) => self.eval(m, &a.expr).map(Some),
        }
    }

    pub(super) fn arg_schema(&mut self, m: &M, call: &CallExpr, i: usize, what: &str) -> Option<ZodId> {
        let span = call.args.get(i).map(|a| self.sp(m, a.expr.span())).unwrap_or_else(|| self.sp(m, call.span));
        let v = self.arg(m, call, i)?;
        match v.map(|n| n.val) {
            Some(Val::Zod(id)) => Some(id),
            Some(other) => self.not_static(span, format!("{what} expects a zod schema, found {}", other.describe())),
            None => self.not_static(span, format!("{what} expects a zod schema argument")),
        }
    }

    fn arg_number(&mut self, m: &M, call: &CallExpr, i: usize, what: &str) -> Option<f64> {
        let span = self.sp(m, call.span);
        match self.arg(m, call, i)?.map(|n| n.val) {
            Some(Val::Num(n)) => Some(n),
            _ => self.not_static(span, format!("{what} expects a number literal or constant")),
        }
    }

    pub(super) fn new_node(&mut self, kind: Kind, span: Span) -> Option<Node> {
        let id = crate::zod::model::ZodId::of(kind, span);
        Some(Node::new(span, Val::Zod(id)))
    }

    fn checked(&mut self, kind: Kind, checks: Vec<Check>, span: Span) -> Option<Node> {
        let id = crate::zod::model::ZodId::new(crate::zod::model::ZNode {
            kind,
            checks,
            parent: None,
            meta: Vec::new(),
            span,
            v3: false,
        });
        Some(Node::new(span, Val::Zod(id)))
    }

    /// The span of a call's function name (`discriminatedUnion` in `z.discriminatedUnion(...)`),
    /// where a refusal points instead of the whole, possibly multi-line, call.
    pub(super) fn name_span(&self, m: &M, call: &CallExpr, span: Span) -> Span {
        match &call.callee {
            Callee::Expr(e) => match &**e {
                Expr::Member(MemberExpr { prop: MemberProp::Ident(p), .. }) => self.sp(m, p.span),
                other => self.sp(m, other.span()),
            },
            _ => span,
        }
    }

    pub(super) fn zod_builder(&mut self, m: &M, name: &str, call: &CallExpr, span: Span) -> Option<Node> {
        if let Some(u) = unsupported_builder(name) {
            let at = self.name_span(m, call, span);
            return self.new_node(unsupported(format!("z.{name}()"), u), at);
        }
        let fmt = |f: &str, p: Option<Regex>| Check::Format { format: f.to_string(), pattern: p, lax: false };
        match name {
            "string" | "coerce.string" => self.new_node(Kind::String, span),
            "number" | "coerce.number" => self.new_node(Kind::Number, span),
            "boolean" | "coerce.boolean" => self.new_node(Kind::Boolean, span),
            "null" => self.new_node(Kind::Null, span),
            "any" => self.new_node(Kind::Any, span),
            "unknown" => self.new_node(Kind::Unknown, span),
            "int" => self.checked(Kind::Number, vec![Check::NumberFormat("safeint")], span),
            "int32" => self.checked(Kind::Number, vec![Check::NumberFormat("int32")], span),
            "uint32" => self.checked(Kind::Number, vec![Check::NumberFormat("uint32")], span),
            "float32" => self.checked(Kind::Number, vec![Check::NumberFormat("float32")], span),
            "float64" => self.checked(Kind::Number, vec![Check::NumberFormat("float64")], span),
            "coerce.date" | "coerce.bigint" => self.new_node(unsupported(format!("z.{name}()"), unsupported_builder(name.trim_start_matches("coerce.")).expect("known")), span),
            "email" | "url" | "httpUrl" | "uuid" | "guid" | "uuidv4" | "uuidv6" | "uuidv7" | "iso.datetime" | "iso.date" | "iso.time" | "iso.duration" => {
                let check = self.string_format(m, name, call, 0)?;
                self.checked(Kind::String, vec![check], span)
            }
            "literal" => {
                let v = self.arg(m, call, 0)?;
                let values = match v {
                    Some(Node { val: Val::Array(items), .. }) => items,
                    Some(n) => vec![n],
                    None => vec![Node::new(span, Val::Undefined)],
                };
                let mut out = Vec::new();
                for n in values {
                    match &n.val {
                        Val::Object(_) | Val::Array(_) => return self.not_static(n.val_span(), "z.literal takes strings, numbers, booleans or null"),
                        Val::Undefined => {
                            return self.new_node(unsupported("z.literal(undefined)".into(), ("Literal `undefined` cannot be represented in JSON Schema", "make the field optional with .optional()")), span)
                        }
                        _ => match n.to_json() {
                            Ok(j) => out.push(j),
                            Err(bad) => return self.not_static(bad.span, format!("a literal must be a string, number, boolean or null, found {}", bad.val.describe())),
                        },
                    }
                }
                self.new_node(Kind::Literal(out), span)
            }
            "enum" | "nativeEnum" => {
                let v = self.arg(m, call, 0)?;
                let values = match v {
                    Some(Node { val: Val::Array(items), .. }) => items.iter().filter_map(|n| n.to_json().ok()).collect(),
                    Some(Node { val: Val::Object(props), .. }) => enum_values(&props),
                    _ => return self.not_static(span, format!("z.{name} expects an array of values or an enum object")),
                };
                self.new_node(Kind::Enum(values), span)
            }
            "keyof" => {
                let id = self.arg_schema(m, call, 0, "z.keyof")?;
                self.keyof(id, span)
            }
            "object" | "strictObject" => {
                let shape = self.shape_arg(m, call, 0)?;
                let catchall = if name == "object" { Catchall::Strip } else { Catchall::Strict };
                self.new_node(Kind::Object { shape, catchall }, span)
            }
            "array" => {
                let el = self.arg_schema(m, call, 0, "z.array")?;
                self.new_node(Kind::Array { element: el }, span)
            }
            "union" => {
                let opts = self.schema_list(m, call, 0, "z.union")?;
                self.new_node(Kind::Union { options: opts }, span)
            }
            "intersection" => {
                let l = self.arg_schema(m, call, 0, "z.intersection")?;
                let r = self.arg_schema(m, call, 1, "z.intersection")?;
                self.new_node(Kind::Intersection { left: l, right: r }, span)
            }
            "optional" => {
                let i = self.arg_schema(m, call, 0, "z.optional")?;
                self.new_node(Kind::Optional(i), span)
            }
            "nullable" => {
                let i = self.arg_schema(m, call, 0, "z.nullable")?;
                self.new_node(Kind::Nullable(i), span)
            }
            "nullish" => {
                let i = self.arg_schema(m, call, 0, "z.nullish")?;
                let n = crate::zod::model::ZodId::of(Kind::Nullable(i), span);
                self.new_node(Kind::Optional(n), span)
            }
            "lazy" => {
                let t = self.thunk_of_function(m, call, 0, span)?;
                self.new_node(Kind::Lazy(t), span)
            }
            "transform" => self.new_node(Kind::Transform, span),
            "preprocess" => {
                let out = self.arg_schema(m, call, 1, "z.preprocess")?;
                let t = crate::zod::model::ZodId::of(Kind::Transform, span);
                self.new_node(Kind::Pipe { input: t, output: out, codec: false }, span)
            }
            "pipe" => {
                let a = self.arg_schema(m, call, 0, "z.pipe")?;
                let b = self.arg_schema(m, call, 1, "z.pipe")?;
                self.new_node(Kind::Pipe { input: a, output: b, codec: false }, span)
            }
            "codec" => {
                let a = self.arg_schema(m, call, 0, "z.codec")?;
                let b = self.arg_schema(m, call, 1, "z.codec")?;
                self.new_node(Kind::Pipe { input: a, output: b, codec: true }, span)
            }
            "stringbool" => {
                let a = crate::zod::model::ZodId::of(Kind::String, span);
                let b = crate::zod::model::ZodId::of(Kind::Boolean, span);
                self.new_node(Kind::Pipe { input: a, output: b, codec: true }, span)
            }
            "templateLiteral" => self.template_literal(m, call, span),
            "minLength" | "maxLength" | "length" | "gt" | "gte" | "lt" | "lte" | "minimum" | "maximum" | "multipleOf" | "regex" => {
                let check = match name {
                    "regex" => {
                        let r = self.regex_arg(m, call, 0)?;
                        if !r.flags.is_empty() {
                            let at = call.args.first().map(|a| self.sp(m, a.expr.span())).unwrap_or(span);
                            return self.refuse_flags(&r, at);
                        }
                        fmt("regex", Some(r))
                    }
                    _ => {
                        let n = self.arg_number(m, call, 0, &format!("z.{name}"))?;
                        match name {
                            "minLength" => Check::MinLength(n),
                            "maxLength" => Check::MaxLength(n),
                            "length" => Check::LengthEquals(n),
                            "gt" => Check::GreaterThan { value: n, inclusive: false },
                            "gte" | "minimum" => Check::GreaterThan { value: n, inclusive: true },
                            "lt" => Check::LessThan { value: n, inclusive: false },
                            "lte" | "maximum" => Check::LessThan { value: n, inclusive: true },
                            _ => Check::MultipleOf(n),
                        }
                    }
                };
                Some(Node::new(span, Val::ZodCheck(check)))
            }
            "toJSONSchema" => self.convert_to_json_schema(m, call, span),
            other => self.error(
                Diagnostic::new(Code::NotStatic, span, format!("`z.{other}` is not a zod builder the compiler evaluates"))
                    .help("see docs/schemas.md for the supported zod API; or pass the JSON Schema literally with fromJsonSchema({...})"),
            ),
        }
    }

    fn refuse_flags(&mut self, r: &Regex, span: Span) -> Option<Node> {
        let kind = unsupported(
            format!("regex flags /{}/{}", r.source, r.flags),
            (
                "zod drops regex flags silently from the JSON Schema, so the agent would see a different pattern",
                "remove the flags and write the pattern without them (e.g. [a-zA-Z] instead of the i flag)",
            ),
        );
        self.new_node(kind, span)
    }

    /// A string format check from a builder or method (`z.email()`, `.uuid()`, `z.iso.datetime({...})`).
    fn string_format(&mut self, m: &M, name: &str, call: &CallExpr, opts_index: usize) -> Option<Check> {
        let opts = self.arg(m, call, opts_index)?;
        let opt = |key: &str| -> Option<Node> { opts.as_ref().and_then(|o| o.get(key)).map(|p| p.value.clone()) };
        let num = |n: Option<Node>| n.and_then(|n| if let Val::Num(x) = n.val { Some(x as i64) } else { None });
        let flag = |n: Option<Node>| matches!(n.map(|n| n.val), Some(Val::Bool(true)));
        let fmt = |f: &str, source: Option<String>, lax: bool| {
            let pattern = source.map(|s| crate::zod::model::Regex::builtin(&format!("{f}:{s}"), &s));
            Check::Format { format: f.to_string(), pattern, lax }
        };
        Some(match name {
            "email" => {
                let pattern = match opt("pattern").map(|n| n.val) {
                    Some(Val::Regex(r)) if !r.flags.is_empty() && !is_builtin(&r) => {
                        let at = self.sp(m, call.span);
                        self.refuse_flags(&r, at);
                        return None;
                    }
                    Some(Val::Regex(r)) => r,
                    _ => crate::zod::model::Regex::builtin("email", patterns::EMAIL),
                };
                Check::Format { format: "email".into(), pattern: Some(pattern), lax: false }
            }
            "url" | "httpUrl" => fmt("url", None, false),
            "uuid" => match opt("version").map(|n| n.val) {
                Some(Val::Str(v)) => {
                    let n: u32 = v.trim_start_matches('v').parse().unwrap_or(4);
                    fmt("uuid", Some(patterns::uuid_version(n)), false)
                }
                _ => Check::Format {
                    format: "uuid".into(),
                    pattern: Some(crate::zod::model::Regex::builtin("uuid", patterns::UUID)),
                    lax: false,
                },
            },
            "uuidv4" | "uuidv6" | "uuidv7" => {
                fmt("uuid", Some(patterns::uuid_version(name[5..].parse().unwrap_or(4))), false)
            }
            "guid" => fmt("guid", Some(patterns::GUID.to_string()), false),
            "iso.date" | "date" => fmt("date", Some(patterns::date()), false),
            "iso.time" | "time" => {
                let p = num(opt("precision"));
                fmt("time", Some(patterns::time(p)), false)
            }
            "iso.datetime" | "datetime" => {
                let p = num(opt("precision"));
                let local = flag(opt("local"));
                let offset = flag(opt("offset"));
                // Each call builds a new RegExp in zod: a fresh identity.
                let source = patterns::datetime(p, offset, local);
                let r = crate::zod::model::Regex::fresh(source, String::new());
                Check::Format { format: "datetime".into(), pattern: Some(r), lax: local || p == Some(-1) }
            }
            "iso.duration" | "duration" => Check::Format { format: "duration".into(), pattern: None, lax: false },
            _ => fmt(name, None, false),
        })
    }

    fn regex_arg(&mut self, m: &M, call: &CallExpr, i: usize) -> Option<Regex> {
        let span = self.sp(m, call.span);
        match self.arg(m, call, i)?.map(|n| n.val) {
            Some(Val::Regex(r)) => Some(r),
            _ => self.not_static(span, ".regex() expects a regular expression literal or constant"),
        }
    }

    fn schema_list(&mut self, m: &M, call: &CallExpr, i: usize, what: &str) -> Option<Vec<ZodId>> {
        let span = self.sp(m, call.span);
        match self.arg(m, call, i)?.map(|n| n.val) {
            Some(Val::Array(items)) => {
                let mut out = Vec::new();
                for it in items {
                    match it.val {
                        Val::Zod(id) => out.push(id),
                        other => {
                            return self
                                .not_static(it.span, format!("{what} expects zod schemas, found {}", other.describe()))
                        }
                    }
                }
                Some(out)
            }
            _ => self.not_static(span, format!("{what} expects an array of zod schemas")),
        }
    }

    /// An object shape: `{ key: schema, get key() { return schema } }`.
    fn shape_arg(&mut self, m: &M, call: &CallExpr, i: usize) -> Option<Vec<(String, Field)>> {
        let span = self.sp(m, call.span);
        let v = self.arg(m, call, i)?;
        let Some(Node { val: Val::Object(props), .. }) = v else {
            return if v.is_none() {
                Some(Vec::new())
            } else {
                self.not_static(span, "a zod object shape must be an object literal of schemas")
            };
        };
        self.shape_of(props)
    }

    fn shape_of(&mut self, props: Vec<Prop>) -> Option<Vec<(String, Field)>> {
        let mut out = Vec::new();
        for p in props {
            match p.value.val {
                Val::Zod(id) => out.push((p.key, Field::Schema(id))),
                Val::Getter(t) => out.push((p.key, Field::Getter(t))),
                Val::Undefined => {}
                other => {
                    return self.not_static(
                        p.value.span,
                        format!("shape property `{}` must be a zod schema, found {}", p.key, other.describe()),
                    )
                }
            }
        }
        Some(out)
    }

    fn thunk_of_function(
        &mut self,
        m: &M,
        call: &CallExpr,
        i: usize,
        span: Span,
    ) -> Option<crate::zod::model::ThunkId> {
        let v = self.arg(m, call, i)?;
        match v.map(|n| n.val) {
            Some(Val::Function(Some(body), Some(module))) => {
                Some(crate::zod::model::ThunkId::new(Thunk { module, expr: body, span }))
            }
            _ => self.not_static(span, "z.lazy expects `() => schema`"),
        }
    }

    fn keyof(&mut self, id: ZodId, span: Span) -> Option<Node> {
        match &id.kind {
            Kind::Object { shape, .. } => {
                let mut keys: Vec<Prop> = Vec::new();
                for (k, _) in shape {
                    Node::set(&mut keys, Prop { key: k.clone(), key_span: span, value: Node::new(span, Val::Null) });
                }
                let values = keys.into_iter().map(|p| Json::String(p.key)).collect();
                self.new_node(Kind::Enum(values), span)
            }
            _ => self.not_static(span, ".keyof() needs an object schema"),
        }
    }

    fn template_literal(&mut self, m: &M, call: &CallExpr, span: Span) -> Option<Node> {
        let Some(Node { val: Val::Array(parts), .. }) = self.arg(m, call, 0)? else {
            return self.not_static(span, "z.templateLiteral expects an array of parts");
        };
        let mut pattern = String::from("^");
        for p in parts {
            match &p.val {
                Val::Str(s) => pattern.push_str(&patterns::escape_regex(s)),
                Val::Num(n) => pattern.push_str(&patterns::escape_regex(&crate::numbers::js_number_string(*n))),
                Val::Bool(b) => pattern.push_str(if *b { "true" } else { "false" }),
                Val::Null => pattern.push_str("null"),
                Val::Zod(id) => match self.template_part(id) {
                    Some(s) => pattern.push_str(&s),
                    None => {
                        return self.new_node(
                            unsupported(
                                "z.templateLiteral part".into(),
                                (
                                    "this template literal part has no pattern the compiler reproduces",
                                    "use string, number, boolean, null, enum and literal parts",
                                ),
                            ),
                            span,
                        )
                    }
                },
                other => {
                    return self.not_static(p.span, format!("a template literal part cannot be {}", other.describe()))
                }
            }
        }
        pattern.push('$');
        self.new_node(Kind::TemplateLiteral(pattern), span)
    }

    fn template_part(&self, id: &ZodId) -> Option<String> {
        let n = id;
        let bounds = || {
            let (mut min, mut max) = (None::<f64>, None::<f64>);
            for c in &n.checks {
                match c {
                    Check::MinLength(v) => min = Some(*v),
                    Check::MaxLength(v) => max = Some(*v),
                    _ => {}
                }
            }
            (min, max)
        };
        Some(match &n.kind {
            Kind::String if n.checks.iter().all(|c| matches!(c, Check::MinLength(_) | Check::MaxLength(_))) => {
                let (min, max) = bounds();
                format!(
                    r"[\s\S]{{{},{}}}",
                    min.map_or("0".into(), crate::numbers::js_number_string),
                    max.map_or(String::new(), crate::numbers::js_number_string)
                )
            }
            Kind::Number if n.checks.iter().any(|c| matches!(c, Check::NumberFormat(f) if f.contains("int"))) => {
                r"-?\d+".into()
            }
            Kind::Number => r"-?\d+(?:\.\d+)?".into(),
            Kind::Boolean => "(?:true|false)".into(),
            Kind::Null => "null".into(),
            Kind::Enum(values) | Kind::Literal(values) => {
                let alts: Vec<String> = values
                    .iter()
                    .map(|v| match v {
                        Json::String(s) => patterns::escape_regex(s),
                        other => patterns::escape_regex(&other.to_string()),
                    })
                    .collect();
                format!("({})", alts.join("|"))
            }
            _ => return None,
        })
    }

    /// A JSON value argument (`.default(v)`, `.catch(v)`): a literal, or `() => literal`.
    fn value_arg(&mut self, m: &M, call: &CallExpr, i: usize, what: &str) -> Option<Json> {
        let span = self.sp(m, call.span);
        let v = self.arg(m, call, i)?;
        let v = match v {
            Some(Node { val: Val::Function(Some(body), Some(module)), .. }) => self.eval(&module, &body)?,
            Some(Node { val: Val::Function(..), .. }) => {
                return self.not_static(
                    span,
                    format!("{what} with a function is evaluated only when it returns a literal: `() => value`"),
                )
            }
            Some(n) => n,
            None => return self.not_static(span, format!("{what} needs a value")),
        };
        match v.to_json() {
            Ok(j) => Some(j),
            Err(bad) => self.not_static(bad.span, format!("{what} must be a JSON value, found {}", bad.val.describe())),
        }
    }
}

/// zod's `getEnumValues`: the values of an enum-like object, without TS reverse mappings.
fn enum_values(props: &[Prop]) -> Vec<Json> {
    let numeric: Vec<f64> =
        props.iter().filter_map(|p| if let Val::Num(n) = p.value.val { Some(n) } else { None }).collect();
    props
        .iter()
        .filter(|p| !p.key.parse::<f64>().is_ok_and(|k| numeric.contains(&k)))
        .filter_map(|p| p.value.to_json().ok())
        .collect()
}

/// zod's own regex constants (their flags are zod's business, e.g. unicodeEmail's `u`).
fn is_builtin(r: &Regex) -> bool {
    r.id & (1 << 63) != 0
}

/// zod's exported regex constants.
fn builtin_regex(name: &str) -> Option<Regex> {
    let src = match name {
        "email" => patterns::EMAIL,
        "html5Email" | "browserEmail" => patterns::HTML5_EMAIL,
        "rfc5322Email" => patterns::RFC5322_EMAIL,
        "unicodeEmail" => patterns::UNICODE_EMAIL,
        "uuid" => patterns::UUID,
        "guid" => patterns::GUID,
        _ => return None,
    };
    let mut r = crate::zod::model::Regex::builtin(name, src);
    if name == "unicodeEmail" {
        // zod's unicodeEmail carries the `u` flag, which the JSON Schema drops.
        r.flags = String::new();
    }
    Some(r)
}
