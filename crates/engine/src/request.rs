//! What an invocation is and what it answers: the request (`AgentInvocation`), its options,
//! the result envelope, and the request's identity (the fingerprint that dedupe compares).

use crate::consumer::AgentConsumer;
use crate::signal::AbortSignal;
use agent_surface_model::canonical::canonical_json;
use agent_surface_model::errors::{AgentCapabilityError, ErrorCode};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The spec's `AgentInvocation`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentInvocation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocation_id: Option<String>,
    pub capability_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_id: Option<String>,
    /// The surface the consumer discovered on; another surface is stale by definition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation_id: Option<String>,
}

impl AgentInvocation {
    pub fn new(capability_id: impl Into<String>) -> Self {
        AgentInvocation { capability_id: capability_id.into(), ..Default::default() }
    }
    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.invocation_id = Some(id.into());
        self
    }
    pub fn input(mut self, v: Value) -> Self {
        self.input = Some(v);
        self
    }
    pub fn instance(mut self, id: impl Into<String>) -> Self {
        self.instance_id = Some(id.into());
        self
    }
    pub fn registration(mut self, id: impl Into<String>) -> Self {
        self.registration_id = Some(id.into());
        self
    }
    pub fn surface_version(mut self, v: impl Into<String>) -> Self {
        self.surface_version = Some(v.into());
        self
    }
    pub fn confirmation(mut self, id: impl Into<String>) -> Self {
        self.confirmation_id = Some(id.into());
        self
    }
}

/// The spec's `InvokeOptions`.
#[derive(Clone, Debug, Default)]
pub struct InvokeOptions {
    pub consumer: Option<AgentConsumer>,
    /// External cancellation → CANCELLED.
    pub signal: Option<AbortSignal>,
    /// Overrides the capability's and the limits' timeout.
    pub timeout_ms: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InvocationStatus {
    Ok,
    Error,
}

/// The spec's `AgentInvocationResult` (a discriminated union on `status`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentInvocationResult {
    pub status: InvocationStatus,
    pub invocation_id: String,
    pub capability_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<AgentCapabilityError>,
    pub surface_version: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub surface_changed: bool,
}

impl AgentInvocationResult {
    pub fn is_ok(&self) -> bool {
        self.status == InvocationStatus::Ok
    }
    pub fn code(&self) -> Option<ErrorCode> {
        self.error.as_ref().map(|e| e.code)
    }
}

/// Misuse: the registry was disposed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invoke called on a disposed registry")]
pub struct RegistryDisposed;

/// FNV-1a 64 of the canonical JSON of the request as issued.
pub fn fingerprint(inv: &AgentInvocation) -> String {
    let mut m = Map::new();
    m.insert("capabilityId".into(), Value::String(inv.capability_id.clone()));
    for (k, v) in [
        ("registrationId", &inv.registration_id),
        ("instanceId", &inv.instance_id),
        ("surfaceVersion", &inv.surface_version),
        ("confirmationId", &inv.confirmation_id),
    ] {
        if let Some(v) = v {
            m.insert(k.into(), Value::String(v.clone()));
        }
    }
    if let Some(i) = &inv.input {
        m.insert("input".into(), i.clone());
    }
    fnv1a64(canonical_json(&Value::Object(m)).as_bytes())
}

pub fn fnv1a64(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    format!("{h:016x}")
}

pub(crate) fn error_result(
    invocation_id: &str,
    capability_id: &str,
    error: AgentCapabilityError,
    version: u64,
    changed: bool,
) -> AgentInvocationResult {
    AgentInvocationResult {
        status: InvocationStatus::Error,
        invocation_id: invocation_id.to_string(),
        capability_id: capability_id.to_string(),
        output: None,
        error: Some(error),
        surface_version: version.to_string(),
        surface_changed: changed,
    }
}

pub(crate) fn err(code: ErrorCode, message: impl Into<String>) -> AgentCapabilityError {
    AgentCapabilityError::new(code, message)
}
