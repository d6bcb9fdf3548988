//! Steps 2 to 7: resolve the target, check it is available to this consumer, authorize, build
//! the effective input, run the precondition and the input-aware policies, and pass the
//! confirmation gate. Step 8, the admission queues, is [`super::queues`].

use super::request::{err, fnv1a64, AgentInvocation, InvokeOptions};
use super::Parts;
use crate::binding::{ActionBinding, ConfirmationEvidence, HostContext, ReadContext, UnavailableReason, WhenFn};
use crate::confirm::store::{ConfirmationCheck, ConfirmationRequest};
use crate::consumer::AgentConsumer;
use crate::host::BoxFuture;
use crate::policy::{
    evaluate_discovery, DiscoveryContext, DiscoveryDecision, Policy, PolicyContext, PolicyDecision, PolicyPhase,
};
use crate::registry::state::{DiscoveryScope, Dynamic, Reg, State, Surface};
use agent_surface_model::canonical::canonical_json;
use agent_surface_model::effects::{Audit, Confirmation, Effect};
use agent_surface_model::errors::{AgentCapabilityError, ErrorCode};
use agent_surface_model::limits::AgentSurfaceLimits;
use futures::future::FutureExt;
use serde_json::{Map, Value};
use std::sync::Arc;

/// What resolution found.
pub(super) enum Target {
    Observation { reg: Arc<Reg>, name: String },
    Action { reg: Arc<Reg>, name: String },
    Procedure { reg: Arc<Reg>, index: usize },
}

impl Target {
    pub(super) fn reg(&self) -> &Arc<Reg> {
        match self {
            Target::Observation { reg, .. } | Target::Action { reg, .. } | Target::Procedure { reg, .. } => reg,
        }
    }
}

/// Splits `view:<type>.<name>` into type and name.
fn split_view(id: &str) -> Option<(&str, &str)> {
    let rest = id.strip_prefix("view:")?;
    let dot = rest.rfind('.')?;
    Some((&rest[..dot], &rest[dot + 1..]))
}

/// Step 2, resolve: capability, instance, staleness, tombstones.
pub(super) fn resolve(surface: &Surface, req: &AgentInvocation) -> Result<(Target, Dynamic), AgentCapabilityError> {
    let mut st = surface.lock();
    if let Some(sid) = &req.surface_id {
        if *sid != surface.surface_id {
            return Err(err(ErrorCode::StaleCapability, "the surface was reloaded since discovery; discover again")
                .detail("reason", "surface-id-mismatch"));
        }
    }
    let tombstone = match &req.registration_id {
        Some(rid) if !st.regs.contains_key(rid) => surface.tombstone(&mut st, rid),
        _ => None,
    };
    let by_reg = |st: &State, pred: &dyn Fn(&Reg) -> bool| -> Vec<Arc<Reg>> {
        st.regs.values().filter(|r| pred(r)).cloned().collect()
    };
    let (candidates, kind): (Vec<Arc<Reg>>, u8) = if let Some((ty, name)) = split_view(&req.capability_id) {
        let c = by_reg(&st, &|r: &Reg| {
            r.bound.component_type() == ty
                && (r.bound.contract().observations.contains_key(name) || r.bound.contract().actions.contains_key(name))
        });
        (c, 0)
    } else if req.capability_id.starts_with("domain:") {
        let id = req.capability_id.as_str();
        (by_reg(&st, &|r: &Reg| r.bound.procedures.iter().any(|p| p.id() == id)), 1)
    } else {
        (Vec::new(), 2)
    };
    let mut matching: Vec<Arc<Reg>> = candidates
        .into_iter()
        .filter(|r| req.instance_id.as_ref().is_none_or(|i| r.bound.instance_id() == i))
        .collect();
    if let Some(rid) = &req.registration_id {
        if let Some(live) = matching.iter().find(|r| &r.id == rid).cloned() {
            matching = vec![live];
        } else if let Some(t) = &tombstone {
            // The tombstone variant is for an instance with no live registration; a remounted
            // one makes the old id stale, and the agent is told the live one.
            return Err(
                match matching
                    .iter()
                    .find(|r| r.bound.component_type() == t.component_type && r.bound.instance_id() == t.instance_id)
                {
                    Some(live) => err(
                        ErrorCode::StaleCapability,
                        "the component was remounted since discovery; use the live registration or discover again",
                    )
                    .detail("liveRegistrationId", live.id.clone()),
                    None => err(ErrorCode::ComponentUnmounted, "the component was unmounted"),
                },
            );
        } else if matching.len() == 1 {
            return Err(err(
                ErrorCode::StaleCapability,
                "the registration changed since discovery; use the live one or discover again",
            )
            .detail("liveRegistrationId", matching[0].id.clone()));
        } else if matching.is_empty() {
            return Err(err(ErrorCode::CapabilityNotFound, format!("no live capability {}", req.capability_id)));
        } else {
            return Err(err(ErrorCode::StaleCapability, "the registration changed since discovery; discover again"));
        }
    }
    let reg = match matching.len() {
        0 => {
            return Err(err(ErrorCode::CapabilityNotFound, format!("no live capability {}", req.capability_id)));
        }
        1 => matching.remove(0),
        _ => {
            let mut instances: Vec<String> = matching.iter().map(|r| r.bound.instance_id().to_string()).collect();
            instances.sort();
            return Err(err(ErrorCode::AmbiguousInstance, "several instances are live; name one with instanceId")
                .detail("instances", instances));
        }
    };
    let dynamic = st.dynamic.get(&reg.id).cloned().unwrap_or_default();
    drop(st);
    let target = match kind {
        0 => {
            let (_, name) = split_view(&req.capability_id).expect("view id");
            if reg.bound.contract().observations.contains_key(name) {
                Target::Observation { reg, name: name.to_string() }
            } else {
                Target::Action { reg, name: name.to_string() }
            }
        }
        _ => {
            let index = reg.bound.procedures.iter().position(|p| p.id() == req.capability_id).expect("procedure");
            Target::Procedure { reg, index }
        }
    };
    Ok((target, dynamic))
}

/// What the pipeline needs to know about its target, read once from contract and binding.
pub(super) struct Plan<'a> {
    pub effect: Effect,
    pub audit: Audit,
    pub input_schema: Option<&'a Value>,
    pub output_schema: Option<&'a Value>,
    pub confirmation: Confirmation,
    /// The target's own policies (the registry's and the component's come before them).
    pub binding_policies: &'a [Policy],
    /// The observation's or action's name; a procedure's id.
    pub name: String,
    pub when: Option<&'a WhenFn>,
    pub reason: Option<&'a UnavailableReason>,
    /// `None` for an observation.
    pub binding: Option<&'a ActionBinding>,
    pub description: &'a str,
    pub timeout_ms: Option<u64>,
}

impl<'a> Plan<'a> {
    pub(super) fn of(target: &'a Target) -> Plan<'a> {
        let reg = target.reg();
        let contract = reg.bound.contract();
        match target {
            Target::Observation { name, .. } => {
                let (oc, ob) = (&contract.observations[name], &reg.bound.observations[name]);
                Plan {
                    effect: Effect::Read,
                    audit: Audit::Metadata,
                    input_schema: None,
                    output_schema: Some(&oc.output_schema),
                    confirmation: Confirmation::Never,
                    binding_policies: &ob.policies,
                    name: name.clone(),
                    when: ob.when.as_ref(),
                    reason: ob.unavailable_reason.as_ref(),
                    binding: None,
                    description: "",
                    timeout_ms: ob.timeout_ms,
                }
            }
            Target::Action { name, .. } => {
                let (ac, ab) = (&contract.actions[name], &reg.bound.actions[name]);
                Plan {
                    effect: ac.effect,
                    audit: ac.audit,
                    input_schema: Some(&ac.input_schema),
                    output_schema: ac.output_schema.as_ref(),
                    confirmation: ac.confirmation,
                    binding_policies: &ab.policies,
                    name: name.clone(),
                    when: ab.when.as_ref(),
                    reason: ab.unavailable_reason.as_ref(),
                    binding: Some(ab),
                    description: &ac.description,
                    timeout_ms: ab.timeout_ms,
                }
            }
            Target::Procedure { index, .. } => {
                let p = &reg.bound.procedures[*index];
                let pc = p.contract.contract();
                Plan {
                    effect: pc.effect,
                    audit: pc.audit,
                    input_schema: Some(&pc.input_schema),
                    output_schema: pc.output_schema.as_ref(),
                    confirmation: pc.confirmation,
                    binding_policies: &p.binding.policies,
                    name: pc.id.clone(),
                    when: p.binding.when.as_ref(),
                    reason: p.binding.unavailable_reason.as_ref(),
                    binding: Some(&p.binding),
                    description: &pc.description,
                    timeout_ms: p.binding.timeout_ms,
                }
            }
        }
    }

    /// The timeout: the caller's, else the binding's, else the limits' for the kind.
    pub(super) fn timeout_ms(&self, target: &Target, options: &InvokeOptions, limits: &AgentSurfaceLimits) -> u64 {
        options.timeout_ms.unwrap_or_else(|| {
            self.timeout_ms.unwrap_or(match target {
                Target::Observation { .. } => limits.observation_timeout_ms,
                Target::Action { .. } => limits.action_timeout_ms,
                Target::Procedure { .. } => limits.procedure_timeout_ms,
            })
        })
    }
}

/// Staleness of the surface version is enforced only for dangerous effects.
pub(super) fn check_version(
    surface: &Surface,
    req: &AgentInvocation,
    effect: Effect,
) -> Result<(), AgentCapabilityError> {
    if let Some(v) = &req.surface_version {
        let current = surface.lock().version.to_string();
        if *v != current && matches!(effect, Effect::Destructive | Effect::ExternalSideEffect) {
            return Err(err(
                ErrorCode::StaleCapability,
                "the surface changed since discovery; discover again before this operation",
            )
            .detail("reason", "surface-version-mismatch"));
        }
    }
    Ok(())
}

/// Who asks, about what: the part of every policy context that does not change.
pub(super) struct Asking<'a> {
    pub req: &'a AgentInvocation,
    pub reg: &'a Reg,
    pub consumer: &'a AgentConsumer,
    pub host: &'a HostContext,
}

impl Asking<'_> {
    fn policy_context(&self, input: Option<Value>) -> PolicyContext {
        PolicyContext {
            capability_id: self.req.capability_id.clone(),
            registration_id: self.reg.id.clone(),
            consumer: self.consumer.clone(),
            host: self.host.clone(),
            effective_input: input,
        }
    }

    pub(super) fn read_context(&self) -> ReadContext {
        ReadContext {
            capability_id: self.req.capability_id.clone(),
            registration_id: self.reg.id.clone(),
            consumer: self.consumer.clone(),
            host: self.host.clone(),
        }
    }
}

fn not_found(req: &AgentInvocation) -> AgentCapabilityError {
    err(ErrorCode::CapabilityNotFound, format!("no live capability {}", req.capability_id))
}

fn not_available(reason: impl Into<Value>) -> AgentCapabilityError {
    err(ErrorCode::CapabilityNotAvailable, "the capability is not available now").detail("reason", reason)
}

/// Step 3, availability: enabled, pushed overrides, `when()`, discovery policies.
pub(super) fn check_available(
    surface: &Surface,
    asking: &Asking<'_>,
    target: &Target,
    plan: &Plan<'_>,
    dynamic: &Dynamic,
    policies: &[Policy],
) -> Result<(), AgentCapabilityError> {
    let (req, reg) = (asking.req, asking.reg);
    if let Target::Procedure { .. } = target {
        let dctx = DiscoveryContext {
            capability_id: req.capability_id.clone(),
            component_type: reg.bound.component_type().to_string(),
            instance_id: reg.bound.instance_id().to_string(),
            consumer: asking.consumer.clone(),
            host: asking.host.clone(),
        };
        match evaluate_discovery(policies.iter(), &dctx) {
            DiscoveryDecision::Hide => return Err(not_found(req)),
            DiscoveryDecision::Disable(r) => return Err(not_available(r)),
            DiscoveryDecision::Expose => {}
        }
        if !dynamic.enabled {
            return Err(not_available("component-disabled"));
        }
        if let Some(w) = plan.when {
            if crate::binding::evaluate_when(w) != Some(true) {
                return Err(not_available(
                    plan.reason.map(UnavailableReason::evaluate).unwrap_or_else(|| "unavailable".into()),
                ));
            }
        }
        return Ok(());
    }
    match surface.availability(
        reg,
        dynamic,
        &req.capability_id,
        &plan.name,
        plan.binding_policies,
        plan.when,
        plan.reason,
        &mut DiscoveryScope::new(asking.consumer, asking.host),
    ) {
        None => Err(not_found(req)),
        Some((false, r)) => Err(not_available(r.unwrap_or_else(|| "unavailable".into()))),
        Some((true, _)) => Ok(()),
    }
}

/// Step 4, pre-input authorization.
pub(super) async fn authorize(asking: &Asking<'_>, policies: &[Policy]) -> Result<(), AgentCapabilityError> {
    for p in policies.iter().filter(|p| p.phases().contains(&PolicyPhase::Authorize)) {
        if let PolicyDecision::Deny(m) = guarded(|| p.authorize(asking.policy_context(None))).await {
            return Err(err(ErrorCode::PolicyDenied, m).detail("policy", p.name().to_string()));
        }
    }
    Ok(())
}

/// Step 5, effective input: the input validated against the schema, with its defaults.
pub(super) fn effective_input(
    surface: &Surface,
    req: &AgentInvocation,
    schema: Option<&Value>,
) -> Result<Option<Value>, AgentCapabilityError> {
    let Some(schema) = schema else { return Ok(None) };
    let validator = surface.validator(schema);
    let raw = req.input.clone().unwrap_or(Value::Object(Map::new()));
    // Owned: a valid input with no default to insert is not copied again.
    match validator.and_then(|v| v.validate_owned(raw).map_err(Some)) {
        Ok(v) => Ok(Some(v)),
        Err(Some(issues)) => {
            let issues: Vec<Value> = issues.iter().map(|i| serde_json::to_value(i).unwrap_or(Value::Null)).collect();
            Err(err(ErrorCode::InvalidInput, "the input does not match the capability's input schema")
                .detail("issues", issues))
        }
        Err(None) => Err(err(ErrorCode::ExecutionFailed, "the capability's input schema cannot be used")),
    }
}

/// Step 6, precondition and input-aware policies. `Ok(true)`: a policy asks for a confirmation.
pub(super) async fn check_input(
    asking: &Asking<'_>,
    binding: Option<&ActionBinding>,
    effective: Option<&Value>,
    policies: &[Policy],
) -> Result<bool, AgentCapabilityError> {
    let mut needs_confirmation = false;
    let (Some(b), Some(input)) = (binding, effective) else { return Ok(false) };
    if let Some(check) = &b.input_check {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(input)));
        let issues = match outcome {
            Ok(Ok(())) => None,
            Ok(Err(issues)) => Some(issues),
            Err(_) => Some(Vec::new()),
        };
        if let Some(issues) = issues {
            let issues: Vec<Value> = issues.iter().map(|i| serde_json::to_value(i).unwrap_or(Value::Null)).collect();
            return Err(err(ErrorCode::InvalidInput, "the input does not match the capability's input schema")
                .detail("issues", issues));
        }
    }
    if let Some(pre) = &b.precondition {
        let read_ctx = asking.read_context();
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pre.check(input, &read_ctx))) {
            Ok(Ok(())) => {}
            Ok(Err(f)) => {
                let mut e = err(ErrorCode::PreconditionFailed, f.message);
                e.details = f.details;
                return Err(e);
            }
            Err(_) => return Err(err(ErrorCode::PreconditionFailed, "the precondition failed")),
        }
    }
    for p in policies.iter().filter(|p| p.phases().contains(&PolicyPhase::Invoke)) {
        match guarded(|| p.invoke(asking.policy_context(Some(input.clone())))).await {
            PolicyDecision::Allow => {}
            PolicyDecision::Deny(m) => {
                return Err(err(ErrorCode::PolicyDenied, m).detail("policy", p.name().to_string()))
            }
            PolicyDecision::RequireConfirmation => needs_confirmation = true,
        }
    }
    Ok(needs_confirmation)
}

/// Step 7, confirmation (observations skip it): the evidence presented, if any.
pub(super) fn confirmation_gate(
    parts: &dyn Parts,
    asking: &Asking<'_>,
    plan: &Plan<'_>,
    effective: Option<&Value>,
    needs_confirmation: bool,
) -> Result<Option<ConfirmationEvidence>, AgentCapabilityError> {
    let req = asking.req;
    if plan.binding.is_none() || !(needs_confirmation || req.confirmation_id.is_some()) {
        return Ok(None);
    }
    let input = effective.cloned().unwrap_or(Value::Null);
    let input_fp = fnv1a64(canonical_json(&input).as_bytes());
    let request = ConfirmationRequest {
        req,
        registration_id: &asking.reg.id,
        consumer_key: &asking.consumer.key(),
        effect: plan.effect,
        description: plan.description,
        input: &input,
        input_fp: &input_fp,
    };
    match parts.confirmations().check(parts.surface(), &request, needs_confirmation) {
        ConfirmationCheck::Proceed(e) => Ok(e.map(|(id, at)| ConfirmationEvidence { id, approved_at: at })),
        ConfirmationCheck::Fail(e) => Err(e),
    }
}

/// Runs a policy phase; a panicking policy fails closed (denied), like a throwing discovery one.
pub(super) async fn guarded(f: impl FnOnce() -> BoxFuture<PolicyDecision>) -> PolicyDecision {
    let denied = || PolicyDecision::Deny("a policy could not decide; the invocation is denied".into());
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(fut) => std::panic::AssertUnwindSafe(fut).catch_unwind().await.unwrap_or_else(|_| denied()),
        Err(_) => denied(),
    }
}
