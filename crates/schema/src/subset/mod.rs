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

mod keywords;

use keywords::unsupported_help;
pub use keywords::{LOCAL_REF_PREFIX, SCHEMA_DIALECT, SUPPORTED_FORMATS, SUPPORTED_KEYWORDS, TYPE_NAMES};

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
                            Some(
                                "build agent-surface-schema with its `regress` feature, or install the \
                                     host's ECMAScript engine with pattern::set_pattern_engine before \
                                     checking schemas"
                                    .into(),
                            ),
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
mod tests;
