//! `toJsonSchema(schema, { target: "draft-2020-12", typeMode })` of `@valibot/to-json-schema`
//! 1.8.0, statically: the same walk over schemas and pipes, the same keywords, the same errors
//! (a thrown error is a refusal), and refusals of its own for the keywords outside the supported
//! subset (`not`, `allOf`, `oneOf`, `prefixItems`, `propertyNames`, schema-valued
//! `additionalProperties`, `contentEncoding`, `minProperties`, formats other than the subset's).

use super::{is_json_const, Action, Kind, ObjectMode, PipeItem, Req, Schema, Thunk};
use crate::numbers::json_number;
use crate::source::Span;
use serde_json::{Map, Value as Json};
use std::sync::Arc;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TypeMode {
    Ignore,
    Input,
    Output,
}

#[derive(Debug)]
pub struct Refusal {
    pub span: Span,
    pub construct: String,
    pub message: String,
    pub help: String,
}

fn refuse(span: Span, construct: impl Into<String>, message: impl Into<String>, help: impl Into<String>) -> Refusal {
    Refusal { span, construct: construct.into(), message: message.into(), help: help.into() }
}

/// Evaluates a `v.lazy` getter's body to its schema.
pub type Resolve<'a> = dyn FnMut(&Arc<Thunk>) -> Result<Arc<Schema>, Refusal> + 'a;

/// The conversion context (Valibot's `context`): reference ids of lazy schemas and `$defs`.
pub struct Converter<'a> {
    pub mode: TypeMode,
    refs: Vec<(Arc<Schema>, String)>,
    getters: Vec<(Arc<Thunk>, Arc<Schema>)>,
    defs: Map<String, Json>,
    count: usize,
    /// Evaluates a `v.lazy` getter's body to its schema.
    resolve: &'a mut Resolve<'a>,
    depth: usize,
}

const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// Transformations at which the input mode stops reading a pipe.
const INPUT_STOPS: &[&str] = &[
    "find_item",
    "parse_json",
    "raw_transform",
    "reduce_items",
    "stringify_json",
    "to_bigint",
    "to_boolean",
    "to_date",
    "to_number",
    "to_string",
    "transform",
];

fn def_ref(id: &str) -> Json {
    Json::String(format!("#/$defs/{}", id.replace('~', "~0").replace('/', "~1")))
}

fn flatten(pipe: &[PipeItem], out: &mut Vec<PipeItem>) {
    for item in pipe {
        match item {
            PipeItem::Schema(s) if s.pipe.is_some() => flatten(s.pipe.as_deref().unwrap_or(&[]), out),
            other => out.push(other.clone()),
        }
    }
}

fn num(n: f64) -> Json {
    json_number(n).unwrap_or(Json::Null)
}

fn lower(js: &Map<String, Json>, key: &str, value: f64) -> f64 {
    match js.get(key).and_then(Json::as_f64) {
        Some(cur) if cur.is_finite() && value <= cur => cur,
        _ => value,
    }
}

fn upper(js: &Map<String, Json>, key: &str, value: f64) -> f64 {
    match js.get(key).and_then(Json::as_f64) {
        Some(cur) if cur.is_finite() && value >= cur => cur,
        _ => value,
    }
}

fn type_str(js: &Map<String, Json>) -> String {
    match js.get("type") {
        Some(Json::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => "undefined".into(),
    }
}

impl<'a> Converter<'a> {
    pub fn new(mode: TypeMode, resolve: &'a mut Resolve<'a>) -> Self {
        Converter { mode, refs: Vec::new(), getters: Vec::new(), defs: Map::new(), count: 0, resolve, depth: 0 }
    }

    /// The whole conversion: the root schema, `$schema`, and `$defs` when a lazy schema made any.
    pub fn run(mut self, root: &Arc<Schema>) -> Result<Json, Refusal> {
        let mut js = Map::new();
        self.schema(&mut js, root, false)?;
        js.insert("$schema".into(), Json::String(DIALECT.into()));
        if !self.refs.is_empty() {
            js.insert("$defs".into(), Json::Object(std::mem::take(&mut self.defs)));
        }
        Ok(Json::Object(js))
    }

    fn ref_of(&self, s: &Arc<Schema>) -> Option<String> {
        self.refs.iter().find(|(k, _)| Arc::ptr_eq(k, s)).map(|(_, id)| id.clone())
    }

    fn sub(&mut self, s: &Arc<Schema>) -> Result<Json, Refusal> {
        let mut js = Map::new();
        self.schema(&mut js, s, false)?;
        Ok(Json::Object(js))
    }

    fn schema(&mut self, js: &mut Map<String, Json>, s: &Arc<Schema>, skip_ref: bool) -> Result<(), Refusal> {
        self.depth += 1;
        if self.depth > 64 {
            return Err(refuse(s.span, "nesting", "the schema nests too deeply to convert", "flatten the schema"));
        }
        let r = self.schema_inner(js, s, skip_ref);
        self.depth -= 1;
        r
    }

    fn schema_inner(&mut self, js: &mut Map<String, Json>, s: &Arc<Schema>, skip_ref: bool) -> Result<(), Refusal> {
        if !skip_ref {
            if let Some(id) = self.ref_of(s) {
                js.insert("$ref".into(), def_ref(&id));
                return Ok(());
            }
        }
        if let Some(pipe) = &s.pipe {
            let mut flat = Vec::new();
            flatten(pipe, &mut flat);
            let mut start = 0;
            let mut stop = flat.len().saturating_sub(1);
            match self.mode {
                TypeMode::Input => {
                    if let Some(i) = flat.iter().skip(1).position(|item| match item {
                        PipeItem::Schema(_) => true,
                        PipeItem::Action(a) => a.transformation && INPUT_STOPS.contains(&a.ty.as_str()),
                    }) {
                        stop = i;
                    }
                }
                TypeMode::Output => {
                    if let Some(i) = flat.iter().rposition(|item| matches!(item, PipeItem::Schema(_))) {
                        start = i;
                    }
                }
                TypeMode::Ignore => {}
            }
            for (index, item) in flat.iter().enumerate().take(stop + 1).skip(start) {
                match item {
                    PipeItem::Schema(inner) => {
                        if index > start {
                            return Err(refuse(
                                inner.span,
                                "a pipe with several schemas",
                                "Set the \"typeMode\" config to \"input\" or \"output\" to convert pipelines with multiple schemas.",
                                "convert with `toJsonSchema(S, { target: \"draft-2020-12\", typeMode: \"input\" })` (or \"output\")",
                            ));
                        }
                        self.schema(js, inner, true)?;
                    }
                    PipeItem::Action(a) => self.action(js, a)?,
                }
            }
            return Ok(());
        }
        match &s.kind {
            Kind::Boolean => {
                js.insert("type".into(), "boolean".into());
            }
            Kind::Null => {
                js.insert("type".into(), "null".into());
            }
            Kind::Number => {
                js.insert("type".into(), "number".into());
            }
            Kind::String => {
                js.insert("type".into(), "string".into());
            }
            Kind::Array(item) => {
                js.insert("type".into(), "array".into());
                let items = self.sub(item)?;
                js.insert("items".into(), items);
            }
            Kind::Object { mode, entries } => {
                if let ObjectMode::Rest(_) = mode {
                    return Err(refuse(
                        s.span,
                        "v.objectWithRest",
                        "v.objectWithRest converts its rest to a schema-valued `additionalProperties`, outside the supported subset",
                        "declare every property with v.object / v.strictObject, or use v.looseObject",
                    ));
                }
                js.insert("type".into(), "object".into());
                let mut props = Map::new();
                let mut required = Vec::new();
                for (key, entry) in entries {
                    let sub = self.sub(entry)?;
                    props.insert(key.clone(), sub);
                    if !matches!(entry.kind.type_name(), "exact_optional" | "nullish" | "optional") {
                        required.push(Json::String(key.clone()));
                    }
                }
                js.insert("properties".into(), Json::Object(props));
                js.insert("required".into(), Json::Array(required));
                if let ObjectMode::Strict = mode {
                    js.insert("additionalProperties".into(), Json::Bool(false));
                }
            }
            Kind::Any | Kind::Unknown => {}
            Kind::Never => {
                return Err(refuse(
                    s.span,
                    "v.never()",
                    "v.never() converts to `not: {}`, outside the supported subset",
                    "leave the key out of the object (v.strictObject refuses unknown keys)",
                ))
            }
            Kind::Wrap { ty, wrapped, default } => {
                if matches!(*ty, "nullable" | "nullish") {
                    let inner = self.sub(wrapped)?;
                    js.insert("anyOf".into(), Json::Array(vec![inner, serde_json::json!({ "type": "null" })]));
                } else {
                    self.schema(js, wrapped, false)?;
                }
                if let Some(d) = default {
                    js.insert("default".into(), d.clone());
                }
            }
            Kind::Literal(lit) => match lit {
                Some(v) if is_json_const(v) => {
                    js.insert("const".into(), v.clone());
                }
                _ => {
                    return Err(refuse(
                        s.span,
                        "v.literal",
                        "The value of the \"literal\" schema is not JSON compatible.",
                        "use a string, finite number or boolean literal",
                    ))
                }
            },
            Kind::Options { ty, options } => {
                let ok = options.as_ref().filter(|o| o.iter().all(|v| matches!(v, Json::String(_) | Json::Number(_))));
                let Some(options) = ok else {
                    return Err(refuse(
                        s.span,
                        format!("v.{}", if *ty == "enum" { "enum" } else { "picklist" }),
                        format!("An option of the \"{ty}\" schema is not JSON compatible."),
                        "use string or finite number options",
                    ));
                };
                js.insert("enum".into(), Json::Array(options.clone()));
                if options.iter().all(Json::is_string) {
                    js.insert("type".into(), "string".into());
                } else if options.iter().all(Json::is_number) {
                    js.insert("type".into(), "number".into());
                } else {
                    js.insert("type".into(), serde_json::json!(["string", "number"]));
                }
            }
            Kind::Union(options) => {
                let mut any = Vec::new();
                for o in options {
                    any.push(self.sub(o)?);
                }
                js.insert("anyOf".into(), Json::Array(any));
            }
            Kind::Lazy(thunk) => {
                let target = match self.getters.iter().find(|(t, _)| Arc::ptr_eq(t, thunk)) {
                    Some((_, s)) => s.clone(),
                    None => {
                        let s = (self.resolve)(thunk)?;
                        self.getters.push((thunk.clone(), s.clone()));
                        s
                    }
                };
                let id = match self.ref_of(&target) {
                    Some(id) => id,
                    None => {
                        let mut n = self.count;
                        while self.refs.iter().any(|(_, id)| *id == n.to_string())
                            || self.defs.contains_key(&n.to_string())
                        {
                            n += 1;
                        }
                        self.count = n + 1;
                        let id = n.to_string();
                        self.refs.push((target.clone(), id.clone()));
                        let mut def = Map::new();
                        self.schema(&mut def, &target, true)?;
                        self.defs.insert(id.clone(), Json::Object(def));
                        id
                    }
                };
                js.insert("$ref".into(), def_ref(&id));
            }
            Kind::Other { ty, message, help } => {
                return Err(refuse(s.span, format!("v.{}", camel(ty)), *message, *help));
            }
        }
        Ok(())
    }

    fn action(&mut self, js: &mut Map<String, Json>, a: &Arc<Action>) -> Result<(), Refusal> {
        let ty = a.ty.as_str();
        let name = format!("v.{}()", a.name);
        let err = |message: String, help: &str| Err(refuse(a.span, name.clone(), message, help));
        let one_regex = "combine the checks into one v.regex(...)";
        match (ty, &a.req) {
            (
                "bic" | "cuid2" | "decimal" | "digits" | "hexadecimal" | "hex_color" | "ksuid" | "nanoid" | "octal"
                | "slug" | "ulid",
                Req::Regex { source, .. },
            ) => {
                if js.contains_key("pattern") {
                    return err(
                        format!("The \"{ty}\" action is not supported in combination with another regex action."),
                        one_regex,
                    );
                }
                js.insert("pattern".into(), Json::String(source.clone()));
            }
            ("description", Req::Str(d)) => {
                js.insert("description".into(), Json::String(d.clone()));
            }
            ("title", Req::Str(t)) => {
                js.insert("title".into(), Json::String(t.clone()));
            }
            ("email" | "rfc_email", _) => {
                js.insert("format".into(), "email".into());
            }
            ("url", _) => {
                js.insert("format".into(), "uri".into());
            }
            ("uuid", _) => {
                js.insert("format".into(), "uuid".into());
            }
            ("iso_date", _) => {
                js.insert("format".into(), "date".into());
            }
            ("iso_date_time" | "iso_timestamp", _) => {
                js.insert("format".into(), "date-time".into());
            }
            ("ipv4" | "ipv6" | "iso_time", _) => {
                let format = if ty == "iso_time" { "time" } else { ty };
                return err(
                    format!("{name} converts to `format: \"{format}\"`, which the supported subset does not have"),
                    "use v.regex(...) with the pattern you need, or a supported format: v.email(), v.url(), v.uuid(), v.isoDate(), v.isoDateTime()",
                );
            }
            ("ends_with" | "starts_with" | "includes", Req::Str(s)) => {
                if js.contains_key("pattern") {
                    return err(
                        format!("The \"{ty}\" action is not supported in combination with another regex action."),
                        one_regex,
                    );
                }
                let e = escape_regexp(s);
                let p = match ty {
                    "ends_with" => format!("{e}$"),
                    "starts_with" => format!("^{e}"),
                    _ => e,
                };
                js.insert("pattern".into(), Json::String(p));
            }
            ("empty", _) => {
                if type_str(js) == "array" {
                    js.insert("maxItems".into(), num(0.0));
                } else {
                    if type_str(js) != "string" {
                        return err(
                            format!("The \"empty\" action is not supported on type \"{}\".", type_str(js)),
                            "use it on a string or an array",
                        );
                    }
                    js.insert("maxLength".into(), num(0.0));
                }
            }
            ("examples", Req::Examples(ex)) | ("metadata", Req::Examples(ex)) => {
                let mut all = match js.get("examples") {
                    Some(Json::Array(cur)) => cur.clone(),
                    _ => Vec::new(),
                };
                all.extend(ex.iter().cloned());
                js.insert("examples".into(), Json::Array(all));
            }
            ("metadata", Req::Metadata(entries)) => {
                for (k, v) in entries {
                    match k.as_str() {
                        "title" | "description" => {
                            if v.is_string() {
                                js.insert(k.clone(), v.clone());
                            }
                        }
                        "examples" => {
                            if let Json::Array(ex) = v {
                                let mut all = match js.get("examples") {
                                    Some(Json::Array(cur)) => cur.clone(),
                                    _ => Vec::new(),
                                };
                                all.extend(ex.iter().cloned());
                                js.insert("examples".into(), Json::Array(all));
                            }
                        }
                        "__proto__" => {}
                        _ => {
                            js.insert(k.clone(), v.clone());
                        }
                    }
                }
            }
            ("gt_value" | "lt_value" | "min_value" | "max_value", Req::Num(n)) => {
                let t = type_str(js);
                if t != "number" && t != "integer" {
                    return err(
                        format!("The \"{ty}\" action is not supported on type \"{t}\"."),
                        "use it on v.number() (date and bigint bounds have no JSON Schema)",
                    );
                }
                if !n.is_finite() {
                    return err(
                        format!("The requirement of the \"{ty}\" action is not JSON compatible."),
                        "use a finite number",
                    );
                }
                let (key, v) = match ty {
                    "gt_value" => ("exclusiveMinimum", lower(js, "exclusiveMinimum", *n)),
                    "lt_value" => ("exclusiveMaximum", upper(js, "exclusiveMaximum", *n)),
                    "min_value" => ("minimum", lower(js, "minimum", *n)),
                    _ => ("maximum", upper(js, "maximum", *n)),
                };
                js.insert(key.into(), num(v));
            }
            ("integer", _) => {
                js.insert("type".into(), "integer".into());
            }
            ("safe_integer", _) => {
                js.insert("type".into(), "integer".into());
                let lo = lower(js, "minimum", -9007199254740991.0);
                let hi = upper(js, "maximum", 9007199254740991.0);
                js.insert("minimum".into(), num(lo));
                js.insert("maximum".into(), num(hi));
            }
            ("length" | "min_length" | "max_length", Req::Num(n)) => {
                if n.fract() != 0.0 || *n < 0.0 || !n.is_finite() {
                    return err(
                        format!("The requirement of the \"{ty}\" action must be a non-negative integer."),
                        "use a non-negative integer",
                    );
                }
                let array = type_str(js) == "array";
                if !array && type_str(js) != "string" {
                    return err(
                        format!("The \"{ty}\" action is not supported on type \"{}\".", type_str(js)),
                        "use it on a string or an array",
                    );
                }
                let (min, max) = if array { ("minItems", "maxItems") } else { ("minLength", "maxLength") };
                if ty != "max_length" {
                    let v = lower(js, min, *n);
                    js.insert(min.into(), num(v));
                }
                if ty != "min_length" {
                    let v = upper(js, max, *n);
                    js.insert(max.into(), num(v));
                }
            }
            ("non_empty", _) => {
                let array = type_str(js) == "array";
                if !array && type_str(js) != "string" {
                    return err(
                        format!("The \"non_empty\" action is not supported on type \"{}\".", type_str(js)),
                        "use it on a string or an array",
                    );
                }
                let key = if array { "minItems" } else { "minLength" };
                let v = lower(js, key, 1.0);
                js.insert(key.into(), num(v));
            }
            ("multiple_of", Req::Num(n)) => {
                js.insert("multipleOf".into(), num(*n));
            }
            ("regex", Req::Regex { source, flags }) => {
                if !flags.is_empty() {
                    return err(
                        "RegExp flags are not supported by JSON Schema.".into(),
                        "remove the flags (write the case-insensitive classes out, e.g. [a-zA-Z])",
                    );
                }
                if js.contains_key("pattern") {
                    return err(
                        "The \"regex\" action is not supported in combination with another regex action.".into(),
                        one_regex,
                    );
                }
                js.insert("pattern".into(), Json::String(source.clone()));
            }
            ("value", Req::Value(v)) => {
                let Some(v) = v.as_ref().filter(|v| is_json_const(v)) else {
                    return err(
                        "The requirement of the \"value\" action is not JSON compatible.".into(),
                        "use a string, finite number or boolean",
                    );
                };
                if let Some(c) = js.get("const") {
                    if c != v {
                        return err(
                            "The \"value\" action is not supported in combination with a different \"const\" restriction.".into(),
                            "use one value",
                        );
                    }
                }
                js.insert("const".into(), v.clone());
            }
            ("values", Req::Values(vs)) => {
                let Some(vs) = vs.as_ref().filter(|vs| vs.iter().all(is_json_const)) else {
                    return err(
                        "A requirement of the \"values\" action is not JSON compatible.".into(),
                        "use strings, finite numbers or booleans",
                    );
                };
                let mut values: Vec<Json> = match js.get("enum") {
                    Some(Json::Array(cur)) => cur.iter().filter(|x| vs.contains(x)).cloned().collect(),
                    _ => vs.clone(),
                };
                let mut seen = Vec::new();
                values.retain(|x| {
                    let fresh = !seen.contains(x);
                    seen.push(x.clone());
                    fresh
                });
                if values.is_empty() {
                    return err(
                        "the allowed values are empty, which converts to `not: {}`, outside the supported subset"
                            .into(),
                        "list at least one value the schema accepts",
                    );
                }
                js.insert("enum".into(), Json::Array(values));
            }
            ("not_value" | "not_values", _) => {
                return err(
                    format!("{name} converts to `not`, outside the supported subset"),
                    "list the accepted values with v.picklist([...]) or v.values([...]) instead",
                );
            }
            ("base64", _) => {
                return err(
                    "v.base64() converts to `contentEncoding`, outside the supported subset".into(),
                    "use v.regex(...) with a base64 pattern",
                );
            }
            ("entries" | "min_entries" | "max_entries", _) => {
                return err(
                    format!("{name} converts to `minProperties`/`maxProperties`, outside the supported subset"),
                    "declare the properties with v.object({...})",
                );
            }
            _ => {
                let help = if a.transformation {
                    "transformations run at run time only and the converter refuses them: convert the schema before the transformation, or use `typeMode: \"input\"` when it ends the pipe"
                } else {
                    "remove the action from the pipe, or check it in the handler: only the actions listed in docs/schemas.md convert"
                };
                return err(format!("The \"{ty}\" action cannot be converted to JSON Schema."), help);
            }
        }
        Ok(())
    }
}

/// `escapeRegExp` of the converter.
fn escape_regexp(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if ".*+?^${}()|[]\\".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `snake_case` Valibot type back to the builder's name (`object_with_rest` → `objectWithRest`).
pub fn camel(ty: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for c in ty.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.push(c.to_ascii_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}
