//! The snapshot: what a consumer may call right now. Synchronous and side-effect free (no
//! `read` handler runs), plain JSON, never containing internal metadata; components ordered by
//! (priority desc, type, instanceId); procedures at the top level with a link to their component.

use crate::effects::{Confirmation, Effect};
use crate::binding::ParentLink;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Who is asking. `kind + ":" + id` is the consumer key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentConsumer {
    pub id: String,
    pub kind: ConsumerKind,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grants: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConsumerKind {
    Embedded,
    Webmcp,
    McpBridge,
    Test,
    Other,
}

impl ConsumerKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ConsumerKind::Embedded => "embedded",
            ConsumerKind::Webmcp => "webmcp",
            ConsumerKind::McpBridge => "mcp-bridge",
            ConsumerKind::Test => "test",
            ConsumerKind::Other => "other",
        }
    }
}

impl AgentConsumer {
    pub fn new(kind: ConsumerKind, id: impl Into<String>) -> Self {
        AgentConsumer { id: id.into(), kind, grants: Vec::new() }
    }
    /// The default consumer: `embedded:anonymous`.
    pub fn anonymous() -> Self {
        AgentConsumer::new(ConsumerKind::Embedded, "anonymous")
    }
    pub fn key(&self) -> String {
        format!("{}:{}", self.kind.as_str(), self.id)
    }
}

impl Default for AgentConsumer {
    fn default() -> Self {
        Self::anonymous()
    }
}

/// A snapshot budget (experimental).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotBudget {
    pub max_components: Option<usize>,
    pub max_bytes: Option<usize>,
}

/// What to snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotContext {
    pub consumer: AgentConsumer,
    /// Component-type prefixes to include (segment-wise: "devices" matches "devices.table").
    pub scope: Option<Vec<String>>,
    pub include_unavailable: bool,
    pub budget: Option<SnapshotBudget>,
}

impl Default for SnapshotContext {
    fn default() -> Self {
        SnapshotContext { consumer: AgentConsumer::anonymous(), scope: None, include_unavailable: true, budget: None }
    }
}

/// Whether `ty` is within the scope prefix `prefix` (whole segments).
pub fn in_scope(ty: &str, prefix: &str) -> bool {
    ty == prefix || (ty.starts_with(prefix) && ty[prefix.len()..].starts_with('.'))
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentRouteInfo {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<Map<String, Value>>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentObservationDescriptor {
    pub capability_id: String,
    pub name: String,
    pub description: String,
    pub output_schema: Value,
    pub available: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable_reason: Option<String>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub meta: Map<String, Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentActionDescriptor {
    pub capability_id: String,
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    pub effect: Effect,
    pub idempotent: bool,
    pub reversible: bool,
    pub confirmation: Confirmation,
    pub available: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable_reason: Option<String>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub meta: Map<String, Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentComponentDescriptor {
    #[serde(rename = "type")]
    pub component_type: String,
    pub instance_id: String,
    pub registration_id: String,
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<ParentLink>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub meta: Map<String, Value>,
    pub observations: Vec<AgentObservationDescriptor>,
    pub actions: Vec<AgentActionDescriptor>,
    /// Used for ordering and budgets; not serialized (the spec's descriptor has no priority).
    #[serde(skip)]
    pub priority: i64,
}

/// A domain procedure referenced by a registration.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentProcedureDescriptor {
    pub capability_id: String,
    pub description: String,
    pub input_schema: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    pub effect: Effect,
    pub idempotent: bool,
    pub reversible: bool,
    pub confirmation: Confirmation,
    pub available: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable_reason: Option<String>,
    /// The registration that references it (context link).
    pub registration_id: String,
    pub component: ParentLink,
    /// Live text from the binding's `describe()`; the description stays the manifest's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contextual_note: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Truncated {
    pub dropped_components: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScopeRejected {
    pub prefixes: Vec<String>,
}

/// The catalog a consumer sees.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentSurfaceSnapshot {
    pub surface_id: String,
    pub surface_version: String,
    pub captured_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route: Option<AgentRouteInfo>,
    pub components: Vec<AgentComponentDescriptor>,
    pub procedures: Vec<AgentProcedureDescriptor>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncated>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope_rejected: Option<ScopeRejected>,
}

impl AgentSurfaceSnapshot {
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("snapshot serializes")
    }
}

/// ISO-8601 UTC text of a millisecond timestamp (no time-zone database needed).
pub fn iso8601(ms: u64) -> String {
    let secs = ms / 1000;
    let millis = ms % 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z", rem / 3600, (rem % 3600) / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_dates() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_700_000_000_123), "2023-11-14T22:13:20.123Z");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn scope_is_segment_wise() {
        assert!(in_scope("devices.table", "devices"));
        assert!(in_scope("devices", "devices"));
        assert!(!in_scope("devicesx.table", "devices"));
    }
}
