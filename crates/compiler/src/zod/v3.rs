//! zod 3 schemas, statically: zod 3.25's API builds the same schema graph as zod 4
//! ([`crate::zod::model`], nodes marked `v3`), and [`to_json_schema`] turns it into exactly what
//! `zodToJsonSchema(schema)` of zod-to-json-schema 3.25.2 returns (draft-07), normalised to the
//! subset: the root `$schema` (draft-07) is dropped. Proven by the differential test against
//! the real libraries (`crates/compiler/tests/it/zod3_oracle.rs`).
//!
//! zod-to-json-schema silently drops refinements, transforms and preprocessing, emits
//! `$ref: "#/properties/..."` for a schema used twice, and `anyOf: [{ not: {} }, ...]` for an
//! optional outside an object: the evaluator and this module refuse each, naming it.
//!
//! zod 3 and zod 4 share the package name: an import from `"zod"` is zod 3's API when the
//! project's `package.json` declares zod 3 ([`crate::config::Config::zod_major`]); `"zod/v3"`
//! always is, `"zod/v4"` never.

use crate::source::Span;
use crate::zod::emit::Refusal;
use crate::zod::model::{length_bounds, Check, Field, Kind, Targets, ZodId};
use serde_json::{Map, Value as Json};

/// The converter's package and the name of its function.
pub const CONVERTER_PACKAGE: &str = "zod-to-json-schema";
pub const CONVERTER: &str = "zodToJsonSchema";

/// Marks (metadata keys no user can write through zod 3, which has no `.meta()`) of nodes that
/// stand for zod 3 definitions the shared model has no kind for.
pub const WRAP: &str = "~zod3:wrap";
pub const NATIVE_ENUM: &str = "~zod3:nativeEnum";
pub const PASSTHROUGH: &str = "~zod3:passthrough";

/// Whether imports from `source` are zod 3's API in a project that declares zod `major`.
pub fn is_v3_source(source: &str, major: Option<u64>) -> bool {
    source == "zod/v3" || (source == "zod" && major == Some(3))
}

/// zod-to-json-schema's own patterns (`zodPatterns` of 3.25.2) for string checks it writes as a
/// `pattern`.
pub fn check_pattern(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "cuid" => r"^[cC][^\s-]{8,}$",
        "cuid2" => r"^[0-9a-z]+$",
        "ulid" => r"^[0-9A-HJKMNP-TV-Z]{26}$",
        "nanoid" => r"^[a-zA-Z0-9_-]{21}$",
        _ => return None,
    })
}

/// zod-to-json-schema's `escapeNonAlphaNumeric` (its set of letters lacks `w` and `W`, so those
/// are escaped too, to `\w` and `\W`).
pub fn escape_literal(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        let plain = c.is_ascii_alphanumeric() && c != 'w' && c != 'W';
        if !plain {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Why the escaped text of `.startsWith/.endsWith/.includes(text)` misrepresents `text`, if it
/// does: `\w` for `w`, or an escape that is not a valid pattern (`\_`, `\-` under the `u` flag).
pub fn literal_escape_problem(text: &str) -> Option<String> {
    for c in text.chars() {
        if c == 'w' || c == 'W' {
            return Some(format!(
                "zod-to-json-schema escapes the letter `{c}` as `\\{c}`, a character class: the pattern would accept other text"
            ));
        }
        if !c.is_ascii_alphanumeric() && !"^$\\.*+?()[]{}|/".contains(c) {
            return Some(format!(
                "zod-to-json-schema escapes `{c}` as `\\{c}`, which is not a valid pattern with the `u` flag"
            ));
        }
    }
    None
}

/// The conversion's options (`zodToJsonSchema(S, { $refStrategy: "none" })`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// `$refStrategy: "none"`: a schema used twice is inlined at each use.
    pub ref_none: bool,
}

/// `zodToJsonSchema(root, options)` without the root `$schema`.
pub fn to_json_schema(targets: &Targets, root: &ZodId, options: Options) -> Result<Json, Refusal> {
    let mut g = Gen { targets, options, seen: Vec::new() };
    let root_path = vec!["#".to_string()];
    match g.parse(root, &root_path, None)? {
        Some(m) => Ok(Json::Object(m)),
        // zod-to-json-schema returns `{}` (any value) when the root has no schema.
        None => {
            Err(refusal(root.span, "this schema", "zod-to-json-schema emits no schema for it", "describe a JSON value"))
        }
    }
}

fn refusal(span: Span, construct: &str, message: &str, help: &str) -> Refusal {
    Refusal { span, construct: construct.to_string(), message: message.to_string(), help: help.to_string() }
}

pub fn has_mark(n: &ZodId, mark: &str) -> bool {
    n.meta.iter().any(|(k, _)| k == mark)
}

/// zod 3's `description` of a definition: set by `.describe()`, kept by clones (checks, object
/// methods) and copied onto the wrappers a method makes (`.optional()`, `.nullable()`, ...).
pub fn description(n: &ZodId) -> Option<String> {
    match n.meta.iter().rev().find(|(k, _)| k == "description") {
        Some((_, Json::String(s))) => Some(s.clone()),
        _ => n.parent.as_ref().and_then(description),
    }
}

struct Gen<'a> {
    targets: &'a Targets,
    options: Options,
    /// Every definition parsed, with the path it was first parsed at (zod-to-json-schema's
    /// `refs.seen`).
    seen: Vec<(ZodId, Vec<String>)>,
}

type Parsed = Result<Option<Map<String, Json>>, Refusal>;

fn path_with(path: &[String], more: &[&str]) -> Vec<String> {
    let mut p = path.to_vec();
    p.extend(more.iter().map(|s| s.to_string()));
    p
}

impl Gen<'_> {
    fn resolve(&self, f: &Field) -> Option<ZodId> {
        match f {
            Field::Schema(s) => Some(s.clone()),
            Field::Getter(t) => self.targets.get(t).cloned(),
        }
    }

    /// zod-to-json-schema's `parseDef`.
    fn parse(&mut self, n: &ZodId, path: &[String], prop: Option<&[String]>) -> Parsed {
        if let Some(i) = self.seen.iter().position(|(s, _)| s == n) {
            let first = &self.seen[i].1;
            let recursive = first.len() < path.len() && first.iter().zip(path).all(|(a, b)| a == b);
            if recursive {
                return Err(refusal(
                    n.span,
                    "a recursive schema",
                    if self.options.ref_none {
                        "zod-to-json-schema replaces the recursion by `{}` (any value) silently"
                    } else {
                        "zod-to-json-schema emits `$ref` to a path of the document (`#` or `#/properties/...`), outside the subset (only `#/$defs/...`)"
                    },
                    "recursive schemas are not supported with zod 3; declare the nesting levels you need explicitly",
                ));
            }
            if !self.options.ref_none {
                return Err(refusal(
                    n.span,
                    "a schema used twice",
                    &format!(
                        "zod-to-json-schema emits `{{\"$ref\": \"{}\"}}` for the second use, outside the subset (only `#/$defs/...`)",
                        first.join("/")
                    ),
                    "convert with `zodToJsonSchema(S, { $refStrategy: \"none\" })`, which inlines every use",
                ));
            }
            self.seen[i].1 = path.to_vec();
        } else {
            self.seen.push((n.clone(), path.to_vec()));
        }
        let mut json = self.select(n, path, prop)?;
        if let (Some(j), Some(d)) = (json.as_mut(), description(n)) {
            j.insert("description".into(), Json::String(d));
        }
        Ok(json)
    }

    fn select(&mut self, n: &ZodId, path: &[String], prop: Option<&[String]>) -> Parsed {
        if has_mark(n, WRAP) {
            // .brand(), .readonly(): the inner schema at the same place.
            let inner = n.parent.clone().expect("a wrap mark has its inner schema as parent");
            return self.parse(&inner, path, prop);
        }
        let obj = |pairs: Vec<(&str, Json)>| {
            Ok(Some(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect::<Map<String, Json>>()))
        };
        match &n.kind {
            Kind::Unsupported { construct, message, help } => Err(refusal(n.span, construct, message, help)),
            Kind::String => self.string(n).map(Some),
            Kind::Number => Ok(Some(number(n))),
            Kind::Boolean => obj(vec![("type", "boolean".into())]),
            Kind::Null => obj(vec![("type", "null".into())]),
            Kind::Any | Kind::Unknown => Ok(Some(Map::new())),
            Kind::Literal(values) => match values.as_slice() {
                [v @ (Json::String(_) | Json::Number(_) | Json::Bool(_))] => {
                    obj(vec![("type", type_of(v).into()), ("const", v.clone())])
                }
                _ => Err(refusal(
                    n.span,
                    "z.literal(null)",
                    "zod-to-json-schema emits `{\"type\": \"object\"}` for it",
                    "use z.null()",
                )),
            },
            Kind::Enum(values) => {
                let strings = values.iter().all(Json::is_string);
                let numbers = values.iter().all(Json::is_number);
                let ty = match (strings, numbers) {
                    (true, _) => Json::from("string"),
                    (_, true) => Json::from("number"),
                    _ => serde_json::json!(["string", "number"]),
                };
                obj(vec![("type", ty), ("enum", Json::Array(values.clone()))])
            }
            Kind::Array { element } => {
                let mut out = Map::new();
                out.insert("type".into(), "array".into());
                if !matches!(element.kind, Kind::Any) || has_mark(element, WRAP) {
                    if let Some(items) = self.parse(element, &path_with(path, &["items"]), None)? {
                        out.insert("items".into(), Json::Object(items));
                    }
                }
                // zod 3 keeps one value per bound (the last call wins); the exact length last.
                let (mut min, mut max, mut exact) = (None, None, None);
                for c in &n.checks {
                    match c {
                        Check::MinLength(v) => min = Some(*v),
                        Check::MaxLength(v) => max = Some(*v),
                        Check::LengthEquals(v) => exact = Some(*v),
                        _ => {}
                    }
                }
                if let Some(v) = min {
                    out.insert("minItems".into(), num(v));
                }
                if let Some(v) = max {
                    out.insert("maxItems".into(), num(v));
                }
                if let Some(v) = exact {
                    out.insert("minItems".into(), num(v));
                    out.insert("maxItems".into(), num(v));
                }
                Ok(Some(out))
            }
            Kind::Object { shape, catchall: _ } => {
                let mut props = Map::new();
                let mut required = Vec::new();
                for (key, field) in shape {
                    let Some(s) = self.resolve(field) else { continue };
                    let p = path_with(path, &["properties", key]);
                    let optional = self.accepts_undefined(&s, 0);
                    match self.parse(&s, &p, Some(&p))? {
                        Some(j) => {
                            props.insert(key.clone(), Json::Object(j));
                        }
                        None => {
                            return Err(refusal(
                                s.span,
                                &format!("the property `{key}`"),
                                "zod-to-json-schema leaves the property out silently (its schema has no JSON Schema)",
                                "describe the property with a JSON type, or leave it out of the object",
                            ))
                        }
                    }
                    if !optional {
                        required.push(Json::String(key.clone()));
                    }
                }
                let mut out = Map::new();
                out.insert("type".into(), "object".into());
                out.insert("properties".into(), Json::Object(props));
                if !required.is_empty() {
                    out.insert("required".into(), Json::Array(required));
                }
                out.insert("additionalProperties".into(), Json::Bool(has_mark(n, PASSTHROUGH)));
                Ok(Some(out))
            }
            Kind::Union { options } => self.union(options, path, prop),
            Kind::Optional(inner) => {
                if prop == Some(path) {
                    self.parse(inner, path, prop)
                } else {
                    Err(refusal(
                        n.span,
                        ".optional() outside an object property",
                        "zod-to-json-schema emits `anyOf: [{ not: {} }, ...]`, outside the subset",
                        "make the property optional in its z.object, or drop .optional() here",
                    ))
                }
            }
            Kind::Nullable(inner) => {
                if is_plain_primitive(inner) {
                    let t = primitive_type(inner).expect("a primitive");
                    return obj(vec![("type", serde_json::json!([t, "null"]))]);
                }
                match self.parse(inner, &path_with(path, &["anyOf", "0"]), prop)? {
                    Some(base) => obj(vec![(
                        "anyOf",
                        Json::Array(vec![Json::Object(base), serde_json::json!({ "type": "null" })]),
                    )]),
                    None => Ok(None),
                }
            }
            Kind::Default { inner, value } => {
                let mut out = self.parse(inner, path, prop)?.unwrap_or_default();
                out.insert("default".into(), value.clone());
                Ok(Some(out))
            }
            Kind::Catch { inner, .. } => self.parse(inner, path, prop),
            Kind::Lazy(t) => match self.targets.get(t).cloned() {
                Some(target) => self.parse(&target, path, prop),
                None => Err(refusal(n.span, "z.lazy", "its schema was not evaluated", "return a zod schema")),
            },
            Kind::Intersection { .. } => Err(refusal(
                n.span,
                "an intersection",
                "zod-to-json-schema emits `allOf`, outside the subset",
                "merge the objects with .extend(...) or .merge(...)",
            )),
            Kind::Pipe { .. } | Kind::Transform => Err(refusal(
                n.span,
                ".pipe()",
                "zod-to-json-schema emits `allOf` of both sides, outside the subset",
                "validate with the schema of one side",
            )),
            Kind::TemplateLiteral(_) | Kind::ExactOptional(_) | Kind::NonOptional(_) | Kind::Prefault { .. } => {
                Err(refusal(
                    n.span,
                    "a zod 4 construct",
                    "zod 3 has no such schema",
                    "use zod 3's API, or convert zod 4 schemas with z.toJSONSchema",
                ))
            }
        }
    }

    fn union(&mut self, options: &[ZodId], path: &[String], prop: Option<&[String]>) -> Parsed {
        if options.iter().all(is_plain_primitive) {
            let mut types: Vec<&str> = Vec::new();
            for o in options {
                let t = primitive_type(o).expect("a primitive");
                if !types.contains(&t) {
                    types.push(t);
                }
            }
            let ty = if types.len() > 1 { serde_json::json!(types) } else { Json::from(types[0]) };
            return Ok(Some([("type".to_string(), ty)].into_iter().collect()));
        }
        let literal = |o: &ZodId| matches!(o.kind, Kind::Literal(_)) && !has_mark(o, WRAP) && description(o).is_none();
        if options.iter().all(literal) {
            let values: Vec<Json> = options
                .iter()
                .filter_map(|o| if let Kind::Literal(v) = &o.kind { v.first().cloned() } else { None })
                .collect();
            if values.len() == options.len() {
                let mut types: Vec<&str> = Vec::new();
                for v in &values {
                    let t = type_of(v);
                    if !types.contains(&t) {
                        types.push(t);
                    }
                }
                let mut unique: Vec<Json> = Vec::new();
                for v in values {
                    if !unique.contains(&v) {
                        unique.push(v);
                    }
                }
                let ty = if types.len() > 1 { serde_json::json!(types) } else { Json::from(types[0]) };
                return Ok(Some(
                    [("type".to_string(), ty), ("enum".to_string(), Json::Array(unique))].into_iter().collect(),
                ));
            }
        } else if options
            .iter()
            .all(|o| matches!(o.kind, Kind::Enum(_)) && !has_mark(o, WRAP) && !has_mark(o, NATIVE_ENUM))
        {
            let mut all: Vec<Json> = Vec::new();
            for o in options {
                if let Kind::Enum(vs) = &o.kind {
                    for v in vs {
                        if !all.contains(v) {
                            all.push(v.clone());
                        }
                    }
                }
            }
            return Ok(Some(
                [("type".to_string(), Json::from("string")), ("enum".to_string(), Json::Array(all))]
                    .into_iter()
                    .collect(),
            ));
        }
        let mut any_of = Vec::new();
        for (i, o) in options.iter().enumerate() {
            let _ = prop;
            if let Some(j) = self.parse(o, &path_with(path, &["anyOf", &i.to_string()]), prop)? {
                any_of.push(Json::Object(j));
            }
        }
        if any_of.is_empty() {
            return Ok(None);
        }
        Ok(Some([("anyOf".to_string(), Json::Array(any_of))].into_iter().collect()))
    }

    /// zod 3's `isOptional()` (`safeParse(undefined).success`) for the schemas the evaluator
    /// builds.
    fn accepts_undefined(&self, n: &ZodId, depth: u32) -> bool {
        if depth > 64 {
            return false;
        }
        if has_mark(n, WRAP) {
            return n.parent.as_ref().is_some_and(|p| self.accepts_undefined(p, depth + 1));
        }
        match &n.kind {
            Kind::Optional(_) | Kind::Default { .. } | Kind::Catch { .. } | Kind::Any | Kind::Unknown => true,
            Kind::Nullable(i) => self.accepts_undefined(i, depth + 1),
            Kind::Union { options } => options.iter().any(|o| self.accepts_undefined(o, depth + 1)),
            Kind::Intersection { left, right } => {
                self.accepts_undefined(left, depth + 1) && self.accepts_undefined(right, depth + 1)
            }
            Kind::Lazy(t) => self.targets.get(t).is_some_and(|x| self.accepts_undefined(x, depth + 1)),
            _ => false,
        }
    }

    fn string(&self, n: &ZodId) -> Result<Map<String, Json>, Refusal> {
        let mut out = Map::new();
        out.insert("type".into(), "string".into());
        let (min, max) = length_bounds(&n.checks);
        let mut format: Option<&str> = None;
        let mut pattern: Option<String> = None;
        for c in &n.checks {
            if let Check::Format { format: f, pattern: p, .. } = c {
                let as_format = match f.as_str() {
                    "email" => Some("email"),
                    "url" => Some("uri"),
                    "uuid" => Some("uuid"),
                    "datetime" => Some("date-time"),
                    "date" => Some("date"),
                    _ => None,
                };
                match as_format {
                    Some(fmt) => {
                        if let Some(prev) = format {
                            return Err(refusal(
                                    n.span,
                                    "two string formats",
                                    &format!("zod-to-json-schema emits `anyOf` of the formats {prev} and {fmt}, so a value needs only one of them"),
                                    "keep one format check",
                                ));
                        }
                        format = Some(fmt);
                    }
                    None => {
                        let source = p.as_ref().map(|r| r.source.clone()).unwrap_or_default();
                        if pattern.is_some() {
                            return Err(refusal(
                                n.span,
                                "two patterns",
                                "zod-to-json-schema emits `allOf` of the patterns, outside the subset",
                                "combine the conditions into one .regex(...)",
                            ));
                        }
                        pattern = Some(source);
                    }
                }
            }
        }
        if let Some(v) = min {
            out.insert("minLength".into(), num(v));
        }
        if let Some(v) = max {
            out.insert("maxLength".into(), num(v));
        }
        if let Some(f) = format {
            out.insert("format".into(), f.into());
        }
        if let Some(p) = pattern {
            out.insert("pattern".into(), p.into());
        }
        Ok(out)
    }
}

fn number(n: &ZodId) -> Map<String, Json> {
    let mut out = Map::new();
    out.insert("type".into(), "number".into());
    for c in &n.checks {
        match c {
            Check::NumberFormat(_) => {
                out.insert("type".into(), "integer".into());
            }
            Check::GreaterThan { value, inclusive } => {
                out.insert(if *inclusive { "minimum" } else { "exclusiveMinimum" }.into(), num(*value));
            }
            Check::LessThan { value, inclusive } => {
                out.insert(if *inclusive { "maximum" } else { "exclusiveMaximum" }.into(), num(*value));
            }
            Check::MultipleOf(v) => {
                out.insert("multipleOf".into(), num(*v));
            }
            _ => {}
        }
    }
    out
}

fn num(v: f64) -> Json {
    crate::numbers::json_number(v).unwrap_or(Json::Null)
}

fn type_of(v: &Json) -> &'static str {
    match v {
        Json::String(_) => "string",
        Json::Number(_) => "number",
        Json::Bool(_) => "boolean",
        Json::Null => "null",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

/// A string, number, boolean or null schema without checks (zod-to-json-schema folds these
/// into `type` arrays).
fn is_plain_primitive(n: &ZodId) -> bool {
    !has_mark(n, WRAP) && n.checks.is_empty() && primitive_type(n).is_some()
}

fn primitive_type(n: &ZodId) -> Option<&'static str> {
    Some(match n.kind {
        Kind::String => "string",
        Kind::Number => "number",
        Kind::Boolean => "boolean",
        Kind::Null => "null",
        _ => return None,
    })
}
