//! Provider adapters: the catalog as each model provider's tool block. The schemas are adapted
//! to what each provider accepts; validation always stays ours, against the original schema.
//! Order is the catalog's (sorted by name), so prompt caches hit.

use super::toolset::AgentTool;
use agent_surface_model::effects::Effect;
use serde_json::{json, Map, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    OpenAi,
    Anthropic,
    Gemini,
    Mcp,
}

impl Provider {
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Mcp => "mcp",
        }
    }
}

/// A catalog a provider cannot take, with the reason.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProviderError {
    #[error("tool \"{tool}\": {reason}")]
    Tool { tool: String, reason: String },
    #[error("{count} tools exceed the {max} a single {provider} request accepts")]
    TooManyTools { provider: &'static str, count: usize, max: usize },
}

/// Tools per request this adapter lets through: OpenAI documents 128; the same bound is applied
/// to Anthropic, so an oversized catalog fails here with a clear error rather than at the API.
pub const ANTHROPIC_MAX_TOOLS: usize = 128;
pub const OPENAI_MAX_TOOLS: usize = 128;

/// The tool block for `provider`, one entry per tool, in catalog order.
pub fn tool_block(tools: &[AgentTool], provider: Provider) -> Result<Vec<Value>, ProviderError> {
    match provider {
        Provider::OpenAi => {
            if tools.len() > OPENAI_MAX_TOOLS {
                return Err(ProviderError::TooManyTools {
                    provider: "openai",
                    count: tools.len(),
                    max: OPENAI_MAX_TOOLS,
                });
            }
            tools.iter().map(openai).collect()
        }
        Provider::Anthropic => {
            if tools.len() > ANTHROPIC_MAX_TOOLS {
                return Err(ProviderError::TooManyTools {
                    provider: "anthropic",
                    count: tools.len(),
                    max: ANTHROPIC_MAX_TOOLS,
                });
            }
            tools.iter().map(anthropic).collect()
        }
        Provider::Gemini => tools.iter().map(gemini).collect(),
        Provider::Mcp => Ok(tools.iter().map(mcp).collect()),
    }
}

fn tool_err(t: &AgentTool, reason: impl Into<String>) -> ProviderError {
    ProviderError::Tool { tool: t.name.clone(), reason: reason.into() }
}

// ---- OpenAI (strict function calling) ---------------------------------------------------------

/// Keywords strict mode accepts; others move into the description.
const OPENAI_KEEP: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "description",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

fn openai(t: &AgentTool) -> Result<Value, ProviderError> {
    let mut schema = t.input_schema.clone();
    if let Some(o) = schema.as_object_mut() {
        o.remove("$schema");
    }
    let schema = openai_strict(&schema);
    Ok(
        json!({ "type": "function", "function": { "name": t.name, "description": t.description, "parameters": schema, "strict": true } }),
    )
}

fn note(notes: &mut Vec<String>, k: &str, v: &Value) {
    let text = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    notes.push(format!("{k}: {text}"));
}

/// Strict mode: every property required (optional ones nullable), `additionalProperties:
/// false`, unsupported keywords described in words.
fn openai_strict(schema: &Value) -> Value {
    let Some(o) = schema.as_object() else { return schema.clone() };
    let mut out = Map::new();
    let mut notes = Vec::new();
    for (k, v) in o {
        match k.as_str() {
            "properties" => {
                let required: Vec<&str> = o
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let mut props = Map::new();
                for (name, p) in v.as_object().into_iter().flatten() {
                    let adapted = openai_strict(p);
                    props.insert(
                        name.clone(),
                        if required.contains(&name.as_str()) { adapted } else { nullable(adapted) },
                    );
                }
                out.insert("properties".into(), Value::Object(props.clone()));
                out.insert("required".into(), Value::Array(props.keys().map(|k| Value::String(k.clone())).collect()));
            }
            "required" => {}
            "items" => {
                out.insert(k.clone(), openai_strict(v));
            }
            "anyOf" => {
                out.insert(k.clone(), Value::Array(v.as_array().into_iter().flatten().map(openai_strict).collect()));
            }
            "$defs" => {
                out.insert(
                    k.clone(),
                    Value::Object(
                        v.as_object().into_iter().flatten().map(|(n, d)| (n.clone(), openai_strict(d))).collect(),
                    ),
                );
            }
            "description" => {}
            k if OPENAI_KEEP.contains(&k) => {
                out.insert(k.to_string(), v.clone());
            }
            other => note(&mut notes, other, v),
        }
    }
    if o.get("type") == Some(&json!("object")) || o.contains_key("properties") {
        out.insert("additionalProperties".into(), Value::Bool(false));
        out.entry("properties").or_insert(json!({}));
        out.entry("required").or_insert(json!([]));
    }
    let mut description = o.get("description").and_then(Value::as_str).map(str::to_string).unwrap_or_default();
    if !notes.is_empty() {
        if !description.is_empty() {
            description.push(' ');
        }
        description.push_str(&format!("({})", notes.join("; ")));
    }
    if !description.is_empty() {
        out.insert("description".into(), Value::String(description));
    }
    Value::Object(out)
}

/// An optional property in strict mode: the same schema, also accepting null.
fn nullable(mut s: Value) -> Value {
    if let Some(o) = s.as_object_mut() {
        match o.get("type").cloned() {
            Some(Value::String(t)) if t != "null" => {
                o.insert("type".into(), json!([t, "null"]));
                if let Some(Value::Array(e)) = o.get_mut("enum") {
                    if !e.contains(&Value::Null) {
                        e.push(Value::Null);
                    }
                }
                return s;
            }
            Some(Value::Array(mut ts)) => {
                if !ts.contains(&json!("null")) {
                    ts.push(json!("null"));
                }
                o.insert("type".into(), Value::Array(ts));
                return s;
            }
            _ => {}
        }
    }
    json!({ "anyOf": [s, { "type": "null" }] })
}

// ---- Anthropic ----------------------------------------------------------------------------------

fn anthropic(t: &AgentTool) -> Result<Value, ProviderError> {
    if !t.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        || t.name.is_empty()
        || t.name.len() > 64
    {
        return Err(tool_err(t, "the name must match ^[a-zA-Z0-9_-]{1,64}$"));
    }
    if t.input_schema.get("type") != Some(&json!("object")) {
        return Err(tool_err(
            t,
            "input_schema must have an object root (\"type\": \"object\"): make the capability's input an object",
        ));
    }
    Ok(json!({ "name": t.name, "description": t.description, "input_schema": t.input_schema }))
}

// ---- Gemini (OpenAPI subset) --------------------------------------------------------------------

const GEMINI_KEEP: &[&str] = &[
    "type",
    "properties",
    "required",
    "items",
    "enum",
    "description",
    "format",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "nullable",
    "anyOf",
    "title",
    "default",
];

fn gemini(t: &AgentTool) -> Result<Value, ProviderError> {
    let defs = t.input_schema.get("$defs").cloned().unwrap_or(json!({}));
    let params = gemini_schema(&t.input_schema, &defs, 0).map_err(|r| tool_err(t, r))?;
    Ok(json!({ "name": t.name, "description": t.description, "parameters": params }))
}

/// `$ref` inlined (recursion refused), `const` → one-value `enum`, type arrays with null →
/// `nullable`, unknown keywords dropped.
fn gemini_schema(s: &Value, defs: &Value, depth: usize) -> Result<Value, String> {
    if depth > 32 {
        return Err("a recursive $ref cannot be expressed without $ref (Gemini has none)".into());
    }
    let Some(o) = s.as_object() else { return Ok(s.clone()) };
    if let Some(r) = o.get("$ref").and_then(Value::as_str) {
        let name = r.trim_start_matches("#/$defs/");
        let target = defs.get(name).ok_or_else(|| format!("unresolved $ref {r}"))?;
        let mut merged = target.as_object().cloned().unwrap_or_default();
        for (k, v) in o {
            if k != "$ref" {
                merged.insert(k.clone(), v.clone());
            }
        }
        return gemini_schema(&Value::Object(merged), defs, depth + 1);
    }
    let mut out = Map::new();
    for (k, v) in o {
        match k.as_str() {
            "const" => {
                out.insert("enum".into(), json!([v]));
            }
            "type" => match v {
                Value::Array(ts) => {
                    let non_null: Vec<&Value> = ts.iter().filter(|t| *t != "null").collect();
                    if non_null.len() != ts.len() {
                        out.insert("nullable".into(), Value::Bool(true));
                    }
                    match non_null.as_slice() {
                        [one] => {
                            out.insert("type".into(), (*one).clone());
                        }
                        many => {
                            out.insert(
                                "anyOf".into(),
                                Value::Array(many.iter().map(|t| json!({ "type": t })).collect()),
                            );
                        }
                    }
                }
                other => {
                    out.insert("type".into(), other.clone());
                }
            },
            "properties" => {
                let mut props = Map::new();
                for (n, p) in v.as_object().into_iter().flatten() {
                    props.insert(n.clone(), gemini_schema(p, defs, depth + 1)?);
                }
                out.insert(k.clone(), Value::Object(props));
            }
            "items" => {
                out.insert(k.clone(), gemini_schema(v, defs, depth + 1)?);
            }
            "anyOf" => {
                let branches: Result<Vec<Value>, String> =
                    v.as_array().into_iter().flatten().map(|b| gemini_schema(b, defs, depth + 1)).collect();
                let branches = branches?;
                // anyOf [X, {type: null}] → X with nullable.
                let (nulls, rest): (Vec<Value>, Vec<Value>) =
                    branches.into_iter().partition(|b| b.get("type") == Some(&json!("null")));
                if !nulls.is_empty() {
                    out.insert("nullable".into(), Value::Bool(true));
                }
                if rest.len() == 1 {
                    for (bk, bv) in rest[0].as_object().into_iter().flatten() {
                        out.insert(bk.clone(), bv.clone());
                    }
                } else {
                    out.insert("anyOf".into(), Value::Array(rest));
                }
            }
            k if GEMINI_KEEP.contains(&k) => {
                out.insert(k.to_string(), v.clone());
            }
            _ => {}
        }
    }
    // Gemini's enums are typed (`type: "string"` with `format: "enum"` semantics): give an
    // untyped enum the type of its values.
    if !out.contains_key("type") && !out.contains_key("anyOf") {
        if let Some(values) = out.get("enum").and_then(Value::as_array) {
            let ty = if values.iter().all(Value::is_string) {
                Some("string")
            } else if values.iter().all(|v| v.is_i64() || v.is_u64()) {
                Some("integer")
            } else if values.iter().all(Value::is_number) {
                Some("number")
            } else if values.iter().all(Value::is_boolean) {
                Some("boolean")
            } else {
                None
            };
            if let Some(t) = ty {
                out.insert("type".into(), json!(t));
            }
        }
    }
    Ok(Value::Object(out))
}

// ---- MCP ----------------------------------------------------------------------------------------

/// The four MCP hints, always explicit (MCP's defaults assume the worst, and differ per hint).
pub fn mcp_annotations(t: &AgentTool) -> Value {
    let Some(tr) = &t.traits else {
        // meta tools: discover/read are read-only; invoke can do anything.
        let read_only = t.name != "surface_invoke";
        return json!({ "readOnlyHint": read_only, "destructiveHint": !read_only, "idempotentHint": read_only, "openWorldHint": !read_only });
    };
    let read_only = tr.effect == Effect::Read;
    // MCP: "may perform destructive updates" (false = only additive). A destructive effect is;
    // so is an irreversible mutation or external side effect. View-plane effects never are.
    let destructive = tr.effect == Effect::Destructive
        || (matches!(tr.effect, Effect::Mutation | Effect::ExternalSideEffect) && !tr.reversible);
    let open_world = tr.effect == Effect::ExternalSideEffect || tr.plane == "external";
    json!({ "readOnlyHint": read_only, "destructiveHint": destructive, "idempotentHint": tr.idempotent, "openWorldHint": open_world })
}

fn mcp(t: &AgentTool) -> Value {
    let mut input = t.input_schema.clone();
    if let Some(o) = input.as_object_mut() {
        o.remove("$schema");
    }
    let mut entry = json!({ "name": t.name, "description": t.description, "inputSchema": input, "annotations": mcp_annotations(t) });
    // MCP structured output needs an object root; other output schemas are not declared.
    if let Some(out) = &t.output_schema {
        if out.get("type") == Some(&json!("object")) {
            let mut out = out.clone();
            if let Some(o) = out.as_object_mut() {
                o.remove("$schema");
            }
            entry["outputSchema"] = out;
        }
    }
    entry
}

/// Undoes OpenAI strict mode's "optional as nullable" before validation: a `null` for a
/// property that was optional (and could not be null) in the original schema means "absent".
/// Nested objects, array items, `$ref`s into the root's `$defs` and `anyOf` branches are
/// followed; everything else is left for validation against the original schema.
pub fn strict_input_to_original(original: &Value, input: &Value) -> Value {
    let defs = original.get("$defs").cloned().unwrap_or(Value::Null);
    undo_strict(original, input, &defs, 0)
}

fn resolve<'a>(schema: &'a Value, defs: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
        Some(name) => defs.get(name).unwrap_or(schema),
        None => schema,
    }
}

/// Whether `schema` accepts `null` (type, enum, const, or an anyOf branch).
fn accepts_null(schema: &Value, defs: &Value, depth: usize) -> bool {
    if depth > 16 {
        return false;
    }
    let schema = resolve(schema, defs);
    let Some(o) = schema.as_object() else { return schema == &Value::Bool(true) };
    if o.get("const") == Some(&Value::Null)
        || o.get("enum").and_then(Value::as_array).is_some_and(|e| e.contains(&Value::Null))
    {
        return true;
    }
    if o.get("anyOf").and_then(Value::as_array).is_some_and(|bs| bs.iter().any(|b| accepts_null(b, defs, depth + 1))) {
        return true;
    }
    match o.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.contains(&json!("null")),
        // No type, enum or const constrains it: anything goes, null included.
        None => !o.contains_key("enum") && !o.contains_key("const") && !o.contains_key("anyOf"),
        _ => false,
    }
}

fn undo_strict(schema: &Value, input: &Value, defs: &Value, depth: usize) -> Value {
    if depth > 32 {
        return input.clone();
    }
    let schema = resolve(schema, defs);
    // An object or array inside an anyOf: follow the branch of the matching kind.
    if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
        let kind = match input {
            Value::Object(_) => Some("object"),
            Value::Array(_) => Some("array"),
            _ => None,
        };
        if let Some(k) = kind {
            if let Some(b) = branches.iter().map(|b| resolve(b, defs)).find(|b| {
                b.get("type") == Some(&json!(k))
                    || (k == "object" && b.get("properties").is_some())
                    || (k == "array" && b.get("items").is_some())
            }) {
                return undo_strict(b, input, defs, depth + 1);
            }
        }
        return input.clone();
    }
    match input {
        Value::Object(obj) => {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let props = schema.get("properties").and_then(Value::as_object);
            let mut out = Map::new();
            for (k, v) in obj {
                let prop = props.and_then(|p| p.get(k));
                if v.is_null() && !required.contains(&k.as_str()) && !prop.is_some_and(|p| accepts_null(p, defs, 0)) {
                    continue;
                }
                out.insert(
                    k.clone(),
                    match prop {
                        Some(p) => undo_strict(p, v, defs, depth + 1),
                        None => v.clone(),
                    },
                );
            }
            Value::Object(out)
        }
        Value::Array(items) => match schema.get("items") {
            Some(item) => Value::Array(items.iter().map(|i| undo_strict(item, i, defs, depth + 1)).collect()),
            None => input.clone(),
        },
        _ => input.clone(),
    }
}
