//! Step 11, settle: the result envelope, the audit record, the `invocation-settled` event and
//! the dedupe record, exactly once per run (also when every caller stopped waiting).

use super::Parts;
use crate::audit::AuditRecord;
use crate::consumer::AgentConsumer;
use crate::events::{AgentSurfaceEvent, SettledStatus};
use crate::request::{err, error_result, AgentInvocationResult, InvocationStatus};
use crate::snapshot::iso8601;
use crate::surface::options::LogLevel;
use crate::surface::state::Surface;
use agent_surface_model::effects::Audit;
use agent_surface_model::errors::{AgentCapabilityError, ErrorCode};
use serde_json::Value;
use std::sync::Arc;

/// What a run records as it goes, for its settlement.
pub(super) struct Ctx {
    pub invocation_id: String,
    pub capability_id: String,
    pub consumer: AgentConsumer,
    pub started_ms: u64,
    pub start_version: u64,
    pub registration_id: Option<String>,
    pub audit: Audit,
    pub input_for_audit: Option<Value>,
}

/// Settles a run exactly once: normally with its outcome, or — when every caller dropped its
/// future (Rust's cancellation) before the run finished — CANCELLED, so the invocation still
/// settles (event, audit, dedupe record) and a retry of the same id does not run it again.
pub(super) struct RunGuard {
    pub(super) parts: Arc<dyn Parts>,
    pub(super) ctx: Ctx,
    pub(super) key: String,
    pub(super) fp: String,
    pub(super) serial: u64,
    pub(super) armed: bool,
}

impl RunGuard {
    pub(super) fn finish(&self, outcome: Result<Option<Value>, AgentCapabilityError>) -> AgentInvocationResult {
        let surface = self.parts.surface();
        let result = settle(surface, &self.ctx, outcome);
        let mut d = self.parts.inflight().dedupe.lock().unwrap_or_else(|e| e.into_inner());
        let now = surface.now();
        d.finish(&self.key, self.serial, self.fp.clone(), &result, now);
        let l = &surface.options.limits;
        d.expire(now, l.dedupe_cache_size, l.dedupe_cache_ttl_ms);
        result
    }
}

impl Drop for RunGuard {
    fn drop(&mut self) {
        if self.armed {
            self.armed = false;
            self.parts.surface().log(
                LogLevel::Warn,
                format!(
                    "{} ({}): every caller stopped waiting; settled CANCELLED",
                    self.ctx.capability_id, self.ctx.invocation_id
                ),
            );
            self.finish(Err(err(ErrorCode::Cancelled, "the invocation was cancelled")));
        }
    }
}

fn settle(surface: &Surface, ctx: &Ctx, outcome: Result<Option<Value>, AgentCapabilityError>) -> AgentInvocationResult {
    let version = surface.lock().version;
    let changed = version != ctx.start_version;
    let result = match outcome {
        Ok(output) => AgentInvocationResult {
            status: InvocationStatus::Ok,
            invocation_id: ctx.invocation_id.clone(),
            capability_id: ctx.capability_id.clone(),
            output,
            error: None,
            surface_version: version.to_string(),
            surface_changed: changed,
        },
        Err(e) => error_result(&ctx.invocation_id, &ctx.capability_id, e, version, changed),
    };
    let duration = surface.now().saturating_sub(ctx.started_ms);
    if ctx.audit != Audit::None {
        let full = ctx.audit == Audit::Full;
        {
            surface.audit(AuditRecord {
                invocation_id: ctx.invocation_id.clone(),
                capability_id: ctx.capability_id.clone(),
                registration_id: ctx.registration_id.clone(),
                consumer_key: ctx.consumer.key(),
                status: audit_status(&result).into(),
                code: result.code().map(|c| c.as_str().to_string()),
                started_at: iso8601(ctx.started_ms),
                duration_ms: duration,
                input: if full { ctx.input_for_audit.clone() } else { None },
                output: if full { result.output.clone() } else { None },
            });
        }
    }
    surface.events.push(AgentSurfaceEvent::InvocationSettled {
        invocation_id: ctx.invocation_id.clone(),
        capability_id: ctx.capability_id.clone(),
        status: if result.is_ok() { SettledStatus::Ok } else { SettledStatus::Error },
        code: result.code().map(|c| c.as_str().to_string()),
        duration_ms: duration,
    });
    surface.flush();
    result
}

/// An audit record's `status`: `"ok"`, `"error"`, or `"confirmation-required"` for the protocol
/// step that asks the user (not a failure: a call that waited for the user and then ran has no
/// error record).
fn audit_status(result: &AgentInvocationResult) -> &'static str {
    match result.code() {
        None => "ok",
        Some(ErrorCode::ConfirmationRequired) => crate::audit::CONFIRMATION_REQUIRED_STATUS,
        Some(_) => "error",
    }
}
