//! The tool catalog: what a model is shown, built from a snapshot (or from a manifest alone)
//! without any live state. The live, subscribed toolset that executes calls is
//! [`super::toolset`], which re-exports all of this.

use crate::host::BoxFuture;
use crate::invoke::{AgentInvocationResult, InvocationStatus};
use crate::signal::AbortSignal;
use crate::snapshot::AgentSurfaceSnapshot;
use agent_surface_model::errors::{AgentCapabilityError, ErrorCode};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ToolsetMode {
    #[default]
    Direct,
    /// Experimental: the verb envelope may change in any release.
    Meta,
}

/// How direct tools are named (`AgentToolsetOptions::names`); the meta tools keep their names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ToolNames {
    /// The wire name of the capability id, plane first: `view_devices_table_readState`,
    /// `domain_devices_reboot` (DECISIONS §8).
    #[default]
    Prefixed,
    /// The same without the plane: `devices_table_readState`, `devices_reboot`. For hosts whose
    /// tools need fixed names; a name two capabilities share gets the hashed form, as always.
    Unprefixed,
}

impl ToolNames {
    /// What the wire name is made from: the capability id, or the id after its plane (`view:`,
    /// `domain:`, `external:`).
    pub fn source(self, capability_id: &str) -> &str {
        match self {
            ToolNames::Prefixed => capability_id,
            ToolNames::Unprefixed => capability_id.split_once(':').map_or(capability_id, |(_, rest)| rest),
        }
    }
}

/// Volatile state, rendered outside the tool block.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolState {
    pub available: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What a tool does, for provider hints (MCP annotations).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolTraits {
    pub plane: &'static str,
    pub effect: agent_surface_model::effects::Effect,
    pub idempotent: bool,
    pub reversible: bool,
    pub confirmation: agent_surface_model::effects::Confirmation,
}

/// Where a direct tool's calls go (private to the catalog it came from).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Route {
    pub(super) capability_id: String,
    pub(super) instance_id: Option<String>,
    pub(super) registration_id: Option<String>,
    pub(super) surface_version: String,
}

/// How a tool call reached the host (the spec's `execute(input, { toolCallId })`).
#[derive(Clone, Debug, Default)]
pub struct ToolCall {
    /// The provider's tool-call id: becomes the invocationId, so a transport retry of the same
    /// call is answered from the idempotency window instead of running twice.
    pub id: Option<String>,
    /// External cancellation (e.g. MCP `notifications/cancelled`): the result is CANCELLED.
    pub signal: Option<AbortSignal>,
}

impl ToolCall {
    pub fn id(id: impl Into<String>) -> Self {
        ToolCall { id: Some(id.into()), signal: None }
    }
    pub fn signal(mut self, signal: AbortSignal) -> Self {
        self.signal = Some(signal);
        self
    }
}

/// How a tool executes: back into the toolset that built it.
pub(super) type ToolExec =
    Arc<crate::dyn_send_sync!(Fn(AgentTool, Value, ToolCall) -> BoxFuture<AgentInvocationResult>)>;

/// A tool's way back to its toolset (none for a catalog built without one). Not part of a
/// tool's identity: every handle compares equal.
#[derive(Clone, Default)]
pub(super) struct ToolHandle(pub(super) Option<ToolExec>);

impl PartialEq for ToolHandle {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for ToolHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "ToolHandle(toolset)" } else { "ToolHandle(detached)" })
    }
}

/// The spec's `AgentTool`: definition, state and `execute`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentTool {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    pub state: ToolState,
    #[serde(skip)]
    pub traits: Option<ToolTraits>,
    #[serde(skip)]
    pub(super) route: Option<Route>,
    #[serde(skip)]
    pub(super) handle: ToolHandle,
}

impl AgentTool {
    /// The spec's `tool.execute(input, { toolCallId? })`: runs through the toolset this tool came
    /// from ([`AgentToolset::execute_tool`](super::toolset::AgentToolset::execute_tool): the
    /// registrationId and surfaceVersion of its catalog go with the call). Never fails: a tool
    /// built without a toolset ([`direct_tools`], [`catalog_from_manifest`]) or whose toolset
    /// is gone answers CAPABILITY_NOT_FOUND.
    pub async fn execute(&self, input: Value, call: ToolCall) -> AgentInvocationResult {
        match &self.handle.0 {
            Some(exec) => exec(self.clone(), input, call).await,
            None => self.detached(call),
        }
    }

    /// The answer of a tool without a live toolset.
    pub(super) fn detached(&self, call: ToolCall) -> AgentInvocationResult {
        AgentInvocationResult {
            status: InvocationStatus::Error,
            invocation_id: call.id.unwrap_or_default(),
            capability_id: self.capability_id().unwrap_or(&self.name).to_string(),
            output: None,
            error: Some(AgentCapabilityError::new(
                ErrorCode::CapabilityNotFound,
                "this tool is not attached to a live toolset; take the tools from toolset.tools()",
            )),
            surface_version: "0".into(),
            surface_changed: false,
        }
    }

    /// The capability a direct tool invokes (`None` for meta tools).
    pub fn capability_id(&self) -> Option<&str> {
        self.route.as_ref().map(|r| r.capability_id.as_str())
    }
}

/// `[A-Za-z0-9_-]{1,64}`: the model's wire name (capability id with `:` and `.` mapped to `_`; longer ids cut and
/// ending with `_` + 8 base32 characters of the blake3 of the full id), re-exported here.
pub use agent_surface_model::ids::wire_name;

fn prefix(
    plane: &str,
    effect: agent_surface_model::effects::Effect,
    confirmation: agent_surface_model::effects::Confirmation,
) -> String {
    format!("[{plane} · {} · {}] ", effect.as_str(), confirmation.as_str())
}

const EMPTY_INPUT: &str = r#"{"type":"object","properties":{},"additionalProperties":false}"#;

/// The direct catalog for a snapshot: one tool per capability (per instance when a type has
/// several live instances), sorted by name.
pub fn direct_tools(snap: &AgentSurfaceSnapshot) -> Vec<AgentTool> {
    direct_tools_named(snap, ToolNames::Prefixed)
}

/// [`direct_tools`] with the given naming (`Unprefixed` drops the plane from every name).
pub fn direct_tools_named(snap: &AgentSurfaceSnapshot, names: ToolNames) -> Vec<AgentTool> {
    let mut per_type: HashMap<&str, usize> = HashMap::new();
    for c in &snap.components {
        *per_type.entry(c.component_type.as_str()).or_default() += 1;
    }
    let empty: Value = serde_json::from_str(EMPTY_INPUT).expect("static schema");
    let mut tools = Vec::new();
    for c in &snap.components {
        let several = per_type[c.component_type.as_str()] > 1;
        let naming = |cap: &str| {
            let cap = names.source(cap);
            if several {
                wire_name(&format!("{cap}__{}", c.instance_id))
            } else {
                wire_name(cap)
            }
        };
        let instance_note =
            |d: &str| if several { format!("(instance \"{}\") {d}", c.instance_id) } else { d.to_string() };
        for o in &c.observations {
            tools.push(AgentTool {
                handle: ToolHandle::default(),
                name: naming(&o.capability_id),
                description: format!(
                    "{}{}",
                    prefix(
                        "view",
                        agent_surface_model::effects::Effect::Read,
                        agent_surface_model::effects::Confirmation::Never
                    ),
                    instance_note(&o.description)
                ),
                input_schema: empty.clone(),
                output_schema: Some(Value::clone(&o.output_schema)),
                state: ToolState {
                    available: o.available,
                    unavailable_reason: o.unavailable_reason.clone(),
                    note: None,
                },
                traits: Some(ToolTraits {
                    plane: "view",
                    effect: agent_surface_model::effects::Effect::Read,
                    idempotent: true,
                    reversible: true,
                    confirmation: agent_surface_model::effects::Confirmation::Never,
                }),
                route: Some(Route {
                    capability_id: o.capability_id.to_string(),
                    instance_id: Some(c.instance_id.clone()),
                    registration_id: Some(c.registration_id.clone()),
                    surface_version: snap.surface_version.clone(),
                }),
            });
        }
        for a in &c.actions {
            tools.push(AgentTool {
                handle: ToolHandle::default(),
                name: naming(&a.capability_id),
                description: format!("{}{}", prefix("view", a.effect, a.confirmation), instance_note(&a.description)),
                input_schema: Value::clone(&a.input_schema),
                output_schema: a.output_schema.as_deref().cloned(),
                state: ToolState {
                    available: a.available,
                    unavailable_reason: a.unavailable_reason.clone(),
                    note: None,
                },
                traits: Some(ToolTraits {
                    plane: "view",
                    effect: a.effect,
                    idempotent: a.idempotent,
                    reversible: a.reversible,
                    confirmation: a.confirmation,
                }),
                route: Some(Route {
                    capability_id: a.capability_id.to_string(),
                    instance_id: Some(c.instance_id.clone()),
                    registration_id: Some(c.registration_id.clone()),
                    surface_version: snap.surface_version.clone(),
                }),
            });
        }
    }
    procedure_tools(snap, names, &mut tools);
    dedupe_names(&mut tools);
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    tools
}

/// Procedures: one tool per procedure id (the first referencing registration in snapshot order
/// routes the call).
fn procedure_tools(snap: &AgentSurfaceSnapshot, names: ToolNames, tools: &mut Vec<AgentTool>) {
    let mut seen = std::collections::HashSet::new();
    for p in &snap.procedures {
        if !seen.insert(p.capability_id.clone()) {
            continue;
        }
        tools.push(AgentTool {
            handle: ToolHandle::default(),
            name: wire_name(names.source(&p.capability_id)),
            description: format!("{}{}", prefix("domain", p.effect, p.confirmation), p.description),
            input_schema: Value::clone(&p.input_schema),
            output_schema: p.output_schema.as_deref().cloned(),
            state: ToolState {
                available: p.available,
                unavailable_reason: p.unavailable_reason.clone(),
                note: p.contextual_note.clone(),
            },
            traits: Some(ToolTraits {
                plane: "domain",
                effect: p.effect,
                idempotent: p.idempotent,
                reversible: p.reversible,
                confirmation: p.confirmation,
            }),
            route: Some(Route {
                capability_id: p.capability_id.to_string(),
                instance_id: None,
                registration_id: Some(p.registration_id.clone()),
                surface_version: snap.surface_version.clone(),
            }),
        });
    }
}

/// Guarantees unique names (a sanitized collision gets a hash suffix of its capability id).
fn dedupe_names(tools: &mut [AgentTool]) {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for t in tools.iter() {
        *counts.entry(t.name.clone()).or_default() += 1;
    }
    for t in tools.iter_mut() {
        if counts[&t.name] > 1 {
            let key = format!(
                "{}#{}",
                t.capability_id().unwrap_or(""),
                t.route.as_ref().and_then(|r| r.instance_id.clone()).unwrap_or_default()
            );
            let full = format!("{}{}", t.name, "_".repeat(64));
            t.name = wire_name(&format!("{}~{key}", &full[..60]));
        }
    }
}

/// The three meta tools (experimental).
pub fn meta_tools() -> Vec<AgentTool> {
    let meta = |name: &str, description: &str, input: Value| AgentTool {
        name: name.into(),
        description: description.into(),
        input_schema: input,
        output_schema: None,
        state: ToolState { available: true, unavailable_reason: None, note: None },
        traits: None,
        route: None,
        handle: ToolHandle::default(),
    };
    let target = |with_input: bool| {
        let mut props = json!({
            "capabilityId": { "type": "string", "description": "A capabilityId from surface_discover" },
            "instanceId": { "type": "string", "description": "Required when several instances are live" },
            "registrationId": { "type": "string", "description": "The registrationId from surface_discover (staleness check)" },
            "surfaceVersion": { "type": "string", "description": "The surfaceVersion from surface_discover" },
        });
        if with_input {
            props["input"] = json!({ "type": "object", "description": "The capability's input, per its inputSchema" });
            props["confirmationId"] = json!({ "type": "string", "description": "After the user confirmed: the confirmationId of CONFIRMATION_REQUIRED" });
        }
        json!({ "type": "object", "properties": props, "required": ["capabilityId"], "additionalProperties": false })
    };
    vec![
        meta(
            "surface_discover",
            "[experimental] List what can be read and done on the current screen: components with their observations and actions, and domain procedures, each with capabilityId, schemas and availability.",
            json!({ "type": "object", "properties": { "scope": { "type": "array", "items": { "type": "string" }, "description": "Component-type prefixes to narrow discovery, e.g. [\"devices\"]" } }, "additionalProperties": false }),
        ),
        meta("surface_invoke", "[experimental] Invoke an action or a domain procedure found with surface_discover.", target(true)),
        meta("surface_read", "[experimental] Read an observation found with surface_discover.", target(false)),
    ]
}

/// A catalog from a manifest alone (what `agent-surface tools` previews): every component as
/// one live instance, every capability available.
pub fn catalog_from_manifest(authority: &crate::authority::CapabilityAuthority, mode: ToolsetMode) -> Vec<AgentTool> {
    use crate::authority::DescriptorTemplate;
    use crate::snapshot::*;
    if mode == ToolsetMode::Meta {
        return meta_tools();
    }
    let mut snap = AgentSurfaceSnapshot {
        surface_id: "preview".into(),
        surface_version: "0".into(),
        captured_at: String::new(),
        route: None,
        components: Vec::new(),
        procedures: Vec::new(),
        truncated: None,
        scope_rejected: None,
    };
    for index in 0..authority.manifest().contracts.len() {
        match authority.descriptor_template(index) {
            DescriptorTemplate::Component(t) => {
                snap.components.push(t.component("default", "preview", None, t.observations.clone(), t.actions.clone()))
            }
            DescriptorTemplate::Procedure(t) => {
                let component =
                    crate::snapshot::ParentLink { component_type: String::new(), instance_id: String::new() };
                snap.procedures.push(t.procedure(true, None, "preview", component, None));
            }
        }
    }
    let mut tools = direct_tools(&snap);
    for t in &mut tools {
        if t.capability_id().is_some_and(|c| c.starts_with("external:")) {
            if let Some(tr) = &mut t.traits {
                tr.plane = "external";
            }
            t.description = t.description.replacen("[domain ·", "[external ·", 1);
        }
    }
    tools
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_are_safe_and_bounded() {
        assert_eq!(wire_name("view:devices.table.readState"), "view_devices_table_readState");
        let long = format!("view:{}.x", ["segment-long-name"; 6].join("."));
        let w = wire_name(&long);
        assert!(w.len() <= 64 && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'), "{w}");
        assert_ne!(wire_name(&long), wire_name(&format!("{long}y")));
    }
}
