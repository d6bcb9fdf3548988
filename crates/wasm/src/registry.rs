//! The spec's `AgentSurfaceRegistry` for the page: the engine's registry, with JavaScript
//! handlers, policies, listeners and host options behind the package's wrapper objects
//! (packages/core/src/registry.ts). Only values cross as JSON text; functions stay in
//! JavaScript and are called through two host objects:
//!
//! - the registry host (one per registry): `now`, `route`, `onRegister`, `log`, `audit`,
//!   `event`, policies by id (`discover`, `decide`), the procedure executor (`executeProcedure`,
//!   `abortProcedure`);
//! - the binding host (one per registration): `read`, `execute`, `abort`, `when`, `reason`,
//!   `precondition`, `describe`, addressed by (`"observation" | "action" | "procedure"`, name).
//!
//! The package's wrappers are total (they catch every exception and answer JSON text or a
//! promise of it); the imports are still declared `catch`.

use crate::host::{describe_js, settle_text, HostSpawn, HostTimer};
use crate::wire::{self, HandlerAnswer, PolicyRef};
use crate::Authority;
use agent_surface_engine::authority::CapabilityAuthority;
use agent_surface_engine::binding::{
    ActionBinding, ActionContext, ActionHandler, AgentComponentDefinition, BoundProcedure, HandlerError, HandlerResult,
    ObservationBinding, ObservationHandler, Precondition, PreconditionFailure, ReadContext, UnavailableReason,
};
use agent_surface_engine::confirm::{ConfirmationSubscription, Resolution};
use agent_surface_engine::explain::explain_surface;
use agent_surface_engine::host::BoxFuture;
use agent_surface_engine::invoke::{AgentInvocationResult, InvokeOptions};
use agent_surface_engine::policy::{
    AgentPolicy, DiscoveryContext, DiscoveryDecision, Policy, PolicyContext, PolicyDecision, PolicyPhase,
};
use agent_surface_engine::procedure::{AgentProcedureExecutor, ProcedureCall};
use agent_surface_engine::registry::{
    AgentSurfaceRegistry, GuardDecision, LogLevel, RegistrationCandidate, RegistrationHandle, RegistrationStatus,
    RegistryOptions, Subscription,
};
use agent_surface_engine::signal::{AbortController, AbortReason, AbortSignal};
use agent_surface_model::authored::authored_difference;
use agent_surface_model::schema::ValidationIssue;
use futures::FutureExt;
use serde::Deserialize;
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// packages/core/src/registry.ts `RegistryHost`.
    #[derive(Clone)]
    pub type RegistryHost;
    #[wasm_bindgen(method, catch)]
    fn now(this: &RegistryHost) -> Result<f64, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn route(this: &RegistryHost) -> Result<Option<String>, JsValue>;
    #[wasm_bindgen(method, catch, js_name = onRegister)]
    fn on_register(this: &RegistryHost, candidate: &str) -> Result<bool, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn log(this: &RegistryHost, record: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn audit(this: &RegistryHost, record: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn event(this: &RegistryHost, event: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn discover(this: &RegistryHost, policy: u32, ctx: &str) -> Result<String, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn decide(this: &RegistryHost, policy: u32, phase: &str, ctx: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = executeProcedure)]
    fn execute_procedure(this: &RegistryHost, call: &str, serial: u32) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = abortProcedure)]
    fn abort_procedure(this: &RegistryHost, serial: u32, reason: &str) -> Result<(), JsValue>;

    /// packages/core/src/registry.ts `BindingHost`.
    #[derive(Clone)]
    pub type BindingHost;
    #[wasm_bindgen(method, catch)]
    fn read(this: &BindingHost, name: &str, ctx: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn execute(
        this: &BindingHost,
        target: &str,
        name: &str,
        input: &str,
        ctx: &str,
        serial: u32,
    ) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn abort(this: &BindingHost, serial: u32, reason: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn when(this: &BindingHost, target: &str, name: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn reason(this: &BindingHost, target: &str, name: &str) -> Result<String, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn precondition(
        this: &BindingHost,
        target: &str,
        name: &str,
        input: &str,
        ctx: &str,
    ) -> Result<Option<String>, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn describe(this: &BindingHost, name: &str) -> Result<Option<String>, JsValue>;
    #[wasm_bindgen(method, catch, js_name = inputCheck)]
    fn input_check(this: &BindingHost, target: &str, name: &str, input: &str) -> Result<Option<String>, JsValue>;
}

fn throw(text: String) -> JsValue {
    JsValue::from_str(&text)
}

thread_local! {
    // Serials that pair an `execute` with its `abort` (invocation ids may repeat across
    // consumers, serials never do).
    static SERIAL: Cell<u32> = const { Cell::new(0) };
}

fn next_serial() -> u32 {
    SERIAL.with(|s| {
        let n = s.get().wrapping_add(1);
        s.set(n);
        n
    })
}

fn reason_str(r: &AbortReason) -> &'static str {
    match r {
        AbortReason::Timeout => "timeout",
        AbortReason::Cancelled => "cancelled",
        AbortReason::Unmounted => "unmounted",
        AbortReason::Disposed => "disposed",
    }
}

fn answer(text: Result<String, String>) -> HandlerResult {
    match text.map(|t| wire::handler_answer(&t)) {
        Ok(HandlerAnswer::Ok(v)) => Ok(v),
        Ok(HandlerAnswer::Failed(m)) | Err(m) => Err(HandlerError::Failed(m)),
        Ok(HandlerAnswer::Precondition(message, details)) => {
            Err(HandlerError::Precondition(PreconditionFailure { message, details }))
        }
    }
}

/// Awaits a JS answer while watching the engine's signal: when it aborts first, the JS
/// `AbortController` is aborted and the answer is still awaited (the engine logs a late
/// settlement; JavaScript cannot force-kill the handler).
async fn watched(answer_js: JsValue, signal: AbortSignal, abort: impl Fn(&str)) -> Result<String, String> {
    let mut result = Box::pin(settle_text(answer_js).fuse());
    let mut aborted = signal.aborted().fuse();
    futures::select! {
        r = result => r,
        reason = aborted => {
            abort(reason_str(&reason));
            result.await
        }
    }
}

fn consumer_json(c: &agent_surface_engine::consumer::AgentConsumer) -> Value {
    serde_json::to_value(c).unwrap_or(Value::Null)
}

fn read_ctx_json(ctx: &ReadContext) -> Value {
    json!({ "capabilityId": ctx.capability_id, "registrationId": ctx.registration_id, "consumer": consumer_json(&ctx.consumer) })
}

// ---------------------------------------------------------------------------------------------
// Handlers

struct JsRead {
    host: BindingHost,
    name: String,
}

impl ObservationHandler for JsRead {
    fn read(&self, ctx: ReadContext) -> BoxFuture<HandlerResult> {
        let started = self.host.read(&self.name, &read_ctx_json(&ctx).to_string());
        Box::pin(async move {
            match started {
                Ok(v) => answer(settle_text(v).await),
                Err(e) => Err(HandlerError::Failed(describe_js(&e))),
            }
        })
    }
}

/// `"action"` (by capability name) or `"procedure"` (by procedure id).
struct JsExecute {
    host: BindingHost,
    target: &'static str,
    name: String,
}

impl ActionHandler for JsExecute {
    fn execute(&self, input: Value, ctx: ActionContext) -> BoxFuture<HandlerResult> {
        let serial = next_serial();
        let mut c = read_ctx_json(&ReadContext {
            capability_id: ctx.capability_id.clone(),
            registration_id: ctx.registration_id.clone(),
            consumer: ctx.consumer.clone(),
            host: ctx.host.clone(),
        });
        c["invocationId"] = json!(ctx.invocation_id);
        if let Some(cf) = &ctx.confirmation {
            c["confirmation"] = json!({ "id": cf.id, "approvedAt": cf.approved_at });
        }
        let started = self.host.execute(self.target, &self.name, &input.to_string(), &c.to_string(), serial);
        let host = self.host.clone();
        let signal = ctx.signal.clone();
        Box::pin(async move {
            match started {
                Ok(v) => answer(
                    watched(v, signal, |r| {
                        let _ = host.abort(serial, r);
                    })
                    .await,
                ),
                Err(e) => Err(HandlerError::Failed(describe_js(&e))),
            }
        })
    }
}

struct JsPrecondition {
    host: BindingHost,
    target: &'static str,
    name: String,
}

impl Precondition for JsPrecondition {
    fn check(&self, input: &Value, ctx: &ReadContext) -> Result<(), PreconditionFailure> {
        match self.host.precondition(self.target, &self.name, &input.to_string(), &read_ctx_json(ctx).to_string()) {
            Ok(None) => Ok(()),
            Ok(Some(text)) => {
                let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                Err(PreconditionFailure {
                    message: v.get("message").and_then(Value::as_str).unwrap_or("precondition failed").to_string(),
                    details: v.get("details").and_then(Value::as_object).cloned(),
                })
            }
            Err(e) => Err(PreconditionFailure { message: describe_js(&e), details: None }),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Policies

struct JsPolicy {
    host: RegistryHost,
    id: u32,
    name: String,
    phases: Vec<PolicyPhase>,
}

impl JsPolicy {
    fn policy(host: &RegistryHost, r: &PolicyRef) -> Policy {
        let phases = r
            .phases
            .iter()
            .filter_map(|p| match p.as_str() {
                "discovery" => Some(PolicyPhase::Discovery),
                "authorize" => Some(PolicyPhase::Authorize),
                "invoke" => Some(PolicyPhase::Invoke),
                _ => None,
            })
            .collect();
        Arc::new(JsPolicy { host: host.clone(), id: r.id, name: r.name.clone(), phases })
    }

    fn decide_in(&self, phase: &'static str, ctx: PolicyContext) -> BoxFuture<PolicyDecision> {
        let mut c = json!({
            "capabilityId": ctx.capability_id,
            "registrationId": ctx.registration_id,
            "consumer": consumer_json(&ctx.consumer),
            "phase": phase,
        });
        if let Some(i) = ctx.effective_input {
            c["effectiveInput"] = i;
        }
        let started = self.host.decide(self.id, phase, &c.to_string());
        Box::pin(async move {
            let text = match started {
                Ok(v) => settle_text(v).await,
                Err(e) => Err(describe_js(&e)),
            };
            // A policy that failed denies (fail closed).
            match text.ok().and_then(|t| serde_json::from_str::<Value>(&t).ok()) {
                Some(Value::String(s)) if s == "allow" => PolicyDecision::Allow,
                Some(Value::String(s)) if s == "require-confirmation" => PolicyDecision::RequireConfirmation,
                Some(Value::Object(m)) if m.get("deny").is_some_and(Value::is_string) => {
                    PolicyDecision::Deny(m["deny"].as_str().unwrap_or_default().to_string())
                }
                _ => PolicyDecision::Deny("denied by policy".into()),
            }
        })
    }
}

impl AgentPolicy for JsPolicy {
    fn name(&self) -> &str {
        &self.name
    }
    fn phases(&self) -> &[PolicyPhase] {
        &self.phases
    }
    fn on_discovery(&self, ctx: &DiscoveryContext) -> DiscoveryDecision {
        let c = json!({
            "capabilityId": ctx.capability_id,
            "componentType": ctx.component_type,
            "instanceId": ctx.instance_id,
            "consumer": consumer_json(&ctx.consumer),
        });
        let decision = self.host.discover(self.id, &c.to_string());
        // A discovery that threw (or answered nonsense) hides: fail closed.
        match decision.ok().and_then(|t| serde_json::from_str::<Value>(&t).ok()) {
            Some(Value::String(s)) if s == "expose" => DiscoveryDecision::Expose,
            Some(Value::Object(m)) if m.get("disable").is_some_and(Value::is_string) => {
                DiscoveryDecision::Disable(m["disable"].as_str().unwrap_or_default().to_string())
            }
            _ => DiscoveryDecision::Hide,
        }
    }
    fn authorize(&self, ctx: PolicyContext) -> BoxFuture<PolicyDecision> {
        self.decide_in("authorize", ctx)
    }
    fn invoke(&self, ctx: PolicyContext) -> BoxFuture<PolicyDecision> {
        self.decide_in("invoke", ctx)
    }
}

// ---------------------------------------------------------------------------------------------
// The procedure executor

struct JsExecutor {
    host: RegistryHost,
}

impl AgentProcedureExecutor for JsExecutor {
    fn execute(&self, call: ProcedureCall) -> BoxFuture<HandlerResult> {
        let serial = next_serial();
        let c = json!({ "procedureId": call.procedure_id, "input": call.input, "invocationId": call.invocation_id });
        let started = self.host.execute_procedure(&c.to_string(), serial);
        let host = self.host.clone();
        Box::pin(async move {
            match started {
                Ok(v) => answer(
                    watched(v, call.signal, |r| {
                        let _ = host.abort_procedure(serial, r);
                    })
                    .await,
                ),
                Err(e) => Err(HandlerError::Failed(describe_js(&e))),
            }
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Definitions

/// What the package sends for `register(definition)`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DefinitionWire {
    /// A raw `defineAgentComponent` definition (no contract at all).
    #[serde(default)]
    raw: bool,
    #[serde(rename = "type")]
    component_type: String,
    #[serde(default)]
    instance_id: Option<String>,
    /// The compiler's `{id, contractHash}`, absent for an inert contract.
    #[serde(default)]
    provenance: Option<ProvenanceWire>,
    /// The definition as authored, in the manifest's field names (model `authored`).
    #[serde(default)]
    authored: Value,
    #[serde(default)]
    description: String,
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    parent: Option<ParentWire>,
    #[serde(default)]
    policies: Vec<PolicyRef>,
    #[serde(default)]
    observations: BTreeMap<String, CapabilityWire>,
    #[serde(default)]
    actions: BTreeMap<String, CapabilityWire>,
    #[serde(default)]
    procedures: Vec<ProcedureWire>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ProvenanceWire {
    pub(crate) id: String,
    pub(crate) contract_hash: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ParentWire {
    #[serde(rename = "type")]
    component_type: String,
    #[serde(default)]
    instance_id: Option<String>,
}

/// The runtime settings of one observation, action or procedure reference.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct CapabilityWire {
    has_when: bool,
    /// A fixed `unavailableReason`.
    unavailable_reason: Option<String>,
    /// `unavailableReason` is a function (asked through `reason`).
    reason_fn: bool,
    has_precondition: bool,
    /// The contract's input is a schema library's (`fromStandardSchema`): its own validator runs
    /// after the JSON Schema's (asked through `inputCheck`).
    has_input_check: bool,
    timeout_ms: Option<f64>,
    concurrency: Option<Value>,
    policies: Vec<PolicyRef>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProcedureWire {
    id: String,
    #[serde(default)]
    provenance: Option<ProvenanceWire>,
    #[serde(default)]
    authored: Value,
    /// Without a local `execute` the call is forwarded to the procedure executor.
    #[serde(default)]
    has_execute: bool,
    #[serde(default)]
    has_describe: bool,
    #[serde(flatten)]
    settings: CapabilityWire,
}

/// The contract a provenance names, checked: known, same hash, same semantics as authored.
pub(crate) fn verified_contract(
    authority: &CapabilityAuthority,
    id: &str,
    p: Option<&ProvenanceWire>,
    authored: &Value,
) -> Result<usize, String> {
    let Some(p) = p else {
        return Err(wire::definition(
            "inert-contract",
            id,
            format!("\"{id}\" is an inert contract: it carries no compiler provenance (the build did not compile this file, or the contract was created at run time)"),
        ));
    };
    if p.id != id {
        return Err(wire::definition(
            "foreign-provenance",
            id,
            format!("\"{id}\" carries the provenance of \"{}\"", p.id),
        ));
    }
    let contracts = &authority.manifest().contracts;
    let Some(index) = contracts.iter().position(|c| c.id() == id) else {
        return Err(wire::definition("unknown-contract", id, format!("\"{id}\" is not in this registry's manifest")));
    };
    let compiled = &contracts[index];
    if compiled.contract_hash() != p.contract_hash {
        return Err(wire::definition(
            "hash-mismatch",
            id,
            format!(
                "\"{id}\" was compiled as {} but this registry's manifest has {}: the manifest is stale or from another build",
                p.contract_hash,
                compiled.contract_hash()
            ),
        ));
    }
    if let Some(pointer) = authored_difference(compiled, authored) {
        return Err(wire::definition(
            "semantic-change",
            id,
            format!(
                "\"{id}\" differs from its compiled contract at {}: recompile the manifest",
                if pointer.is_empty() { "/" } else { &pointer }
            ),
        ));
    }
    Ok(index)
}

/// `[{path, keyword, message}]` as the package writes a schema library's issues.
fn issues_from(text: &str) -> Vec<ValidationIssue> {
    let list: Vec<Value> = serde_json::from_str(text).unwrap_or_default();
    let field = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    let mut issues: Vec<ValidationIssue> = list
        .iter()
        .map(|v| ValidationIssue { path: field(v, "path"), keyword: field(v, "keyword"), message: field(v, "message") })
        .collect();
    if issues.is_empty() {
        issues.push(ValidationIssue { path: String::new(), keyword: "standard".into(), message: "invalid".into() });
    }
    issues
}

fn unavailable_reason(
    host: &BindingHost,
    target: &'static str,
    name: &str,
    c: &CapabilityWire,
) -> Option<UnavailableReason> {
    if c.reason_fn {
        let (host, name) = (host.clone(), name.to_string());
        return Some(UnavailableReason::computed(move || {
            host.reason(target, &name).unwrap_or_else(|_| "unavailable".to_string())
        }));
    }
    c.unavailable_reason.clone().map(UnavailableReason::Text)
}

fn when_fn(host: &BindingHost, target: &'static str, name: &str) -> impl Fn() -> Option<bool> + 'static {
    let (host, name) = (host.clone(), name.to_string());
    move || host.when(target, &name).ok().and_then(|v| v.as_bool())
}

fn timeout(c: &CapabilityWire) -> Option<u64> {
    c.timeout_ms.filter(|t| t.is_finite() && *t >= 0.0).map(|t| t as u64)
}

fn action_binding(
    registry: &RegistryHost,
    host: &BindingHost,
    target: &'static str,
    name: &str,
    c: &CapabilityWire,
    local: bool,
) -> Result<ActionBinding, String> {
    let mut b = if local {
        ActionBinding::new(Arc::new(JsExecute { host: host.clone(), target, name: name.to_string() }))
    } else {
        ActionBinding::forwarded()
    };
    if c.has_when {
        b = b.when_fallible(when_fn(host, target, name), unavailable_reason(host, target, name, c));
    } else if c.reason_fn || c.unavailable_reason.is_some() {
        // A reason without a `when` is never shown; keep it for parity with native bindings.
        b = b.when_fallible(|| Some(true), unavailable_reason(host, target, name, c));
    }
    if c.has_precondition {
        b = b.precondition(Arc::new(JsPrecondition { host: host.clone(), target, name: name.to_string() }));
    }
    if c.has_input_check {
        let (h, n) = (host.clone(), name.to_string());
        b = b.input_check(move |input| match h.input_check(target, &n, &input.to_string()) {
            Ok(None) => Ok(()),
            Ok(Some(text)) => Err(issues_from(&text)),
            Err(e) => {
                Err(vec![ValidationIssue { path: String::new(), keyword: "standard".into(), message: describe_js(&e) }])
            }
        });
    }
    for p in &c.policies {
        b = b.policy(JsPolicy::policy(registry, p));
    }
    if let Some(t) = timeout(c) {
        b = b.timeout_ms(t);
    }
    if let Some(cc) = &c.concurrency {
        b = b.concurrency(wire::concurrency(cc, name)?);
    }
    Ok(b)
}

// ---------------------------------------------------------------------------------------------
// The exports

/// An external cancellation (`InvokeOptions.signal`, `waitFor`'s `signal`): the package aborts
/// it when the caller's `AbortSignal` fires.
#[wasm_bindgen]
pub struct Cancel {
    controller: AbortController,
}

#[wasm_bindgen]
impl Cancel {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Cancel {
        Cancel { controller: AbortController::new() }
    }
    pub fn abort(&self) {
        self.controller.abort(AbortReason::Cancelled);
    }
    /// Another handle on the same cancellation: the calls that take a `Cancel` consume the
    /// object they are given, so the package passes a handle and keeps the original to abort.
    pub fn handle(&self) -> Cancel {
        Cancel { controller: self.controller.clone() }
    }
}

impl Cancel {
    pub(crate) fn signal(&self) -> AbortSignal {
        self.controller.signal()
    }
}

impl Default for Cancel {
    fn default() -> Self {
        Self::new()
    }
}

/// The engine's registry (see the module docs).
#[wasm_bindgen]
pub struct Registry {
    inner: AgentSurfaceRegistry,
    authority: CapabilityAuthority,
    host: RegistryHost,
    _events: Subscription,
    events_wanted: Rc<Cell<bool>>,
    confirmation_listeners: RefCell<HashMap<u32, ConfirmationSubscription>>,
    next_listener: Cell<u32>,
}

#[wasm_bindgen]
impl Registry {
    /// `createAgentSurfaceRegistry` after the package checked the authority's brand.
    #[wasm_bindgen(constructor)]
    pub fn new(authority: &Authority, settings: &str, host: RegistryHost) -> Result<Registry, JsValue> {
        let s: wire::RegistrySettings = wire::parse(settings, "registry options").map_err(throw)?;
        let authority = authority.inner.clone();
        let mut o = RegistryOptions::new(authority.clone())
            .environment(s.environment().map_err(throw)?)
            .on_duplicate_instance(s.on_duplicate_instance().map_err(throw)?)
            .duplicate_suffix_policy(s.duplicate_suffix_policy().map_err(throw)?)
            .limits(s.limits().map_err(throw)?)
            .clock(Arc::new(RegistryClock(host.clone())))
            .timer(Arc::new(HostTimer))
            .spawn(Arc::new(HostSpawn));
        for p in &s.policies {
            o = o.policy(JsPolicy::policy(&host, p));
        }
        let h = host.clone();
        o = o.log(move |r| {
            let level = match r.level {
                LogLevel::Info => "info",
                LogLevel::Warn => "warn",
                LogLevel::Error => "error",
            };
            let rec = json!({
                "level": level,
                "message": r.message,
                "kind": r.kind.map(|k| k.as_str()),
                "invocationId": r.invocation_id,
                "capabilityId": r.capability_id,
            });
            let _ = h.log(&rec.to_string());
        });
        if s.has_route {
            let h = host.clone();
            o = o.route(move || h.route().ok().flatten().and_then(|t| wire::route(&t)));
        }
        if s.has_on_register {
            let h = host.clone();
            o = o.on_register(move |c: &RegistrationCandidate| {
                let c = json!({ "type": c.component_type, "instanceId": c.instance_id, "origin": c.origin });
                match h.on_register(&c.to_string()) {
                    Ok(true) => GuardDecision::Accept,
                    _ => GuardDecision::Reject,
                }
            });
        }
        if s.has_audit {
            o = o.audit(Arc::new(JsAudit(host.clone())));
        }
        let inner = AgentSurfaceRegistry::new(o);
        let h = host.clone();
        // Events cross to JavaScript only while it has listeners (serializing two events per
        // invocation for nobody was a measurable part of a trivial invoke).
        let events_wanted = Rc::new(Cell::new(false));
        let wanted = events_wanted.clone();
        let events = inner.subscribe(move |e| {
            if !wanted.get() {
                return;
            }
            if let Ok(text) = serde_json::to_string(e) {
                let _ = h.event(&text);
            }
        });
        Ok(Registry {
            inner,
            authority,
            host,
            _events: events,
            events_wanted,
            confirmation_listeners: RefCell::new(HashMap::new()),
            next_listener: Cell::new(0),
        })
    }

    #[wasm_bindgen(getter, js_name = surfaceId)]
    pub fn surface_id(&self) -> String {
        self.inner.surface_id().to_string()
    }

    /// Whether registry events are forwarded to the host's `event` (the package turns this on
    /// while it has listeners).
    #[wasm_bindgen(js_name = setEventsWanted)]
    pub fn set_events_wanted(&self, wanted: bool) {
        self.events_wanted.set(wanted);
    }

    #[wasm_bindgen(js_name = getVersion)]
    pub fn version(&self) -> String {
        self.inner.version()
    }

    /// Registers a definition; throws `{kind: "definition", code, contract, message}` for a
    /// defect the author must fix (every environment). Duplicates and guard rejections return a
    /// rejected handle.
    pub fn register(&self, definition: &str, handlers: BindingHost) -> Result<Handle, JsValue> {
        let d: DefinitionWire = wire::parse(definition, "definition").map_err(throw)?;
        let id = format!("view:{}", d.component_type);
        if d.raw {
            let raw = AgentComponentDefinition {
                component_type: d.component_type.clone(),
                instance_id: d.instance_id.clone().unwrap_or_else(|| "default".into()),
                description: d.description.clone(),
                observations: d.observations.keys().cloned().collect(),
                actions: d.actions.keys().cloned().collect(),
            };
            return self.inner.register(raw).map(Handle::new).map_err(|e| throw(definition_error(&id, &e)));
        }
        verified_contract(&self.authority, &id, d.provenance.as_ref(), &d.authored).map_err(throw)?;
        let contract = self
            .authority
            .component(&d.component_type)
            .map_err(|e| throw(wire::definition("unknown-contract", &id, e)))?;
        let mut b = contract.bind();
        if let Some(i) = &d.instance_id {
            b = b.instance(i.clone());
        }
        if let Some(e) = d.enabled {
            b = b.enabled(e);
        }
        if let Some(p) = &d.parent {
            b = b.parent(p.component_type.clone(), p.instance_id.clone().unwrap_or_else(|| "default".into()));
        }
        for p in &d.policies {
            b = b.policy(JsPolicy::policy(&self.host, p));
        }
        for (name, c) in &d.observations {
            let mut ob = ObservationBinding::new(Arc::new(JsRead { host: handlers.clone(), name: name.clone() }));
            if c.has_when {
                ob = ob.when_fallible(
                    when_fn(&handlers, "observation", name),
                    unavailable_reason(&handlers, "observation", name, c),
                );
            }
            for p in &c.policies {
                ob = ob.policy(JsPolicy::policy(&self.host, p));
            }
            if let Some(t) = timeout(c) {
                ob = ob.timeout_ms(t);
            }
            b = b.observation(name.clone(), ob);
        }
        for (name, c) in &d.actions {
            b = b.action(name.clone(), action_binding(&self.host, &handlers, "action", name, c, true).map_err(throw)?);
        }
        for p in &d.procedures {
            verified_contract(&self.authority, &p.id, p.provenance.as_ref(), &p.authored).map_err(throw)?;
            let pc =
                self.authority.procedure(&p.id).map_err(|e| throw(wire::definition("unknown-contract", &p.id, e)))?;
            let binding =
                action_binding(&self.host, &handlers, "procedure", &p.id, &p.settings, p.has_execute).map_err(throw)?;
            let mut bound: BoundProcedure =
                pc.bind(binding).map_err(|e| throw(wire::definition("binding", &p.id, e)))?;
            if p.has_describe {
                let (h, pid) = (handlers.clone(), p.id.clone());
                bound = bound.describe(move || h.describe(&pid).ok().flatten());
            }
            b = b.procedure(bound);
        }
        let bound = b.build().map_err(|e| throw(wire::definition("binding", &id, e)))?;
        self.inner.register(bound).map(Handle::new).map_err(|e| throw(definition_error(&id, &e)))
    }

    /// `snapshot(context?)`: the catalog as JSON text.
    pub fn snapshot(&self, context: &str) -> Result<String, JsValue> {
        let ctx = wire::snapshot_context(context).map_err(throw)?;
        Ok(self.inner.snapshot(&ctx).to_json().to_string())
    }

    /// `invoke(request, options?)`: a promise of the result envelope (JSON text); rejects only
    /// on misuse (a disposed registry, a request that is not an invocation).
    pub fn invoke(&self, request: &str, options: &str, cancel: Option<Cancel>) -> js_sys::Promise {
        let parsed = wire::invocation(request)
            .and_then(|r| wire::parse::<wire::InvokeOptionsWire>(options, "invoke options").map(|o| (r, o)));
        let registry = self.inner.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let (request, o) = parsed.map_err(throw)?;
            let options = InvokeOptions {
                consumer: o.consumer,
                timeout_ms: o.timeout_ms,
                signal: cancel.map(|c| c.controller.signal()),
            };
            let result: AgentInvocationResult =
                registry.invoke(request, options).await.map_err(|e| throw(wire::error_text("disposed", e)))?;
            Ok(JsValue::from_str(&serde_json::to_string(&result).unwrap_or_default()))
        })
    }

    /// The registry's procedure executor: on (the package holds the executor) or off.
    #[wasm_bindgen(js_name = setProcedureExecutor)]
    pub fn set_procedure_executor(&self, installed: bool) {
        let executor: Option<Arc<dyn AgentProcedureExecutor>> =
            installed.then(|| Arc::new(JsExecutor { host: self.host.clone() }) as Arc<dyn AgentProcedureExecutor>);
        self.inner.set_procedure_executor(executor);
    }

    /// `confirmations.pending()` as JSON text.
    #[wasm_bindgen(js_name = pendingConfirmations)]
    pub fn pending_confirmations(&self) -> String {
        serde_json::to_string(&self.inner.confirmations().pending()).unwrap_or_else(|_| "[]".into())
    }

    /// `confirmations.resolve(id, {approved, reason?})`; throws `{kind: "not-pending" |
    /// "disposed", message}`.
    #[wasm_bindgen(js_name = resolveConfirmation)]
    pub fn resolve_confirmation(&self, id: &str, approved: bool, reason: Option<String>) -> Result<(), JsValue> {
        let resolution = Resolution { approved, reason };
        self.inner.confirmations().resolve_with(id, resolution).map_err(|e| {
            let kind = match e {
                agent_surface_engine::confirm::ResolveError::NotPending(_) => "not-pending",
                agent_surface_engine::confirm::ResolveError::Disposed => "disposed",
            };
            throw(wire::error_text(kind, e))
        })
    }

    /// `confirmations.waitFor(id, {signal?})`: a promise of "approved" | "denied" | "expired".
    #[wasm_bindgen(js_name = waitForConfirmation)]
    pub fn wait_for_confirmation(&self, id: String, cancel: Option<Cancel>) -> js_sys::Promise {
        let controller = self.inner.confirmations();
        wasm_bindgen_futures::future_to_promise(async move {
            // An aborted wait answers "expired" here, as it did before the engine's `WaitAborted`
            // (this facade goes with the wasm build; the TypeScript runtime rejects instead).
            let outcome = controller
                .wait_for(&id, cancel.map(|c| c.controller.signal()))
                .await
                .unwrap_or(agent_surface_engine::events::ConfirmationOutcome::Expired);
            let text =
                serde_json::to_value(outcome).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
            Ok(JsValue::from_str(&text))
        })
    }

    /// `confirmations.subscribe(listener)`: the listener gets the pending list as JSON text;
    /// returns an id for [`Registry::unsubscribe_confirmations`].
    #[wasm_bindgen(js_name = subscribeConfirmations)]
    pub fn subscribe_confirmations(&self, listener: js_sys::Function) -> u32 {
        let sub = self.inner.confirmations().subscribe(move |list| {
            let text = serde_json::to_string(list).unwrap_or_else(|_| "[]".into());
            let _ = listener.call1(&JsValue::UNDEFINED, &JsValue::from_str(&text));
        });
        let id = self.next_listener.get() + 1;
        self.next_listener.set(id);
        self.confirmation_listeners.borrow_mut().insert(id, sub);
        id
    }

    #[wasm_bindgen(js_name = unsubscribeConfirmations)]
    pub fn unsubscribe_confirmations(&self, id: u32) {
        let sub = self.confirmation_listeners.borrow_mut().remove(&id);
        drop(sub);
    }

    /// `explainSurface(registry, ctx)` as JSON text; throws on a disposed registry.
    pub fn explain(&self, context: &str) -> Result<String, JsValue> {
        let ctx = wire::snapshot_context(context).map_err(throw)?;
        let e = explain_surface(&self.inner, &ctx).map_err(|e| throw(wire::error_text("disposed", e)))?;
        Ok(serde_json::to_string(&e).unwrap_or_default())
    }

    /// The default audit sink's records (JSON text), oldest first.
    #[wasm_bindgen(js_name = auditRecords)]
    pub fn audit_records(&self) -> String {
        serde_json::to_string(&self.inner.audit_records()).unwrap_or_else(|_| "[]".into())
    }

    pub fn dispose(&self) {
        self.confirmation_listeners.borrow_mut().clear();
        self.inner.dispose();
    }

    #[wasm_bindgen(getter)]
    pub fn disposed(&self) -> bool {
        self.inner.is_disposed()
    }
}

impl Registry {
    pub(crate) fn engine(&self) -> &AgentSurfaceRegistry {
        &self.inner
    }
}

fn definition_error(id: &str, e: &agent_surface_engine::registry::DefinitionError) -> String {
    use agent_surface_engine::registry::DefinitionError as E;
    let code = match e {
        E::Unverified(_) => "raw-definition",
        E::ForeignProvenance(_) => "foreign-provenance",
        E::Binding(_) => "binding",
        E::SuffixCollision { .. } => "suffix-collision",
        E::Invalid { .. } => "invalid",
        E::Disposed => "disposed",
    };
    wire::definition(code, id, e)
}

struct RegistryClock(RegistryHost);

impl agent_surface_engine::host::clock::Clock for RegistryClock {
    fn now_ms(&self) -> u64 {
        match self.0.now() {
            Ok(ms) if ms.is_finite() && ms >= 0.0 => ms as u64,
            _ => js_sys::Date::now() as u64,
        }
    }
}

struct JsAudit(RegistryHost);

impl agent_surface_engine::audit::AuditSink for JsAudit {
    fn record(&self, r: agent_surface_engine::audit::AuditRecord) {
        if let Ok(text) = serde_json::to_string(&r) {
            let _ = self.0.audit(&text);
        }
    }
}

/// `AgentRegistrationHandle`.
#[wasm_bindgen]
pub struct Handle {
    inner: RegistrationHandle,
}

impl Handle {
    fn new(inner: RegistrationHandle) -> Handle {
        Handle { inner }
    }
}

#[wasm_bindgen]
impl Handle {
    #[wasm_bindgen(getter, js_name = registrationId)]
    pub fn registration_id(&self) -> String {
        self.inner.registration_id().to_string()
    }

    #[wasm_bindgen(getter)]
    pub fn status(&self) -> String {
        match self.inner.status() {
            RegistrationStatus::Active => "active",
            RegistrationStatus::Rejected => "rejected",
            RegistrationStatus::Unregistered => "unregistered",
        }
        .to_string()
    }

    /// `update({enabled?, availability?})` (JSON text).
    pub fn update(&self, patch: &str) -> Result<(), JsValue> {
        self.inner.update(wire::patch(patch).map_err(throw)?);
        Ok(())
    }

    pub fn invalidate(&self) {
        self.inner.invalidate();
    }

    pub fn unregister(&self) {
        self.inner.unregister();
    }
}

/// An external tool's `execute` (the gateway), through the tools' binding host.
pub(crate) fn external_binding(host: &BindingHost, id: &str) -> ActionBinding {
    ActionBinding::new(Arc::new(JsExecute { host: host.clone(), target: "external", name: id.to_string() }))
}
