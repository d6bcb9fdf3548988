//! The supported JSON Schema subset (spec: "Supported JSON Schema subset").
//!
//! Agents and LLM tool-calling stacks handle only a subset of draft 2020-12 reliably, so every
//! schema that crosses the agent boundary is checked against it at compile and registration
//! time. The checker reports every violation (not just the first) with a pointer, so the
//! compiler can map each one back to a source span.

use crate::canonical::canonical_json;
use crate::pattern::{compile_pattern, PatternFailure};
use crate::SchemaLimits;
use serde_json::Value;
use std::collections::HashSet;
use std::fmt;

/// Values `format` may take.
pub const SUPPORTED_FORMATS: &[&str] = &["date-time", "date", "uuid", "email", "uri"];

/// Every keyword the subset accepts; anything else is refused.
pub const SUPPORTED_KEYWORDS: &[&str] = &[
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "anyOf",
    "$defs",
    "$ref",
    "$schema",
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
];

/// The seven JSON Schema type names.
pub const TYPE_NAMES: &[&str] = &["object", "array", "string", "number", "integer", "boolean", "null"];

/// The only dialect accepted in a root `$schema` (a trailing `#` is tolerated).
pub const SCHEMA_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// Prefix of the only `$ref` form supported.
pub const LOCAL_REF_PREFIX: &str = "#/$defs/";

/// What is wrong; the message and help carry the human wording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaViolationKind {
    UnsupportedKeyword {
        keyword: String,
    },
    InvalidKeywordValue {
        keyword: String,
        expected: String,
    },
    /// A schema position holds something other than a JSON object (boolean schemas included).
    NotASchema,
    AdditionalPropertiesNotBoolean,
    UnsupportedFormat {
        format: String,
    },
    /// A `$ref` other than `#/$defs/<name>`.
    RefNotLocal {
        reference: String,
    },
    /// `#/$defs/<name>` with no such definition at the root.
    RefUnresolved,
    DefsNotAtRoot,
    TooDeep {
        depth: usize,
        max: usize,
    },
    TooLarge {
        bytes: usize,
        max: usize,
    },
    InvalidPattern {
        pattern: String,
        error: String,
    },
    TypeUnknown {
        name: String,
    },
}

/// One violation. `pointer` holds the path segments from the schema root to the offending
/// keyword or value (empty for the root itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaViolation {
    pub pointer: Vec<String>,
    pub kind: SchemaViolationKind,
    pub message: String,
    pub help: Option<String>,
}

impl SchemaViolation {
    /// RFC 6901 JSON Pointer text of `pointer` (`/properties/a~1b`).
    pub fn json_pointer(&self) -> String {
        json_pointer(&self.pointer)
    }
}

impl fmt::Display for SchemaViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SchemaViolation {}

/// RFC 6901 JSON Pointer text of path segments (`~` → `~0`, `/` → `~1`).
pub fn json_pointer(segments: &[String]) -> String {
    let mut out = String::new();
    for s in segments {
        out.push('/');
        out.push_str(&s.replace('~', "~0").replace('/', "~1"));
    }
    out
}

/// Checks `schema` against the supported subset and the size/depth limits. Returns every
/// violation in document order; an empty vector means the schema is accepted.
pub fn check_schema(schema: &Value, limits: impl Into<SchemaLimits>) -> Vec<SchemaViolation> {
    let limits: SchemaLimits = limits.into();
    let mut c = Checker { root: schema, limits, out: Vec::new() };
    let bytes = canonical_json(schema).len();
    if bytes > limits.max_schema_bytes {
        c.push(
            &[],
            SchemaViolationKind::TooLarge { bytes, max: limits.max_schema_bytes },
            format!("schema is {bytes} bytes as canonical JSON; at most {} are allowed", limits.max_schema_bytes),
            Some("split the capability, shorten descriptions, or move repeated parts into $defs".into()),
        );
    }
    let mut ptr = Vec::new();
    c.walk(schema, &mut ptr, 1);
    c.out
}

struct Checker<'a> {
    root: &'a Value,
    limits: SchemaLimits,
    out: Vec<SchemaViolation>,
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn is_non_negative_integer(v: &Value) -> bool {
    match v {
        Value::Number(n) => {
            n.as_u64().is_some() || n.as_f64().is_some_and(|f| f.is_finite() && f >= 0.0 && f.fract() == 0.0)
        }
        _ => false,
    }
}

/// Help for a keyword outside the subset, naming the supported alternative where one exists.
fn unsupported_help(keyword: &str) -> String {
    match keyword {
        "oneOf" => "use anyOf; for a discriminated union give every branch a const-tagged \
                    property (zod: z.union of objects with z.literal tags instead of \
                    z.discriminatedUnion)"
            .into(),
        "allOf" => "merge the parts into one object schema (zod: .extend() instead of .and() \
                    or z.intersection)"
            .into(),
        "not" => "express the constraint positively (enum, anyOf) or check it in a precondition".into(),
        "if" | "then" | "else" => {
            "use anyOf with const-tagged branches, or check the condition in a precondition".into()
        }
        "patternProperties" | "propertyNames" => "list the allowed keys explicitly under \
                                                  properties (zod: z.object instead of z.record)"
            .into(),
        "dependentRequired" | "dependentSchemas" | "dependencies" => "use anyOf with const-tagged branches".into(),
        "unevaluatedProperties" => "use additionalProperties: false".into(),
        "unevaluatedItems" | "additionalItems" => "use a single items schema".into(),
        "prefixItems" => "tuples are not supported: use an object with named properties, or an \
                          array with a single items schema (zod: z.object instead of z.tuple)"
            .into(),
        "contains" | "minContains" | "maxContains" => "check it in a precondition; describe it in description".into(),
        "minProperties" | "maxProperties" => {
            "list the properties explicitly and mark the needed ones as required".into()
        }
        "definitions" => "use $defs at the schema root and \"$ref\": \"#/$defs/<name>\"".into(),
        "$id" | "id" | "$anchor" | "$dynamicRef" | "$dynamicAnchor" | "$recursiveRef" | "$recursiveAnchor"
        | "$vocabulary" => "put shared schemas in the root $defs and use \"$ref\": \"#/$defs/<name>\"".into(),
        "contentEncoding" | "contentMediaType" | "contentSchema" => {
            "binary values are unsupported; send a string such as a URL or an id".into()
        }
        "nullable" => "use a type array such as [\"string\", \"null\"] (nullable is OpenAPI, \
                       not JSON Schema)"
            .into(),
        "readOnly" | "writeOnly" | "$comment" => "remove it; the supported annotations are \
                                                  description, title, default, examples and \
                                                  deprecated"
            .into(),
        _ => format!("supported keywords: {}", SUPPORTED_KEYWORDS.join(", ")),
    }
}

impl Checker<'_> {
    fn push(&mut self, ptr: &[String], kind: SchemaViolationKind, message: String, help: Option<String>) {
        self.out.push(SchemaViolation { pointer: ptr.to_vec(), kind, message, help });
    }

    fn invalid(&mut self, ptr: &[String], keyword: &str, expected: &str, help: Option<String>) {
        self.push(
            ptr,
            SchemaViolationKind::InvalidKeywordValue { keyword: keyword.to_string(), expected: expected.to_string() },
            format!("\"{keyword}\" must be {expected}"),
            help,
        );
    }

    /// Checks the subschema at `ptr`; `level` is 1 for the root.
    fn walk(&mut self, schema: &Value, ptr: &mut Vec<String>, level: usize) {
        let obj = match schema {
            Value::Object(m) => m,
            Value::Bool(b) => {
                self.push(
                    ptr,
                    SchemaViolationKind::NotASchema,
                    format!("boolean schema `{b}` is not supported; a schema must be a JSON object"),
                    Some(if *b {
                        "use {} to accept any value".into()
                    } else {
                        "remove the property or array instead of forbidding it with false".into()
                    }),
                );
                return;
            }
            other => {
                self.push(
                    ptr,
                    SchemaViolationKind::NotASchema,
                    format!("a schema must be a JSON object, found {}", type_name(other)),
                    None,
                );
                return;
            }
        };
        let max = self.limits.max_schema_depth;
        if level > max {
            self.push(
                ptr,
                SchemaViolationKind::TooDeep { depth: level, max },
                format!(
                    "schema is nested {level} levels deep here; at most {max} are allowed \
                     (the root schema is level 1)"
                ),
                Some("flatten the structure".into()),
            );
            return;
        }
        let is_root = ptr.is_empty();
        for (key, value) in obj {
            ptr.push(key.clone());
            self.keyword(key, value, ptr, level, is_root);
            ptr.pop();
        }
    }

    fn walk_child(&mut self, schema: &Value, ptr: &mut Vec<String>, seg: String, level: usize) {
        ptr.push(seg);
        self.walk(schema, ptr, level + 1);
        ptr.pop();
    }

    /// `ptr` already ends with `key`.
    fn keyword(&mut self, key: &str, value: &Value, ptr: &mut Vec<String>, level: usize, is_root: bool) {
        match key {
            "type" => self.check_type(value, ptr),
            "enum" => match value {
                Value::Array(a) if !a.is_empty() => {}
                _ => self.invalid(ptr, key, "a non-empty array", None),
            },
            "const" | "default" => {}
            "description" | "title" => {
                if !value.is_string() {
                    self.invalid(ptr, key, "a string", None);
                }
            }
            "examples" => {
                if !value.is_array() {
                    self.invalid(ptr, key, "an array", None);
                }
            }
            "deprecated" | "uniqueItems" => {
                if !value.is_boolean() {
                    self.invalid(ptr, key, "a boolean", None);
                }
            }
            "properties" => match value {
                Value::Object(props) => {
                    for (name, sub) in props {
                        self.walk_child(sub, ptr, name.clone(), level);
                    }
                }
                _ => self.invalid(ptr, key, "an object mapping property names to schemas", None),
            },
            "required" => self.check_required(value, ptr),
            "additionalProperties" => {
                if !value.is_boolean() {
                    self.push(
                        ptr,
                        SchemaViolationKind::AdditionalPropertiesNotBoolean,
                        format!(
                            "\"additionalProperties\" must be true or false, found {}",
                            if value.is_object() { "a schema" } else { type_name(value) }
                        ),
                        Some(
                            "list every allowed key under properties and set additionalProperties \
                             to false (zod: z.object instead of z.record, .catchall() or \
                             .passthrough())"
                                .into(),
                        ),
                    );
                }
            }
            "items" => {
                if value.is_array() {
                    self.invalid(
                        ptr,
                        key,
                        "a single schema",
                        Some(
                            "tuples are not supported: use an object with named properties \
                             (zod: z.object instead of z.tuple)"
                                .into(),
                        ),
                    );
                } else {
                    self.walk(value, ptr, level + 1);
                }
            }
            "minItems" | "maxItems" | "minLength" | "maxLength" => {
                if !is_non_negative_integer(value) {
                    self.invalid(ptr, key, "a non-negative integer", None);
                }
            }
            "pattern" => match value {
                Value::String(p) => match compile_pattern(p) {
                    Ok(_) => {}
                    Err(PatternFailure::Invalid(error)) => {
                        let message = format!("\"pattern\" is not a valid ECMAScript regular expression: {error}");
                        self.push(
                                ptr,
                                SchemaViolationKind::InvalidPattern { pattern: p.clone(), error },
                                message,
                                Some("patterns use ECMAScript syntax in unicode mode (the `u` flag JSON Schema validators use): escape a literal `]`, `}` or `{`, and escape only punctuation".into()),
                            );
                    }
                    Err(failure @ PatternFailure::NoEngine) => {
                        let error = failure.text();
                        self.push(
                                ptr,
                                SchemaViolationKind::InvalidPattern { pattern: p.clone(), error: error.clone() },
                                format!("\"pattern\" cannot be checked: {error}"),
                                Some("build agent-surface-schema with its `regress` feature, or install the host's ECMAScript engine with pattern::set_pattern_engine before checking schemas".into()),
                            );
                    }
                },
                _ => self.invalid(ptr, key, "a string", None),
            },
            "format" => match value {
                Value::String(f) if SUPPORTED_FORMATS.contains(&f.as_str()) => {}
                Value::String(f) => self.push(
                    ptr,
                    SchemaViolationKind::UnsupportedFormat { format: f.clone() },
                    format!("format \"{f}\" is not supported"),
                    Some(format!(
                        "supported formats: {}; otherwise use pattern, or describe the format in \
                         description",
                        SUPPORTED_FORMATS.join(", ")
                    )),
                ),
                _ => self.invalid(ptr, key, "a string", None),
            },
            "minimum" | "maximum" => {
                if !value.is_number() {
                    self.invalid(ptr, key, "a number", None);
                }
            }
            "exclusiveMinimum" | "exclusiveMaximum" => {
                if !value.is_number() {
                    let help = value.is_boolean().then(|| {
                        let bound = if key == "exclusiveMinimum" { "minimum" } else { "maximum" };
                        format!(
                            "the boolean draft-04 form is not supported; write \"{key}\": <number> \
                             instead of \"{bound}\" + \"{key}\": true"
                        )
                    });
                    self.invalid(ptr, key, "a number", help);
                }
            }
            "multipleOf" => {
                if !value.as_f64().is_some_and(|f| f > 0.0) {
                    self.invalid(ptr, key, "a number greater than 0", None);
                }
            }
            "anyOf" => match value {
                Value::Array(items) if !items.is_empty() => {
                    for (i, sub) in items.iter().enumerate() {
                        self.walk_child(sub, ptr, i.to_string(), level);
                    }
                }
                _ => self.invalid(ptr, key, "a non-empty array of schemas", None),
            },
            "$defs" => {
                if !is_root {
                    self.push(
                        ptr,
                        SchemaViolationKind::DefsNotAtRoot,
                        "\"$defs\" is only allowed at the schema root".into(),
                        Some(
                            "move the definitions to the root schema's $defs and reference them \
                             with \"$ref\": \"#/$defs/<name>\""
                                .into(),
                        ),
                    );
                    return;
                }
                match value {
                    Value::Object(defs) => {
                        for (name, sub) in defs {
                            self.walk_child(sub, ptr, name.clone(), level);
                        }
                    }
                    _ => self.invalid(ptr, key, "an object mapping names to schemas", None),
                }
            }
            "$ref" => self.check_ref(value, ptr),
            "$schema" => {
                if !is_root {
                    self.push(
                        ptr,
                        SchemaViolationKind::UnsupportedKeyword { keyword: key.into() },
                        "\"$schema\" is only allowed at the schema root".into(),
                        Some("remove it from this subschema".into()),
                    );
                    return;
                }
                let ok =
                    value.as_str().is_some_and(|s| s == SCHEMA_DIALECT || s.strip_suffix('#') == Some(SCHEMA_DIALECT));
                if !ok {
                    self.invalid(
                        ptr,
                        key,
                        &format!("\"{SCHEMA_DIALECT}\""),
                        Some(
                            "the supported subset is JSON Schema draft 2020-12 (zod: \
                             z.toJSONSchema's default target)"
                                .into(),
                        ),
                    );
                }
            }
            other => self.push(
                ptr,
                SchemaViolationKind::UnsupportedKeyword { keyword: other.to_string() },
                format!("unsupported keyword \"{other}\""),
                Some(unsupported_help(other)),
            ),
        }
    }

    fn check_type(&mut self, value: &Value, ptr: &mut Vec<String>) {
        let expected = "a type name or a non-empty array of type names";
        match value {
            Value::String(name) => self.check_type_name(name, ptr),
            Value::Array(items) if !items.is_empty() => {
                let mut seen = HashSet::new();
                for (i, item) in items.iter().enumerate() {
                    ptr.push(i.to_string());
                    match item {
                        Value::String(name) => {
                            if !seen.insert(name.as_str()) {
                                self.invalid(ptr, "type", "an array of distinct type names", None);
                            } else {
                                self.check_type_name(name, ptr);
                            }
                        }
                        _ => self.invalid(ptr, "type", expected, None),
                    }
                    ptr.pop();
                }
            }
            _ => self.invalid(ptr, "type", expected, None),
        }
    }

    fn check_type_name(&mut self, name: &str, ptr: &[String]) {
        if !TYPE_NAMES.contains(&name) {
            self.push(
                ptr,
                SchemaViolationKind::TypeUnknown { name: name.to_string() },
                format!("unknown type \"{name}\""),
                Some(format!("type names: {}", TYPE_NAMES.join(", "))),
            );
        }
    }

    fn check_required(&mut self, value: &Value, ptr: &mut Vec<String>) {
        let Value::Array(items) = value else {
            self.invalid(ptr, "required", "an array of property names", None);
            return;
        };
        let mut seen = HashSet::new();
        for (i, item) in items.iter().enumerate() {
            ptr.push(i.to_string());
            match item {
                Value::String(s) if !seen.insert(s.as_str()) => {
                    self.invalid(ptr, "required", "an array of distinct property names", None)
                }
                Value::String(_) => {}
                _ => self.invalid(ptr, "required", "an array of property names", None),
            }
            ptr.pop();
        }
    }

    fn check_ref(&mut self, value: &Value, ptr: &[String]) {
        let Value::String(reference) = value else {
            self.invalid(ptr, "$ref", "a string of the form \"#/$defs/<name>\"", None);
            return;
        };
        let name = reference
            .strip_prefix(LOCAL_REF_PREFIX)
            .filter(|n| !n.is_empty() && !n.contains('/'))
            .map(|n| n.replace("~1", "/").replace("~0", "~"));
        let Some(name) = name else {
            self.push(
                ptr,
                SchemaViolationKind::RefNotLocal { reference: reference.clone() },
                format!("\"$ref\": \"{reference}\" is not supported; only \"#/$defs/<name>\" references are"),
                Some("put the referenced schema in the root $defs (remote references are refused)".into()),
            );
            return;
        };
        let resolved = self.root.get("$defs").and_then(Value::as_object).is_some_and(|defs| defs.contains_key(&name));
        if !resolved {
            self.push(
                ptr,
                SchemaViolationKind::RefUnresolved,
                format!("\"$ref\": \"{reference}\" does not resolve: the root $defs has no \"{name}\""),
                Some(format!("add \"{name}\" to the root schema's $defs")),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use SchemaViolationKind as K;

    fn check(v: Value) -> Vec<SchemaViolation> {
        check_schema(&v, &SchemaLimits::default())
    }

    fn ptr(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    fn one(v: Value) -> SchemaViolation {
        let mut vs = check(v);
        assert_eq!(vs.len(), 1, "expected exactly one violation, got {vs:#?}");
        vs.remove(0)
    }

    #[test]
    fn accepts_typical_zod_output() {
        let s = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "description": "Select rows",
            "properties": {
                "ids": {"type": "array", "items": {"type": "string", "format": "uuid"},
                        "minItems": 1, "maxItems": 100, "uniqueItems": true,
                        "description": "Device ids to select"},
                "mode": {"default": "replace", "type": "string", "enum": ["replace", "add", "remove"]},
                "note": {"type": ["string", "null"], "minLength": 0, "maxLength": 200,
                         "pattern": "^[a-z]+(?:-[a-z]+)*$"},
                "count": {"type": "integer", "minimum": 0, "exclusiveMaximum": 10, "multipleOf": 2},
                "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1.5},
                "when": {"type": "string", "format": "date-time", "examples": ["2024-01-01T00:00:00Z"]},
                "kind": {"anyOf": [
                    {"type": "object", "properties": {"tag": {"const": "a"}}, "required": ["tag"],
                     "additionalProperties": false},
                    {"$ref": "#/$defs/b"}
                ]},
                "old": {"deprecated": true, "title": "Old"}
            },
            "required": ["ids", "mode"],
            "additionalProperties": false,
            "$defs": {"b": {"type": "object", "properties": {"tag": {"const": "b"}}}}
        });
        assert_eq!(check(s), vec![]);
        assert_eq!(check(json!({})), vec![]);
        // A trailing '#' on the dialect is tolerated; 1.0 counts as an integer.
        assert_eq!(check(json!({"$schema": format!("{SCHEMA_DIALECT}#"), "minItems": 1.0})), vec![]);
    }

    #[test]
    fn unsupported_keywords_name_the_alternative() {
        let v = one(json!({"oneOf": [{"type": "string"}]}));
        assert_eq!(v.kind, K::UnsupportedKeyword { keyword: "oneOf".into() });
        assert_eq!(v.pointer, ptr(&["oneOf"]));
        assert!(v.help.as_deref().unwrap().starts_with("use anyOf"));
        assert_eq!(v.message, "unsupported keyword \"oneOf\"");

        for (kw, help_part) in [
            ("allOf", "merge"),
            ("not", "positively"),
            ("if", "anyOf"),
            ("patternProperties", "properties"),
            ("prefixItems", "tuples"),
            ("unevaluatedProperties", "additionalProperties: false"),
            ("definitions", "$defs"),
            ("dependentRequired", "anyOf"),
            ("nullable", "type array"),
            ("minProperties", "properties"),
            ("frobnicate", "supported keywords:"),
        ] {
            let v = one(json!({ kw: {} }));
            assert_eq!(v.kind, K::UnsupportedKeyword { keyword: kw.into() });
            assert!(v.help.as_deref().unwrap().contains(help_part), "{kw}: {:?}", v.help);
        }
        // Every supported keyword is actually accepted somewhere (no drift with the list).
        for kw in SUPPORTED_KEYWORDS {
            assert!(
                check(json!({ *kw: 1 })).iter().all(|v| v.kind != K::UnsupportedKeyword { keyword: kw.to_string() }),
                "{kw}"
            );
        }
    }

    #[test]
    fn not_a_schema() {
        let v = one(json!(true));
        assert_eq!((v.kind, v.pointer), (K::NotASchema, vec![]));
        let v = one(json!([]));
        assert_eq!(v.kind, K::NotASchema);
        assert!(v.message.contains("found array"));
        let v = one(json!({"properties": {"a": false}}));
        assert_eq!((v.kind, v.pointer), (K::NotASchema, ptr(&["properties", "a"])));
        let v = one(json!({"items": true}));
        assert_eq!((v.kind, v.pointer), (K::NotASchema, ptr(&["items"])));
        let v = one(json!({"anyOf": [{}, 3]}));
        assert_eq!((v.kind, v.pointer), (K::NotASchema, ptr(&["anyOf", "1"])));
    }

    #[test]
    fn additional_properties_must_be_boolean() {
        assert_eq!(check(json!({"additionalProperties": true})), vec![]);
        let v = one(json!({"additionalProperties": {"type": "string"}}));
        assert_eq!((v.kind, v.pointer), (K::AdditionalPropertiesNotBoolean, ptr(&["additionalProperties"])));
        assert!(v.help.unwrap().contains("z.record"));
        assert_eq!(one(json!({"additionalProperties": {}})).kind, K::AdditionalPropertiesNotBoolean);
        assert_eq!(one(json!({"additionalProperties": "no"})).kind, K::AdditionalPropertiesNotBoolean);
    }

    #[test]
    fn formats() {
        for f in SUPPORTED_FORMATS {
            assert_eq!(check(json!({"type": "string", "format": f})), vec![]);
        }
        let v = one(json!({"properties": {"x": {"format": "ipv4"}}}));
        assert_eq!(v.kind, K::UnsupportedFormat { format: "ipv4".into() });
        assert_eq!(v.pointer, ptr(&["properties", "x", "format"]));
        assert!(v.help.unwrap().contains("date-time, date, uuid, email, uri"));
        assert_eq!(
            one(json!({"format": 1})).kind,
            K::InvalidKeywordValue { keyword: "format".into(), expected: "a string".into() }
        );
    }

    #[test]
    fn refs() {
        let v = one(json!({"$ref": "https://example.com/s.json"}));
        assert_eq!(v.kind, K::RefNotLocal { reference: "https://example.com/s.json".into() });
        assert_eq!(v.pointer, ptr(&["$ref"]));
        for r in ["#/definitions/a", "#/$defs/", "#/$defs/a/properties/b", "#", "other.json#/$defs/a"] {
            assert!(matches!(one(json!({"$ref": r})).kind, K::RefNotLocal { .. }), "{r}");
        }
        let v = one(json!({"properties": {"a": {"$ref": "#/$defs/missing"}}, "$defs": {"b": {}}}));
        assert_eq!((v.kind, v.pointer), (K::RefUnresolved, ptr(&["properties", "a", "$ref"])));
        assert!(v.message.contains("\"missing\""));
        assert_eq!(one(json!({"$ref": "#/$defs/a"})).kind, K::RefUnresolved);
        // JSON pointer escapes in the name are decoded; recursive refs are fine.
        assert_eq!(check(json!({"$ref": "#/$defs/a~1b", "$defs": {"a/b": {"$ref": "#/$defs/a~1b"}}})), vec![]);
        assert!(matches!(one(json!({"$ref": 1})).kind, K::InvalidKeywordValue { .. }));
    }

    #[test]
    fn defs_and_schema_only_at_root() {
        let v = one(json!({"properties": {"a": {"$defs": {"x": {}}}}}));
        assert_eq!((v.kind, v.pointer), (K::DefsNotAtRoot, ptr(&["properties", "a", "$defs"])));
        let v = one(json!({"items": {"$schema": SCHEMA_DIALECT}}));
        assert_eq!(v.kind, K::UnsupportedKeyword { keyword: "$schema".into() });
        assert_eq!(v.pointer, ptr(&["items", "$schema"]));
        let v = one(json!({"$schema": "http://json-schema.org/draft-07/schema#"}));
        assert!(matches!(v.kind, K::InvalidKeywordValue { ref keyword, .. } if keyword == "$schema"));
        // Definitions themselves are checked.
        let v = one(json!({"$defs": {"x": {"oneOf": []}}}));
        assert_eq!(v.pointer, ptr(&["$defs", "x", "oneOf"]));
        assert!(matches!(one(json!({"$defs": []})).kind, K::InvalidKeywordValue { .. }));
    }

    fn nested(levels: usize) -> Value {
        // `levels` schemas in total: the root plus levels-1 nested `items`.
        let mut s = json!({"type": "string"});
        for _ in 1..levels {
            s = json!({"type": "array", "items": s});
        }
        s
    }

    #[test]
    fn depth_limit() {
        assert_eq!(check(nested(8)), vec![]);
        let v = one(nested(9));
        assert_eq!(v.kind, K::TooDeep { depth: 9, max: 8 });
        assert_eq!(v.pointer, vec!["items".to_string(); 8]);
        // Reported once per subtree, at the first too-deep level.
        let v = one(nested(12));
        assert_eq!(v.kind, K::TooDeep { depth: 9, max: 8 });
        // Two offending subtrees, two reports; every kind of child adds a level.
        let deep = nested(7);
        let s = json!({"properties": {"a": {"anyOf": [deep.clone()]}, "b": {"items": deep}}});
        let vs = check(s);
        assert_eq!(vs.len(), 2, "{vs:#?}");
        assert!(vs.iter().all(|v| v.kind == K::TooDeep { depth: 9, max: 8 }));
        assert_eq!(vs[0].pointer[..4], ptr(&["properties", "a", "anyOf", "0"])[..]);
        let s = json!({"$defs": {"d": nested(7)}, "$ref": "#/$defs/d"});
        assert_eq!(check(s), vec![]);
        let s = json!({"$defs": {"d": nested(8)}});
        assert_eq!(one(s).kind, K::TooDeep { depth: 9, max: 8 });
        // The limit comes from SchemaLimits.
        let limits = SchemaLimits { max_schema_depth: 2, ..Default::default() };
        assert_eq!(check_schema(&nested(2), &limits), vec![]);
        assert_eq!(check_schema(&nested(3), &limits)[0].kind, K::TooDeep { depth: 3, max: 2 });
    }

    #[test]
    fn size_limit_uses_canonical_bytes() {
        let s = json!({"description": "x".repeat(100)});
        let bytes = canonical_json(&s).len();
        let at = SchemaLimits { max_schema_bytes: bytes, ..Default::default() };
        assert_eq!(check_schema(&s, &at), vec![]);
        let below = SchemaLimits { max_schema_bytes: bytes - 1, ..Default::default() };
        let vs = check_schema(&s, &below);
        assert_eq!(vs.len(), 1);
        assert_eq!(vs[0].kind, K::TooLarge { bytes, max: bytes - 1 });
        assert_eq!(vs[0].pointer, Vec::<String>::new());
        let big = json!({"description": "x".repeat(16_384)});
        assert!(matches!(one(big).kind, K::TooLarge { max: 16_384, .. }));
    }

    #[test]
    fn patterns_are_compiled_as_ecmascript() {
        assert_eq!(check(json!({"pattern": "^\\d{3}-\\w+$"})), vec![]);
        assert_eq!(check(json!({"pattern": "(?<year>\\d{4})"})), vec![]);
        let v = one(json!({"pattern": "([a-z]"}));
        assert!(matches!(v.kind, K::InvalidPattern { ref pattern, .. } if pattern == "([a-z]"));
        assert_eq!(v.pointer, ptr(&["pattern"]));
        // Lookbehind is valid ECMAScript; Perl's possessive quantifier is not.
        assert_eq!(check(json!({"pattern": "(?<=a)b"})), vec![]);
        assert!(matches!(one(json!({"pattern": "a++"})).kind, K::InvalidPattern { .. }));
        assert!(matches!(one(json!({"pattern": 5})).kind, K::InvalidKeywordValue { .. }));
    }

    #[test]
    fn types() {
        let v = one(json!({"type": "date"}));
        assert_eq!((v.kind, v.pointer), (K::TypeUnknown { name: "date".into() }, ptr(&["type"])));
        let v = one(json!({"type": ["string", "nul"]}));
        assert_eq!((v.kind, v.pointer), (K::TypeUnknown { name: "nul".into() }, ptr(&["type", "1"])));
        assert!(matches!(one(json!({"type": []})).kind, K::InvalidKeywordValue { .. }));
        assert!(matches!(one(json!({"type": 1})).kind, K::InvalidKeywordValue { .. }));
        let v = one(json!({"type": ["string", "string"]}));
        assert_eq!(v.pointer, ptr(&["type", "1"]));
        assert!(matches!(one(json!({"type": ["string", 1]})).kind, K::InvalidKeywordValue { .. }));
    }

    #[test]
    fn keyword_values() {
        let bad = [
            (json!({"enum": []}), "enum"),
            (json!({"enum": "a"}), "enum"),
            (json!({"properties": []}), "properties"),
            (json!({"required": "a"}), "required"),
            (json!({"minItems": -1}), "minItems"),
            (json!({"maxLength": 1.5}), "maxLength"),
            (json!({"minLength": "1"}), "minLength"),
            (json!({"uniqueItems": 1}), "uniqueItems"),
            (json!({"deprecated": "yes"}), "deprecated"),
            (json!({"description": 1}), "description"),
            (json!({"title": null}), "title"),
            (json!({"examples": "a"}), "examples"),
            (json!({"minimum": "0"}), "minimum"),
            (json!({"multipleOf": 0}), "multipleOf"),
            (json!({"multipleOf": -2}), "multipleOf"),
            (json!({"anyOf": []}), "anyOf"),
            (json!({"anyOf": {}}), "anyOf"),
            (json!({"items": [{}]}), "items"),
        ];
        for (s, kw) in bad {
            let v = one(s.clone());
            assert!(matches!(&v.kind, K::InvalidKeywordValue { keyword, .. } if keyword == kw), "{s}: {v:?}");
        }
        let v = one(json!({"exclusiveMinimum": true, "minimum": 0}));
        assert_eq!(v.pointer, ptr(&["exclusiveMinimum"]));
        assert!(v.help.unwrap().contains("\"exclusiveMinimum\": <number>"));
        let v = one(json!({"required": ["a", "b", "a"]}));
        assert_eq!(v.pointer, ptr(&["required", "2"]));
        let v = one(json!({"required": ["a", 1]}));
        assert_eq!(v.pointer, ptr(&["required", "1"]));
        assert_eq!(check(json!({"const": null, "default": {"x": [1]}, "enum": [1, "a", null]})), vec![]);
    }

    #[test]
    fn reports_all_violations_in_document_order() {
        // Written in sorted key order so the test holds with or without serde_json's
        // preserve_order feature (document order is the map's iteration order).
        let s = json!({
            "allOf": [],
            "properties": {
                "a": {"format": "hostname", "type": "string"},
                "b": {"oneOf": [{"type": "bogus"}]},
                "c": {"additionalProperties": {}}
            },
            "type": "object"
        });
        let vs = check(s);
        let got: Vec<(String, &K)> = vs.iter().map(|v| (v.json_pointer(), &v.kind)).collect();
        assert_eq!(
            got,
            vec![
                ("/allOf".to_string(), &K::UnsupportedKeyword { keyword: "allOf".into() }),
                ("/properties/a/format".to_string(), &K::UnsupportedFormat { format: "hostname".into() }),
                ("/properties/b/oneOf".to_string(), &K::UnsupportedKeyword { keyword: "oneOf".into() }),
                ("/properties/c/additionalProperties".to_string(), &K::AdditionalPropertiesNotBoolean),
            ]
        );
    }

    #[test]
    fn json_pointer_escapes() {
        assert_eq!(json_pointer(&ptr(&["properties", "a/b", "c~d"])), "/properties/a~1b/c~0d");
        assert_eq!(json_pointer(&[]), "");
    }
}
