//! zod 3's API (`crate::zod::v3`): its builders and methods build the shared schema graph (most
//! through zod 4's evaluation, where the semantics are the same), marked `v3`; the refinements,
//! transforms and constructs zod-to-json-schema would drop or misrepresent are refused here,
//! and `zodToJsonSchema(S)` converts with [`crate::zod::v3::to_json_schema`].

use super::zod_calls::unsupported;
use super::{json_to_node, Evaluator, M};
use crate::diagnostics::{Code, Diagnostic};
use crate::source::Span;
use crate::value::{Node, Val};
use crate::zod::model::{Check, Field, Kind, Regex, ZNode, ZodId};
use crate::zod::v3::{self as zod3, NATIVE_ENUM, PASSTHROUGH, WRAP};
use serde_json::Value as Json;
use swc_common::Spanned;
use swc_ecma_ast::*;

/// zod 3 builders and methods that do not exist in zod 3 (zod 4 only).
const ZOD4_ONLY: &[&str] = &[
    "email",
    "url",
    "httpUrl",
    "uuid",
    "uuidv4",
    "uuidv6",
    "uuidv7",
    "guid",
    "iso",
    "int",
    "int32",
    "uint32",
    "float32",
    "float64",
    "templateLiteral",
    "looseObject",
    "stringbool",
    "codec",
    "xor",
    "partialRecord",
    "looseRecord",
    "json",
    "file",
    "success",
    "toJSONSchema",
    "minLength",
    "maxLength",
    "gt",
    "gte",
    "lt",
    "lte",
    "regex",
    "meta",
    "prefault",
    "exactOptional",
    "nonoptional",
    "check",
    "overwrite",
    "safeExtend",
    "loose",
];

/// Refused zod 3 methods: zod-to-json-schema drops or misrepresents what they do.
fn refused_method(name: &str) -> Option<(&'static str, &'static str)> {
    Some(match name {
        "refine" | "superRefine" => (
            "zod-to-json-schema drops refinements silently: the JSON Schema would accept values the validator rejects",
            "express the condition with zod's built-in checks (.min, .max, .regex, .email, ...), or check it in the procedure itself",
        ),
        "transform" => (
            "zod-to-json-schema drops transforms silently and describes the input only",
            "transform in the procedure, and declare the plain input schema",
        ),
        "pipe" => ("zod-to-json-schema emits `allOf` of both sides, outside the subset", "declare the schema of one side"),
        "and" => ("zod-to-json-schema emits `allOf`, outside the subset", "merge the objects with .extend(...) or .merge(...)"),
        "catchall" => (
            "zod-to-json-schema emits a schema `additionalProperties`, outside the subset",
            "declare every property, or use .strict()",
        ),
        "promise" => ("a promise is not a JSON value (zod-to-json-schema emits the inner schema silently)", "use the inner schema"),
        "time" | "duration" => (
            "zod-to-json-schema emits a `format` outside date-time, date, uuid, email, uri",
            "use .regex(...) with the pattern you need",
        ),
        "ip" | "cidr" | "base64" | "base64url" | "jwt" | "emoji" => (
            "zod-to-json-schema emits a `format`, a `contentEncoding` or a pattern the subset does not take",
            "use .regex(...) with the pattern you need",
        ),
        "deepPartial" => ("`.deepPartial()` is not evaluated statically", "call .partial() on each nested object"),
        _ => return None,
    })
}

/// Refused zod 3 builders (on top of those zod 4 refuses too, `zod_calls::unsupported_builder`).
fn refused_builder(name: &str) -> Option<(&'static str, &'static str)> {
    Some(match name {
        "date" | "coerce.date" => (
            "a Date is not a JSON value (zod-to-json-schema emits a date-time string, which the validator rejects)",
            "use z.string().datetime()",
        ),
        "preprocess" | "effect" | "transformer" => (
            "zod-to-json-schema drops the preprocessing silently",
            "preprocess in the procedure, and declare the plain input schema",
        ),
        "intersection" => ("zod-to-json-schema emits `allOf`, outside the subset", "merge the objects with .extend(...) or .merge(...)"),
        "pipeline" => ("zod-to-json-schema emits `allOf`, outside the subset", "declare the schema of one side"),
        "bigint" | "coerce.bigint" => ("BigInt cannot be represented in JSON", "use z.number().int(), or a string with .regex(...)"),
        "tuple" => (
            "zod-to-json-schema emits `items` as an array (a tuple), outside the subset",
            "use z.object({...}) with named fields, or z.array(...) of one type",
        ),
        "record" => (
            "zod-to-json-schema emits a schema `additionalProperties`, outside the subset",
            "list the keys with z.object({...}), or use z.array(z.object({ key, value }))",
        ),
        "set" => (
            "a Set is not a JSON value (zod-to-json-schema emits an array with uniqueItems, which the validator would not turn into a Set)",
            "use z.array(...)",
        ),
        "promise" => ("a promise is not a JSON value (zod-to-json-schema emits the inner schema silently)", "use the inner schema"),
        _ => return None,
    })
}

impl Evaluator<'_> {
    /// The value of an import from a zod package: zod 3's namespace or converter, or zod 4's.
    pub(crate) fn zod_import_from(&self, source: &str, imported: Option<&str>, span: Span) -> Node {
        if source == zod3::CONVERTER_PACKAGE {
            return Node::new(span, Val::ZodFn(zod3::CONVERTER.to_string()));
        }
        if zod3::is_v3_source(source, self.project.config.zod_major) {
            return match imported {
                None | Some("z") | Some("default") => Node::new(span, Val::ZodNs("v3")),
                Some(name) => Node::new(span, Val::ZodFn(format!("v3.{name}"))),
            };
        }
        self.zod_import(imported, span)
    }

    /// `z.key` of zod 3's namespace (`ns` is `v3` or `v3.coerce`).
    pub(super) fn zod3_member(&self, ns: &str, key: &str, span: Span) -> Node {
        match (ns, key) {
            ("v3", "coerce") => Node::new(span, Val::ZodNs("v3.coerce")),
            _ => Node::new(span, Val::ZodFn(format!("{ns}.{key}"))),
        }
    }

    /// `node` (a result of zod 4's evaluation of the same call) as a zod 3 definition, with
    /// `meta` added (the description a wrapper copies, a mark).
    fn as_v3(&self, node: Option<Node>, meta: Vec<(String, Json)>) -> Option<Node> {
        let node = node?;
        match node.val {
            Val::Zod(id) if !id.v3 || !meta.is_empty() => {
                let mut n: ZNode = (*id).clone();
                n.v3 = true;
                n.meta.extend(meta);
                Some(Node { val: Val::Zod(ZodId::new(n)), ..node })
            }
            _ => Some(node),
        }
    }

    fn zod3_refused(&mut self, construct: String, why: (&str, &str), at: Span) -> Option<Node> {
        let n = self.new_node(unsupported(construct, why), at);
        self.as_v3(n, Vec::new())
    }

    fn zod4_only(&mut self, what: String, span: Span) -> Option<Node> {
        self.error(
            Diagnostic::new(Code::SchemaNotEvaluable, span, format!("`{what}` is zod 4's API, not zod 3's"))
                .label("zod 3 schema")
                .help("this import is zod 3 (the project's package.json declares zod 3, or it imports \"zod/v3\"): use zod 3's API, e.g. z.string().email(), or import zod 4 from \"zod/v4\" and convert with z.toJSONSchema"),
        )
    }

    /// A call of a zod 3 builder (`v3.name`) or of `zodToJsonSchema`.
    pub(super) fn zod3_builder(&mut self, m: &M, name: &str, call: &CallExpr, span: Span) -> Option<Node> {
        if name == zod3::CONVERTER {
            return self.zod3_convert(m, call, span);
        }
        let name = name.trim_start_matches("v3.");
        let at = self.name_span(m, call, span);
        if name == "toJSONSchema" {
            return self.error(
                Diagnostic::new(Code::SchemaNotEvaluable, at, "`z.toJSONSchema` converts zod 4 schemas, and this `z` is zod 3's")
                    .label("zod 3 has no z.toJSONSchema")
                    .help("convert zod 3 schemas with zodToJsonSchema(S) from \"zod-to-json-schema\"; the project's package.json declares zod 3 (or the schema imports \"zod/v3\")"),
            );
        }
        if let Some(why) = refused_builder(name) {
            return self.zod3_refused(format!("z.{name}()"), why, at);
        }
        if ZOD4_ONLY.contains(&name) || name.starts_with("iso.") {
            return self.zod4_only(format!("z.{name}"), at);
        }
        match name {
            "discriminatedUnion" => {
                let Some(Node { val: Val::Array(items), .. }) = self.arg(m, call, 1)? else {
                    return self.not_static(span, "z.discriminatedUnion expects an array of object schemas");
                };
                let mut options = Vec::new();
                for it in items {
                    match it.val {
                        Val::Zod(id) => options.push(id),
                        other => {
                            return self.not_static(it.span, format!("z.discriminatedUnion expects zod schemas, found {}", other.describe()))
                        }
                    }
                }
                let n = self.new_node(Kind::Union { options }, span);
                self.as_v3(n, Vec::new())
            }
            "nativeEnum" => {
                let n = self.zod_builder(m, name, call, span);
                self.as_v3(n, vec![(NATIVE_ENUM.into(), Json::Null)])
            }
            "literal" | "strictObject" | "object" | "string" | "number" | "boolean" | "null" | "any" | "unknown" | "enum"
            | "array" | "union" | "optional" | "nullable" | "lazy" | "coerce.string" | "coerce.number"
            | "coerce.boolean" | "never" | "map" | "symbol" | "undefined" | "void" | "nan" | "function" | "custom"
            | "instanceof" => {
                let n = self.zod_builder(m, name, call, span);
                self.as_v3(n, Vec::new())
            }
            other => self.error(
                Diagnostic::new(Code::NotStatic, span, format!("`z.{other}` is not a zod 3 builder the compiler evaluates"))
                    .help("see docs/schemas.md for the supported zod 3 API; or pass the JSON Schema literally with fromJsonSchema({...})"),
            ),
        }
    }

    /// A call of a method of a zod 3 schema.
    pub(super) fn zod3_method(&mut self, m: &M, id: ZodId, name: &str, call: &CallExpr, span: Span) -> Option<Node> {
        let at = self.name_span(m, call, span);
        if let Some(why) = refused_method(name) {
            return self.zod3_refused(format!(".{name}()"), why, at);
        }
        if ZOD4_ONLY.contains(&name)
            && !matches!(name, "email" | "url" | "uuid" | "regex" | "int" | "gt" | "gte" | "lt" | "lte")
        {
            return self.zod4_only(format!(".{name}()"), at);
        }
        let desc =
            || zod3::description(&id).map(|d| vec![("description".to_string(), Json::String(d))]).unwrap_or_default();
        let is_string = matches!(id.kind, Kind::String) && !zod3::has_mark(&id, WRAP);
        let is_number = matches!(id.kind, Kind::Number) && !zod3::has_mark(&id, WRAP);
        let is_object = matches!(id.kind, Kind::Object { .. }) && !zod3::has_mark(&id, WRAP);
        let child = |ev: &Self, check: Check| {
            ev.as_v3(Some(Node::new(span, Val::Zod(id.child(span, Vec::new(), Some(check))))), Vec::new())
        };
        match name {
            "brand" | "readonly" => {
                let w = id.child(span, vec![(WRAP.into(), Json::Null)], None);
                self.as_v3(Some(Node::new(span, Val::Zod(w))), Vec::new())
            }
            // Wrappers made by a method copy the receiver's description (zod 3's
            // `processCreateParams(this._def)`).
            "optional" | "nullable" | "default" | "catch" | "or" => {
                let n = self.zod_method(m, id.clone(), name, call, span);
                self.as_v3(n, desc())
            }
            "nullish" => {
                let inner = self.new_node(Kind::Nullable(id.clone()), span);
                let inner = self.as_v3(inner, desc())?;
                let Val::Zod(inner) = inner.val else { unreachable!("a node") };
                let n = self.new_node(Kind::Optional(inner), span);
                self.as_v3(n, desc())
            }
            "int" if is_number => child(self, Check::NumberFormat("int")),
            "safe" if is_number => {
                let lo = id.child(span, Vec::new(), Some(Check::GreaterThan { value: -9007199254740991.0, inclusive: true }));
                let hi = lo.child(span, Vec::new(), Some(Check::LessThan { value: 9007199254740991.0, inclusive: true }));
                self.as_v3(Some(Node::new(span, Val::Zod(hi))), Vec::new())
            }
            "email" | "url" | "uuid" | "date" | "cuid" | "cuid2" | "ulid" | "nanoid" if is_string => {
                let pattern = zod3::check_pattern(name).map(|p| Regex::builtin(&format!("zod3:{name}"), p));
                child(self, Check::Format { format: name.to_string(), pattern, lax: false })
            }
            "datetime" if is_string => {
                let opts = self.arg(m, call, 0)?;
                let local = opts.as_ref().and_then(|o| o.get("local")).is_some_and(|p| matches!(p.value.val, Val::Bool(true)));
                if local {
                    return self.zod3_refused(
                        ".datetime({ local: true })".into(),
                        (
                            "zod-to-json-schema emits `format: \"date-time\"`, which requires an offset: the agent could not send the local times the validator accepts",
                            "use .datetime() or .datetime({ offset: true })",
                        ),
                        at,
                    );
                }
                child(self, Check::Format { format: "datetime".into(), pattern: None, lax: false })
            }
            "startsWith" | "endsWith" | "includes" if is_string => {
                let text = match self.arg(m, call, 0)?.map(|n| n.val) {
                    Some(Val::Str(s)) => s,
                    _ => return self.not_static(span, format!(".{name}() expects a string")),
                };
                if let Some(problem) = zod3::literal_escape_problem(&text) {
                    return self.zod3_refused(
                        format!(".{name}({text:?})"),
                        (&problem, "write the condition as one .regex(...), e.g. .regex(/^usr_/)"),
                        at,
                    );
                }
                let escaped = zod3::escape_literal(&text);
                let source = match name {
                    "startsWith" => format!("^{escaped}"),
                    "endsWith" => format!("{escaped}$"),
                    _ => escaped,
                };
                child(self, Check::Format { format: name.to_string(), pattern: Some(Regex::fresh(source, String::new())), lax: false })
            }
            "passthrough" if is_object => {
                let n = self.zod_method(m, id.clone(), "strip", call, span);
                let mut meta = desc();
                meta.push((PASSTHROUGH.into(), Json::Null));
                self.as_v3(n, meta)
            }
            "required" if is_object => {
                let Kind::Object { shape, catchall } = id.kind.clone() else { unreachable!("an object") };
                let keys: Option<Vec<String>> = match self.arg(m, call, 0)? {
                    None => None,
                    Some(Node { val: Val::Object(props), .. }) => {
                        Some(props.into_iter().filter(|p| matches!(p.value.val, Val::Bool(true))).map(|p| p.key).collect())
                    }
                    Some(_) => return self.not_static(span, ".required() expects an object mask like { key: true }"),
                };
                let shape = shape
                    .into_iter()
                    .map(|(k, f)| {
                        let selected = keys.as_ref().is_none_or(|ks| ks.contains(&k));
                        let f = match f {
                            Field::Schema(mut s) if selected => {
                                while let Kind::Optional(inner) = &s.kind {
                                    s = inner.clone();
                                }
                                Field::Schema(s)
                            }
                            f => f,
                        };
                        (k, f)
                    })
                    .collect();
                let n = id.with_kind(Kind::Object { shape, catchall }, span);
                self.as_v3(Some(Node::new(span, Val::Zod(n))), self.object_meta(&id))
            }
            "extend" | "pick" | "omit" | "partial" | "strict" | "strip" if is_object => {
                let n = self.zod_method(m, id.clone(), name, call, span);
                let meta = if matches!(name, "strict" | "strip") { desc() } else { self.object_meta(&id) };
                self.as_v3(n, meta)
            }
            "merge" if is_object => {
                let other = self.arg_schema(m, call, 0, ".merge()")?;
                let n = self.zod_method(m, id.clone(), name, call, span);
                let meta = if zod3::has_mark(&other, PASSTHROUGH) { vec![(PASSTHROUGH.into(), Json::Null)] } else { Vec::new() };
                self.as_v3(n, meta)
            }
            "extend" | "pick" | "omit" | "partial" | "strict" | "strip" | "merge" | "keyof" | "passthrough" | "required" if !is_object => {
                self.not_static(span, format!("`.{name}()` needs an object schema"))
            }
            "min" | "max" | "length" | "nonempty" | "describe" | "array" | "gt" | "gte" | "lt" | "lte" | "positive"
            | "negative" | "nonnegative" | "nonpositive" | "multipleOf" | "step" | "finite" | "trim" | "toLowerCase"
            | "toUpperCase" | "regex" | "extract" | "exclude" | "keyof" | "unwrap" | "removeDefault" => {
                let n = self.zod_method(m, id, name, call, span);
                self.as_v3(n, Vec::new())
            }
            other => self.error(
                Diagnostic::new(Code::NotStatic, span, format!("`.{other}()` is not a zod 3 method the compiler evaluates"))
                    .help("see docs/schemas.md for the supported zod 3 API; or pass the JSON Schema literally with fromJsonSchema({...})"),
            ),
        }
    }

    /// What a zod 3 object method keeps of the receiver's definition: its description and
    /// unknown-keys policy.
    fn object_meta(&self, id: &ZodId) -> Vec<(String, Json)> {
        let mut meta: Vec<(String, Json)> =
            zod3::description(id).map(|d| vec![("description".to_string(), Json::String(d))]).unwrap_or_default();
        if zod3::has_mark(id, PASSTHROUGH) {
            meta.push((PASSTHROUGH.into(), Json::Null));
        }
        meta
    }

    /// `zodToJsonSchema(S)` / `zodToJsonSchema(S, { $refStrategy: "none" })`.
    fn zod3_convert(&mut self, m: &M, call: &CallExpr, span: Span) -> Option<Node> {
        let keep_json = std::mem::take(&mut self.keep_json);
        let root = self.arg_schema(m, call, 0, "zodToJsonSchema")?;
        if !root.v3 {
            let at = call.args.first().map(|a| self.sp(m, a.expr.span())).unwrap_or(span);
            return self.error(
                Diagnostic::new(Code::SchemaNotEvaluable, at, "`zodToJsonSchema` converts zod 3 schemas, and this is a zod 4 schema")
                    .label("zod 4 schema")
                    .related(span, "converted here")
                    .help("convert zod 4 schemas with z.toJSONSchema(S, { io: \"input\" }); for zod 3, declare zod 3 in package.json or import from \"zod/v3\""),
            );
        }
        let mut options = zod3::Options::default();
        if let Some(opts) = self.arg(m, call, 1)? {
            let Val::Object(props) = &opts.val else {
                return self.error(
                    Diagnostic::new(Code::SchemaNotEvaluable, opts.span, "the second argument of zodToJsonSchema is evaluated only as `{ $refStrategy: \"none\" }`")
                        .label("a name or options")
                        .help("a name makes zod-to-json-schema emit `$ref` into `definitions`, outside the subset: call zodToJsonSchema(S) or zodToJsonSchema(S, { $refStrategy: \"none\" })"),
                );
            };
            for p in props {
                match (p.key.as_str(), &p.value.val) {
                    ("$refStrategy", Val::Str(s)) if s == "none" => options.ref_none = true,
                    ("$refStrategy", Val::Str(s)) if s == "root" => {}
                    (k, _) => {
                        return self.error(
                            Diagnostic::new(Code::SchemaNotEvaluable, p.key_span, format!("the option `{k}` of zodToJsonSchema is not evaluated statically"))
                                .help("pass no options, or only `{ $refStrategy: \"none\" }`: the manifest must equal what zod-to-json-schema returns at run time"),
                        )
                    }
                }
            }
        }
        self.resolve_thunks(&root)?;
        let json = match zod3::to_json_schema(&self.targets, &root, options) {
            Ok(j) => j,
            Err(r) => {
                return self.error(
                    Diagnostic::new(Code::UnsupportedZod, r.span, format!("{}: {}", r.construct, r.message))
                        .label("outside the supported subset")
                        .related(span, "converted to JSON Schema here")
                        .help(r.help),
                )
            }
        };
        self.set_last_converted(Some((root, crate::zod::emit::Io::Output)));
        if keep_json {
            return Some(Node::new(span, Val::Json(std::sync::Arc::new(json))));
        }
        Some(json_to_node(&json, span))
    }

    /// `z.toJSONSchema(S)` of a zod 3 schema.
    pub(super) fn zod3_wrong_converter(&mut self, root: &ZodId, span: Span) -> Option<Node> {
        self.error(
            Diagnostic::new(Code::SchemaNotEvaluable, root.span, "`z.toJSONSchema` converts zod 4 schemas, and this is a zod 3 schema")
                .label("zod 3 schema")
                .related(span, "converted here")
                .help("convert zod 3 schemas with zodToJsonSchema(S) from \"zod-to-json-schema\"; the project's package.json declares zod 3 (or the schema imports \"zod/v3\")"),
        )
    }
}
