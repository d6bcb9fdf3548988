//! The exposure gateway (the spec's `createAgentExposureGateway(authority)`): standalone
//! provider tools (external tools) under the same authority model as the registry. `expose`
//! accepts only tools bound from contracts of *this* authority and checks identity, kind,
//! description and input schema against the manifest; raw tools and tools compiled against
//! another manifest fail closed.

use super::toolset::{wire_name, AgentTool};
use crate::authority::CapabilityAuthority;
use crate::binding::{ActionContext, BoundProcedure, ConfirmationEvidence};
use crate::consumer::AgentConsumer;
use crate::host::BoxFuture;
use crate::invoke::{AgentInvocationResult, InvocationStatus};
use crate::signal::AbortController;
use agent_surface_model::errors::{AgentCapabilityError, ErrorCode};
use agent_surface_model::manifest::ManifestContract;
use serde_json::Value;
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
}

/// Asks the host's user to confirm (wait semantics): `true` to run.
pub type ConfirmFn = Arc<crate::dyn_send_sync!(Fn(&str, &Value) -> BoxFuture<bool>)>;

pub struct ExposureGateway {
    authority: CapabilityAuthority,
}

/// `createAgentExposureGateway(authority)`.
pub fn create_agent_exposure_gateway(authority: &CapabilityAuthority) -> ExposureGateway {
    ExposureGateway { authority: authority.clone() }
}

/// Tools the gateway accepted.
pub struct ExposedTools {
    tools: Vec<(AgentTool, BoundProcedure)>,
    limits: agent_surface_model::limits::AgentSurfaceLimits,
}

impl ExposureGateway {
    pub fn expose(&self, tools: Vec<Exposable>) -> Result<ExposedTools, GatewayError> {
        let mut out = Vec::new();
        for t in tools {
            let b = match t {
                Exposable::Raw(r) => return Err(GatewayError::Raw(r.name)),
                Exposable::Bound(b) => b,
            };
            let id = b.id().to_string();
            if !self.authority.recognizes(&b.provenance()) {
                return Err(GatewayError::ForeignProvenance(id));
            }
            let manifest = self.authority.manifest().contracts.iter().find(|c| c.id() == id);
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
            let tool = super::toolset::catalog_from_manifest(&self.authority, super::toolset::ToolsetMode::Direct)
                .into_iter()
                .find(|t| t.name == wire_name(&id))
                .expect("every external tool of the manifest is in its catalog");
            out.push((tool, b));
        }
        out.sort_by(|a, b| a.0.name.cmp(&b.0.name));
        Ok(ExposedTools { tools: out, limits: agent_surface_model::limits::AgentSurfaceLimits::default() })
    }
}

impl ExposedTools {
    pub fn tools(&self) -> Vec<AgentTool> {
        self.tools.iter().map(|(t, _)| t.clone()).collect()
    }

    /// Runs a tool: input validated against the manifest's schema, confirmation asked through
    /// `confirm` when the contract requires it. Never fails: every outcome is an envelope.
    pub async fn execute(
        &self,
        name: &str,
        input: Value,
        tool_call_id: Option<String>,
        consumer: AgentConsumer,
        confirm: Option<ConfirmFn>,
    ) -> AgentInvocationResult {
        let invocation_id = tool_call_id.unwrap_or_else(|| format!("inv_{}", crate::host::entropy::base62(16)));
        let fail = |code: ErrorCode, m: &str, cap: &str| AgentInvocationResult {
            status: InvocationStatus::Error,
            invocation_id: invocation_id.clone(),
            capability_id: cap.to_string(),
            output: None,
            error: Some(AgentCapabilityError::new(code, m)),
            surface_version: "0".into(),
            surface_changed: false,
        };
        let Some((_, b)) = self.tools.iter().find(|(t, _)| t.name == name) else {
            return fail(ErrorCode::CapabilityNotFound, "no such tool", name);
        };
        let c = b.contract.contract();
        let validator = match agent_surface_schema::validate::Validator::new(&c.input_schema, &self.limits) {
            Ok(v) => v,
            Err(_) => return fail(ErrorCode::ExecutionFailed, "the tool's input schema cannot be used", &c.id),
        };
        let effective = match validator.validate(&input) {
            Ok(v) => v,
            Err(issues) => {
                let mut r = fail(ErrorCode::InvalidInput, "the input does not match the tool's input schema", &c.id);
                if let Some(e) = r.error.as_mut() {
                    *e = e.clone().detail("issues", serde_json::to_value(issues).unwrap_or(Value::Null));
                }
                return r;
            }
        };
        let mut evidence = None;
        if c.confirmation == agent_surface_model::effects::Confirmation::Required {
            let approved = match &confirm {
                Some(f) => f(&c.id, &effective).await,
                None => false,
            };
            if !approved {
                return fail(ErrorCode::ConfirmationDenied, "the user did not confirm this operation", &c.id);
            }
            evidence = Some(ConfirmationEvidence {
                id: format!("cnf_{}", crate::host::entropy::base62(20)),
                approved_at: String::new(),
            });
        }
        let ctx = ActionContext {
            capability_id: c.id.clone(),
            registration_id: String::new(),
            consumer,
            host: Arc::default(),
            invocation_id: invocation_id.clone(),
            signal: AbortController::new().signal(),
            confirmation: evidence,
        };
        match b.binding.execute.execute(effective, ctx).await {
            Ok(output) => AgentInvocationResult {
                status: InvocationStatus::Ok,
                invocation_id,
                capability_id: c.id.clone(),
                output: Some(output),
                error: None,
                surface_version: "0".into(),
                surface_changed: false,
            },
            Err(_) => fail(ErrorCode::ExecutionFailed, "the tool failed", &c.id),
        }
    }
}
