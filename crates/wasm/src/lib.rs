//! `agent-surface-wasm`: the engine for the page, behind `@agent-surface/core`.
//!
//! A thin facade in the style of Biome's `biome_wasm`: every export takes JSON *text*, calls the
//! engine or the model, and answers with JSON text (or throws a JSON text string that the
//! package turns into its error classes). No value crosses the boundary as a JS object, so the
//! glue stays small and the engine sees exactly the bytes it would read natively.
//!
//! Each export wraps one plain Rust function of this module ([`verify`], [`canonical`],
//! [`hash`], [`compile_schema`], [`validate`], [`check_id`]); those are what the native unit
//! tests call, since a `JsValue` cannot be built outside a wasm host.
//!
//! Thrown values (strings of JSON):
//! - `Authority` constructor: `{"kind", "message", "contract", "details"}` — `kind` is
//!   `AuthorityError::kind()`, `contract` the id it names or `null`, `details` the variant's
//!   fields (`expected`/`found`, `declared`/`actual`, `failed`, `pointer`/`detail`, `previous`).
//! - `SchemaValidator` constructor: `{"kind": "schema", "message", "violations": [{pointer,
//!   message, help}]}`.
//! - `canonicalJson` / `blake3Hex`: `{"kind": "not-json", "message"}`.

use agent_surface_engine::authority::{AuthorityError, CapabilityAuthority};
use agent_surface_model::canonical::{blake3_hex_of_str, canonical_json};
use agent_surface_model::ids;
use agent_surface_model::limits::AgentSurfaceLimits;
use agent_surface_model::schema::{SchemaViolation, ValidationIssue, Validator};
use serde_json::{json, Value};
use std::borrow::Cow;
use wasm_bindgen::prelude::*;

mod pattern;

/// Runs once when the module is instantiated (`initSync`): `pattern` uses the page's `RegExp`.
#[wasm_bindgen(start)]
pub fn start() {
    pattern::install();
}

// ---------------------------------------------------------------------------------------------
// The plain functions (native-testable)

/// Verifies manifest text exactly as `CapabilityAuthority::from_json_str` does (duplicate keys
/// refused, then every check of `CapabilityAuthority::new`).
pub fn verify(manifest_text: &str) -> Result<CapabilityAuthority, AuthorityError> {
    CapabilityAuthority::from_json_str(manifest_text)
}

/// The JSON the `Authority` constructor throws for a refusal.
pub fn authority_error_json(e: &AuthorityError) -> String {
    let details = match e {
        AuthorityError::NotJson(_) | AuthorityError::Malformed(_) | AuthorityError::DuplicateId { .. } => json!({}),
        AuthorityError::UnsupportedFormatVersion { found } => json!({ "found": found }),
        AuthorityError::Incomplete { failed } => json!({ "failed": failed }),
        AuthorityError::CountMismatch { declared, actual } => json!({ "declared": declared, "actual": actual }),
        AuthorityError::ContractHashMismatch { expected, found, .. }
        | AuthorityError::ManifestHashMismatch { expected, found } => {
            json!({ "expected": expected, "found": found })
        }
        AuthorityError::NotSorted { previous, .. } => json!({ "previous": previous }),
        AuthorityError::InvalidContract { pointer, message, .. } => json!({ "pointer": pointer, "detail": message }),
    };
    json!({ "kind": e.kind(), "message": e.to_string(), "contract": e.contract(), "details": details }).to_string()
}

fn parse(text: &str) -> Result<Value, String> {
    serde_json::from_str(text)
        .map_err(|e| json!({ "kind": "not-json", "message": format!("not JSON: {e}") }).to_string())
}

/// RFC 8785 canonical JSON of JSON text.
pub fn canonical(text: &str) -> Result<String, String> {
    parse(text).map(|v| canonical_json(&v))
}

/// `"blake3:<hex>"` of the canonical JSON of JSON text.
pub fn hash(text: &str) -> Result<String, String> {
    canonical(text).map(|c| blake3_hex_of_str(&c))
}

/// Compiles a JSON Schema (text) with the default limits; on refusal, the JSON to throw.
pub fn compile_schema(schema_text: &str) -> Result<Validator, String> {
    let schema = parse(schema_text)?;
    Validator::new(&schema, &AgentSurfaceLimits::default()).map_err(|v| schema_error_json(&v))
}

fn schema_error_json(violations: &[SchemaViolation]) -> String {
    let list: Vec<Value> = violations
        .iter()
        .map(|v| json!({ "pointer": v.json_pointer(), "message": v.message, "help": v.help }))
        .collect();
    let first = violations.first().map_or("", |v| v.message.as_str());
    let message = format!("the JSON Schema is outside the supported subset at {}: {first}", pointer_of(violations));
    json!({ "kind": "schema", "message": message, "violations": list }).to_string()
}

fn pointer_of(violations: &[SchemaViolation]) -> String {
    match violations.first().map(SchemaViolation::json_pointer) {
        Some(p) if !p.is_empty() => p,
        _ => "the root".to_string(),
    }
}

/// Validates a value (JSON text): `{"ok":true}` when valid as given (the caller keeps its own
/// copy of the text), `{"ok":true,"value":…}` when defaults were applied, `{"ok":false,
/// "issues":[{path,keyword,message}]}` otherwise.
pub fn validate(validator: &Validator, value_text: &str) -> String {
    let value = match serde_json::from_str::<Value>(value_text) {
        Ok(v) => v,
        Err(e) => return issues_json(&[json_issue(&e)]),
    };
    match validator.validate_cow(&value) {
        Ok(Cow::Borrowed(_)) => r#"{"ok":true}"#.to_string(),
        Ok(Cow::Owned(v)) => json!({ "ok": true, "value": v }).to_string(),
        Err(issues) => issues_json(&issues),
    }
}

fn json_issue(e: &serde_json::Error) -> ValidationIssue {
    ValidationIssue {
        path: String::new(),
        keyword: "json".into(),
        message: format!("must be a JSON value the engine can read ({e})"),
    }
}

fn issues_json(issues: &[ValidationIssue]) -> String {
    json!({ "ok": false, "issues": issues }).to_string()
}

/// The model's id grammar for the macros: `None` when `text` is a valid id of `kind`
/// (`component-type`, `capability-name`, `procedure-id`, `external-tool-id`, `instance-id`),
/// else the message.
pub fn check_id(kind: &str, text: &str) -> Option<String> {
    let result = match kind {
        "component-type" => ids::check_component_type(text),
        "capability-name" => ids::check_capability_name(text),
        "procedure-id" => ids::check_procedure_id(text),
        "external-tool-id" => ids::check_external_tool_id(text),
        "instance-id" => ids::check_instance_id(text),
        other => return Some(format!("unknown id kind \"{other}\"")),
    };
    result.err().map(|e| e.message)
}

// ---------------------------------------------------------------------------------------------
// The exports

/// A verified manifest (the engine's `CapabilityAuthority`).
#[wasm_bindgen]
pub struct Authority {
    inner: CapabilityAuthority,
}

#[wasm_bindgen]
impl Authority {
    /// Verifies manifest text; throws the JSON of [`authority_error_json`].
    #[wasm_bindgen(constructor)]
    pub fn new(manifest_text: &str) -> Result<Authority, JsValue> {
        verify(manifest_text).map(|inner| Authority { inner }).map_err(|e| JsValue::from_str(&authority_error_json(&e)))
    }

    #[wasm_bindgen(js_name = manifestHash)]
    pub fn manifest_hash(&self) -> String {
        self.inner.manifest_hash().to_string()
    }

    /// The verified manifest as JSON text.
    #[wasm_bindgen(js_name = manifestJson)]
    pub fn manifest_json(&self) -> String {
        self.inner.manifest_value().to_string()
    }
}

/// A compiled JSON Schema (the model's `Validator`, default limits, formats asserted).
#[wasm_bindgen]
pub struct SchemaValidator {
    inner: Validator,
}

#[wasm_bindgen]
impl SchemaValidator {
    /// Compiles schema text; throws `{"kind":"schema","violations":[…]}` outside the subset.
    #[wasm_bindgen(constructor)]
    pub fn new(schema_text: &str) -> Result<SchemaValidator, JsValue> {
        compile_schema(schema_text).map(|inner| SchemaValidator { inner }).map_err(|e| JsValue::from_str(&e))
    }

    /// See [`validate`].
    pub fn validate(&self, value_text: &str) -> String {
        validate(&self.inner, value_text)
    }
}

#[wasm_bindgen(js_name = canonicalJson)]
pub fn canonical_json_export(text: &str) -> Result<String, JsValue> {
    canonical(text).map_err(|e| JsValue::from_str(&e))
}

#[wasm_bindgen(js_name = blake3Hex)]
pub fn blake3_hex_export(text: &str) -> Result<String, JsValue> {
    hash(text).map_err(|e| JsValue::from_str(&e))
}

/// See [`check_id`]; `undefined` when valid.
#[wasm_bindgen(js_name = checkId)]
pub fn check_id_export(kind: &str, text: &str) -> Option<String> {
    check_id(kind, text)
}

#[cfg(test)]
mod tests;

pub mod wire;

// The registry, toolset and gateway hold JavaScript values (handlers, policies, listeners):
// they exist only on wasm32, where nothing needs to be `Send`.
#[cfg(target_arch = "wasm32")]
mod expose;
#[cfg(target_arch = "wasm32")]
mod host;
#[cfg(target_arch = "wasm32")]
mod registry;
