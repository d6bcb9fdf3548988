//! JSON text ↔ the engine's types, for the registry facade. Field names are the spec's; a
//! value the package sent that does not parse is programmer misuse (the package validated the
//! user's input shape already), reported as `{kind: "misuse", message}`.
//!
//! Native-testable (no JS values here).

use agent_surface_engine::binding::AgentConcurrency;
use agent_surface_engine::consumer::AgentConsumer;
use agent_surface_engine::invoke::AgentInvocation;
use agent_surface_engine::registry::{
    AvailabilityOverride, DuplicateInstance, DuplicateSuffixPolicy, Environment, RegistrationPatch,
};
use agent_surface_engine::snapshot::{AgentRouteInfo, SnapshotBudget, SnapshotContext};
use agent_surface_model::limits::AgentSurfaceLimits;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The error a facade call throws: `{kind, message, ...}` as text.
pub fn error_text(kind: &str, message: impl std::fmt::Display) -> String {
    json!({ "kind": kind, "message": message.to_string() }).to_string()
}

pub fn misuse(message: impl std::fmt::Display) -> String {
    error_text("misuse", message)
}

pub fn parse<T: for<'de> Deserialize<'de>>(text: &str, what: &str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|e| misuse(format!("{what}: {e}")))
}

/// The registry's settings that are values (the functions stay in JavaScript).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct RegistrySettings {
    pub environment: Option<String>,
    pub on_duplicate_instance: Option<String>,
    pub duplicate_suffix_policy: Option<String>,
    pub limits: Option<Value>,
    pub has_route: bool,
    pub has_on_register: bool,
    pub has_audit: bool,
    pub policies: Vec<PolicyRef>,
}

/// A JavaScript policy object, by the id the package gave it.
#[derive(Deserialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct PolicyRef {
    pub id: u32,
    pub name: String,
    /// Which of onDiscovery / authorize / invoke it defines.
    pub phases: Vec<String>,
}

impl RegistrySettings {
    pub fn environment(&self) -> Result<Environment, String> {
        match self.environment.as_deref() {
            None | Some("production") => Ok(Environment::Production),
            Some("development") => Ok(Environment::Development),
            Some("test") => Ok(Environment::Test),
            Some(other) => {
                Err(misuse(format!("environment must be \"development\", \"production\" or \"test\", not \"{other}\"")))
            }
        }
    }
    pub fn on_duplicate_instance(&self) -> Result<DuplicateInstance, String> {
        match self.on_duplicate_instance.as_deref() {
            None | Some("reject") => Ok(DuplicateInstance::Reject),
            Some("replace") => Ok(DuplicateInstance::Replace),
            Some(other) => {
                Err(misuse(format!("onDuplicateInstance must be \"reject\" or \"replace\", not \"{other}\"")))
            }
        }
    }
    pub fn duplicate_suffix_policy(&self) -> Result<DuplicateSuffixPolicy, String> {
        match self.duplicate_suffix_policy.as_deref() {
            None | Some("warn") => Ok(DuplicateSuffixPolicy::Warn),
            Some("off") => Ok(DuplicateSuffixPolicy::Off),
            Some("error") => Ok(DuplicateSuffixPolicy::Error),
            Some(other) => {
                Err(misuse(format!("duplicateSuffixPolicy must be \"off\", \"warn\" or \"error\", not \"{other}\"")))
            }
        }
    }
    /// `Partial<AgentSurfaceLimits>` over the defaults; unknown fields are refused.
    pub fn limits(&self) -> Result<AgentSurfaceLimits, String> {
        match &self.limits {
            None | Some(Value::Null) => Ok(AgentSurfaceLimits::default()),
            Some(v) => serde_json::from_value(v.clone()).map_err(|e| misuse(format!("limits: {e}"))),
        }
    }
}

/// `SnapshotContext` as JSON (every field optional).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct SnapshotContextWire {
    consumer: Option<AgentConsumer>,
    scope: Option<Vec<String>>,
    include_unavailable: Option<bool>,
    budget: Option<SnapshotBudget>,
}

pub fn snapshot_context(text: &str) -> Result<SnapshotContext, String> {
    let w: SnapshotContextWire = parse(text, "snapshot context")?;
    Ok(SnapshotContext {
        consumer: w.consumer.unwrap_or_else(AgentConsumer::anonymous),
        scope: w.scope,
        include_unavailable: w.include_unavailable.unwrap_or(true),
        budget: w.budget,
    })
}

pub fn invocation(text: &str) -> Result<AgentInvocation, String> {
    parse(text, "invocation")
}

/// `InvokeOptions` without the signal (the package passes a `Cancel`).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct InvokeOptionsWire {
    pub consumer: Option<AgentConsumer>,
    pub timeout_ms: Option<u64>,
}

#[derive(Deserialize)]
struct OverrideWire {
    available: bool,
    reason: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct PatchWire {
    enabled: Option<bool>,
    availability: Option<BTreeMap<String, OverrideWire>>,
}

/// `handle.update({ enabled?, availability? })`, availability keyed by capability name.
pub fn patch(text: &str) -> Result<RegistrationPatch, String> {
    let w: PatchWire = parse(text, "update")?;
    Ok(RegistrationPatch {
        enabled: w.enabled,
        availability: w.availability.map(|m| {
            m.into_iter().map(|(k, o)| (k, AvailabilityOverride { available: o.available, reason: o.reason })).collect()
        }),
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ConcurrencyWire {
    mode: String,
    key: Option<String>,
    max: Option<f64>,
    queue_depth: Option<usize>,
}

/// The spec's `AgentConcurrency`.
pub fn concurrency(v: &Value, name: &str) -> Result<AgentConcurrency, String> {
    let w: ConcurrencyWire = serde_json::from_value(v.clone())
        .map_err(|e| definition("invalid-concurrency", name, format!("\"{name}\": concurrency: {e}")))?;
    let queue_depth = w.queue_depth;
    Ok(match w.mode.as_str() {
        "instance" => AgentConcurrency::Instance { queue_depth },
        "capability" => AgentConcurrency::Capability { queue_depth },
        "key" => match w.key {
            Some(key) => AgentConcurrency::Key { key, queue_depth },
            None => {
                return Err(definition("invalid-concurrency", name, format!("\"{name}\": key concurrency needs a key")))
            }
        },
        "parallel" => match w.max {
            Some(m) if m >= 1.0 && m.fract() == 0.0 => AgentConcurrency::Parallel { max: m as usize, queue_depth },
            _ => {
                return Err(definition(
                    "invalid-concurrency",
                    name,
                    format!("\"{name}\": parallel concurrency needs an integer max ≥ 1"),
                ))
            }
        },
        other => {
            return Err(definition(
                "invalid-concurrency",
                name,
                format!("\"{name}\": unknown concurrency mode \"{other}\""),
            ))
        }
    })
}

/// `AgentRouteInfo` from the host's `route()` (JSON text), `None` when absent or malformed.
pub fn route(text: &str) -> Option<AgentRouteInfo> {
    let v: Value = serde_json::from_str(text).ok()?;
    let path = v.get("path")?.as_str()?.to_string();
    let params = v.get("params").and_then(Value::as_object).cloned();
    Some(AgentRouteInfo { path, params })
}

/// What `register` throws for a defect the author must fix: the package turns it into an
/// `AgentSurfaceDefinitionError` with this `code`.
pub fn definition(code: &str, contract: &str, message: impl std::fmt::Display) -> String {
    json!({ "kind": "definition", "code": code, "contract": contract, "message": message.to_string() }).to_string()
}

/// A handler's answer as the package encodes it: `{"ok": value}`, `{"failed": message}`,
/// `{"precondition": {message, details?}}`.
pub enum HandlerAnswer {
    Ok(Value),
    Failed(String),
    Precondition(String, Option<Map<String, Value>>),
}

pub fn handler_answer(text: &str) -> HandlerAnswer {
    let Ok(Value::Object(mut m)) = serde_json::from_str::<Value>(text) else {
        return HandlerAnswer::Failed("the handler's answer was not readable".into());
    };
    if let Some(v) = m.remove("ok") {
        return HandlerAnswer::Ok(v);
    }
    if let Some(Value::Object(p)) = m.remove("precondition") {
        let message = p.get("message").and_then(Value::as_str).unwrap_or("precondition failed").to_string();
        let details = p.get("details").and_then(Value::as_object).cloned();
        return HandlerAnswer::Precondition(message, details);
    }
    let failed = m.remove("failed").and_then(|v| v.as_str().map(str::to_string));
    HandlerAnswer::Failed(failed.unwrap_or_else(|| "the handler failed".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_context_defaults_match_the_spec() {
        let c = snapshot_context("{}").unwrap();
        assert_eq!(c, SnapshotContext::default());
        let c = snapshot_context(
            r#"{"consumer":{"id":"a","kind":"webmcp"},"scope":["devices"],"includeUnavailable":false}"#,
        )
        .unwrap();
        assert_eq!(c.consumer.key(), "webmcp:a");
        assert_eq!(c.scope, Some(vec!["devices".to_string()]));
        assert!(!c.include_unavailable);
    }

    #[test]
    fn limits_are_partial_and_refuse_unknown_fields() {
        let s = RegistrySettings { limits: Some(json!({ "actionQueueDepth": 5 })), ..Default::default() };
        assert_eq!(s.limits().unwrap().action_queue_depth, 5);
        let s = RegistrySettings { limits: Some(json!({ "actionQueueDepht": 5 })), ..Default::default() };
        assert!(s.limits().unwrap_err().contains("actionQueueDepht"));
    }

    #[test]
    fn concurrency_modes_and_their_defects() {
        assert_eq!(
            concurrency(&json!({"mode": "parallel", "max": 2}), "a").unwrap(),
            AgentConcurrency::Parallel { max: 2, queue_depth: None }
        );
        for bad in [
            json!({"mode": "parallel", "max": 0}),
            json!({"mode": "parallel", "max": 1.5}),
            json!({"mode": "key"}),
            json!({"mode": "x"}),
        ] {
            let e = concurrency(&bad, "a").unwrap_err();
            assert!(e.contains("\"code\":\"invalid-concurrency\""), "{e}");
        }
    }

    #[test]
    fn handler_answers() {
        assert!(matches!(handler_answer(r#"{"ok":{"a":1}}"#), HandlerAnswer::Ok(v) if v == json!({"a":1})));
        assert!(matches!(handler_answer(r#"{"ok":null}"#), HandlerAnswer::Ok(Value::Null)));
        assert!(matches!(handler_answer(r#"{"failed":"boom"}"#), HandlerAnswer::Failed(m) if m == "boom"));
        assert!(matches!(handler_answer("nope"), HandlerAnswer::Failed(_)));
        assert!(matches!(
            handler_answer(r#"{"precondition":{"message":"no","details":{"x":1}}}"#),
            HandlerAnswer::Precondition(m, Some(_)) if m == "no"
        ));
    }

    #[test]
    fn patches_are_keyed_by_capability_name() {
        let p = patch(r#"{"availability":{"increment":{"available":false,"reason":"busy"}}}"#).unwrap();
        let o = &p.availability.unwrap()["increment"];
        assert!(!o.available);
        assert_eq!(o.reason.as_deref(), Some("busy"));
    }
}
