//! The pipeline, in order, and steps 9 and 10: execute (the handler raced against the timeout,
//! external cancellation and forced settlement) and the output checks.

use super::admission::{
    authorize, check_available, check_input, check_version, confirm_step, effective_input, resolve, Asking, Confirmer,
    Plan, Target,
};
use super::queues::{admit, slot_for, Release};
use super::settle::{Ctx, RunGuard};
use super::Parts;
use crate::binding::{ActionContext, ConfirmationEvidence, HandlerError, HostContext};
use crate::consumer::AgentConsumer;
use crate::events::AgentSurfaceEvent;
use crate::host::{BoxFuture, Timer};
use crate::policy::Policy;
use crate::procedure::ProcedureCall;
use crate::request::{err, error_result, AgentInvocation, AgentInvocationResult, InvokeOptions};
use crate::signal::{AbortController, AbortReason, AbortSignal};
use crate::surface::options::{LogKind, LogLevel, LogRecord};
use crate::surface::state::NO_PROCEDURE_EXECUTOR;
use agent_surface_model::canonical::canonical_json;
use agent_surface_model::effects::{Audit, Confirmation, Effect};
use agent_surface_model::errors::{AgentCapabilityError, ErrorCode};
use futures::future::FutureExt;
use serde_json::Value;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Waker};

/// One run of the pipeline for a fresh (not deduplicated) request; settles exactly once.
pub(super) async fn run(
    weak: Weak<dyn Parts>,
    request: AgentInvocation,
    options: InvokeOptions,
    consumer: AgentConsumer,
    // The dedupe entry this run settles: (key, fingerprint, serial).
    (key, fp, serial): (String, String, u64),
    confirmer: Confirmer,
) -> AgentInvocationResult {
    let Some(parts) = weak.upgrade() else {
        return error_result(
            request.invocation_id.as_deref().unwrap_or(""),
            &request.capability_id,
            AgentCapabilityError::new(ErrorCode::Cancelled, "the surface was disposed"),
            0,
            false,
        );
    };
    let surface = parts.surface();
    let invocation_id = request.invocation_id.clone().unwrap_or_default();
    let ctx = Ctx {
        invocation_id: invocation_id.clone(),
        capability_id: request.capability_id.clone(),
        consumer: consumer.clone(),
        started_ms: surface.now(),
        start_version: surface.lock().version,
        registration_id: None,
        audit: Audit::Metadata,
        input_for_audit: None,
    };
    surface.events.push(AgentSurfaceEvent::InvocationStarted {
        invocation_id: invocation_id.clone(),
        capability_id: request.capability_id.clone(),
        consumer_id: consumer.key(),
    });
    surface.flush();
    let mut run = RunGuard { parts: parts.clone(), ctx, key, fp, serial, armed: true };
    let outcome = pipeline(&parts, &request, &options, &mut run.ctx, &confirmer).await;
    run.armed = false;
    run.finish(outcome)
}

/// Steps 2 to 10 (step 1, dedupe, ran before; step 11, settle, runs after).
async fn pipeline(
    parts: &Arc<dyn Parts>,
    req: &AgentInvocation,
    options: &InvokeOptions,
    ctx: &mut Ctx,
    confirmer: &Confirmer,
) -> Result<Option<Value>, AgentCapabilityError> {
    let surface = parts.surface();
    // 2. resolve
    let (target, dynamic) = resolve(surface, req)?;
    ctx.registration_id = Some(target.owner_id().to_string());
    let host = surface.host();
    let plan = Plan::of(&target);
    ctx.audit = plan.audit;
    check_version(surface, req, plan.effect)?;
    let policies: Vec<Policy> = surface
        .options
        .policies
        .iter()
        .chain(target.component_policies().iter())
        .chain(plan.binding_policies.iter())
        .cloned()
        .collect();
    let asking = Asking { req, registration_id: target.owner_id(), consumer: &ctx.consumer, host: &host };

    // 3. availability, 4. pre-input authorization
    check_available(surface, &asking, &target, &plan, &dynamic, &policies)?;
    authorize(&asking, &policies).await?;

    // 5. effective input
    let effective = effective_input(surface, req, plan.input_schema)?;
    ctx.input_for_audit = effective.clone();

    // 6. precondition and input-aware policies
    let asked = check_input(&asking, plan.binding, effective.as_ref(), &policies).await?;
    let needs_confirmation = plan.confirmation == Confirmation::Required || asked;

    // 7. confirmation (observations skip it)
    let signal = options.signal.as_ref();
    let evidence =
        confirm_step(parts, &asking, &plan, effective.as_ref(), needs_confirmation, confirmer, signal).await?;
    let read_ctx = asking.read_context();

    // 8. admission
    let limits = &surface.options.limits;
    let timeout_ms = plan.timeout_ms(&target, options, limits);
    let slot = slot_for(&target, &plan, &ctx.consumer, limits);
    if let Err(e) = admit(parts, &slot, options.signal.as_ref()).await {
        if e.code == ErrorCode::RateLimited {
            // Not admitted, not run, not cached: the retry presents the same evidence.
            if let Some(ev) = &evidence {
                parts.confirmations().restore(&ev.id);
            }
        }
        return Err(e);
    }
    let _release = Release { parts: parts.clone(), slot };

    // 9. execute
    let call = Call { target: &target, req, ctx, host: &host, read_ctx, effective, evidence };
    let output = execute(parts, call, plan.effect == Effect::Navigation, timeout_ms, options).await?;

    // 10. output checks
    check_output(parts, req, plan.output_schema, output)
}

/// Everything the handler is called with.
struct Call<'a> {
    target: &'a Target,
    req: &'a AgentInvocation,
    ctx: &'a Ctx,
    host: &'a HostContext,
    read_ctx: crate::binding::ReadContext,
    effective: Option<Value>,
    evidence: Option<ConfirmationEvidence>,
}

/// Step 9, execute: registers the run (so an unmount or dispose can settle it), calls the handler
/// and races it against the timeout, external cancellation and forced settlement.
async fn execute(
    parts: &Arc<dyn Parts>,
    call: Call<'_>,
    is_navigation: bool,
    timeout_ms: u64,
    options: &InvokeOptions,
) -> Result<Value, AgentCapabilityError> {
    let surface = parts.surface();
    let req = call.req;
    // A procedure referenced without a local `execute` goes to the registry's executor (its
    // absence was checked at step 3; one uninstalled since is the same answer).
    let forward_to = match call.target {
        Target::Procedure { reg, index } if reg.bound.procedures[*index].binding.forwarded => {
            match surface.procedure_executor.lock().unwrap_or_else(|e| e.into_inner()).clone() {
                Some(executor) => Some(executor),
                None => {
                    return Err(err(ErrorCode::CapabilityNotAvailable, "the capability is not available now")
                        .detail("reason", NO_PROCEDURE_EXECUTOR));
                }
            }
        }
        _ => None,
    };
    let controller = AbortController::new();
    let force_state: Arc<Mutex<ForceState>> = Arc::default();
    let executions = &parts.inflight().executions;
    let run_id = {
        let mut n = executions.next.lock().unwrap_or_else(|e| e.into_inner());
        *n += 1;
        *n
    };
    {
        // Under the registry lock: an unregistration either happened before (never dispatch)
        // or comes after and finds this run to abort.
        let st = surface.lock();
        if st.disposed {
            return Err(err(ErrorCode::Cancelled, "the surface was disposed"));
        }
        if call.target.reg().is_some_and(|reg| !st.regs.contains_key(&reg.id)) {
            return Err(err(ErrorCode::ComponentUnmounted, "the component was unmounted"));
        }
        // Cancelled while waiting for admission: never dispatch.
        if options.signal.as_ref().is_some_and(|s| s.is_aborted()) {
            return Err(err(ErrorCode::Cancelled, "the invocation was cancelled"));
        }
        executions.running.lock().unwrap_or_else(|e| e.into_inner()).insert(
            run_id,
            Running {
                registration_id: call.target.reg().map(|reg| reg.id.clone()),
                navigation: is_navigation,
                controller: controller.clone(),
                force: force_state.clone(),
            },
        );
    }
    let mut running = RunningGuard { parts: parts.clone(), id: run_id, controller: controller.clone(), armed: true };
    let start = std::panic::AssertUnwindSafe(|| match call.target {
        Target::Observation { reg, name } => reg.bound.observations[name].read.read(call.read_ctx.clone()),
        Target::Action { reg, name } => reg.bound.actions[name]
            .execute
            .execute(call.effective.clone().unwrap_or(Value::Null), action_context(&call, controller.signal())),
        Target::External { exposure, index } => exposure.tools[*index]
            .binding
            .execute
            .execute(call.effective.clone().unwrap_or(Value::Null), action_context(&call, controller.signal())),
        Target::Procedure { reg, index } => match &forward_to {
            Some(executor) => executor.execute(ProcedureCall {
                procedure_id: req.capability_id.clone(),
                input: call.effective.clone().unwrap_or(Value::Null),
                invocation_id: call.ctx.invocation_id.clone(),
                signal: controller.signal(),
            }),
            None => reg.bound.procedures[*index]
                .binding
                .execute
                .execute(call.effective.clone().unwrap_or(Value::Null), action_context(&call, controller.signal())),
        },
    });
    // A panicking handler is a throwing one: EXECUTION_FAILED, never a crash of the caller.
    let handler: BoxFuture<Result<Value, HandlerError>> = match std::panic::catch_unwind(start) {
        Ok(h) => Box::pin(
            std::panic::AssertUnwindSafe(h)
                .catch_unwind()
                .map(|r| r.unwrap_or_else(|_| Err(HandlerError::Failed("the handler panicked".into())))),
        ),
        Err(_) => Box::pin(futures::future::ready(Err(HandlerError::Failed("the handler panicked".into())))),
    };
    let timer = surface.options.timer.clone();
    let mut handler = handler.fuse();
    let outcome = race(&mut handler, timer.as_deref(), timeout_ms, options.signal.clone(), Forced(force_state)).await;
    running.armed = false;
    let result = match outcome {
        Race::Done(Ok(v)) => Ok(v),
        Race::Done(Err(HandlerError::Precondition(f))) => {
            let mut e = err(ErrorCode::PreconditionFailed, f.message);
            e.details = f.details;
            Err(e)
        }
        Race::Done(Err(HandlerError::Failed(m))) => {
            surface.log(LogLevel::Error, format!("{} failed: {m}", req.capability_id));
            Err(err(ErrorCode::ExecutionFailed, "the capability failed"))
        }
        Race::Timeout => {
            controller.abort(AbortReason::Timeout);
            surface.log(
                LogLevel::Warn,
                format!("{} timed out after {timeout_ms} ms; a late settlement is ignored", req.capability_id),
            );
            Err(err(ErrorCode::Timeout, format!("the capability did not finish within {timeout_ms} ms")))
        }
        Race::Cancelled => {
            controller.abort(AbortReason::Cancelled);
            Err(err(ErrorCode::Cancelled, "the invocation was cancelled"))
        }
        Race::Forced(code) => {
            // dispose() unregisters everything first: its unmount is a cancellation.
            let code = if surface.lock().disposed { ErrorCode::Cancelled } else { code };
            let m = if code == ErrorCode::ComponentUnmounted {
                "the component was unmounted"
            } else {
                "the invocation was cancelled"
            };
            Err(err(code, m))
        }
    };
    // The handler lost the race (it did not produce the settlement): watch it for a late one.
    if let Err(e) = &result {
        if !futures::future::FusedFuture::is_terminated(&handler) {
            watch_late_settlement(parts, handler, &call.ctx.invocation_id, &req.capability_id, e.code);
        }
    }
    result
}

/// How long a handler that lost the race (TIMEOUT, CANCELLED, COMPONENT_UNMOUNTED) is still
/// watched for a late settlement, which is then ignored but logged (`late-settlement`). A
/// handler still running after this window is dropped unobserved.
pub const LATE_SETTLEMENT_WINDOW_MS: u64 = 60_000;

/// Keeps polling a handler whose invocation already settled, on the registry's spawn seam, so
/// that its late settlement is logged as `late-settlement` (and otherwise ignored). Without a
/// spawner (wasm32 without host seams) the handler is dropped and a late settlement cannot be
/// observed.
fn watch_late_settlement(
    parts: &Arc<dyn Parts>,
    handler: futures::future::Fuse<HandlerFuture>,
    invocation_id: &str,
    capability_id: &str,
    code: ErrorCode,
) {
    let surface = parts.surface();
    let Some(spawn) = surface.options.spawn.clone() else { return };
    let window: BoxFuture<()> = match &surface.options.timer {
        Some(t) => t.sleep(LATE_SETTLEMENT_WINDOW_MS),
        None => Box::pin(futures::future::pending()),
    };
    let weak = Arc::downgrade(parts);
    let (invocation_id, capability_id) = (invocation_id.to_string(), capability_id.to_string());
    spawn.spawn(Box::pin(async move {
        let settled = match futures::future::select(handler, window).await {
            futures::future::Either::Left((r, _)) => r,
            futures::future::Either::Right(_) => return,
        };
        let Some(parts) = weak.upgrade() else { return };
        let how = if settled.is_ok() { "succeeded" } else { "failed" };
        parts.surface().log_record(LogRecord {
            level: LogLevel::Warn,
            message: format!(
                "{capability_id} ({invocation_id}) {how} after its invocation had settled {}; the late settlement is ignored",
                code.as_str()
            ),
            kind: Some(LogKind::LateSettlement),
            invocation_id: Some(invocation_id),
            capability_id: Some(capability_id),
        });
    }));
}

type HandlerFuture = BoxFuture<Result<Value, HandlerError>>;

fn action_context(call: &Call<'_>, signal: AbortSignal) -> ActionContext {
    ActionContext {
        capability_id: call.req.capability_id.clone(),
        registration_id: call.target.owner_id().to_string(),
        consumer: call.ctx.consumer.clone(),
        host: call.host.clone(),
        invocation_id: call.ctx.invocation_id.clone(),
        signal,
        confirmation: call.evidence.clone(),
    }
}

/// Step 10, output checks: the output schema and the size limit.
fn check_output(
    parts: &Arc<dyn Parts>,
    req: &AgentInvocation,
    output_schema: Option<&Value>,
    output: Value,
) -> Result<Option<Value>, AgentCapabilityError> {
    let surface = parts.surface();
    let limits = &surface.options.limits;
    if let Some(schema) = output_schema {
        match surface.validator(schema) {
            Ok(v) => {
                if !v.is_valid(&output) {
                    surface.log(
                        LogLevel::Error,
                        format!("{} returned output that does not match its schema", req.capability_id),
                    );
                    return Err(err(ErrorCode::ExecutionFailed, "the capability returned invalid output")
                        .detail("reason", "invalid-output"));
                }
            }
            Err(_) => return Err(err(ErrorCode::ExecutionFailed, "the capability's output schema cannot be used")),
        }
    }
    let bytes = canonical_json(&output).len();
    if bytes > limits.max_output_bytes {
        return Err(err(
            ErrorCode::ExecutionFailed,
            format!("the output is {bytes} bytes; at most {} are allowed", limits.max_output_bytes),
        )
        .detail("reason", "output-too-large"));
    }
    // A capability without an output schema that returns null settles with no output.
    Ok(if output.is_null() && output_schema.is_none() { None } else { Some(output) })
}

// ---------------------------------------------------------------------------------------------
// Running executions: what an unmount or `dispose` settles from outside.

/// The executions running now, by run id.
#[derive(Default)]
pub(super) struct Executions {
    running: Mutex<HashMap<u64, Running>>,
    next: Mutex<u64>,
}

impl Executions {
    /// Aborts and settles every non-navigation execution of an unmounted registration.
    pub(super) fn unmounted(&self, registration_id: &str) {
        let running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        for r in running.values() {
            if r.registration_id.as_deref() == Some(registration_id) && !r.navigation {
                r.controller.abort(AbortReason::Unmounted);
                force(&r.force, ErrorCode::ComponentUnmounted);
            }
        }
    }

    /// `dispose()`: everything in flight settles CANCELLED.
    pub(super) fn cancel_all(&self) {
        let running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        for r in running.values() {
            r.controller.abort(AbortReason::Disposed);
            force(&r.force, ErrorCode::Cancelled);
        }
    }

    pub(super) fn len(&self) -> usize {
        self.running.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

pub(super) struct Running {
    registration_id: Option<String>,
    navigation: bool,
    controller: AbortController,
    /// Forces settlement (COMPONENT_UNMOUNTED, CANCELLED) from outside.
    force: Arc<Mutex<ForceState>>,
}

#[derive(Default)]
struct ForceState {
    code: Option<ErrorCode>,
    waker: Option<Waker>,
}

struct Forced(Arc<Mutex<ForceState>>);

impl Future for Forced {
    type Output = ErrorCode;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ErrorCode> {
        let mut s = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match s.code {
            Some(c) => Poll::Ready(c),
            None => {
                s.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

fn force(f: &Arc<Mutex<ForceState>>, code: ErrorCode) {
    let w = {
        let mut s = f.lock().unwrap_or_else(|e| e.into_inner());
        if s.code.is_some() {
            return;
        }
        s.code = Some(code);
        s.waker.take()
    };
    if let Some(w) = w {
        w.wake();
    }
}

struct RunningGuard {
    parts: Arc<dyn Parts>,
    id: u64,
    controller: AbortController,
    /// Still armed when the execution is dropped mid-flight (every caller stopped waiting):
    /// the handler's signal is then aborted as a cancellation.
    armed: bool,
}

impl Drop for RunningGuard {
    fn drop(&mut self) {
        self.parts.inflight().executions.running.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.id);
        if self.armed {
            self.controller.abort(AbortReason::Cancelled);
        }
    }
}

enum Race {
    Done(Result<Value, HandlerError>),
    Timeout,
    Cancelled,
    Forced(ErrorCode),
}

async fn race(
    handler: &mut futures::future::Fuse<HandlerFuture>,
    timer: Option<&dyn Timer>,
    timeout_ms: u64,
    signal: Option<AbortSignal>,
    forced: Forced,
) -> Race {
    let timer: BoxFuture<()> = match timer {
        Some(t) => t.sleep(timeout_ms),
        None => Box::pin(futures::future::pending()),
    };
    let cancel: BoxFuture<()> = match signal {
        Some(s) => Box::pin(async move {
            s.aborted().await;
        }),
        None => Box::pin(futures::future::pending()),
    };
    futures::select_biased! {
        r = &mut *handler => Race::Done(r),
        code = forced.fuse() => Race::Forced(code),
        _ = cancel.fuse() => Race::Cancelled,
        _ = timer.fuse() => Race::Timeout,
    }
}
