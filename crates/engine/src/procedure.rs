//! The domain-procedure executor (the spec's `setProcedureExecutor(executor)`, installed by an
//! integration such as `@agent-surface/orpc`): procedures a registration references without a
//! local `execute` ([`ActionBinding::forwarded`](crate::binding::ActionBinding::forwarded),
//! [`ContractRef::forward`](crate::binding::ContractRef::forward)) are forwarded to it after
//! the whole pipeline (availability, policies, input, confirmation, admission) ran here. The
//! timeout, cancellation and output checks apply to its answer as to any handler's.

use crate::binding::HandlerResult;
use crate::host::{BoxFuture, MaybeSend, MaybeSync};
use crate::signal::AbortSignal;
use serde_json::Value;

/// What a forwarded procedure call carries: `{procedureId, input, invocationId}`, plus the
/// invocation's signal (aborted on timeout, cancellation or unmount; cooperative).
#[derive(Clone, Debug)]
pub struct ProcedureCall {
    pub procedure_id: String,
    /// The effective input (validated, defaults applied).
    pub input: Value,
    pub invocation_id: String,
    pub signal: AbortSignal,
}

/// The spec's `AgentProcedureExecutor`.
pub trait AgentProcedureExecutor: MaybeSend + MaybeSync {
    fn execute(&self, call: ProcedureCall) -> BoxFuture<HandlerResult>;
}
