//! What the model sees: a provider-neutral tool catalog over a registry.
//!
//! - `direct`: one tool per live capability (observations, actions, procedures). When several
//!   instances of one component type are live, each instance gets its own tools, named with the
//!   instance id (`view_devices_table_readState__left`) and described with it, so every tool
//!   addresses exactly one instance and the model never meets AMBIGUOUS_INSTANCE.
//! - `meta` (experimental): three fixed tools — `surface_discover`, `surface_invoke`,
//!   `surface_read` — with lazy discovery (envelopes in docs/toolset.md).
//!
//! Tool names are wire-safe (`[A-Za-z0-9_-]{1,64}`) and unique; [`AgentToolset::wire_name_map`]
//! is the authority for mapping them back. Descriptions are stable (plane · effect ·
//! confirmation prefix, then the manifest text); live state goes to [`ToolState`].

use super::catalog::Route;
pub use super::catalog::{
    catalog_from_manifest, direct_tools, direct_tools_named, meta_tools, wire_name, AgentTool, ToolCall, ToolNames,
    ToolState, ToolTraits, ToolsetMode,
};
use super::catalog::{ToolExec, ToolHandle};
use crate::events::AgentSurfaceEvent;
use crate::host::{MaybeSend, MaybeSync};
use crate::invoke::{AgentInvocation, AgentInvocationResult, InvokeOptions};
use crate::registry::{AgentSurfaceRegistry, Subscription};
use crate::signal::AbortSignal;
use crate::snapshot::{in_scope, AgentConsumer, AgentSurfaceSnapshot, ScopeRejected, SnapshotBudget, SnapshotContext};
use agent_surface_model::errors::{AgentCapabilityError, ErrorCode};
use futures::FutureExt;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    Embedded,
    Remote,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfirmationMode {
    /// Await the user and retry, so one tool call gives one final result.
    Wait,
    /// Return CONFIRMATION_REQUIRED to the model, which retries.
    TwoPhase,
}

/// `AgentToolsetOptions`.
#[derive(Clone, Debug, Default)]
pub struct AgentToolsetOptions {
    pub consumer: AgentConsumer,
    pub mode: ToolsetMode,
    pub topology: Option<Topology>,
    pub confirmations: Option<ConfirmationMode>,
    /// Component-type prefixes this consumer may discover: a floor that a model-supplied scope
    /// only narrows. Not an authority boundary.
    pub scope: Option<Vec<String>>,
    /// Meta mode only.
    pub budget: Option<SnapshotBudget>,
    /// How direct tools are named: plane first (the default) or without it.
    pub names: ToolNames,
}

/// Programmer misuse when building a toolset.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ToolsetError {
    #[error("a toolset needs `topology` or `confirmations`: there is no ambiguous global default")]
    MissingTopology,
    #[error("`budget` is meta-mode only: in direct mode truncation would drop tools silently")]
    BudgetInDirectMode,
}

/// The public part of a tool (what a host renders); routes are compared separately.
fn same_public(a: &[AgentTool], b: &[AgentTool]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.name == y.name
                && x.description == y.description
                && x.input_schema == y.input_schema
                && x.output_schema == y.output_schema
                && x.state == y.state
                && x.traits == y.traits
        })
}

/// Two-phase confirmations in direct mode: a direct tool's input is the capability's input and
/// nothing else, so the model cannot pass a confirmationId. The toolset remembers each
/// CONFIRMATION_REQUIRED by (capability, instance, canonical input) and attaches its id when the
/// model repeats the same call; the pipeline still checks the evidence (capability,
/// registration, consumer, effective-input fingerprint, single use, TTL). `by_call` pins the id
/// used for a tool-call id so a transport retry replays the identical request.
#[derive(Default)]
struct ConfirmMemory {
    by_input: HashMap<String, String>,
    by_call: HashMap<String, String>,
    order: VecDeque<(bool, String)>,
}

const CONFIRM_MEMORY: usize = 256;

impl ConfirmMemory {
    fn insert(&mut self, by_call: bool, key: String, cid: String) {
        let map = if by_call { &mut self.by_call } else { &mut self.by_input };
        if map.insert(key.clone(), cid).is_none() {
            self.order.push_back((by_call, key));
        }
        while self.order.len() > 2 * CONFIRM_MEMORY {
            if let Some((c, k)) = self.order.pop_front() {
                if c {
                    self.by_call.remove(&k);
                } else {
                    self.by_input.remove(&k);
                }
            }
        }
    }
}

type ToolsListener = Arc<crate::dyn_send_sync!(Fn(&[AgentTool]))>;

struct Inner {
    registry: AgentSurfaceRegistry,
    options: AgentToolsetOptions,
    confirmations: ConfirmationMode,
    last: Mutex<(Vec<AgentTool>, BTreeMap<String, String>)>,
    confirm_memory: Mutex<ConfirmMemory>,
    listeners: Mutex<Vec<(u64, ToolsListener)>>,
    next: Mutex<u64>,
    registry_subscription: Mutex<Option<Subscription>>,
}

/// `AgentToolset`.
#[derive(Clone)]
pub struct AgentToolset {
    inner: Arc<Inner>,
}

/// `createAgentToolset(registry, options)`.
pub fn create_agent_toolset(
    registry: &AgentSurfaceRegistry,
    options: AgentToolsetOptions,
) -> Result<AgentToolset, ToolsetError> {
    let confirmations = match (options.confirmations, options.topology) {
        (Some(c), _) => c,
        (None, Some(Topology::Embedded)) => ConfirmationMode::Wait,
        (None, Some(Topology::Remote)) => ConfirmationMode::TwoPhase,
        (None, None) => return Err(ToolsetError::MissingTopology),
    };
    if options.mode == ToolsetMode::Direct && options.budget.is_some() {
        return Err(ToolsetError::BudgetInDirectMode);
    }
    let inner = Arc::new(Inner {
        registry: registry.clone(),
        options,
        confirmations,
        last: Mutex::default(),
        confirm_memory: Mutex::default(),
        listeners: Mutex::default(),
        next: Mutex::new(0),
        registry_subscription: Mutex::new(None),
    });
    let toolset = AgentToolset { inner };
    if toolset.inner.options.mode == ToolsetMode::Direct {
        // Catalog changes (state-only ones included) are announced; meta mode never fires.
        let weak = Arc::downgrade(&toolset.inner);
        let sub = registry.subscribe(move |e| {
            if matches!(e, AgentSurfaceEvent::SurfaceChanged { .. } | AgentSurfaceEvent::AvailabilityChanged { .. }) {
                if let Some(inner) = weak.upgrade() {
                    AgentToolset { inner }.refresh();
                }
            }
        });
        *toolset.inner.registry_subscription.lock().unwrap_or_else(|e| e.into_inner()) = Some(sub);
    }
    Ok(toolset)
}

impl AgentToolset {
    pub fn mode(&self) -> ToolsetMode {
        self.inner.options.mode
    }

    pub fn confirmation_mode(&self) -> ConfirmationMode {
        self.inner.confirmations
    }

    fn snapshot(&self, scope: Option<Vec<String>>, budget: Option<SnapshotBudget>) -> AgentSurfaceSnapshot {
        self.inner.registry.snapshot(&SnapshotContext {
            consumer: self.inner.options.consumer.clone(),
            scope,
            include_unavailable: true,
            budget,
        })
    }

    /// The current catalog (recomputed per surface version), in deterministic name order.
    pub fn tools(&self) -> Vec<AgentTool> {
        let mut tools = match self.inner.options.mode {
            ToolsetMode::Meta => meta_tools(),
            ToolsetMode::Direct => {
                direct_tools_named(&self.snapshot(self.inner.options.scope.clone(), None), self.inner.options.names)
            }
        };
        // Each tool carries a handle back to this toolset: `tool.execute(input, call)` is
        // `execute_tool(&tool, input, call)`. Weak: a kept tool never keeps the toolset alive.
        let weak = Arc::downgrade(&self.inner);
        let exec: ToolExec = Arc::new(move |tool: AgentTool, input: Value, call: ToolCall| {
            let weak = weak.clone();
            Box::pin(async move {
                match weak.upgrade() {
                    Some(inner) => AgentToolset { inner }.execute_tool(&tool, input, call).await,
                    None => tool.detached(call),
                }
            })
        });
        for t in &mut tools {
            t.handle = ToolHandle(Some(exec.clone()));
        }
        let map = match self.inner.options.mode {
            ToolsetMode::Meta => BTreeMap::new(),
            ToolsetMode::Direct => {
                tools.iter().filter_map(|t| t.capability_id().map(|c| (t.name.clone(), c.to_string()))).collect()
            }
        };
        *self.inner.last.lock().unwrap_or_else(|e| e.into_inner()) = (tools.clone(), map);
        tools
    }

    /// wireName → capability id for the catalog `tools()` last built. Empty in meta mode.
    pub fn wire_name_map(&self) -> BTreeMap<String, String> {
        self.inner.last.lock().unwrap_or_else(|e| e.into_inner()).1.clone()
    }

    fn refresh(&self) {
        let before = self.inner.last.lock().unwrap_or_else(|e| e.into_inner()).0.clone();
        let after = self.tools();
        // Routes (registration ids, surface versions) move on every version bump; only what a
        // host can render — definitions and state — is announced.
        if !same_public(&before, &after) {
            let listeners: Vec<_> =
                self.inner.listeners.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|(_, l)| l.clone()).collect();
            for l in listeners {
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| l(&after)));
            }
        }
    }

    /// Called with the new catalog whenever `tools()` would differ (state included). Never in
    /// meta mode. Returns an id for [`AgentToolset::unsubscribe`].
    pub fn subscribe(&self, f: impl Fn(&[AgentTool]) + MaybeSend + MaybeSync + 'static) -> u64 {
        if self.inner.last.lock().unwrap_or_else(|e| e.into_inner()).0.is_empty() {
            self.tools();
        }
        let mut n = self.inner.next.lock().unwrap_or_else(|e| e.into_inner());
        *n += 1;
        self.inner.listeners.lock().unwrap_or_else(|e| e.into_inner()).push((*n, Arc::new(f)));
        *n
    }

    pub fn unsubscribe(&self, id: u64) {
        self.inner.listeners.lock().unwrap_or_else(|e| e.into_inner()).retain(|(i, _)| *i != id);
    }

    pub fn dispose(&self) {
        self.inner.listeners.lock().unwrap_or_else(|e| e.into_inner()).clear();
        self.inner.registry_subscription.lock().unwrap_or_else(|e| e.into_inner()).take();
    }

    /// Executes a tool of the last catalog by wire name. Never fails and never panics: every
    /// outcome is a result envelope (an unknown tool is CAPABILITY_NOT_FOUND).
    pub async fn execute(&self, name: &str, input: Value, tool_call_id: Option<String>) -> AgentInvocationResult {
        self.execute_call(name, input, ToolCall { id: tool_call_id, signal: None }).await
    }

    /// [`AgentToolset::execute`] with a cancellation signal.
    pub async fn execute_call(&self, name: &str, input: Value, call: ToolCall) -> AgentInvocationResult {
        let fallback = (call.id.clone(), name.to_string());
        guarded(self.execute_inner(name, input, call), fallback).await
    }

    /// Executes `tool` as it was in the catalog it came from: the registrationId and
    /// surfaceVersion of that catalog go with the call (the spec's `tool.execute`), so a tool
    /// kept across a surface change answers STALE_CAPABILITY / COMPONENT_UNMOUNTED instead of
    /// silently reaching whatever is mounted now.
    pub async fn execute_tool(&self, tool: &AgentTool, input: Value, call: ToolCall) -> AgentInvocationResult {
        match tool.route.clone() {
            Some(route) => {
                let fallback = (call.id.clone(), route.capability_id.clone());
                guarded(self.invoke_direct(route, input, call), fallback).await
            }
            None => self.execute_call(&tool.name, input, call).await,
        }
    }

    async fn execute_inner(&self, name: &str, input: Value, call: ToolCall) -> AgentInvocationResult {
        if self.inner.last.lock().unwrap_or_else(|e| e.into_inner()).0.is_empty() {
            self.tools();
        }
        let version = self.inner.registry.version();
        let not_found = |m: String| AgentInvocationResult {
            status: crate::invoke::InvocationStatus::Error,
            invocation_id: call.id.clone().unwrap_or_default(),
            capability_id: name.to_string(),
            output: None,
            error: Some(AgentCapabilityError::new(ErrorCode::CapabilityNotFound, m)),
            surface_version: version.clone(),
            surface_changed: false,
        };
        match self.inner.options.mode {
            ToolsetMode::Direct => {
                let tool = self
                    .inner
                    .last
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .0
                    .iter()
                    .find(|t| t.name == name)
                    .cloned();
                let Some(route) = tool.and_then(|t| t.route) else { return not_found(format!("no tool named {name}")) };
                self.invoke_direct(route, input, call).await
            }
            ToolsetMode::Meta => match name {
                "surface_discover" => self.discover(&input, call.id),
                "surface_invoke" | "surface_read" => {
                    let Some(cap) = input.get("capabilityId").and_then(Value::as_str) else {
                        return not_found("capabilityId is required".into());
                    };
                    if !self.in_floor_id(cap) {
                        return not_found(format!("no live capability {cap}"));
                    }
                    let mut inv = AgentInvocation::new(cap);
                    inv.invocation_id = call.id.clone();
                    inv.instance_id = input.get("instanceId").and_then(Value::as_str).map(str::to_string);
                    inv.registration_id = input.get("registrationId").and_then(Value::as_str).map(str::to_string);
                    inv.surface_version = input.get("surfaceVersion").and_then(Value::as_str).map(str::to_string);
                    if name == "surface_invoke" {
                        inv.confirmation_id = input.get("confirmationId").and_then(Value::as_str).map(str::to_string);
                        inv.input = Some(input.get("input").cloned().unwrap_or(json!({})));
                    }
                    self.invoke(inv, call.signal).await
                }
                other => not_found(format!("no tool named {other}")),
            },
        }
    }

    /// A direct tool's call: the route of its catalog, and in two-phase mode the remembered
    /// confirmation of an identical earlier call.
    async fn invoke_direct(&self, route: Route, input: Value, call: ToolCall) -> AgentInvocationResult {
        let mut inv = AgentInvocation::new(route.capability_id.clone());
        inv.invocation_id = call.id.clone();
        inv.instance_id = route.instance_id.clone();
        inv.registration_id = route.registration_id;
        inv.surface_version = Some(route.surface_version);
        let two_phase = self.inner.confirmations == ConfirmationMode::TwoPhase;
        let key = agent_surface_model::canonical::canonical_json(
            &json!({ "capabilityId": route.capability_id, "instanceId": route.instance_id, "input": input }),
        );
        if two_phase {
            let memory = self.inner.confirm_memory.lock().unwrap_or_else(|e| e.into_inner());
            inv.confirmation_id =
                call.id.as_ref().and_then(|id| memory.by_call.get(id)).or_else(|| memory.by_input.get(&key)).cloned();
        }
        inv.input = Some(input);
        let attached = inv.confirmation_id.clone();
        let mut result = self.invoke(inv, call.signal).await;
        if two_phase && result.code() == Some(ErrorCode::ConfirmationRequired) {
            // The model cannot pass a confirmationId to a direct tool: tell it what works.
            if let Some(e) = result.error.as_mut() {
                e.message = "the user must confirm this operation; once they approved, repeat this call with the same arguments".into();
            }
        }
        if two_phase {
            let mut memory = self.inner.confirm_memory.lock().unwrap_or_else(|e| e.into_inner());
            match result.code() {
                Some(ErrorCode::ConfirmationRequired) => {
                    if let Some(cid) = confirmation_id_of(&result) {
                        memory.insert(false, key, cid);
                    }
                }
                // Settled: used, denied, expired or mismatched. The next identical call starts
                // a fresh confirmation.
                None | Some(ErrorCode::ConfirmationDenied | ErrorCode::ConfirmationExpired) if attached.is_some() => {
                    memory.by_input.remove(&key);
                }
                _ => {}
            }
            if let (Some(id), Some(cid)) = (&call.id, &attached) {
                memory.insert(true, id.clone(), cid.clone());
            }
        }
        result
    }

    fn in_floor_id(&self, capability_id: &str) -> bool {
        let Some(floor) = &self.inner.options.scope else { return true };
        let ty = match capability_id.strip_prefix("view:").and_then(|r| r.rfind('.').map(|i| &r[..i])) {
            Some(t) => t,
            // Procedures belong to the component that references them; they are visible
            // through discovery of that component.
            None => return true,
        };
        floor.iter().any(|f| in_scope(ty, f))
    }

    /// Invokes, and in `wait` mode turns a CONFIRMATION_REQUIRED into the final result.
    async fn invoke(&self, inv: AgentInvocation, signal: Option<AbortSignal>) -> AgentInvocationResult {
        let options = InvokeOptions {
            consumer: Some(self.inner.options.consumer.clone()),
            signal: signal.clone(),
            ..Default::default()
        };
        let registry = &self.inner.registry;
        let wait = self.inner.confirmations == ConfirmationMode::Wait;
        let mut inv = inv;
        if wait && inv.confirmation_id.is_none() {
            // A redelivery of a call that waited for, and got, a confirmation: the same request
            // as its retry, so the idempotency window answers it (not INVOCATION_CONFLICT).
            let memory = self.inner.confirm_memory.lock().unwrap_or_else(|e| e.into_inner());
            inv.confirmation_id = inv.invocation_id.as_ref().and_then(|id| memory.by_call.get(id)).cloned();
        }
        let Ok(first) = registry.invoke(inv.clone(), options.clone()).await else {
            return disposed(&inv);
        };
        if self.inner.confirmations != ConfirmationMode::Wait || first.code() != Some(ErrorCode::ConfirmationRequired) {
            return first;
        }
        let Some(cid) = confirmation_id_of(&first) else { return first };
        // Approved, denied or expired (or the caller cancelled): the retry with the evidence
        // gives the one final result (the pipeline answers DENIED / EXPIRED itself).
        let _ = registry.confirmations().wait_for(&cid, signal.clone()).await;
        if signal.as_ref().is_some_and(AbortSignal::is_aborted) {
            // Nobody waits for the answer any more: close the request (the page's dialog goes
            // away) instead of leaving it pending until its TTL.
            let _ = registry.confirmations().resolve_with(
                &cid,
                crate::confirm::Resolution::denied().reason("the call was cancelled while waiting"),
            );
            let mut cancelled = first.clone();
            cancelled.error = Some(AgentCapabilityError::new(
                ErrorCode::Cancelled,
                "the call was cancelled while waiting for the user's confirmation",
            ));
            return cancelled;
        }
        let mut retry = inv.clone();
        retry.invocation_id = Some(first.invocation_id.clone());
        retry.confirmation_id = Some(cid.clone());
        if inv.invocation_id.is_some() {
            let mut memory = self.inner.confirm_memory.lock().unwrap_or_else(|e| e.into_inner());
            memory.insert(true, first.invocation_id.clone(), cid);
        }
        registry.invoke(retry, options).await.unwrap_or_else(|_| disposed(&inv))
    }

    fn discover(&self, input: &Value, tool_call_id: Option<String>) -> AgentInvocationResult {
        let requested: Option<Vec<String>> = input
            .get("scope")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect());
        let floor = self.inner.options.scope.clone();
        let (scope, rejected) = match (floor, requested) {
            (None, r) => (r, Vec::new()),
            (Some(f), None) => (Some(f), Vec::new()),
            (Some(f), Some(r)) => {
                let (ok, rejected): (Vec<String>, Vec<String>) =
                    r.into_iter().partition(|p| f.iter().any(|fl| in_scope(p, fl)));
                (Some(ok), rejected)
            }
        };
        let mut snap = self.snapshot(scope, self.inner.options.budget.clone());
        if !rejected.is_empty() {
            snap.scope_rejected = Some(ScopeRejected { prefixes: rejected });
        }
        AgentInvocationResult {
            status: crate::invoke::InvocationStatus::Ok,
            invocation_id: tool_call_id.unwrap_or_default(),
            capability_id: "surface_discover".into(),
            output: Some(snap.to_json()),
            error: None,
            surface_version: snap.surface_version.clone(),
            surface_changed: false,
        }
    }
}

fn confirmation_id_of(r: &AgentInvocationResult) -> Option<String> {
    r.error
        .as_ref()
        .and_then(|e| e.details.as_ref())
        .and_then(|d| d.get("confirmationId"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// Runs `f`; a panic (a handler that panicked through the pipeline) becomes EXECUTION_FAILED.
async fn guarded(
    f: impl std::future::Future<Output = AgentInvocationResult>,
    (invocation_id, capability_id): (Option<String>, String),
) -> AgentInvocationResult {
    match std::panic::AssertUnwindSafe(f).catch_unwind().await {
        Ok(r) => r,
        Err(_) => AgentInvocationResult {
            status: crate::invoke::InvocationStatus::Error,
            invocation_id: invocation_id.unwrap_or_default(),
            capability_id,
            output: None,
            error: Some(AgentCapabilityError::new(ErrorCode::ExecutionFailed, "the operation failed")),
            surface_version: String::new(),
            surface_changed: false,
        },
    }
}

fn disposed(inv: &AgentInvocation) -> AgentInvocationResult {
    AgentInvocationResult {
        status: crate::invoke::InvocationStatus::Error,
        invocation_id: inv.invocation_id.clone().unwrap_or_default(),
        capability_id: inv.capability_id.clone(),
        output: None,
        error: Some(AgentCapabilityError::new(ErrorCode::Cancelled, "the surface was disposed")),
        surface_version: String::new(),
        surface_changed: false,
    }
}
