//! The engine's behavioural scenarios (conformance/scenarios/*.json), natively: the same files
//! run through the JavaScript API of the page's runtime (packages/core/test/scenarios/runner.js,
//! in Node and in headless Chromium) and must give the same outcomes. conformance/README.md lists
//! the step kinds; docs/architecture.md says how to add one.
//!
//! Time is a manual clock and timer; invocations and the registry's background tasks run on a
//! single-threaded pool that is driven until stalled after every step. Handlers are described
//! by data (`returns`, `throws`, `echo`, `context`, `delayMs`, `waitsForAbort`, `precondition`,
//! `when`, ...), and so are policies, the audit sink, the registry's options and edits of the
//! manifest.

use agent_surface_engine::authority::CapabilityAuthority;
use agent_surface_engine::binding::{
    execute_fn, precondition_fn, read_fn, ActionBinding, ActionContext, AgentComponentDefinition, AgentConcurrency,
    HandlerError, HandlerResult, ObservationBinding, PreconditionFailure, ReadContext, Registrable, UnavailableReason,
};
use agent_surface_engine::confirm::Resolution;
use agent_surface_engine::consumer::AgentConsumer;
use agent_surface_engine::explain::explain_surface;
use agent_surface_engine::expose::gateway::{ConfirmFn, ExposedTools, ExposureGateway, GatewayCall};
use agent_surface_engine::expose::providers::{tool_block, Provider};
use agent_surface_engine::expose::toolset::{ConfirmationMode, ToolCall, ToolNames, ToolsetMode, Topology};
use agent_surface_engine::host::clock::Clock;
use agent_surface_engine::host::clock::ManualClock;
use agent_surface_engine::host::timer::Timer;
use agent_surface_engine::host::{BoxFuture, Spawn};
use agent_surface_engine::invoke::{AgentInvocation, InvokeOptions};
use agent_surface_engine::policy::{
    AgentPolicy, DiscoveryContext, DiscoveryDecision, Policy, PolicyContext, PolicyDecision, PolicyPhase,
};
use agent_surface_engine::procedure::{AgentProcedureExecutor, ProcedureCall};
use agent_surface_engine::registry::{
    AgentSurfaceRegistry, AvailabilityOverride, DuplicateInstance, DuplicateSuffixPolicy, Environment, GuardDecision,
    RegistrationHandle, RegistrationPatch, RegistrationStatus, RegistryOptions, Subscription,
};
use agent_surface_engine::signal::{AbortController, AbortReason, AbortSignal};
use agent_surface_engine::snapshot::{AgentRouteInfo, SnapshotBudget, SnapshotContext};
use agent_surface_engine::toolset::{create_agent_toolset, AgentTool, AgentToolset, AgentToolsetOptions};
use agent_surface_model::limits::AgentSurfaceLimits;
use agent_surface_model::manifest::{contract_hash, manifest_hash, ManifestContract};
use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex, Once};
use std::task::{Context, Poll, Waker};

/// The clock's start: 2026-01-01T00:00:00Z (the scenarios' timestamps assume it).
const T0: u64 = 1_767_225_600_000;

/// What a described handler, policy, listener or guard panics with when the data says it
/// throws (the engine isolates it); the panic hook stays quiet about these.
const THROWN: &str = "scenario: thrown as described";

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel)
}

fn quiet_described_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let described = info.payload().downcast_ref::<&str>().is_some_and(|s| *s == THROWN)
                || info.payload().downcast_ref::<String>().is_some_and(|s| s == THROWN);
            if !described {
                previous(info);
            }
        }));
    });
}

// ---------------------------------------------------------------------------------------------
// Matching and data

/// `expected` is a partial description of `actual`: objects list the keys that must match
/// (`"$absent"`: the key must be missing), arrays match element-wise with equal length, `"$any"`
/// matches any present value, `"$matches:<regex>"` a string the (ECMAScript, `u`) pattern finds
/// a match in, `"$len:<n>"` an array, object or string of n items (UTF-16 code units).
/// Returns the path of the first mismatch.
fn mismatch(expected: &Value, actual: Option<&Value>, path: &str) -> Option<String> {
    match (expected, actual) {
        (Value::String(s), a) if s == "$absent" => a.map(|a| format!("{path}: expected absent, got {a}")),
        (_, None) => Some(format!("{path}: missing, expected {expected}")),
        (Value::String(s), Some(_)) if s == "$any" => None,
        (Value::String(s), Some(a)) if s.starts_with("$matches:") => {
            let re = regress::Regex::with_flags(&s["$matches:".len()..], "u").expect("a valid pattern");
            match a.as_str() {
                Some(text) if re.find(text).is_some() => None,
                _ => Some(format!("{path}: expected a match of {s}, got {a}")),
            }
        }
        (Value::String(s), Some(a)) if s.starts_with("$len:") => {
            let n: usize = s["$len:".len()..].parse().expect("a length");
            let len = match a {
                Value::Array(x) => x.len(),
                Value::Object(x) => x.len(),
                Value::String(x) => x.encode_utf16().count(),
                _ => usize::MAX,
            };
            (len != n).then(|| format!("{path}: expected {n} items, got {a}"))
        }
        (Value::Object(e), Some(Value::Object(a))) => {
            e.iter().find_map(|(k, v)| mismatch(v, a.get(k), &format!("{path}.{k}")))
        }
        (Value::Array(e), Some(Value::Array(a))) => {
            if e.len() != a.len() {
                return Some(format!(
                    "{path}: expected {} items, got {}: {}",
                    e.len(),
                    a.len(),
                    Value::Array(a.clone())
                ));
            }
            e.iter().zip(a).enumerate().find_map(|(i, (x, y))| mismatch(x, Some(y), &format!("{path}[{i}]")))
        }
        (e, Some(a)) => (e != a).then(|| format!("{path}: expected {e}, got {a}")),
    }
}

/// Data macros: `{"$repeat": "ab", "times": 3}` is `"ababab"`; inside a `repeat` step, `{{i}}`
/// in a string is the iteration's index.
fn expand(v: &Value, i: Option<usize>) -> Value {
    match v {
        Value::Object(m) if m.contains_key("$repeat") => {
            let s = m["$repeat"].as_str().expect("$repeat takes a string");
            Value::String(s.repeat(m["times"].as_u64().expect("$repeat needs times") as usize))
        }
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), expand(v, i))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(|v| expand(v, i)).collect()),
        Value::String(s) => match i {
            Some(i) if s.contains("{{i}}") => Value::String(s.replace("{{i}}", &i.to_string())),
            _ => v.clone(),
        },
        _ => v.clone(),
    }
}

// ---------------------------------------------------------------------------------------------
// The environment

/// Timers on the manual clock that fire one at a time, earliest (then first set) first, the
/// pool driven after each: what the JavaScript runner's manual `setTimeout` does, so a timer
/// set by work a fired timer released fires within the same `advance` when it is due.
#[derive(Clone)]
struct ScenarioTimer {
    clock: ManualClock,
    queue: Arc<Mutex<TimerQueue>>,
}

type TimerEntry = Arc<Mutex<(bool, Option<Waker>)>>;

#[derive(Default)]
struct TimerQueue {
    next: u64,
    waiting: BTreeMap<(u64, u64), TimerEntry>,
}

impl ScenarioTimer {
    /// Fires the earliest timer due by `end` (moving the clock to it); false when none is.
    fn fire_next(&self, end: u64) -> bool {
        let due = {
            let mut q = self.queue.lock().unwrap();
            let key = q.waiting.keys().next().copied().filter(|(at, _)| *at <= end);
            key.map(|k| (k.0, q.waiting.remove(&k).unwrap()))
        };
        let Some((at, entry)) = due else { return false };
        if at > self.clock.now_ms() {
            self.clock.set(at);
        }
        let waker = {
            let mut e = entry.lock().unwrap();
            e.0 = true;
            e.1.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
        true
    }
}

impl Timer for ScenarioTimer {
    fn sleep(&self, ms: u64) -> BoxFuture<()> {
        let entry: TimerEntry = Arc::default();
        let key = {
            let mut q = self.queue.lock().unwrap();
            q.next += 1;
            let key = (self.clock.now_ms() + ms, q.next);
            q.waiting.insert(key, entry.clone());
            key
        };
        Box::pin(Sleep { entry, key, queue: self.queue.clone() })
    }
}

struct Sleep {
    entry: TimerEntry,
    key: (u64, u64),
    queue: Arc<Mutex<TimerQueue>>,
}

impl Future for Sleep {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut e = self.entry.lock().unwrap();
        if e.0 {
            Poll::Ready(())
        } else {
            e.1 = Some(cx.waker().clone());
            Poll::Pending
        }
    }
}

impl Drop for Sleep {
    /// A dropped sleep is a cleared timeout.
    fn drop(&mut self) {
        self.queue.lock().unwrap().waiting.remove(&self.key);
    }
}

#[derive(Clone, Default)]
struct QueueSpawn(Arc<Mutex<Vec<BoxFuture<()>>>>);

impl Spawn for QueueSpawn {
    fn spawn(&self, future: BoxFuture<()>) {
        self.0.lock().unwrap().push(future);
    }
}

#[derive(Default)]
struct Record {
    calls: BTreeMap<String, u64>,
    aborted: BTreeMap<String, u64>,
    /// Every handler call in order: `{capabilityId, input}`.
    call_log: Vec<Value>,
    executor_calls: Vec<Value>,
    /// Every `authorize` and `invoke` policy call in order.
    policy_calls: Vec<Value>,
    audit: Vec<Value>,
    /// The registry's log lines (`LogRecord.message`), in order.
    logs: Vec<String>,
}

type Shared = Arc<Mutex<Record>>;
type Slot = Arc<Mutex<Option<Value>>>;
/// Named booleans a `when` may read (`{"cell": name}`, default true), set by `set` steps.
type Cells = Arc<Mutex<HashMap<String, bool>>>;

/// What a described handler needs from the environment.
#[derive(Clone)]
struct Kit {
    record: Shared,
    timer: ScenarioTimer,
    cells: Cells,
}

/// A `listen` step's listener: the event types it heard, and its subscription.
type Listening = (Arc<Mutex<Vec<String>>>, Option<Subscription>);

struct Env {
    authority: CapabilityAuthority,
    manifest: Value,
    kit: Kit,
    spawned: QueueSpawn,
    pool: LocalPool,
    registry: AgentSurfaceRegistry,
    events: Arc<Mutex<Vec<Value>>>,
    pending_heard: Arc<Mutex<Vec<usize>>>,
    executor: Arc<Mutex<Value>>,
    handles: HashMap<String, Arc<RegistrationHandle>>,
    results: HashMap<String, Slot>,
    cancels: HashMap<String, AbortController>,
    toolsets: HashMap<String, AgentToolset>,
    catalogs: HashMap<String, Vec<AgentTool>>,
    authorities: HashMap<String, CapabilityAuthority>,
    listeners: HashMap<String, Listening>,
    tool_listeners: HashMap<String, Arc<Mutex<Vec<usize>>>>,
    /// The registry's options: an exposure gateway runs with the same (clock, timer, limits,
    /// policies, context, audit sink).
    options: RegistryOptions,
    exposures: HashMap<String, Exposure>,
    _subs: (Subscription, agent_surface_engine::confirm::ConfirmationSubscription),
}

/// The procedure executor: a described handler (`executor` steps) under the name "executor".
struct Executor(Arc<Mutex<Value>>, Kit);

impl AgentProcedureExecutor for Executor {
    fn execute(&self, call: ProcedureCall) -> BoxFuture<HandlerResult> {
        self.1.record.lock().unwrap().executor_calls.push(json!({
            "procedureId": call.procedure_id, "input": call.input, "invocationId": call.invocation_id
        }));
        let b = self.0.lock().unwrap().clone();
        let ctx = json!({ "procedureId": call.procedure_id, "invocationId": call.invocation_id });
        behaviour(&b, "executor", &self.1)(call.input, Some(call.signal), ctx)
    }
}

struct ScenarioPolicy {
    name: String,
    phases: Vec<PolicyPhase>,
    spec: Value,
    record: Shared,
}

impl ScenarioPolicy {
    /// Filters: `capabilityPrefix` (votes only on capabilities whose id starts with it),
    /// `consumerKind` (only for consumers of that kind), `unlessGrant` (only for consumers
    /// without that grant). Elsewhere the policy exposes and allows.
    fn applies(&self, capability_id: &str, consumer: &AgentConsumer) -> bool {
        let s = &self.spec;
        let kind = serde_json::to_value(consumer.kind).unwrap();
        s.get("capabilityPrefix").and_then(Value::as_str).is_none_or(|p| capability_id.starts_with(p))
            && s.get("consumerKind").is_none_or(|k| *k == kind)
            && s.get("unlessGrant").and_then(Value::as_str).is_none_or(|g| !consumer.grants.iter().any(|x| x == g))
    }

    fn log(&self, phase: &str, ctx: &PolicyContext) {
        let mut entry = json!({
            "policy": self.name,
            "phase": phase,
            "capabilityId": ctx.capability_id,
            "registrationId": ctx.registration_id,
            "consumer": ctx.consumer,
            "host": *ctx.host,
        });
        if let Some(input) = &ctx.effective_input {
            entry["effectiveInput"] = input.clone();
        }
        self.record.lock().unwrap().policy_calls.push(entry);
    }
}

impl AgentPolicy for ScenarioPolicy {
    fn name(&self) -> &str {
        &self.name
    }
    fn phases(&self) -> &[PolicyPhase] {
        &self.phases
    }
    fn on_discovery(&self, ctx: &DiscoveryContext) -> DiscoveryDecision {
        if !self.applies(&ctx.capability_id, &ctx.consumer) {
            return DiscoveryDecision::Expose;
        }
        match &self.spec["discovery"] {
            Value::String(s) if s == "hide" => DiscoveryDecision::Hide,
            Value::String(s) if s == "throws" => std::panic::panic_any(THROWN),
            Value::Object(m) => DiscoveryDecision::Disable(m["disable"].as_str().unwrap_or_default().into()),
            _ => DiscoveryDecision::Expose,
        }
    }
    fn authorize(&self, ctx: PolicyContext) -> BoxFuture<PolicyDecision> {
        self.log("authorize", &ctx);
        let applies = self.applies(&ctx.capability_id, &ctx.consumer);
        let spec = self.spec["authorize"].clone();
        Box::pin(async move {
            if applies {
                decision(&spec)
            } else {
                PolicyDecision::Allow
            }
        })
    }
    fn invoke(&self, ctx: PolicyContext) -> BoxFuture<PolicyDecision> {
        self.log("invoke", &ctx);
        let applies = self.applies(&ctx.capability_id, &ctx.consumer);
        let spec = self.spec["invoke"].clone();
        Box::pin(async move {
            if applies {
                decision(&spec)
            } else {
                PolicyDecision::Allow
            }
        })
    }
}

/// `"allow"`, `{"deny": message}`, `"require-confirmation"` or `"throws"`.
fn decision(v: &Value) -> PolicyDecision {
    match v {
        Value::String(s) if s == "require-confirmation" => PolicyDecision::RequireConfirmation,
        Value::String(s) if s == "throws" => std::panic::panic_any(THROWN),
        Value::Object(m) => PolicyDecision::Deny(m["deny"].as_str().unwrap_or_default().into()),
        _ => PolicyDecision::Allow,
    }
}

fn policies(v: &Value, record: &Shared) -> Vec<Policy> {
    v.as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let phases = [
                ("discovery", PolicyPhase::Discovery),
                ("authorize", PolicyPhase::Authorize),
                ("invoke", PolicyPhase::Invoke),
            ]
            .into_iter()
            .filter(|(k, _)| p.get(*k).is_some())
            .map(|(_, ph)| ph)
            .collect();
            Arc::new(ScenarioPolicy {
                name: p["name"].as_str().unwrap().into(),
                phases,
                spec: p.clone(),
                record: record.clone(),
            }) as Policy
        })
        .collect()
}

fn read_context(ctx: &ReadContext) -> Value {
    json!({
        "capabilityId": ctx.capability_id,
        "registrationId": ctx.registration_id,
        "consumer": ctx.consumer,
        "host": *ctx.host,
    })
}

fn action_context(ctx: &ActionContext) -> Value {
    let mut v = json!({
        "capabilityId": ctx.capability_id,
        "registrationId": ctx.registration_id,
        "consumer": ctx.consumer,
        "host": *ctx.host,
        "invocationId": ctx.invocation_id,
    });
    if let Some(c) = &ctx.confirmation {
        v["confirmation"] = json!({ "id": c.id, "approvedAt": c.approved_at });
    }
    v
}

/// A handler described by data: `delayMs` (settles after that long), `waitsForAbort` (settles
/// a second after its signal aborts), `throws` (an internal failure with that message),
/// `echo` (returns its input), `context` (returns what it saw: its context and `input`),
/// else `returns` (default null). Every call is counted and logged.
fn behaviour(
    b: &Value,
    id: &str,
    kit: &Kit,
) -> impl Fn(Value, Option<AbortSignal>, Value) -> BoxFuture<HandlerResult> + Send + Sync + 'static {
    let (b, id, kit) = (b.clone(), id.to_string(), kit.clone());
    move |input: Value, signal, ctx| {
        {
            let mut r = kit.record.lock().unwrap();
            *r.calls.entry(id.clone()).or_default() += 1;
            r.call_log.push(json!({ "capabilityId": id, "input": input }));
        }
        let (b, id, kit) = (b.clone(), id.clone(), kit.clone());
        Box::pin(async move {
            if let Some(ms) = b.get("delayMs").and_then(Value::as_u64) {
                kit.timer.sleep(ms).await;
            }
            if b.get("waitsForAbort") == Some(&json!(true)) {
                // Settles late (a second after the abort): the invocation has settled by then
                // (TIMEOUT, CANCELLED, COMPONENT_UNMOUNTED) and the engine logs the late value.
                if let Some(s) = signal {
                    s.aborted().await;
                    *kit.record.lock().unwrap().aborted.entry(id).or_default() += 1;
                    kit.timer.sleep(1000).await;
                }
                return Ok(Value::Null);
            }
            if let Some(m) = b.get("throws").and_then(Value::as_str) {
                return Err(HandlerError::Failed(m.into()));
            }
            if b.get("echo") == Some(&json!(true)) {
                return Ok(input);
            }
            if b.get("context") == Some(&json!(true)) {
                let mut v = ctx;
                v["input"] = input;
                return Ok(v);
            }
            Ok(b.get("returns").cloned().unwrap_or(Value::Null))
        })
    }
}

/// A described `when`: `true`/`false`, `"throws"`, or `{"cell": name}`; with its reason
/// (`unavailableReason`, or `unavailableReasonFn`: the same text from a function).
type When = (Arc<dyn Fn() -> Option<bool> + Send + Sync>, Option<UnavailableReason>);

fn when_of(b: &Value, cells: &Cells) -> Option<When> {
    let w = b.get("when")?.clone();
    let cells = cells.clone();
    let f = move || match &w {
        Value::Bool(x) => Some(*x),
        Value::Object(m) => Some(*cells.lock().unwrap().get(m["cell"].as_str().unwrap()).unwrap_or(&true)),
        _ => None, // "throws"
    };
    let reason = if let Some(s) = b.get("unavailableReasonFn").and_then(Value::as_str) {
        let s = s.to_string();
        Some(UnavailableReason::computed(move || s.clone()))
    } else {
        b.get("unavailableReason").and_then(Value::as_str).map(UnavailableReason::from)
    };
    Some((Arc::new(f), reason))
}

/// `{"mode": "instance" | "capability" | "key" | "parallel", "key"?, "max"?, "queueDepth"?}`.
fn concurrency(v: &Value) -> AgentConcurrency {
    let queue_depth = v.get("queueDepth").and_then(Value::as_u64).map(|n| n as usize);
    match v["mode"].as_str().unwrap() {
        "instance" => AgentConcurrency::Instance { queue_depth },
        "capability" => AgentConcurrency::Capability { queue_depth },
        "key" => AgentConcurrency::Key { key: v["key"].as_str().unwrap().into(), queue_depth },
        "parallel" => AgentConcurrency::Parallel { max: v["max"].as_u64().unwrap() as usize, queue_depth },
        other => panic!("concurrency mode {other}"),
    }
}

fn action_binding(base: ActionBinding, b: &Value, kit: &Kit) -> ActionBinding {
    let mut ab = base;
    if let Some((w, r)) = when_of(b, &kit.cells) {
        ab = ab.when_fallible(move || w(), r);
    }
    if let Some(p) = b.get("precondition") {
        // `thrown`: the JavaScript precondition throws the failure instead of returning it;
        // natively both are the same `Err`.
        let failure = PreconditionFailure {
            message: p["message"].as_str().unwrap_or_default().into(),
            details: p.get("details").and_then(Value::as_object).cloned(),
        };
        ab = ab.precondition(precondition_fn(move |_, _| Err(failure.clone())));
    }
    for p in policies(&b["policies"], &kit.record) {
        ab = ab.policy(p);
    }
    if let Some(t) = b.get("timeoutMs").and_then(Value::as_u64) {
        ab = ab.timeout_ms(t);
    }
    if let Some(c) = b.get("concurrency") {
        ab = ab.concurrency(concurrency(c));
    }
    ab
}

fn handler_binding(b: &Value, id: &str, kit: &Kit) -> ActionBinding {
    let f = behaviour(b, id, kit);
    action_binding(
        ActionBinding::new(execute_fn(move |input, ctx: ActionContext| {
            let c = action_context(&ctx);
            f(input, Some(ctx.signal), c)
        })),
        b,
        kit,
    )
}

/// What `waitFor` settled with: the outcome, or `{"rejected": true, "abortError": true}` when its
/// signal aborted it (the page's promise rejects with an `AbortError`).
trait WaitOutcome {
    fn outcome(self) -> Value;
}

impl WaitOutcome for agent_surface_engine::events::ConfirmationOutcome {
    fn outcome(self) -> Value {
        serde_json::to_value(self).unwrap()
    }
}

impl<E> WaitOutcome for Result<agent_surface_engine::events::ConfirmationOutcome, E> {
    fn outcome(self) -> Value {
        self.map_or_else(|_| json!({ "rejected": true, "abortError": true }), WaitOutcome::outcome)
    }
}

struct AuditRecorder(Shared);

impl agent_surface_engine::audit::AuditSink for AuditRecorder {
    fn record(&self, r: agent_surface_engine::audit::AuditRecord) {
        self.0.lock().unwrap().audit.push(serde_json::to_value(r).unwrap());
    }
}

/// What an `expose` step accepted, with the consumer and `confirm` its calls use (the page's
/// `expose(tools, { consumer, confirm })`).
struct Exposure {
    tools: Arc<ExposedTools>,
    consumer: AgentConsumer,
    confirm: Option<ConfirmFn>,
    _sub: Subscription,
}

/// A described `confirm`: `"approve"`, `"deny"`, `"throws"`, `"never"` (never answers), or
/// `{"approve": bool, "delayMs": n}` (answers after that long); absent: no `confirm`.
fn confirmer(v: Option<&Value>, timer: &ScenarioTimer) -> Option<ConfirmFn> {
    let v = v?.clone();
    let timer = timer.clone();
    Some(Arc::new(move |_id: &str, _input: &Value| -> BoxFuture<bool> {
        match &v {
            Value::String(s) if s == "approve" => Box::pin(async { true }),
            Value::String(s) if s == "deny" => Box::pin(async { false }),
            Value::String(s) if s == "throws" => std::panic::panic_any(THROWN),
            Value::String(s) if s == "never" => Box::pin(futures::future::pending()),
            Value::Object(m) => {
                let approve = m["approve"].as_bool().unwrap();
                let sleep = timer.sleep(m["delayMs"].as_u64().unwrap_or(0));
                Box::pin(async move {
                    sleep.await;
                    approve
                })
            }
            other => panic!("confirm {other}"),
        }
    }))
}

impl Env {
    /// `$pendingN` against an exposure's confirmations (`exposure` given), else [`Env::resolve_refs`].
    fn pending_ref(&self, v: &Value, exposure: Option<&Value>) -> Value {
        let Some(x) = exposure.and_then(Value::as_str) else { return self.resolve_refs(v) };
        match v.as_str().and_then(|s| s.strip_prefix("$pending")).and_then(|n| n.parse::<usize>().ok()) {
            Some(n) => {
                let list = self.exposures[x].tools.confirmations().pending();
                json!(list.get(n).unwrap_or_else(|| panic!("{v}: {} pending", list.len())).confirmation_id)
            }
            None => self.resolve_refs(v),
        }
    }

    fn new(manifest: &Value, options: &Value) -> Env {
        let authority = CapabilityAuthority::new(manifest.clone()).unwrap();
        let clock = ManualClock::new(T0);
        let timer = ScenarioTimer { clock: clock.clone(), queue: Arc::default() };
        let spawned = QueueSpawn::default();
        let record = Shared::default();
        let kit = Kit { record: record.clone(), timer: timer.clone(), cells: Cells::default() };
        let mut o = RegistryOptions::new(authority.clone())
            .environment(environment(options))
            .on_duplicate_instance(on_duplicate_instance(options))
            .duplicate_suffix_policy(duplicate_suffix_policy(options))
            .limits(limits(options))
            .clock(Arc::new(clock))
            .timer(Arc::new(timer.clone()))
            .spawn(Arc::new(spawned.clone()))
            .log({
                let record = record.clone();
                move |r| record.lock().unwrap().logs.push(r.message.clone())
            });
        for p in policies(&options["policies"], &record) {
            o = o.policy(p);
        }
        // `context`: what RegistryOptions.context() returns (handlers and policies see it as `host`).
        if let Some(Value::Object(host)) = options.get("context") {
            let host = host.clone();
            o = o.context(move || host.clone());
        }
        // `route`: what RegistryOptions.route() returns (null: undefined).
        if let Some(r) = options.get("route") {
            let route = (!r.is_null()).then(|| AgentRouteInfo {
                path: r["path"].as_str().unwrap().into(),
                params: r.get("params").and_then(Value::as_object).cloned(),
            });
            o = o.route(move || route.clone());
        }
        // `onRegister`: `{"reject": {"type"?, "origin"?, "instanceId"?}}` rejects the candidates
        // matching every given field; `"throws"`: the guard throws.
        if let Some(g) = options.get("onRegister").cloned() {
            o = o.on_register(move |c| {
                if g == json!("throws") {
                    std::panic::panic_any(THROWN);
                }
                let r = &g["reject"];
                let hit = r.get("type").is_none_or(|t| *t == json!(c.component_type))
                    && r.get("origin").is_none_or(|t| *t == json!(c.origin))
                    && r.get("instanceId").is_none_or(|t| *t == json!(c.instance_id));
                if hit {
                    GuardDecision::Reject
                } else {
                    GuardDecision::Accept
                }
            });
        }
        if options.get("audit") == Some(&json!(true)) {
            o = o.audit(Arc::new(AuditRecorder(record.clone())));
        }
        let registry = AgentSurfaceRegistry::new(o.clone());
        let events: Arc<Mutex<Vec<Value>>> = Arc::default();
        let e = events.clone();
        let sub = registry.subscribe(move |ev| e.lock().unwrap().push(serde_json::to_value(ev).unwrap()));
        let heard: Arc<Mutex<Vec<usize>>> = Arc::default();
        let h = heard.clone();
        let csub = registry.confirmations().subscribe(move |p| h.lock().unwrap().push(p.len()));
        Env {
            authority,
            manifest: manifest.clone(),
            kit,
            spawned,
            pool: LocalPool::new(),
            registry,
            events,
            pending_heard: heard,
            executor: Arc::new(Mutex::new(Value::Null)),
            handles: HashMap::new(),
            results: HashMap::new(),
            cancels: HashMap::new(),
            toolsets: HashMap::new(),
            catalogs: HashMap::new(),
            authorities: HashMap::new(),
            listeners: HashMap::new(),
            tool_listeners: HashMap::new(),
            options: o,
            exposures: HashMap::new(),
            _subs: (sub, csub),
        }
    }

    fn settle(&mut self) {
        loop {
            let tasks = std::mem::take(&mut *self.spawned.0.lock().unwrap());
            let none = tasks.is_empty();
            for t in tasks {
                self.pool.spawner().spawn_local(t).unwrap();
            }
            self.pool.run_until_stalled();
            if none && self.spawned.0.lock().unwrap().is_empty() {
                break;
            }
        }
    }

    /// `"$name.path"` → the value stored under `name` (results, handles), else the string.
    fn resolve_refs(&self, v: &Value) -> Value {
        match v {
            Value::String(s)
                if s.starts_with('$')
                    && s != "$any"
                    && s != "$absent"
                    && !s.starts_with("$matches:")
                    && !s.starts_with("$len:") =>
            {
                let mut parts = s[1..].split('.');
                let name = parts.next().unwrap();
                // `$pendingN`: the id of the N-th pending confirmation (what the page's dialog shows).
                if let Some(n) = name.strip_prefix("pending").and_then(|n| n.parse::<usize>().ok()) {
                    let list = self.registry.confirmations().pending();
                    return json!(list.get(n).unwrap_or_else(|| panic!("{s}: {} pending", list.len())).confirmation_id);
                }
                let mut cur = if let Some(h) = self.handles.get(name) {
                    json!({ "registrationId": h.registration_id() })
                } else {
                    self.results
                        .get(name)
                        .and_then(|r| r.lock().unwrap().clone())
                        .unwrap_or_else(|| panic!("{s}: no result {name}"))
                };
                for p in parts {
                    cur = match &cur {
                        Value::Array(a) => a.get(p.parse::<usize>().unwrap()).cloned(),
                        _ => cur.get(p).cloned(),
                    }
                    .unwrap_or_else(|| panic!("{s}: no {p}"));
                }
                cur
            }
            Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), self.resolve_refs(v))).collect()),
            Value::Array(a) => Value::Array(a.iter().map(|v| self.resolve_refs(v)).collect()),
            other => other.clone(),
        }
    }

    /// Binds a component contract as described and registers it. `authority`: bind the
    /// contract of another (edited) manifest kept by an `authority` step.
    fn register(&mut self, spec: &Value) -> Result<RegistrationHandle, String> {
        let ty = spec["type"].as_str().unwrap();
        let authority = match spec.get("authority").and_then(Value::as_str) {
            Some(a) => self.authorities[a].clone(),
            None => self.authority.clone(),
        };
        let contract = authority.component(ty).map_err(|e| e.to_string())?;
        let declared = match authority.manifest().contracts.iter().find(|c| c.id() == format!("view:{ty}")) {
            Some(ManifestContract::Component(c)) => c.clone(),
            _ => panic!("no component {ty}"),
        };
        let kit = self.kit.clone();
        let mut b = contract.bind();
        if let Some(i) = spec.get("instanceId").and_then(Value::as_str) {
            b = b.instance(i);
        }
        if let Some(e) = spec.get("enabled").and_then(Value::as_bool) {
            b = b.enabled(e);
        }
        if let Some(p) = spec.get("parent") {
            b = b.parent(p["type"].as_str().unwrap(), p.get("instanceId").and_then(Value::as_str).unwrap_or("default"));
        }
        for (k, v) in spec.get("internal").and_then(Value::as_object).into_iter().flatten() {
            b = b.internal(k.clone(), v.clone());
        }
        for p in policies(&spec["policies"], &kit.record) {
            b = b.policy(p);
        }
        // `omit`: names bound with no handler; `extra`: `{observations?, actions?}` names the
        // contract does not declare, bound anyway (both structural defects).
        let listed = |v: &Value| -> Vec<String> {
            v.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
        };
        let omit = listed(&spec["omit"]);
        let kept =
            |names: Vec<&String>| -> Vec<String> { names.into_iter().filter(|n| !omit.contains(n)).cloned().collect() };
        let mut observations = kept(declared.observations.keys().collect());
        observations.extend(listed(&spec["extra"]["observations"]));
        let mut actions = kept(declared.actions.keys().collect());
        actions.extend(listed(&spec["extra"]["actions"]));
        for name in &observations {
            let beh = spec["observations"].get(name).cloned().unwrap_or(json!({}));
            let f = behaviour(&beh, &format!("view:{ty}.{name}"), &kit);
            let mut ob = ObservationBinding::new(read_fn(move |ctx: ReadContext| {
                let c = read_context(&ctx);
                f(Value::Null, None, c)
            }));
            if let Some((w, r)) = when_of(&beh, &kit.cells) {
                ob = ob.when_fallible(move || w(), r);
            }
            for p in policies(&beh["policies"], &kit.record) {
                ob = ob.policy(p);
            }
            if let Some(t) = beh.get("timeoutMs").and_then(Value::as_u64) {
                ob = ob.timeout_ms(t);
            }
            b = b.observation(name.clone(), ob);
        }
        for name in &actions {
            let beh = spec["actions"].get(name).cloned().unwrap_or(json!({}));
            b = b.action(name.clone(), handler_binding(&beh, &format!("view:{ty}.{name}"), &kit));
        }
        for p in spec["procedures"].as_array().into_iter().flatten() {
            let id = p["id"].as_str().unwrap();
            let pc = authority.procedure(id).map_err(|e| e.to_string())?;
            let binding = if p.get("forward") == Some(&json!(true)) {
                action_binding(ActionBinding::forwarded(), p, &kit)
            } else {
                handler_binding(p, id, &kit)
            };
            let mut bound = pc.bind(binding).map_err(|e| e.to_string())?;
            if let Some(text) = p.get("describe").and_then(Value::as_str) {
                let text = text.to_string();
                bound = bound.describe(move || Some(text.clone()));
            }
            b = b.procedure(bound);
        }
        let bound = b.build().map_err(|e| e.to_string())?;
        self.registry.register(bound).map_err(|e| e.to_string())
    }

    fn start(&mut self, name: String, fut: BoxFuture<Value>) -> Slot {
        let slot: Slot = Arc::default();
        let s = slot.clone();
        self.pool
            .spawner()
            .spawn_local(async move {
                *s.lock().unwrap() = Some(fut.await);
            })
            .unwrap();
        self.results.insert(name, slot.clone());
        slot
    }

    fn keep(&mut self, name: Option<String>, v: &Value) {
        if let Some(n) = name {
            self.results.insert(n, Arc::new(Mutex::new(Some(v.clone()))));
        }
    }

    /// `authority` steps: the scenario manifest with `edits`, resealed (`reseal`: true — every
    /// contractHash and the manifestHash recomputed, the default; "contracts" — only the
    /// contract hashes; "manifest" — only the manifestHash; false — none), given to the verifier.
    fn edited_manifest(&self, spec: &Value) -> Value {
        let mut m = self.manifest.clone();
        for e in spec["edits"].as_array().into_iter().flatten() {
            let index = |id: &str, list: &[Value]| list.iter().position(|c| c["id"] == json!(id)).unwrap();
            if let Some(id) = e.get("copyContract").and_then(Value::as_str) {
                let contracts = m["contracts"].as_array_mut().unwrap();
                let i = index(id, contracts);
                let copy = contracts[i].clone();
                contracts.insert(i + 1, copy);
                continue;
            }
            if let Some(id) = e.get("moveContract").and_then(Value::as_str) {
                let contracts = m["contracts"].as_array_mut().unwrap();
                let i = index(id, contracts);
                let c = contracts.remove(i);
                contracts.insert(e["to"].as_u64().unwrap() as usize, c);
                continue;
            }
            let target = match e.get("contract").and_then(Value::as_str) {
                Some(id) => {
                    let contracts = m["contracts"].as_array_mut().unwrap();
                    let i = index(id, contracts);
                    &mut contracts[i]
                }
                None => &mut m,
            };
            let pointer = e["pointer"].as_str().unwrap();
            let (parent, last) = pointer.rsplit_once('/').unwrap();
            let last = last.replace("~1", "/").replace("~0", "~");
            let parent = target.pointer_mut(parent).unwrap_or_else(|| panic!("no {parent}"));
            let remove = e.get("remove") == Some(&json!(true));
            match parent {
                Value::Object(o) if remove => {
                    o.remove(&last);
                }
                Value::Object(o) => {
                    o.insert(last, e["value"].clone());
                }
                Value::Array(a) if remove => {
                    a.remove(last.parse::<usize>().unwrap());
                }
                Value::Array(a) => a[last.parse::<usize>().unwrap()] = e["value"].clone(),
                _ => panic!("{pointer}: not a container"),
            }
        }
        let reseal = spec.get("reseal").cloned().unwrap_or(json!(true));
        if reseal == json!(true) || reseal == json!("contracts") {
            for c in m["contracts"].as_array_mut().into_iter().flatten() {
                c["contractHash"] = json!(contract_hash(c));
            }
        }
        if reseal == json!(true) || reseal == json!("manifest") {
            m["manifestHash"] = json!(manifest_hash(&m));
        }
        m
    }

    fn run(&mut self, step: &Value, at: &str) {
        if let Some(n) = step.get("repeat") {
            for i in 0..n.as_u64().unwrap() as usize {
                for (j, s) in step["steps"].as_array().unwrap().iter().enumerate() {
                    self.run_one(&expand(s, Some(i)), &format!("{at} (iteration {i}, step {})", j + 1));
                }
            }
        } else {
            self.run_one(&expand(step, None), at);
        }
    }

    fn run_one(&mut self, step: &Value, at: &str) {
        let obj = step.as_object().unwrap();
        let expect = obj.get("expect").map(|e| self.resolve_refs(e));
        let check = |actual: &Value| {
            if let Some(e) = &expect {
                if let Some(m) = mismatch(e, Some(actual), "") {
                    panic!("{at}: {m}\n  actual: {actual}");
                }
            }
        };
        // `throws: true`: the call must throw (natively: return an error); else it must not.
        let throws = obj.get("throws") == Some(&json!(true));
        let thrown = |r: Result<(), String>| match r {
            Err(e) if !throws => panic!("{at}: unexpected error: {e}"),
            Ok(()) if throws => panic!("{at}: expected an error"),
            _ => {}
        };
        let name = obj.get("as").and_then(Value::as_str).map(str::to_string);
        if let Some(spec) = obj.get("register") {
            let spec = self.resolve_refs(spec);
            match self.register(&spec) {
                Ok(h) => {
                    thrown(Ok(()));
                    if let Some(n) = name {
                        self.handles.insert(n, Arc::new(h));
                    }
                }
                Err(e) => thrown(Err(e)),
            }
        } else if let Some(spec) = obj.get("registerRaw") {
            // A raw definition (the spec's defineAgentComponent) with the contract's shape.
            let ty = spec["type"].as_str().unwrap();
            let declared = match self.authority.manifest().contracts.iter().find(|c| c.id() == format!("view:{ty}")) {
                Some(ManifestContract::Component(c)) => c.clone(),
                _ => panic!("no component {ty}"),
            };
            let raw = AgentComponentDefinition {
                component_type: ty.into(),
                instance_id: spec.get("instanceId").and_then(Value::as_str).unwrap_or("default").into(),
                description: declared.description.clone(),
                observations: declared.observations.keys().cloned().collect::<BTreeSet<_>>(),
                actions: declared.actions.keys().cloned().collect::<BTreeSet<_>>(),
            };
            thrown(self.registry.register(Registrable::Raw(raw)).map(|_| ()).map_err(|e| e.to_string()));
        } else if let Some(h) = obj.get("handle") {
            let h = &self.handles[h.as_str().unwrap()];
            let status = match h.status() {
                RegistrationStatus::Active => "active",
                RegistrationStatus::Rejected => "rejected",
                RegistrationStatus::Unregistered => "unregistered",
            };
            check(&json!({ "status": status, "registrationId": h.registration_id() }));
        } else if let Some(h) = obj.get("unregister") {
            self.handles[h.as_str().unwrap()].unregister();
        } else if let Some(h) = obj.get("invalidate") {
            self.handles[h.as_str().unwrap()].invalidate();
        } else if let Some(h) = obj.get("update") {
            self.handles[h.as_str().unwrap()].update(patch(&obj["patch"]));
        } else if let Some(v) = obj.get("version") {
            assert_eq!(&json!(self.registry.version()), v, "{at}: version");
        } else if let Some(ctx) = obj.get("snapshot") {
            let v = self.registry.snapshot(&snapshot_context(ctx)).to_json();
            check(&v);
            self.keep(name, &v);
        } else if let Some(ctx) = obj.get("explain") {
            match explain_surface(&self.registry, &snapshot_context(ctx)) {
                Ok(x) => {
                    thrown(Ok(()));
                    let v = serde_json::to_value(x).unwrap();
                    check(&v);
                    self.keep(name, &v);
                }
                Err(e) => thrown(Err(e.to_string())),
            }
        } else if let Some(req) = obj.get("invoke") {
            let request: AgentInvocation = serde_json::from_value(self.resolve_refs(req)).unwrap();
            let o: InvokeOptionsData =
                serde_json::from_value(obj.get("options").cloned().unwrap_or(json!({}))).unwrap();
            let mut options = InvokeOptions { consumer: o.consumer, timeout_ms: o.timeout_ms, signal: None };
            let key = name.clone().unwrap_or_else(|| at.to_string());
            if obj.get("cancellable") == Some(&json!(true)) {
                let c = AbortController::new();
                options.signal = Some(c.signal());
                self.cancels.insert(key.clone(), c);
            }
            let r = self.registry.clone();
            let slot = self.start(
                key,
                Box::pin(async move {
                    match r.invoke(request, options).await {
                        Ok(result) => serde_json::to_value(result).unwrap(),
                        // Programmer misuse (e.g. after dispose): the JavaScript promise rejects.
                        Err(_) => json!({ "rejected": true }),
                    }
                }),
            );
            self.settle();
            if obj.get("pending") != Some(&json!(true)) {
                let v = slot.lock().unwrap().clone().unwrap_or_else(|| panic!("{at}: the invocation did not settle"));
                let rejected = v == json!({ "rejected": true });
                assert_eq!(rejected, obj.get("rejects") == Some(&json!(true)), "{at}: rejected: {v}");
                check(&v);
            }
        } else if let Some(n) = obj.get("await") {
            self.settle();
            let v = self.results[n.as_str().unwrap()].lock().unwrap().clone();
            check(&v.unwrap_or_else(|| panic!("{at}: {n} has not settled")));
        } else if let Some(n) = obj.get("settled") {
            let done = self.results[n.as_str().unwrap()].lock().unwrap().is_some();
            check(&json!(done));
        } else if let Some(n) = obj.get("cancel") {
            self.cancels[n.as_str().unwrap()].abort(AbortReason::Cancelled);
            self.settle();
        } else if let Some(id) = obj.get("resolve") {
            // `exposure`: a pending confirmation of that exposure's tools.
            let id = self.pending_ref(id, obj.get("exposure"));
            let resolution = Resolution {
                approved: obj["approved"].as_bool().unwrap(),
                reason: obj.get("reason").and_then(Value::as_str).map(str::to_string),
            };
            let controller = match obj.get("exposure").and_then(Value::as_str) {
                Some(x) => self.exposures[x].tools.confirmations(),
                None => self.registry.confirmations(),
            };
            let r = controller.resolve_with(id.as_str().unwrap(), resolution);
            assert_eq!(r.is_err(), obj.get("expectError") == Some(&json!(true)), "{at}: resolve {r:?}");
            self.settle();
        } else if let Some(id) = obj.get("waitFor") {
            // `cancellable`: with a signal a `cancel` step aborts.
            let id = self.resolve_refs(id).as_str().unwrap().to_string();
            let c = self.registry.confirmations();
            let key = name.unwrap_or_else(|| at.to_string());
            let signal = (obj.get("cancellable") == Some(&json!(true))).then(|| {
                let controller = AbortController::new();
                self.cancels.insert(key.clone(), controller.clone());
                controller.signal()
            });
            self.start(key, Box::pin(async move { c.wait_for(&id, signal).await.outcome() }));
            self.settle();
        } else if let Some(e) =
            obj.get("pending").filter(|v| v.is_array() || v.as_str().is_some_and(|s| s.starts_with('$')))
        {
            let e = self.resolve_refs(e);
            let pending = match obj.get("exposure").and_then(Value::as_str) {
                Some(x) => self.exposures[x].tools.confirmations().pending(),
                None => self.registry.confirmations().pending(),
            };
            let list = serde_json::to_value(pending).unwrap();
            if let Some(m) = mismatch(&e, Some(&list), "") {
                panic!("{at}: pending {m}\n  actual: {list}");
            }
        } else if let Some(e) = obj.get("pendingHeard") {
            assert_eq!(&json!(*self.pending_heard.lock().unwrap()), e, "{at}: confirmation listeners");
        } else if let Some(ms) = obj.get("advance") {
            let clock = self.kit.timer.clock.clone();
            let end = clock.now_ms() + ms.as_u64().unwrap();
            while self.kit.timer.fire_next(end) {
                self.settle();
            }
            clock.set(end);
            self.settle();
        } else if obj.contains_key("events") || obj.contains_key("eventsMatch") {
            // `events`: the types of the events since the last such step; `eventsMatch`: the
            // events themselves, partially. `ignore` leaves types out.
            let ignore: Vec<&str> = obj
                .get("ignore")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let seen: Vec<Value> = std::mem::take(&mut *self.events.lock().unwrap())
                .into_iter()
                .filter(|e| !ignore.contains(&e["type"].as_str().unwrap()))
                .collect();
            if let Some(e) = obj.get("events") {
                let types: Vec<&Value> = seen.iter().map(|e| &e["type"]).collect();
                assert_eq!(&json!(types), e, "{at}: events");
            } else {
                let e = self.resolve_refs(&obj["eventsMatch"]);
                let seen = Value::Array(seen);
                if let Some(m) = mismatch(&e, Some(&seen), "") {
                    panic!("{at}: events {m}\n  actual: {seen}");
                }
            }
        } else if let Some(e) = obj.get("calls") {
            assert_eq!(&json!(self.kit.record.lock().unwrap().calls), e, "{at}: handler calls");
        } else if let Some(e) = obj.get("callLog") {
            let log = json!(self.kit.record.lock().unwrap().call_log);
            if let Some(m) = mismatch(e, Some(&log), "") {
                panic!("{at}: call log {m}\n  actual: {log}");
            }
        } else if let Some(e) = obj.get("policyCalls") {
            // The `authorize` and `invoke` calls since the last such step.
            let e = self.resolve_refs(e);
            let calls = Value::Array(std::mem::take(&mut self.kit.record.lock().unwrap().policy_calls));
            if let Some(m) = mismatch(&e, Some(&calls), "") {
                panic!("{at}: policy calls {m}\n  actual: {calls}");
            }
        } else if let Some(e) = obj.get("audit") {
            let e = self.resolve_refs(e);
            let records = json!(self.kit.record.lock().unwrap().audit);
            if let Some(m) = mismatch(&e, Some(&records), "") {
                panic!("{at}: audit {m}\n  actual: {records}");
            }
        } else if let Some(re) = obj.get("logged") {
            // How many of the registry's log lines so far match the (ECMAScript, `u`) pattern.
            let re = regress::Regex::with_flags(re.as_str().unwrap(), "u").expect("a valid pattern");
            let n = self.kit.record.lock().unwrap().logs.iter().filter(|m| re.find(m).is_some()).count();
            check(&json!(n));
        } else if let Some(x) = obj.get("auditRecords") {
            // The default audit sink's records, read through the registry (`auditRecords()`), or
            // through an exposure (`"auditRecords": name`).
            let records = match x.as_str() {
                Some(x) => self.exposures[x].tools.audit_records(),
                None => self.registry.audit_records(),
            };
            let records = serde_json::to_value(records).unwrap();
            check(&records);
        } else if let Some(e) = obj.get("aborted") {
            assert_eq!(&json!(self.kit.record.lock().unwrap().aborted), e, "{at}: aborted handlers");
        } else if let Some(e) = obj.get("executorCalls") {
            let calls = json!(self.kit.record.lock().unwrap().executor_calls);
            if let Some(m) = mismatch(e, Some(&calls), "") {
                panic!("{at}: executor calls {m}");
            }
        } else if let Some(v) = obj.get("executor") {
            // A described handler (`returns`, `throws`, `delayMs`, `waitsForAbort`, `echo`), or
            // null to uninstall it.
            *self.executor.lock().unwrap() = v.clone();
            let ex: Option<Arc<dyn AgentProcedureExecutor>> = (!v.is_null()).then(|| {
                Arc::new(Executor(self.executor.clone(), self.kit.clone())) as Arc<dyn AgentProcedureExecutor>
            });
            self.registry.set_procedure_executor(ex);
        } else if let Some(cells) = obj.get("set") {
            for (k, v) in cells.as_object().unwrap() {
                self.kit.cells.lock().unwrap().insert(k.clone(), v.as_bool().unwrap());
            }
        } else if let Some(o) = obj.get("toolset") {
            match create_agent_toolset(&self.registry, toolset_options(o)) {
                Ok(t) => {
                    thrown(Ok(()));
                    self.toolsets.insert(name.unwrap(), t);
                }
                Err(e) => thrown(Err(e.to_string())),
            }
        } else if let Some(t) = obj.get("tools") {
            let tools = self.toolsets[t.as_str().unwrap()].tools();
            let v = serde_json::to_value(&tools).unwrap();
            check(&v);
            self.keep(name.clone(), &v);
            if let Some(n) = name {
                self.catalogs.insert(n, tools);
            }
        } else if let Some(t) = obj.get("wireNameMap") {
            check(&json!(self.toolsets[t.as_str().unwrap()].wire_name_map()));
        } else if let Some(t) = obj.get("toolBlock") {
            let provider = match obj["provider"].as_str().unwrap() {
                "openai" => Provider::OpenAi,
                "anthropic" => Provider::Anthropic,
                "gemini" => Provider::Gemini,
                "mcp" => Provider::Mcp,
                other => panic!("provider {other}"),
            };
            match tool_block(&self.toolsets[t.as_str().unwrap()].tools(), provider) {
                Ok(block) => {
                    thrown(Ok(()));
                    check(&json!(block));
                }
                Err(e) => thrown(Err(e.to_string())),
            }
        } else if let Some(t) = obj.get("toolsetListen") {
            let heard: Arc<Mutex<Vec<usize>>> = Arc::default();
            let h = heard.clone();
            self.toolsets[t.as_str().unwrap()].subscribe(move |tools| h.lock().unwrap().push(tools.len()));
            self.tool_listeners.insert(name.unwrap(), heard);
        } else if let Some(n) = obj.get("heardTools") {
            let heard = json!(*self.tool_listeners[n.as_str().unwrap()].lock().unwrap());
            check(&heard);
        } else if let Some(t) = obj.get("disposeToolset") {
            self.toolsets[t.as_str().unwrap()].dispose();
        } else if let Some(t) = obj.get("tool") {
            let toolset = self.toolsets[t.as_str().unwrap()].clone();
            let tool_name = obj["name"].as_str().unwrap().to_string();
            // A tool of a kept catalog (`catalog`) executes as it was in that catalog.
            let tools = match obj.get("catalog").and_then(Value::as_str) {
                Some(c) => self.catalogs[c].clone(),
                None => toolset.tools(),
            };
            let tool =
                tools.into_iter().find(|x| x.name == tool_name).unwrap_or_else(|| panic!("{at}: no tool {tool_name}"));
            let input = self.resolve_refs(&obj.get("input").cloned().unwrap_or(json!({})));
            let key = name.unwrap_or_else(|| at.to_string());
            let mut call =
                ToolCall { id: obj.get("toolCallId").and_then(Value::as_str).map(str::to_string), signal: None };
            if obj.get("cancellable") == Some(&json!(true)) {
                let c = AbortController::new();
                call.signal = Some(c.signal());
                self.cancels.insert(key.clone(), c);
            }
            let slot = self.start(
                key,
                Box::pin(async move { serde_json::to_value(toolset.execute_tool(&tool, input, call).await).unwrap() }),
            );
            self.settle();
            if obj.get("pending") != Some(&json!(true)) {
                check(&slot.lock().unwrap().clone().unwrap_or_else(|| panic!("{at}: the tool call did not settle")));
            }
        } else if let Some(spec) = obj.get("listen") {
            // Another registry listener: records event types; `{"throws": true}` panics on each;
            // `{"on": type, "unregister" | "invalidate": handle}` makes that call (a re-entrant
            // mutation) the first time it hears an event of that type.
            let heard: Arc<Mutex<Vec<String>>> = Arc::default();
            let h = heard.clone();
            let throws = spec.get("throws") == Some(&json!(true));
            let on = spec.get("on").and_then(Value::as_str).map(str::to_string);
            let mutation = ["unregister", "invalidate"].into_iter().find_map(|m| {
                let handle = spec.get(m)?.as_str()?;
                Some((m, self.handles[handle].clone()))
            });
            let fired = Arc::new(Mutex::new(false));
            let sub = self.registry.subscribe(move |e| {
                let ty = serde_json::to_value(e).unwrap()["type"].as_str().unwrap().to_string();
                h.lock().unwrap().push(ty.clone());
                if let (Some(on), Some((m, handle))) = (&on, &mutation) {
                    if *on == ty && !std::mem::replace(&mut *fired.lock().unwrap(), true) {
                        if *m == "unregister" {
                            handle.unregister();
                        } else {
                            handle.invalidate();
                        }
                    }
                }
                if throws {
                    std::panic::panic_any(THROWN);
                }
            });
            self.listeners.insert(name.unwrap(), (heard, Some(sub)));
        } else if let Some(n) = obj.get("unlisten") {
            if let Some(sub) = self.listeners.get_mut(n.as_str().unwrap()).unwrap().1.take() {
                sub.unsubscribe();
            }
        } else if let Some(n) = obj.get("heard") {
            let heard = json!(*self.listeners[n.as_str().unwrap()].0.lock().unwrap());
            check(&heard);
        } else if let Some(spec) = obj.get("authority") {
            let m = self.edited_manifest(spec);
            match CapabilityAuthority::new(m) {
                Ok(a) => {
                    check(&json!({ "ok": true }));
                    if let Some(n) = name {
                        self.authorities.insert(n, a);
                    }
                }
                Err(e) => check(&json!({ "ok": false, "kind": e.kind() })),
            }
        } else if let Some(spec) = obj.get("expose") {
            // An exposure gateway with the registry's options: `tools` are described handlers
            // bound to external tool contracts (`id`, `describe`, and the settings of any handler);
            // `confirm` and `consumer` are what its calls use.
            let kit = self.kit.clone();
            let mut bound = Vec::new();
            for t in spec["tools"].as_array().unwrap() {
                let id = t["id"].as_str().unwrap();
                let contract = self.authority.external_tool(id).unwrap();
                let mut b = contract.bind(handler_binding(t, id, &kit)).unwrap();
                if let Some(text) = t.get("describe").and_then(Value::as_str) {
                    let text = text.to_string();
                    b = b.describe(move || Some(text.clone()));
                }
                bound.push(b.into());
            }
            match ExposureGateway::with_options(self.options.clone()).expose(bound) {
                Ok(tools) => {
                    thrown(Ok(()));
                    let e = self.events.clone();
                    let sub = tools.subscribe(move |ev| e.lock().unwrap().push(serde_json::to_value(ev).unwrap()));
                    let consumer = spec
                        .get("consumer")
                        .map(|c| serde_json::from_value(c.clone()).unwrap())
                        .unwrap_or_else(AgentConsumer::anonymous);
                    let confirm = confirmer(spec.get("confirm"), &kit.timer);
                    let x = Exposure { tools: Arc::new(tools), consumer, confirm, _sub: sub };
                    self.exposures.insert(name.unwrap(), x);
                }
                Err(e) => thrown(Err(e.to_string())),
            }
        } else if let Some(x) = obj.get("gatewayTools") {
            let x = &self.exposures[x.as_str().unwrap()];
            check(&serde_json::to_value(x.tools.tools_for(&x.consumer)).unwrap());
        } else if let Some(x) = obj.get("gatewayTool") {
            // A call of an exposed tool (+ `name`, `input`, `toolCallId`, `cancellable`, `pending`).
            let x = &self.exposures[x.as_str().unwrap()];
            let (tools, tool_name) = (x.tools.clone(), obj["name"].as_str().unwrap().to_string());
            let input = self.resolve_refs(&obj.get("input").cloned().unwrap_or(json!({})));
            let key = name.unwrap_or_else(|| at.to_string());
            let mut call = GatewayCall {
                id: obj.get("toolCallId").and_then(Value::as_str).map(str::to_string),
                consumer: x.consumer.clone(),
                confirm: x.confirm.clone(),
                ..Default::default()
            };
            if obj.get("cancellable") == Some(&json!(true)) {
                let c = AbortController::new();
                call.signal = Some(c.signal());
                self.cancels.insert(key.clone(), c);
            }
            let slot = self.start(
                key,
                Box::pin(
                    async move { serde_json::to_value(tools.execute_call(&tool_name, input, call).await).unwrap() },
                ),
            );
            self.settle();
            if obj.get("pending") != Some(&json!(true)) {
                check(&slot.lock().unwrap().clone().unwrap_or_else(|| panic!("{at}: the tool call did not settle")));
            }
        } else if let Some(n) = obj.get("notContains") {
            let v = self.results[n["result"].as_str().unwrap()].lock().unwrap().clone().unwrap();
            assert!(!v.to_string().contains(n["text"].as_str().unwrap()), "{at}: {v}");
        } else if obj.contains_key("dispose") {
            self.registry.dispose();
            self.settle();
        } else {
            panic!("{at}: unknown step {step}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The spec's option shapes as data (what the JavaScript API takes as objects)

/// `environment`: "production" (the default), "development" or "test".
fn environment(options: &Value) -> Environment {
    match options.get("environment").and_then(Value::as_str) {
        None | Some("production") => Environment::Production,
        Some("development") => Environment::Development,
        Some("test") => Environment::Test,
        Some(other) => panic!("environment {other}"),
    }
}

/// `onDuplicateInstance`: "reject" (the default) or "replace".
fn on_duplicate_instance(options: &Value) -> DuplicateInstance {
    match options.get("onDuplicateInstance").and_then(Value::as_str) {
        None | Some("reject") => DuplicateInstance::Reject,
        Some("replace") => DuplicateInstance::Replace,
        Some(other) => panic!("onDuplicateInstance {other}"),
    }
}

/// `duplicateSuffixPolicy`: "warn" (the default), "off" or "error".
fn duplicate_suffix_policy(options: &Value) -> DuplicateSuffixPolicy {
    match options.get("duplicateSuffixPolicy").and_then(Value::as_str) {
        None | Some("warn") => DuplicateSuffixPolicy::Warn,
        Some("off") => DuplicateSuffixPolicy::Off,
        Some("error") => DuplicateSuffixPolicy::Error,
        Some(other) => panic!("duplicateSuffixPolicy {other}"),
    }
}

/// `limits`: a partial `AgentSurfaceLimits` over the defaults.
fn limits(options: &Value) -> AgentSurfaceLimits {
    match options.get("limits") {
        None | Some(Value::Null) => AgentSurfaceLimits::default(),
        Some(v) => serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("limits: {e}")),
    }
}

/// `SnapshotContext` (every field optional; unavailable capabilities are included by default).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct SnapshotContextData {
    consumer: Option<AgentConsumer>,
    scope: Option<Vec<String>>,
    include_unavailable: Option<bool>,
    budget: Option<SnapshotBudget>,
}

fn snapshot_context(v: &Value) -> SnapshotContext {
    let w: SnapshotContextData = serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("snapshot context: {e}"));
    SnapshotContext {
        consumer: w.consumer.unwrap_or_else(AgentConsumer::anonymous),
        scope: w.scope,
        include_unavailable: w.include_unavailable.unwrap_or(true),
        budget: w.budget,
    }
}

/// `InvokeOptions` without the signal (`cancellable` gives the step one).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct InvokeOptionsData {
    consumer: Option<AgentConsumer>,
    timeout_ms: Option<u64>,
}

#[derive(Deserialize)]
struct OverrideData {
    available: bool,
    reason: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct PatchData {
    enabled: Option<bool>,
    availability: Option<BTreeMap<String, OverrideData>>,
}

/// `handle.update({ enabled?, availability? })`, availability keyed by capability name.
fn patch(v: &Value) -> RegistrationPatch {
    let w: PatchData = serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("update: {e}"));
    RegistrationPatch {
        enabled: w.enabled,
        availability: w.availability.map(|m| {
            m.into_iter().map(|(k, o)| (k, AvailabilityOverride { available: o.available, reason: o.reason })).collect()
        }),
    }
}

fn toolset_options(o: &Value) -> AgentToolsetOptions {
    let consumer: AgentConsumer = serde_json::from_value(o["consumer"].clone()).unwrap();
    AgentToolsetOptions {
        consumer,
        mode: if o.get("mode") == Some(&json!("meta")) { ToolsetMode::Meta } else { ToolsetMode::Direct },
        topology: match o.get("topology").and_then(Value::as_str) {
            Some("embedded") => Some(Topology::Embedded),
            Some("remote") => Some(Topology::Remote),
            _ => None,
        },
        confirmations: match o.get("confirmations").and_then(Value::as_str) {
            Some("wait") => Some(ConfirmationMode::Wait),
            Some("two-phase") => Some(ConfirmationMode::TwoPhase),
            _ => None,
        },
        scope: o.get("scope").and_then(|s| serde_json::from_value(s.clone()).ok()),
        budget: o.get("budget").map(|b| serde_json::from_value(b.clone()).unwrap()),
        names: match o.get("names").and_then(Value::as_str) {
            None | Some("prefixed") => ToolNames::Prefixed,
            Some("unprefixed") => ToolNames::Unprefixed,
            Some(other) => panic!("a scenario's toolset names {other:?} (the typed option has no such value)"),
        },
    }
}

#[test]
fn every_scenario_gives_the_outcomes_it_describes() {
    quiet_described_panics();
    let text = std::fs::read_to_string(repo("conformance/scenarios/manifest.json")).unwrap();
    let manifest: Value = serde_json::from_str(&text).unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo("conformance/scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        // manifest.locations.json: the sidecar `agent-surface compile` writes beside the
        // manifest (not committed).
        .filter(|p| {
            p.extension().is_some_and(|e| e == "json")
                && !p.ends_with("manifest.json")
                && !p.ends_with("manifest.locations.json")
        })
        .collect();
    files.sort();
    // SCENARIO=<text>: only the scenarios whose file or name contains it (while writing one).
    let only = std::env::var("SCENARIO").ok();
    let (mut count, mut failed) = (0, Vec::new());
    for file in &files {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let fname = file.file_name().unwrap().to_string_lossy().to_string();
        for s in doc["scenarios"].as_array().unwrap() {
            let sname = s["name"].as_str().unwrap();
            if only.as_ref().is_some_and(|o| !fname.contains(o.as_str()) && !sname.contains(o.as_str())) {
                continue;
            }
            count += 1;
            // Every scenario runs; the failures (each printed where it panicked) are listed last.
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut env = Env::new(&manifest, s.get("options").unwrap_or(&Value::Object(Map::new())));
                for (i, step) in s["steps"].as_array().unwrap().iter().enumerate() {
                    env.run(step, &format!("{fname} \"{sname}\" step {}", i + 1));
                }
                env.registry.dispose();
            }));
            if outcome.is_err() {
                failed.push(format!("{fname} \"{sname}\""));
            }
        }
    }
    println!("{} of {count} scenarios passed", count - failed.len());
    assert!(failed.is_empty(), "{} scenarios failed:\n  {}", failed.len(), failed.join("\n  "));
    assert!(only.is_some() || count >= 20, "only {count} scenarios ran");
}
