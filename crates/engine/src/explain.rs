//! `explain_surface`: the developer projection that says *why* a snapshot looks as it does.
//! It reports every capability the registry holds (hidden ones included, ignoring
//! `include_unavailable` and budgets), honours scope and consumer, keeps availability (state)
//! apart from policy votes, and its composed outcome equals what `snapshot` did. Never
//! agent-facing.

use crate::binding::HostContext;
use crate::policy::{discovery_vote, DiscoveryContext, DiscoveryDecision, Policy, PolicyPhase};
use crate::registry::AgentSurfaceRegistry;
use crate::snapshot::{in_scope, SnapshotContext};
use crate::surface::state::{DiscoveryScope, Dynamic, Reg, Surface};
use serde::Serialize;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Expose,
    Disable,
    Hide,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PolicyScope {
    Registry,
    Component,
    Capability,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyVote {
    pub name: String,
    pub scope: PolicyScope,
    pub phases: Vec<PolicyPhase>,
    /// This policy's own discovery vote, in the published `DiscoveryDecision` shape (`"expose"`,
    /// `"hide"`, `{"disable": reason}`); `"hide"` for a policy that failed (`threw`). Absent
    /// for a policy without a discovery phase.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discovery: Option<DiscoveryDecision>,
    /// Its discovery failed (an error, or a panic): it counted as `"hide"` (fail closed).
    /// Serialized only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub threw: bool,
    /// Its invoke phase may escalate this capability to a confirmation (`require-confirmation`):
    /// true for a policy with an invoke phase on an action or a procedure (observations skip
    /// confirmation). Serialized only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub confirmation_escalation: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Availability {
    pub available: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ComponentRef {
    #[serde(rename = "type")]
    pub component_type: String,
    pub instance_id: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CapabilityExplanation {
    pub capability_id: String,
    pub kind: &'static str,
    pub plane: &'static str,
    pub description: String,
    pub registration_id: String,
    pub component: ComponentRef,
    pub outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub policies: Vec<PolicyVote>,
    pub availability: Availability,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SurfaceExplanation {
    pub surface_id: String,
    pub surface_version: String,
    pub capabilities: Vec<CapabilityExplanation>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExplainError {
    #[error("explain_surface on a disposed registry")]
    Disposed,
}

/// Each policy's own vote. `confirmable`: the capability passes the confirmation step (an action
/// or a procedure), so an invoke phase may escalate it.
fn votes(policies: &[(PolicyScope, &Policy)], ctx: &DiscoveryContext, confirmable: bool) -> Vec<PolicyVote> {
    policies
        .iter()
        .map(|(scope, p)| {
            let discovery = p.phases().contains(&PolicyPhase::Discovery).then(|| discovery_vote(&***p, ctx));
            let (vote, threw) = match discovery {
                None => (None, false),
                Some(Err(_)) => (Some(DiscoveryDecision::Hide), true),
                Some(Ok(d)) => (Some(d), false),
            };
            PolicyVote {
                name: p.name().to_string(),
                scope: *scope,
                phases: p.phases().to_vec(),
                discovery: vote,
                threw,
                confirmation_escalation: confirmable && p.phases().contains(&PolicyPhase::Invoke),
            }
        })
        .collect()
}

/// Explains the surface for `ctx` (consumer and scope honoured).
pub fn explain_surface(
    registry: &AgentSurfaceRegistry,
    ctx: &SnapshotContext,
) -> Result<SurfaceExplanation, ExplainError> {
    let shared = &registry.shared.surface;
    let (regs, version): (Vec<(Arc<Reg>, Dynamic)>, u64) = {
        let st = shared.lock();
        if st.disposed {
            return Err(ExplainError::Disposed);
        }
        (
            st.regs.values().map(|r| (r.clone(), st.dynamic.get(&r.id).cloned().unwrap_or_default())).collect(),
            st.version,
        )
    };
    let host = shared.host();
    let mut discovery = DiscoveryScope::new(&ctx.consumer, &host);
    let mut out = Vec::new();
    for (reg, dynamic) in &regs {
        let b = &reg.bound;
        let ty = b.component_type();
        if let Some(scope) = &ctx.scope {
            if !scope.iter().any(|p| in_scope(ty, p)) {
                continue;
            }
        }
        explain_registration(shared, reg, dynamic, ctx, &host, &mut discovery, &mut out);
    }
    Ok(SurfaceExplanation {
        surface_id: shared.surface_id.clone(),
        surface_version: version.to_string(),
        capabilities: out,
    })
}

/// The explanations of one registration's observations, actions and procedures.
fn explain_registration(
    shared: &Surface,
    reg: &Reg,
    dynamic: &Dynamic,
    ctx: &SnapshotContext,
    host: &HostContext,
    discovery: &mut DiscoveryScope<'_>,
    out: &mut Vec<CapabilityExplanation>,
) {
    let b = &reg.bound;
    let ty = b.component_type();
    let c = b.contract();
    let component = ComponentRef { component_type: ty.to_string(), instance_id: b.instance_id().to_string() };
    let explain = |capability_id: String,
                   kind: &'static str,
                   plane: &'static str,
                   description: &str,
                   cap_policies: &[Policy],
                   composed: Option<(bool, Option<String>)>,
                   (available, areason): (bool, Option<String>)| {
        let dctx = DiscoveryContext {
            capability_id: capability_id.clone(),
            component_type: ty.to_string(),
            instance_id: b.instance_id().to_string(),
            consumer: ctx.consumer.clone(),
            host: host.clone(),
        };
        let scoped: Vec<(PolicyScope, &Policy)> = shared
            .options
            .policies
            .iter()
            .map(|p| (PolicyScope::Registry, p))
            .chain(b.policies.iter().map(|p| (PolicyScope::Component, p)))
            .chain(cap_policies.iter().map(|p| (PolicyScope::Capability, p)))
            .collect();
        let (outcome, why) = match composed {
            None => (Outcome::Hide, Some("hidden by policy".to_string())),
            Some((false, r)) => (Outcome::Disable, r),
            Some((true, _)) => (Outcome::Expose, None),
        };
        CapabilityExplanation {
            capability_id,
            kind,
            plane,
            description: description.to_string(),
            registration_id: reg.id.clone(),
            component: component.clone(),
            outcome,
            reason: why,
            policies: votes(&scoped, &dctx, kind != "observation"),
            availability: Availability { available, reason: areason },
        }
    };
    for (name, oc) in &c.observations {
        let ob = &b.observations[name];
        let (when, reason) = (ob.when.as_ref(), ob.unavailable_reason.as_ref());
        let capability_id = agent_surface_model::ids::capability_id(ty, name);
        let composed =
            shared.availability(reg, dynamic, &capability_id, name, &ob.policies, when, reason, false, discovery);
        let base = shared.base_availability(dynamic, name, when, reason, false, &capability_id);
        out.push(explain(capability_id, "observation", "view", &oc.description, &ob.policies, composed, base));
    }
    for (name, ac) in &c.actions {
        let ab = &b.actions[name];
        let (when, reason) = (ab.when.as_ref(), ab.unavailable_reason.as_ref());
        let capability_id = agent_surface_model::ids::capability_id(ty, name);
        let composed =
            shared.availability(reg, dynamic, &capability_id, name, &ab.policies, when, reason, false, discovery);
        let base = shared.base_availability(dynamic, name, when, reason, false, &capability_id);
        out.push(explain(capability_id, "action", "view", &ac.description, &ab.policies, composed, base));
    }
    // Procedures the registration references: the snapshot lists them (top level), so the
    // explanation must too.
    for (index, p) in b.procedures.iter().enumerate() {
        let pc = p.contract.contract();
        let (when, reason) = (p.binding.when.as_ref(), p.binding.unavailable_reason.as_ref());
        let composed = shared.procedure_availability(reg, dynamic, index, discovery);
        let base = shared.base_availability(dynamic, &pc.id, when, reason, p.binding.forwarded, &pc.id);
        out.push(explain(pc.id.clone(), "procedure", "domain", &pc.description, &p.binding.policies, composed, base));
    }
}
