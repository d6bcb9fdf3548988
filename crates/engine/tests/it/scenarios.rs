//! The engine's behavioural scenarios (conformance/scenarios/*.json), natively: the same files
//! run through the JavaScript API of the page's runtime (packages/core/test/scenarios/runner.js,
//! in Node and in headless Chromium) and must give the same outcomes. docs/architecture.md says
//! how to add one.
//!
//! Time is a manual clock and timer; invocations and the registry's background tasks run on a
//! single-threaded pool that is driven until stalled after every step. Handlers are described
//! by data (`returns`, `throws`, `echo`, `delayMs`, `waitsForAbort`, `precondition`, `when`).

use agent_surface_engine::authority::CapabilityAuthority;
use agent_surface_engine::binding::{
    execute_fn, precondition_fn, read_fn, ActionBinding, HandlerError, HandlerResult, ObservationBinding,
    PreconditionFailure, UnavailableReason,
};
use agent_surface_engine::confirm::Resolution;
use agent_surface_engine::consumer::AgentConsumer;
use agent_surface_engine::explain::explain_surface;
use agent_surface_engine::expose::toolset::{ConfirmationMode, ToolCall, ToolsetMode, Topology};
use agent_surface_engine::host::clock::ManualClock;
use agent_surface_engine::host::timer::{ManualTimer, Timer};
use agent_surface_engine::host::{BoxFuture, Spawn};
use agent_surface_engine::invoke::{AgentInvocation, InvokeOptions};
use agent_surface_engine::policy::{
    AgentPolicy, DiscoveryContext, DiscoveryDecision, Policy, PolicyContext, PolicyDecision, PolicyPhase,
};
use agent_surface_engine::procedure::{AgentProcedureExecutor, ProcedureCall};
use agent_surface_engine::registry::{
    AgentSurfaceRegistry, AvailabilityOverride, DuplicateInstance, Environment, RegistrationHandle, RegistrationPatch,
    RegistrationStatus, RegistryOptions,
};
use agent_surface_engine::signal::{AbortController, AbortReason};
use agent_surface_engine::snapshot::{SnapshotBudget, SnapshotContext};
use agent_surface_engine::toolset::{create_agent_toolset, AgentToolset, AgentToolsetOptions};
use agent_surface_model::limits::AgentSurfaceLimits;
use agent_surface_model::manifest::ManifestContract;
use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// The clock's start: 2026-01-01T00:00:00Z (the scenarios' timestamps assume it).
const T0: u64 = 1_767_225_600_000;

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel)
}

// ---------------------------------------------------------------------------------------------
// Matching

/// `expected` is a partial description of `actual`: objects list the keys that must match
/// (`"$absent"`: the key must be missing), arrays match element-wise with equal length, `"$any"`
/// matches any present value. Returns the path of the first mismatch.
fn mismatch(expected: &Value, actual: Option<&Value>, path: &str) -> Option<String> {
    match (expected, actual) {
        (Value::String(s), a) if s == "$absent" => a.map(|a| format!("{path}: expected absent, got {a}")),
        (_, None) => Some(format!("{path}: missing, expected {expected}")),
        (Value::String(s), Some(_)) if s == "$any" => None,
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

// ---------------------------------------------------------------------------------------------
// The environment

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
    executor_calls: Vec<Value>,
}

type Shared = Arc<Mutex<Record>>;
type Slot = Arc<Mutex<Option<Value>>>;

struct Env {
    authority: CapabilityAuthority,
    timer: ManualTimer,
    spawned: QueueSpawn,
    pool: LocalPool,
    registry: AgentSurfaceRegistry,
    record: Shared,
    events: Arc<Mutex<Vec<String>>>,
    pending_heard: Arc<Mutex<Vec<usize>>>,
    executor: Arc<Mutex<Option<Value>>>,
    handles: HashMap<String, RegistrationHandle>,
    results: HashMap<String, Slot>,
    cancels: HashMap<String, AbortController>,
    toolsets: HashMap<String, AgentToolset>,
    catalogs: HashMap<String, Vec<agent_surface_engine::toolset::AgentTool>>,
    _subs: (agent_surface_engine::registry::Subscription, agent_surface_engine::confirm::ConfirmationSubscription),
}

struct Executor(Arc<Mutex<Option<Value>>>, Shared);

impl AgentProcedureExecutor for Executor {
    fn execute(&self, call: ProcedureCall) -> BoxFuture<HandlerResult> {
        self.1.lock().unwrap().executor_calls.push(json!({ "procedureId": call.procedure_id, "input": call.input }));
        let v = self.0.lock().unwrap().clone();
        Box::pin(async move { v.ok_or_else(|| HandlerError::Failed("no executor".into())) })
    }
}

struct ScenarioPolicy {
    name: String,
    phases: Vec<PolicyPhase>,
    spec: Value,
}

impl ScenarioPolicy {
    /// `"capabilityPrefix"`: the policy votes only on capabilities whose id starts with it.
    fn applies(&self, capability_id: &str) -> bool {
        self.spec.get("capabilityPrefix").and_then(Value::as_str).is_none_or(|p| capability_id.starts_with(p))
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
        if !self.applies(&ctx.capability_id) {
            return DiscoveryDecision::Expose;
        }
        match &self.spec["discovery"] {
            Value::String(s) if s == "hide" => DiscoveryDecision::Hide,
            Value::Object(m) => DiscoveryDecision::Disable(m["disable"].as_str().unwrap_or_default().into()),
            _ => DiscoveryDecision::Expose,
        }
    }
    fn authorize(&self, ctx: PolicyContext) -> BoxFuture<PolicyDecision> {
        let d =
            if self.applies(&ctx.capability_id) { decision(&self.spec["authorize"]) } else { PolicyDecision::Allow };
        Box::pin(async move { d })
    }
    fn invoke(&self, ctx: PolicyContext) -> BoxFuture<PolicyDecision> {
        let d = if self.applies(&ctx.capability_id) { decision(&self.spec["invoke"]) } else { PolicyDecision::Allow };
        Box::pin(async move { d })
    }
}

fn decision(v: &Value) -> PolicyDecision {
    match v {
        Value::String(s) if s == "require-confirmation" => PolicyDecision::RequireConfirmation,
        Value::Object(m) => PolicyDecision::Deny(m["deny"].as_str().unwrap_or_default().into()),
        _ => PolicyDecision::Allow,
    }
}

fn policies(v: &Value) -> Vec<Policy> {
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
            Arc::new(ScenarioPolicy { name: p["name"].as_str().unwrap().into(), phases, spec: p.clone() }) as Policy
        })
        .collect()
}

/// A handler described by data.
fn behaviour(
    b: &Value,
    id: &str,
    record: &Shared,
    timer: &ManualTimer,
) -> impl Fn(Value, Option<agent_surface_engine::signal::AbortSignal>) -> BoxFuture<HandlerResult> + Send + Sync + 'static
{
    let (b, id, record, timer) = (b.clone(), id.to_string(), record.clone(), timer.clone());
    move |input: Value, signal| {
        *record.lock().unwrap().calls.entry(id.clone()).or_default() += 1;
        let (b, id, record, timer) = (b.clone(), id.clone(), record.clone(), timer.clone());
        Box::pin(async move {
            if let Some(ms) = b.get("delayMs").and_then(Value::as_u64) {
                timer.sleep(ms).await;
            }
            if b.get("waitsForAbort") == Some(&json!(true)) {
                // Settles late (a second after the abort): the invocation has settled by then
                // (TIMEOUT, CANCELLED, COMPONENT_UNMOUNTED) and the engine logs the late value.
                if let Some(s) = signal {
                    s.aborted().await;
                    *record.lock().unwrap().aborted.entry(id).or_default() += 1;
                    timer.sleep(1000).await;
                }
                return Ok(Value::Null);
            }
            if let Some(m) = b.get("throws").and_then(Value::as_str) {
                return Err(HandlerError::Failed(m.into()));
            }
            if b.get("echo") == Some(&json!(true)) {
                return Ok(input);
            }
            Ok(b.get("returns").cloned().unwrap_or(Value::Null))
        })
    }
}

/// A described `when` and its reason.
type When = (Arc<dyn Fn() -> Option<bool> + Send + Sync>, Option<UnavailableReason>);

fn when_of(b: &Value) -> Option<When> {
    let w = b.get("when")?;
    let answer = match w {
        Value::Bool(x) => Some(*x),
        _ => None, // "throws"
    };
    let reason = b.get("unavailableReason").and_then(Value::as_str).map(UnavailableReason::from);
    Some((Arc::new(move || answer), reason))
}

fn action_binding(b: &Value, id: &str, record: &Shared, timer: &ManualTimer) -> ActionBinding {
    let f = behaviour(b, id, record, timer);
    let mut ab = ActionBinding::new(execute_fn(move |input, ctx| f(input, Some(ctx.signal))));
    if let Some((w, r)) = when_of(b) {
        ab = ab.when_fallible(move || w(), r);
    }
    if let Some(p) = b.get("precondition") {
        let failure = PreconditionFailure {
            message: p["message"].as_str().unwrap_or_default().into(),
            details: p.get("details").and_then(Value::as_object).cloned(),
        };
        ab = ab.precondition(precondition_fn(move |_, _| Err(failure.clone())));
    }
    for p in policies(&b["policies"]) {
        ab = ab.policy(p);
    }
    if let Some(t) = b.get("timeoutMs").and_then(Value::as_u64) {
        ab = ab.timeout_ms(t);
    }
    ab
}

impl Env {
    fn new(manifest: &str, options: &Value) -> Env {
        let authority = CapabilityAuthority::from_json_str(manifest).unwrap();
        let clock = ManualClock::new(T0);
        let timer = ManualTimer::new(clock.clone());
        let spawned = QueueSpawn::default();
        let mut o = RegistryOptions::new(authority.clone())
            .environment(environment(options))
            .on_duplicate_instance(on_duplicate_instance(options))
            .limits(limits(options))
            .clock(Arc::new(clock))
            .timer(Arc::new(timer.clone()))
            .spawn(Arc::new(spawned.clone()))
            .log(|_| {});
        for p in policies(&options["policies"]) {
            o = o.policy(p);
        }
        let registry = AgentSurfaceRegistry::new(o);
        let events: Arc<Mutex<Vec<String>>> = Arc::default();
        let e = events.clone();
        let sub = registry.subscribe(move |ev| {
            let v = serde_json::to_value(ev).unwrap();
            e.lock().unwrap().push(v["type"].as_str().unwrap().to_string());
        });
        let heard: Arc<Mutex<Vec<usize>>> = Arc::default();
        let h = heard.clone();
        let csub = registry.confirmations().subscribe(move |p| h.lock().unwrap().push(p.len()));
        let record = Shared::default();
        let executor: Arc<Mutex<Option<Value>>> = Arc::default();
        Env {
            authority,
            timer,
            spawned,
            pool: LocalPool::new(),
            registry,
            record,
            events,
            pending_heard: heard,
            executor,
            handles: HashMap::new(),
            results: HashMap::new(),
            cancels: HashMap::new(),
            toolsets: HashMap::new(),
            catalogs: HashMap::new(),
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
            Value::String(s) if s.starts_with('$') && s != "$any" && s != "$absent" => {
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
                    cur = cur.get(p).cloned().unwrap_or_else(|| panic!("{s}: no {p}"));
                }
                cur
            }
            Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), self.resolve_refs(v))).collect()),
            Value::Array(a) => Value::Array(a.iter().map(|v| self.resolve_refs(v)).collect()),
            other => other.clone(),
        }
    }

    fn register(&mut self, spec: &Value) -> RegistrationHandle {
        let ty = spec["type"].as_str().unwrap();
        let contract = self.authority.component(ty).unwrap();
        let declared = match self.authority.manifest().contracts.iter().find(|c| c.id() == format!("view:{ty}")) {
            Some(ManifestContract::Component(c)) => c.clone(),
            _ => panic!("no component {ty}"),
        };
        let mut b = contract.bind();
        if let Some(i) = spec.get("instanceId").and_then(Value::as_str) {
            b = b.instance(i);
        }
        if let Some(e) = spec.get("enabled").and_then(Value::as_bool) {
            b = b.enabled(e);
        }
        for p in policies(&spec["policies"]) {
            b = b.policy(p);
        }
        for name in declared.observations.keys() {
            let beh = spec["observations"].get(name).cloned().unwrap_or(json!({}));
            let id = format!("view:{ty}.{name}");
            let f = behaviour(&beh, &id, &self.record, &self.timer);
            let mut ob = ObservationBinding::new(read_fn(move |_ctx| f(Value::Null, None)));
            if let Some((w, r)) = when_of(&beh) {
                ob = ob.when_fallible(move || w(), r);
            }
            for p in policies(&beh["policies"]) {
                ob = ob.policy(p);
            }
            b = b.observation(name.clone(), ob);
        }
        for name in declared.actions.keys() {
            let beh = spec["actions"].get(name).cloned().unwrap_or(json!({}));
            b = b.action(name.clone(), action_binding(&beh, &format!("view:{ty}.{name}"), &self.record, &self.timer));
        }
        for p in spec["procedures"].as_array().into_iter().flatten() {
            let id = p["id"].as_str().unwrap();
            let pc = self.authority.procedure(id).unwrap();
            let bound = if p.get("forward") == Some(&json!(true)) {
                pc.forward().unwrap()
            } else {
                pc.bind(action_binding(p, id, &self.record, &self.timer)).unwrap()
            };
            b = b.procedure(bound);
        }
        self.registry.register(b.build().unwrap()).unwrap()
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

    fn run(&mut self, step: &Value, at: &str) {
        let obj = step.as_object().unwrap();
        let expect = obj.get("expect").map(|e| self.resolve_refs(e));
        let check = |actual: &Value| {
            if let Some(e) = &expect {
                if let Some(m) = mismatch(e, Some(actual), "") {
                    panic!("{at}: {m}\n  actual: {actual}");
                }
            }
        };
        let name = obj.get("as").and_then(Value::as_str).map(str::to_string);
        if let Some(spec) = obj.get("register") {
            let h = self.register(spec);
            if let Some(n) = name {
                self.handles.insert(n, h);
            }
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
            let patch = patch(&obj["patch"]);
            self.handles[h.as_str().unwrap()].update(patch);
        } else if let Some(v) = obj.get("version") {
            assert_eq!(&json!(self.registry.version()), v, "{at}: version");
        } else if let Some(ctx) = obj.get("snapshot") {
            let ctx = snapshot_context(ctx);
            check(&self.registry.snapshot(&ctx).to_json());
        } else if let Some(ctx) = obj.get("explain") {
            let ctx = snapshot_context(ctx);
            check(&serde_json::to_value(explain_surface(&self.registry, &ctx).unwrap()).unwrap());
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
                Box::pin(async move { serde_json::to_value(r.invoke(request, options).await.unwrap()).unwrap() }),
            );
            self.settle();
            if obj.get("pending") != Some(&json!(true)) {
                let v = slot.lock().unwrap().clone().unwrap_or_else(|| panic!("{at}: the invocation did not settle"));
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
        } else if let Some(id) = obj.get("resolve") {
            let id = self.resolve_refs(id);
            let resolution = Resolution {
                approved: obj["approved"].as_bool().unwrap(),
                reason: obj.get("reason").and_then(Value::as_str).map(str::to_string),
            };
            let r = self.registry.confirmations().resolve_with(id.as_str().unwrap(), resolution);
            assert_eq!(r.is_err(), obj.get("expectError") == Some(&json!(true)), "{at}: resolve {r:?}");
        } else if let Some(e) = obj.get("pending").filter(|v| v.is_array()) {
            let list = serde_json::to_value(self.registry.confirmations().pending()).unwrap();
            if let Some(m) = mismatch(e, Some(&list), "") {
                panic!("{at}: pending {m}\n  actual: {list}");
            }
        } else if let Some(e) = obj.get("pendingHeard") {
            assert_eq!(&json!(*self.pending_heard.lock().unwrap()), e, "{at}: confirmation listeners");
        } else if let Some(ms) = obj.get("advance") {
            self.timer.advance(ms.as_u64().unwrap());
            self.settle();
        } else if let Some(e) = obj.get("events") {
            let ignore: Vec<&str> = obj
                .get("ignore")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let seen: Vec<String> = std::mem::take(&mut *self.events.lock().unwrap())
                .into_iter()
                .filter(|t| !ignore.contains(&t.as_str()))
                .collect();
            assert_eq!(&json!(seen), e, "{at}: events");
        } else if let Some(e) = obj.get("calls") {
            assert_eq!(&json!(self.record.lock().unwrap().calls), e, "{at}: handler calls");
        } else if let Some(e) = obj.get("aborted") {
            assert_eq!(&json!(self.record.lock().unwrap().aborted), e, "{at}: aborted handlers");
        } else if let Some(e) = obj.get("executorCalls") {
            let calls = json!(self.record.lock().unwrap().executor_calls);
            if let Some(m) = mismatch(e, Some(&calls), "") {
                panic!("{at}: executor calls {m}");
            }
        } else if let Some(v) = obj.get("executor") {
            *self.executor.lock().unwrap() = v.get("returns").cloned();
            let ex: Option<Arc<dyn AgentProcedureExecutor>> = (!v.is_null()).then(|| {
                Arc::new(Executor(self.executor.clone(), self.record.clone())) as Arc<dyn AgentProcedureExecutor>
            });
            self.registry.set_procedure_executor(ex);
        } else if let Some(o) = obj.get("toolset") {
            let options = toolset_options(o);
            self.toolsets.insert(name.unwrap(), create_agent_toolset(&self.registry, options).unwrap());
        } else if let Some(t) = obj.get("tools") {
            let tools = self.toolsets[t.as_str().unwrap()].tools();
            check(&serde_json::to_value(&tools).unwrap());
            if let Some(n) = name {
                self.catalogs.insert(n, tools);
            }
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
            let input = obj.get("input").cloned().unwrap_or(json!({}));
            let call = ToolCall { id: obj.get("toolCallId").and_then(Value::as_str).map(str::to_string), signal: None };
            let key = name.unwrap_or_else(|| at.to_string());
            let slot = self.start(
                key,
                Box::pin(async move { serde_json::to_value(toolset.execute_tool(&tool, input, call).await).unwrap() }),
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
        budget: None,
    }
}

#[test]
fn every_scenario_gives_the_outcomes_it_describes() {
    let manifest = std::fs::read_to_string(repo("conformance/scenarios/manifest.json")).unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo("conformance/scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json") && !p.ends_with("manifest.json"))
        .collect();
    files.sort();
    let mut count = 0;
    for file in &files {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let fname = file.file_name().unwrap().to_string_lossy().to_string();
        for s in doc["scenarios"].as_array().unwrap() {
            let sname = s["name"].as_str().unwrap();
            let mut env = Env::new(&manifest, s.get("options").unwrap_or(&Value::Object(Map::new())));
            for (i, step) in s["steps"].as_array().unwrap().iter().enumerate() {
                env.run(step, &format!("{fname} \"{sname}\" step {}", i + 1));
            }
            count += 1;
        }
    }
    assert!(count >= 20, "only {count} scenarios ran");
}
