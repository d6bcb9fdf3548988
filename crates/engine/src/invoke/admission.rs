//! Steps 2 to 7: resolve the target, check it is available to this consumer, authorize, build
//! the effective input, run the precondition and the input-aware policies, and pass the
//! confirmation gate. Step 8, the admission queues, is [`super::queues`].

use super::Parts;
use crate::binding::{ActionBinding, ConfirmationEvidence, HostContext, ReadContext, UnavailableReason, WhenFn};
use crate::confirm::store::{ConfirmationCheck, ConfirmationRequest};
use crate::confirm::ConfirmFn;
use crate::confirm::{ConfirmationController, Resolution};
use crate::consumer::AgentConsumer;
use crate::host::BoxFuture;
use crate::policy::{
    evaluate_discovery, DiscoveryContext, DiscoveryDecision, Policy, PolicyContext, PolicyDecision, PolicyPhase,
};
use crate::request::{err, fnv1a64, AgentInvocation, InvokeOptions};
use crate::signal::AbortSignal;
use crate::surface::state::{DiscoveryScope, Dynamic, Exposure, Reg, State, Surface, NO_PROCEDURE_EXECUTOR};
use agent_surface_model::canonical::canonical_json;
use agent_surface_model::effects::{Audit, Confirmation, Effect};
use agent_surface_model::errors::{AgentCapabilityError, ErrorCode};
use agent_surface_model::limits::AgentSurfaceLimits;
use futures::future::FutureExt;
use serde_json::{Map, Value};
use std::sync::Arc;

/// What resolution found.
pub(super) enum Target {
    Observation {
        reg: Arc<Reg>,
        name: String,
    },
    Action {
        reg: Arc<Reg>,
        name: String,
    },
    Procedure {
        reg: Arc<Reg>,
        index: usize,
    },
    /// An external tool of the gateway's exposure (no registration, no component).
    External {
        exposure: Arc<Exposure>,
        index: usize,
    },
}

impl Target {
    /// The registration; `None` for an external tool.
    pub(super) fn reg(&self) -> Option<&Arc<Reg>> {
        match self {
            Target::Observation { reg, .. } | Target::Action { reg, .. } | Target::Procedure { reg, .. } => Some(reg),
            Target::External { .. } => None,
        }
    }

    /// What stands for the registration id (evidence, audit, handler contexts): the
    /// registration's, or the exposure's.
    pub(super) fn owner_id(&self) -> &str {
        match self {
            Target::External { exposure, .. } => &exposure.id,
            _ => &self.reg().expect("a registration").id,
        }
    }

    /// The component's policies (an external tool has none: the registry's, then its own).
    pub(super) fn component_policies(&self) -> &[Policy] {
        self.reg().map(|r| r.bound.policies.as_slice()).unwrap_or_default()
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
    if let Some(exposure) = &surface.external {
        if req.capability_id.starts_with("external:") {
            let Some(index) = exposure.tools.iter().position(|t| t.id() == req.capability_id) else {
                return Err(err(ErrorCode::CapabilityNotFound, format!("no exposed tool {}", req.capability_id)));
            };
            if req.registration_id.as_ref().is_some_and(|r| *r != exposure.id) {
                return Err(err(ErrorCode::StaleCapability, "the tools were exposed again since discovery")
                    .detail("liveRegistrationId", exposure.id.clone()));
            }
            let dynamic = Dynamic { enabled: true, overrides: Default::default() };
            return Ok((Target::External { exposure: exposure.clone(), index }, dynamic));
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
        let operation = |p: &'a crate::binding::BoundProcedure| {
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
        };
        let reg = match target {
            Target::External { exposure, index } => return operation(&exposure.tools[*index]),
            Target::Procedure { reg, index } => return operation(&reg.bound.procedures[*index]),
            Target::Observation { reg, .. } | Target::Action { reg, .. } => reg,
        };
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
            Target::Procedure { .. } | Target::External { .. } => unreachable!("handled above"),
        }
    }

    /// The timeout: the caller's, else the binding's, else the limits' for the kind.
    pub(super) fn timeout_ms(&self, target: &Target, options: &InvokeOptions, limits: &AgentSurfaceLimits) -> u64 {
        options.timeout_ms.unwrap_or_else(|| {
            self.timeout_ms.unwrap_or(match target {
                Target::Observation { .. } => limits.observation_timeout_ms,
                Target::Action { .. } => limits.action_timeout_ms,
                Target::Procedure { .. } | Target::External { .. } => limits.procedure_timeout_ms,
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
#[derive(Clone, Copy)]
pub(super) struct Asking<'a> {
    pub req: &'a AgentInvocation,
    /// The registration's id, or the exposure's for an external tool.
    pub registration_id: &'a str,
    pub consumer: &'a AgentConsumer,
    pub host: &'a HostContext,
}

impl Asking<'_> {
    fn policy_context(&self, input: Option<Value>) -> PolicyContext {
        PolicyContext {
            capability_id: self.req.capability_id.clone(),
            registration_id: self.registration_id.to_string(),
            consumer: self.consumer.clone(),
            host: self.host.clone(),
            effective_input: input,
        }
    }

    pub(super) fn read_context(&self) -> ReadContext {
        ReadContext {
            capability_id: self.req.capability_id.clone(),
            registration_id: self.registration_id.to_string(),
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

/// Step 3, availability: enabled, pushed overrides, `when()`, discovery policies, and for a
/// procedure referenced without a local `execute`, an installed executor.
pub(super) fn check_available(
    surface: &Surface,
    asking: &Asking<'_>,
    target: &Target,
    plan: &Plan<'_>,
    dynamic: &Dynamic,
    policies: &[Policy],
) -> Result<(), AgentCapabilityError> {
    let req = asking.req;
    let reg = match target {
        Target::Observation { reg, .. } | Target::Action { reg, .. } => reg,
        Target::Procedure { .. } | Target::External { .. } => {
            return check_operation_available(surface, asking, target, plan, dynamic, policies)
        }
    };
    match surface.availability(
        reg,
        dynamic,
        &req.capability_id,
        &plan.name,
        plan.binding_policies,
        plan.when,
        plan.reason,
        false,
        &mut DiscoveryScope::new(asking.consumer, asking.host),
    ) {
        None => Err(not_found(req)),
        Some((false, r)) => Err(not_available(r.unwrap_or_else(|| "unavailable".into()))),
        Some((true, _)) => Ok(()),
    }
}

/// Step 3 for a procedure reference or an external tool (an external tool has no component:
/// its discovery context names none, `componentType` and `instanceId` are empty).
fn check_operation_available(
    surface: &Surface,
    asking: &Asking<'_>,
    target: &Target,
    plan: &Plan<'_>,
    dynamic: &Dynamic,
    policies: &[Policy],
) -> Result<(), AgentCapabilityError> {
    let req = asking.req;
    {
        let (component_type, instance_id) = match target.reg() {
            Some(reg) => (reg.bound.component_type().to_string(), reg.bound.instance_id().to_string()),
            None => (String::new(), String::new()),
        };
        let dctx = DiscoveryContext {
            capability_id: req.capability_id.clone(),
            component_type,
            instance_id,
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
            match crate::binding::evaluate_when(w) {
                Some(true) => {}
                Some(false) => {
                    return Err(not_available(
                        plan.reason.map(UnavailableReason::evaluate).unwrap_or_else(|| "unavailable".into()),
                    ))
                }
                None => return Err(not_available("when-error")),
            }
        }
        if plan.binding.is_some_and(|b| b.forwarded) && !surface.has_procedure_executor() {
            return Err(not_available(NO_PROCEDURE_EXECUTOR));
        }
        Ok(())
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
        registration_id: asking.registration_id,
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

/// How step 7 answers a request that needs a confirmation and presents no evidence.
#[derive(Clone, Default)]
pub(crate) enum Confirmer {
    /// CONFIRMATION_REQUIRED: the consumer retries with the evidence (the registry).
    #[default]
    Return,
    /// CONFIRMATION_DENIED, no request opened: nobody can be asked (the gateway without
    /// `confirm`).
    Deny,
    /// Opens the request, asks, waits for the answer (or the host's resolution, the TTL, the
    /// caller's signal), then runs with the evidence, in the same invocation (the gateway with
    /// `confirm`).
    Ask(ConfirmFn),
}

/// Step 7 when nothing was presented, by the [`Confirmer`]'s rule. `Ok(None)`: not needed.
pub(super) async fn confirm_step(
    parts: &Arc<dyn Parts>,
    asking: &Asking<'_>,
    plan: &Plan<'_>,
    effective: Option<&Value>,
    needs_confirmation: bool,
    confirmer: &Confirmer,
    signal: Option<&AbortSignal>,
) -> Result<Option<ConfirmationEvidence>, AgentCapabilityError> {
    let asks = needs_confirmation && asking.req.confirmation_id.is_none() && plan.binding.is_some();
    match confirmer {
        Confirmer::Deny if asks => Err(err(
            ErrorCode::ConfirmationDenied,
            "this operation needs the user's confirmation and nobody can be asked for it here",
        )),
        Confirmer::Ask(ask) if asks => ask_user(parts, asking, plan, effective, ask, signal).await.map(Some),
        _ => confirmation_gate(&**parts, asking, plan, effective, needs_confirmation),
    }
}

/// [`Confirmer::Ask`]: a pending confirmation like any other (`confirmation-requested`, listed by
/// the controller), answered by `ask` or by the host through the controller, whichever comes
/// first; then the evidence is presented (single use), so a denial is CONFIRMATION_DENIED and
/// an expiry CONFIRMATION_EXPIRED. The caller's signal while waiting: CANCELLED, and the request
/// is closed (denied, "the call was cancelled while waiting").
async fn ask_user(
    parts: &Arc<dyn Parts>,
    asking: &Asking<'_>,
    plan: &Plan<'_>,
    effective: Option<&Value>,
    ask: &ConfirmFn,
    signal: Option<&AbortSignal>,
) -> Result<ConfirmationEvidence, AgentCapabilityError> {
    let cid = match confirmation_gate(&**parts, asking, plan, effective, true) {
        Ok(Some(evidence)) => return Ok(evidence),
        Ok(None) => return Err(err(ErrorCode::ExecutionFailed, "the confirmation could not be opened")),
        Err(e) if e.code == ErrorCode::ConfirmationRequired => e
            .details
            .as_ref()
            .and_then(|d| d.get("confirmationId"))
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or(e)?,
        Err(e) => return Err(e),
    };
    let controller =
        ConfirmationController { parts: Arc::downgrade(&(parts.clone() as Arc<dyn crate::confirm::ConfirmParts>)) };
    let input = effective.cloned().unwrap_or(Value::Null);
    // A panicking `confirm` (a throwing or rejecting one on the page) answers "no".
    let answer: BoxFuture<bool> =
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ask(&asking.req.capability_id, &input))) {
            Ok(f) => Box::pin(std::panic::AssertUnwindSafe(f).catch_unwind().map(|r| r.unwrap_or(false))),
            Err(_) => Box::pin(futures::future::ready(false)),
        };
    let resolver = {
        let (controller, cid) = (controller.clone(), cid.clone());
        async move {
            let approved = answer.await;
            // Already settled (the host resolved it, or it expired): the first answer stands.
            let _ = controller.resolve(&cid, approved);
            futures::future::pending::<()>().await
        }
    };
    let waited = futures::select_biased! {
        outcome = controller.wait_for(&cid, signal.cloned()).fuse() => outcome,
        () = resolver.fuse() => unreachable!("the resolver never finishes"),
    };
    if waited.is_err() {
        let _ = controller.resolve_with(
            &cid,
            Resolution::denied().reason("the call was cancelled while waiting for the confirmation"),
        );
        return Err(err(
            ErrorCode::Cancelled,
            "the invocation was cancelled while waiting for the user's confirmation",
        ));
    }
    let mut presented = asking.req.clone();
    presented.confirmation_id = Some(cid);
    let asking = Asking { req: &presented, ..*asking };
    match confirmation_gate(&**parts, &asking, plan, effective, true)? {
        Some(evidence) => Ok(evidence),
        None => Err(err(ErrorCode::ConfirmationExpired, "the confirmation is unknown or has expired")),
    }
}
