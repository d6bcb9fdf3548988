//! The snapshot: what a consumer may call right now. Synchronous and side-effect free (no
//! `read` handler runs), plain JSON, never containing internal metadata; components ordered by
//! (priority desc, type, instanceId); procedures at the top level with a link to their component.

pub use crate::consumer::{AgentConsumer, ConsumerKind};
use agent_surface_model::effects::{Confirmation, Effect};
use agent_surface_model::manifest::{ComponentContract, OperationContract};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::sync::Arc;

/// The parent link of a component (hierarchy for consumers).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParentLink {
    #[serde(rename = "type")]
    pub component_type: String,
    pub instance_id: String,
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

// What the contract decides (ids, names, descriptions, schemas, `meta`) is an `Arc` shared by
// every snapshot: a snapshot of 10,000 capabilities that deep-copied it took 29 ms, mostly
// malloc (docs/performance.md). What the registration decides is owned. `Arc`s serialize as
// the values they point to; `Arc::make_mut` gives an owned copy.

/// Immutable text shared by every snapshot (an `Arc<str>`: cloning it copies a pointer). Reads
/// as a `str`, compares with `&str` and `String`, serializes as a JSON string.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SharedStr(Arc<str>);

impl SharedStr {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for SharedStr {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for SharedStr {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for SharedStr {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for SharedStr {
    fn from(s: &str) -> Self {
        SharedStr(s.into())
    }
}

impl From<String> for SharedStr {
    fn from(s: String) -> Self {
        SharedStr(s.into())
    }
}

impl From<SharedStr> for String {
    fn from(s: SharedStr) -> Self {
        s.as_str().to_string()
    }
}

impl std::fmt::Debug for SharedStr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for SharedStr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self)
    }
}

impl Serialize for SharedStr {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self)
    }
}

macro_rules! shared_str_eq {
    ($($other:ty),*) => {$(
        impl PartialEq<$other> for SharedStr {
            fn eq(&self, other: &$other) -> bool {
                self.as_str() == AsRef::<str>::as_ref(other)
            }
        }
        impl PartialEq<SharedStr> for $other {
            fn eq(&self, other: &SharedStr) -> bool {
                AsRef::<str>::as_ref(self) == other.as_str()
            }
        }
    )*};
}
shared_str_eq!(str, &str, String);

fn is_empty_meta(meta: &Arc<Map<String, Value>>) -> bool {
    meta.is_empty()
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentObservationDescriptor {
    pub capability_id: SharedStr,
    pub name: SharedStr,
    pub description: SharedStr,
    pub output_schema: Arc<Value>,
    pub available: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable_reason: Option<String>,
    #[serde(skip_serializing_if = "is_empty_meta")]
    pub meta: Arc<Map<String, Value>>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentActionDescriptor {
    pub capability_id: SharedStr,
    pub name: SharedStr,
    pub description: SharedStr,
    pub input_schema: Arc<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Arc<Value>>,
    pub effect: Effect,
    pub idempotent: bool,
    pub reversible: bool,
    pub confirmation: Confirmation,
    pub available: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable_reason: Option<String>,
    #[serde(skip_serializing_if = "is_empty_meta")]
    pub meta: Arc<Map<String, Value>>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentComponentDescriptor {
    #[serde(rename = "type")]
    pub component_type: SharedStr,
    pub instance_id: String,
    pub registration_id: String,
    pub description: SharedStr,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<ParentLink>,
    #[serde(skip_serializing_if = "is_empty_meta")]
    pub meta: Arc<Map<String, Value>>,
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
    pub capability_id: SharedStr,
    pub description: SharedStr,
    pub input_schema: Arc<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Arc<Value>>,
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

/// The part of a component's descriptors that its contract alone decides, built once per
/// contract and kept by the authority: a snapshot clones these descriptors (`Arc` schemas and
/// meta, precomputed ids) and sets availability. Observations and actions are in name order,
/// as in the contract.
#[derive(Debug)]
pub(crate) struct ComponentDescriptorTemplate {
    pub component_type: SharedStr,
    pub description: SharedStr,
    pub meta: Arc<Map<String, Value>>,
    pub priority: i64,
    pub observations: Vec<AgentObservationDescriptor>,
    pub actions: Vec<AgentActionDescriptor>,
}

impl ComponentDescriptorTemplate {
    pub(crate) fn new(c: &ComponentContract) -> Self {
        let observations = c
            .observations
            .iter()
            .map(|(name, o)| AgentObservationDescriptor {
                capability_id: agent_surface_model::ids::capability_id(&c.r#type, name).into(),
                name: name.as_str().into(),
                description: o.description.as_str().into(),
                output_schema: Arc::new(o.output_schema.clone()),
                available: true,
                unavailable_reason: None,
                meta: Arc::new(o.meta.clone()),
            })
            .collect();
        let actions = c
            .actions
            .iter()
            .map(|(name, a)| AgentActionDescriptor {
                capability_id: agent_surface_model::ids::capability_id(&c.r#type, name).into(),
                name: name.as_str().into(),
                description: a.description.as_str().into(),
                input_schema: Arc::new(a.input_schema.clone()),
                output_schema: a.output_schema.clone().map(Arc::new),
                effect: a.effect,
                idempotent: a.idempotent,
                reversible: a.reversible,
                confirmation: a.confirmation,
                available: true,
                unavailable_reason: None,
                meta: Arc::new(a.meta.clone()),
            })
            .collect();
        ComponentDescriptorTemplate {
            component_type: c.r#type.as_str().into(),
            description: c.description.as_str().into(),
            meta: Arc::new(c.meta.clone()),
            priority: c.priority,
            observations,
            actions,
        }
    }

    /// The component's descriptor with these capabilities.
    pub(crate) fn component(
        &self,
        instance_id: &str,
        registration_id: &str,
        parent: Option<ParentLink>,
        observations: Vec<AgentObservationDescriptor>,
        actions: Vec<AgentActionDescriptor>,
    ) -> AgentComponentDescriptor {
        AgentComponentDescriptor {
            component_type: self.component_type.clone(),
            instance_id: instance_id.to_string(),
            registration_id: registration_id.to_string(),
            description: self.description.clone(),
            parent,
            meta: self.meta.clone(),
            observations,
            actions,
            priority: self.priority,
        }
    }
}

/// The same for a procedure (or external tool): everything but availability and the
/// referencing registration.
#[derive(Debug)]
pub(crate) struct ProcedureDescriptorTemplate {
    pub capability_id: SharedStr,
    pub description: SharedStr,
    pub input_schema: Arc<Value>,
    pub output_schema: Option<Arc<Value>>,
    pub effect: Effect,
    pub idempotent: bool,
    pub reversible: bool,
    pub confirmation: Confirmation,
}

impl ProcedureDescriptorTemplate {
    pub(crate) fn new(p: &OperationContract) -> Self {
        ProcedureDescriptorTemplate {
            capability_id: p.id.as_str().into(),
            description: p.description.as_str().into(),
            input_schema: Arc::new(p.input_schema.clone()),
            output_schema: p.output_schema.clone().map(Arc::new),
            effect: p.effect,
            idempotent: p.idempotent,
            reversible: p.reversible,
            confirmation: p.confirmation,
        }
    }

    /// The descriptor as referenced by `registration_id`, whose component is `component`.
    pub(crate) fn procedure(
        &self,
        available: bool,
        unavailable_reason: Option<String>,
        registration_id: &str,
        component: ParentLink,
        contextual_note: Option<String>,
    ) -> AgentProcedureDescriptor {
        AgentProcedureDescriptor {
            capability_id: self.capability_id.clone(),
            description: self.description.clone(),
            input_schema: self.input_schema.clone(),
            output_schema: self.output_schema.clone(),
            effect: self.effect,
            idempotent: self.idempotent,
            reversible: self.reversible,
            confirmation: self.confirmation,
            available,
            unavailable_reason,
            registration_id: registration_id.to_string(),
            component,
            contextual_note,
        }
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
