//! The exposure gateway (the spec's `createAgentExposureGateway(authority)`): standalone
//! provider tools (external tools) under the same authority model as the registry. `expose`
//! accepts only tools bound from contracts of *this* authority and checks identity, kind,
//! description and input schema against the manifest; raw tools and tools compiled against
//! another manifest fail closed.
//!
//! The accepted tools run through the registry's invocation pipeline (a private registry per
//! exposure, holding no registrations): dedupe by consumer and tool-call id with the fingerprint
//! rule, availability (`when`, discovery policies), authorize and invoke policies, the
//! effective input, the precondition, a pending confirmation, admission (the binding's
//! concurrency), the timeout and the caller's signal, the output schema and `maxOutputBytes`,
//! then `invocation-*` events, an audit record and the dedupe record.

use super::toolset::{wire_name, AgentTool};
use crate::audit::AuditRecord;
use crate::authority::CapabilityAuthority;
use crate::binding::{evaluate_when, BoundProcedure, UnavailableReason};
use crate::confirm::ConfirmationController;
use crate::consumer::AgentConsumer;
use crate::events::AgentSurfaceEvent;
use crate::host::entropy::base62;
use crate::host::{MaybeSend, MaybeSync};
use crate::invoke::{AgentInvocation, AgentInvocationResult, Confirmer, InvocationStatus, InvokeOptions, Parts};
use crate::policy::{evaluate_discovery, DiscoveryContext, DiscoveryDecision, Policy, PolicyPhase};
use crate::registry::{AgentSurfaceRegistry, RegistryOptions, Subscription};
use crate::signal::AbortSignal;
use crate::surface::state::Exposure;
use agent_surface_model::errors::{AgentCapabilityError, ErrorCode};
use agent_surface_model::manifest::ManifestContract;
use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::Arc;

/// A tool built by hand, without compiler provenance: always refused.
#[derive(Clone, Debug)]
pub struct RawTool {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

/// What `expose` accepts.
pub enum Exposable {
    Bound(BoundProcedure),
    Raw(RawTool),
}

impl From<BoundProcedure> for Exposable {
    fn from(b: BoundProcedure) -> Self {
        Exposable::Bound(b)
    }
}

impl From<RawTool> for Exposable {
    fn from(r: RawTool) -> Self {
        Exposable::Raw(r)
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GatewayError {
    #[error("\"{0}\" is a raw tool without compiler provenance")]
    Raw(String),
    #[error("\"{0}\" was compiled against another manifest")]
    ForeignProvenance(String),
    #[error("\"{0}\" is not an external tool contract")]
    WrongKind(String),
    #[error("\"{id}\" differs from the manifest in {field}")]
    Changed { id: String, field: &'static str },
    #[error("\"{0}\" is given twice")]
    Duplicate(String),
}

pub use crate::confirm::ConfirmFn;

/// `createAgentExposureGateway(authority)`: what [`ExposureGateway::expose`] checks against, and
/// the options its exposures run with.
pub struct ExposureGateway {
    options: RegistryOptions,
}

/// `createAgentExposureGateway(authority)`, with the registry's default options.
pub fn create_agent_exposure_gateway(authority: &CapabilityAuthority) -> ExposureGateway {
    ExposureGateway { options: RegistryOptions::new(authority.clone()) }
}

/// Tools the gateway accepted, and the pipeline they run on.
pub struct ExposedTools {
    /// Sorted by wire name; each routes to the tool of the same index in the exposure.
    tools: Vec<AgentTool>,
    exposure: Arc<Exposure>,
    registry: AgentSurfaceRegistry,
}

/// One call of an exposed tool (see [`ExposedTools::execute_call`]).
#[derive(Clone, Default)]
pub struct GatewayCall {
    /// The provider's tool-call id: the invocation id, the dedupe key with the consumer.
    pub id: Option<String>,
    /// Who calls (default `embedded:anonymous`).
    pub consumer: AgentConsumer,
    /// External cancellation (e.g. MCP `notifications/cancelled`): CANCELLED.
    pub signal: Option<AbortSignal>,
    /// Overrides the binding's and the limits' timeout.
    pub timeout_ms: Option<u64>,
    /// Who asks the user when the contract (or an invoke policy) requires a confirmation;
    /// without it such calls are CONFIRMATION_DENIED and nothing is opened.
    pub confirm: Option<ConfirmFn>,
}

impl ExposureGateway {
    /// A gateway whose exposures run with `options` (its authority is the gateway's): limits,
    /// clock, timer, spawner, audit sink, log, environment, registry-scope policies and host
    /// context apply; the registration options (`on_register`, duplicates, route) have
    /// nothing to act on.
    pub fn with_options(options: RegistryOptions) -> ExposureGateway {
        ExposureGateway { options }
    }

    pub fn authority(&self) -> &CapabilityAuthority {
        &self.options.authority
    }

    /// Accepts `tools` (all or none): each must be bound from an external tool contract of this
    /// gateway's authority, unchanged, and given once.
    pub fn expose(&self, tools: Vec<Exposable>) -> Result<ExposedTools, GatewayError> {
        let authority = &self.options.authority;
        let mut out = Vec::new();
        let mut seen = BTreeSet::new();
        for t in tools {
            let b = match t {
                Exposable::Raw(r) => return Err(GatewayError::Raw(r.name)),
                Exposable::Bound(b) => b,
            };
            let id = b.id().to_string();
            if !authority.recognizes(&b.provenance()) {
                return Err(GatewayError::ForeignProvenance(id));
            }
            let manifest = authority.manifest().contracts.iter().find(|c| c.id() == id);
            let Some(ManifestContract::ExternalTool(m)) = manifest else { return Err(GatewayError::WrongKind(id)) };
            let c = b.contract.contract();
            if c.id != m.id {
                return Err(GatewayError::Changed { id, field: "identity" });
            }
            if c.description != m.description {
                return Err(GatewayError::Changed { id, field: "description" });
            }
            if c.input_schema != m.input_schema {
                return Err(GatewayError::Changed { id, field: "inputSchema" });
            }
            if !seen.insert(id.clone()) {
                return Err(GatewayError::Duplicate(id));
            }
            let tool = super::toolset::catalog_from_manifest(authority, super::toolset::ToolsetMode::Direct)
                .into_iter()
                .find(|t| t.name == wire_name(&id))
                .expect("every external tool of the manifest is in its catalog");
            out.push((tool, b));
        }
        out.sort_by(|a, b| a.0.name.cmp(&b.0.name));
        let (tools, bound): (Vec<AgentTool>, Vec<BoundProcedure>) = out.into_iter().unzip();
        let exposure = Arc::new(Exposure { id: format!("exp_{}", base62(16)), tools: bound });
        let registry = AgentSurfaceRegistry::with_external(self.options.clone(), Some(exposure.clone()));
        Ok(ExposedTools { tools, exposure, registry })
    }
}

impl ExposedTools {
    /// This exposure's id (`exp_` + random): where a registration id would be (pending
    /// confirmations, audit records, handler contexts).
    pub fn id(&self) -> &str {
        &self.exposure.id
    }

    /// The tools, for the anonymous consumer: see [`ExposedTools::tools_for`].
    pub fn tools(&self) -> Vec<AgentTool> {
        self.tools_for(&AgentConsumer::anonymous())
    }

    /// The tools as `consumer` may discover them: a tool a discovery policy hides is left out;
    /// `state` says whether it is available (`when()`, a policy's `disable`) with the reason,
    /// and carries the binding's `describe()` as `note`. Descriptions and schemas are the
    /// manifest's.
    pub fn tools_for(&self, consumer: &AgentConsumer) -> Vec<AgentTool> {
        let options = self.registry.options();
        let host = Arc::new(options.context.as_ref().map(|f| f()).unwrap_or_default());
        let mut out = Vec::with_capacity(self.tools.len());
        for (tool, bound) in self.tools.iter().zip(&self.exposure.tools) {
            let policies: Vec<&Policy> = options.policies.iter().chain(bound.binding.policies.iter()).collect();
            let mut state = tool.state.clone();
            if policies.iter().any(|p| p.phases().contains(&PolicyPhase::Discovery)) {
                let ctx = DiscoveryContext {
                    capability_id: bound.id().to_string(),
                    component_type: String::new(),
                    instance_id: String::new(),
                    consumer: consumer.clone(),
                    host: host.clone(),
                };
                match evaluate_discovery(policies.iter().copied(), &ctx) {
                    DiscoveryDecision::Hide => continue,
                    DiscoveryDecision::Disable(r) => {
                        state.available = false;
                        state.unavailable_reason = Some(r);
                    }
                    DiscoveryDecision::Expose => {}
                }
            }
            if let Some(w) = &bound.binding.when {
                let reason = match evaluate_when(w) {
                    Some(true) => None,
                    Some(false) => Some(
                        bound
                            .binding
                            .unavailable_reason
                            .as_ref()
                            .map(UnavailableReason::evaluate)
                            .unwrap_or_else(|| "unavailable".into()),
                    ),
                    None => Some("when-error".into()),
                };
                if let Some(r) = reason {
                    state.available = false;
                    state.unavailable_reason = Some(r);
                }
            }
            state.note = bound
                .describe
                .as_ref()
                .and_then(|f| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f())).ok().flatten());
            out.push(AgentTool { state, ..tool.clone() });
        }
        out
    }

    /// Runs a tool by wire name (see [`ExposedTools::execute_call`]).
    pub async fn execute(
        &self,
        name: &str,
        input: Value,
        tool_call_id: Option<String>,
        consumer: AgentConsumer,
        confirm: Option<ConfirmFn>,
    ) -> AgentInvocationResult {
        self.execute_call(name, input, GatewayCall { id: tool_call_id, consumer, confirm, ..Default::default() }).await
    }

    /// Runs a tool through the pipeline. Never fails: every outcome is an envelope (an unknown
    /// name is CAPABILITY_NOT_FOUND). A repeat of a call (same consumer and tool-call id) with
    /// the same input joins the running one or gets its result, so the tool runs once; with
    /// other input it is INVOCATION_CONFLICT. When a confirmation is needed, `call.confirm` is
    /// asked while the request is pending, and the handler gets `ctx.confirmation` (`id`,
    /// `approved_at`).
    pub async fn execute_call(&self, name: &str, input: Value, call: GatewayCall) -> AgentInvocationResult {
        let Some(index) = self.tools.iter().position(|t| t.name == name) else {
            return AgentInvocationResult {
                status: InvocationStatus::Error,
                invocation_id: call.id.unwrap_or_default(),
                capability_id: name.to_string(),
                output: None,
                error: Some(AgentCapabilityError::new(ErrorCode::CapabilityNotFound, "no such tool")),
                surface_version: self.registry.version(),
                surface_changed: false,
            };
        };
        let mut request = AgentInvocation::new(self.exposure.tools[index].id()).input(input);
        request.invocation_id = call.id;
        let options = InvokeOptions { consumer: Some(call.consumer), signal: call.signal, timeout_ms: call.timeout_ms };
        let confirmer = match call.confirm {
            Some(f) => Confirmer::Ask(f),
            None => Confirmer::Deny,
        };
        let parts: Arc<dyn Parts> = self.registry.shared.clone();
        crate::invoke::invoke(parts, request, options, confirmer).await
    }

    /// Events of these tools' invocations and confirmations (`invocation-started`,
    /// `invocation-settled`, `confirmation-requested`, `confirmation-resolved`).
    pub fn subscribe(&self, f: impl Fn(&AgentSurfaceEvent) + MaybeSend + MaybeSync + 'static) -> Subscription {
        self.registry.subscribe(f)
    }

    /// The pending confirmations of these tools: a host UI may list and resolve them (the
    /// first answer, the UI's or `confirm`'s, stands).
    pub fn confirmations(&self) -> ConfirmationController {
        self.registry.confirmations()
    }

    /// The default audit sink's records of these tools' invocations (oldest first; empty when
    /// the gateway's options name an audit sink).
    pub fn audit_records(&self) -> Vec<AuditRecord> {
        self.registry.audit_records()
    }
}
