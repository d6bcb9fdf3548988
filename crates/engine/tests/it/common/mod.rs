//! Shared helpers for the pipeline tests: authorities (the example app's manifest, and a test
//! manifest built on it with the shapes the example lacks), a deterministic environment
//! (ManualClock + ManualTimer + a single-threaded LocalPool), latches and run counters.
#![allow(dead_code)]

use agent_surface_engine::authority::CapabilityAuthority;
use agent_surface_engine::binding::{
    execute_fn, read_sync, ActionBinding, ActionContext, ComponentBinder, HandlerResult, ObservationBinding,
};
use agent_surface_engine::events::AgentSurfaceEvent;
use agent_surface_engine::host::ManualClock;
use agent_surface_engine::host::ManualTimer;
use agent_surface_engine::invoke::{AgentInvocation, AgentInvocationResult, InvokeOptions};
use agent_surface_engine::registry::{AgentSurfaceRegistry, LogRecord, RegistryOptions, Subscription};
use agent_surface_engine::snapshot::{AgentConsumer, ConsumerKind};
use agent_surface_model::manifest::{contract_hash, manifest_hash};
use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use serde_json::{json, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// 2026-01-01T00:00:00Z: a round start for the manual clock.
pub const T0: u64 = 1_767_225_600_000;

pub fn fixture_text() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/devices-app/agent-surface.manifest.json"
    ))
    .unwrap()
}

/// The example app's compiled manifest.
pub fn fixture_authority() -> CapabilityAuthority {
    CapabilityAuthority::from_json_str(&fixture_text()).unwrap()
}

fn obj(props: Value) -> Value {
    json!({"type": "object", "properties": props, "additionalProperties": false})
}

fn action(effect: &str, confirmation: &str, audit: &str, input: Value, output: Value) -> Value {
    json!({
        "audit": audit, "confirmation": confirmation, "description": format!("Test {effect} action."),
        "effect": effect, "idempotent": false, "inputSchema": input, "meta": {}, "outputSchema": output,
        "reversible": true
    })
}

fn procedure(id: &str, effect: &str, confirmation: &str, audit: &str, input: Value, output: Value) -> Value {
    json!({
        "audit": audit, "confirmation": confirmation, "description": format!("Test {effect} procedure."),
        "effect": effect, "id": id, "idempotent": false, "inputSchema": input, "kind": "procedure",
        "meta": {}, "outputSchema": output, "policies": [], "reversible": effect != "destructive" && effect != "external-side-effect",
        "tags": []
    })
}

/// The example manifest plus `view:test.widget` and `domain:test.{wipe,send,touch}`: an action
/// with an output schema, `audit: none` and `full`, a confirmation-required view action, an
/// external-side-effect procedure without confirmation, and defaults everywhere.
pub fn test_manifest() -> Value {
    let mut m: Value = serde_json::from_str(&fixture_text()).unwrap();
    let n_default = obj(json!({"n": {"type": "integer", "default": 1}, "tag": {"type": "string"}}));
    let widget = json!({
        "description": "A widget for pipeline tests.",
        "id": "view:test.widget",
        "kind": "component",
        "meta": {},
        "origin": "first-party",
        "policies": [],
        "priority": 0,
        "tags": [],
        "type": "test.widget",
        "observations": {
            "state": {"description": "The widget's state.", "meta": {}, "outputSchema": obj(json!({"n": {"type": "integer"}}))},
            "blob": {"description": "A large text.", "meta": {}, "outputSchema": {"type": "string"}}
        },
        "actions": {
            "act": action("local-state", "never", "metadata", n_default.clone(), Value::Null),
            "other": action("local-state", "never", "metadata", n_default.clone(), Value::Null),
            "typed": action("local-state", "never", "metadata", n_default.clone(), json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"], "additionalProperties": false})),
            "confirm": action("local-state", "required", "full", n_default.clone(), Value::Null),
            "optional": action("local-state", "optional", "metadata", n_default.clone(), Value::Null),
            "silent": action("local-state", "never", "none", n_default.clone(), Value::Null),
            "full": action("local-state", "never", "full", n_default.clone(), Value::Null),
            "go": action("navigation", "never", "metadata", obj(json!({"to": {"type": "string"}})), Value::Null)
        }
    });
    let ids = obj(json!({"ids": {"type": "array", "items": {"type": "string"}}}));
    let contracts = m["contracts"].as_array_mut().unwrap();
    contracts.push(widget);
    contracts.push(procedure("domain:test.wipe", "destructive", "required", "full", ids, Value::Null));
    contracts.push(procedure(
        "domain:test.send",
        "external-side-effect",
        "never",
        "metadata",
        obj(json!({"to": {"type": "string", "default": "ops"}})),
        Value::Null,
    ));
    contracts.push(procedure(
        "domain:test.touch",
        "mutation",
        "never",
        "metadata",
        obj(json!({"x": {"type": "integer", "default": 0}})),
        Value::Null,
    ));
    rehash(&mut m);
    m
}

/// Makes an edited manifest consistent again, as the compiler would write it: every
/// `contractHash`, the contracts sorted by id, the count and the `manifestHash`.
pub fn rehash(m: &mut Value) {
    let contracts = m["contracts"].as_array_mut().unwrap();
    for c in contracts.iter_mut() {
        let h = contract_hash(c);
        c["contractHash"] = Value::String(h);
    }
    contracts.sort_by(|a, b| a["id"].as_str().unwrap().cmp(b["id"].as_str().unwrap()));
    let n = contracts.len();
    m["completeness"]["contracts"] = n.into();
    let h = manifest_hash(m);
    m["manifestHash"] = Value::String(h);
}

pub fn test_authority() -> CapabilityAuthority {
    CapabilityAuthority::new(test_manifest()).unwrap()
}

pub fn consumer(id: &str) -> AgentConsumer {
    AgentConsumer::new(ConsumerKind::Test, id)
}

pub fn as_consumer(id: &str) -> InvokeOptions {
    InvokeOptions { consumer: Some(consumer(id)), ..Default::default() }
}

/// Counts handler runs.
#[derive(Clone, Default)]
pub struct Counter(Arc<AtomicUsize>);

impl Counter {
    pub fn hit(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
    pub fn get(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// A one-shot gate handlers can wait on (opened by the test).
#[derive(Clone, Default)]
pub struct Latch(Arc<Mutex<(bool, Vec<Waker>)>>);

impl Latch {
    pub fn open(&self) {
        let wakers = {
            let mut s = self.0.lock().unwrap();
            s.0 = true;
            std::mem::take(&mut s.1)
        };
        for w in wakers {
            w.wake();
        }
    }
    pub fn wait(&self) -> LatchWait {
        LatchWait(self.clone())
    }
}

pub struct LatchWait(Latch);

impl Future for LatchWait {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut s = (self.0).0.lock().unwrap();
        if s.0 {
            Poll::Ready(())
        } else {
            s.1.push(cx.waker().clone());
            Poll::Pending
        }
    }
}

/// An action that counts its runs, records the input it was given, waits for `latch` (when
/// given) and returns `output`.
pub fn counting(runs: &Counter, latch: Option<&Latch>, output: Value) -> ActionBinding {
    let runs = runs.clone();
    let latch = latch.cloned();
    ActionBinding::new(execute_fn(move |_input, _ctx| {
        runs.hit();
        let latch = latch.clone();
        let output = output.clone();
        async move {
            if let Some(l) = latch {
                l.wait().await;
            }
            Ok(output)
        }
    }))
}

/// An action that records (input, ctx) of each run, then waits for `latch` if given.
pub type Seen = Arc<Mutex<Vec<(Value, ActionContext)>>>;

pub fn recording(seen: &Seen, latch: Option<&Latch>) -> ActionBinding {
    let seen = seen.clone();
    let latch = latch.cloned();
    ActionBinding::new(execute_fn(move |input: Value, ctx: ActionContext| {
        seen.lock().unwrap().push((input.clone(), ctx));
        let latch = latch.clone();
        async move {
            if let Some(l) = latch {
                l.wait().await;
            }
            HandlerResult::Ok(Value::Null)
        }
    }))
}

/// An action that waits until its signal is aborted (then returns null, ignored as late).
pub fn until_aborted() -> ActionBinding {
    ActionBinding::new(execute_fn(|_, ctx: ActionContext| async move {
        ctx.signal.aborted().await;
        Ok(Value::Null)
    }))
}

pub fn ok_action() -> ActionBinding {
    ActionBinding::new(execute_fn(|_, _| async { Ok(Value::Null) }))
}

/// `test.widget` bound with trivial handlers; override any by calling `.action(name, ..)`.
pub fn widget(a: &CapabilityAuthority, instance: &str) -> ComponentBinder {
    let mut b = a
        .component("test.widget")
        .unwrap()
        .bind()
        .instance(instance)
        .observation("state", ObservationBinding::new(read_sync(|_| json!({"n": 1}))))
        .observation("blob", ObservationBinding::new(read_sync(|_| json!("small"))));
    for name in ["act", "other", "confirm", "optional", "silent", "full", "go"] {
        b = b.action(name, ok_action());
    }
    b.action("typed", ActionBinding::new(execute_fn(|_, _| async { Ok(json!({"ok": true})) })))
}

/// A deterministic registry environment: manual clock and timers, single-threaded executor.
pub struct Env {
    pub clock: ManualClock,
    pub rt: ManualTimer,
    pub spawned: QueueSpawn,
    pub registry: AgentSurfaceRegistry,
    pub pool: LocalPool,
    pub events: Arc<Mutex<Vec<AgentSurfaceEvent>>>,
    pub logs: Arc<Mutex<Vec<LogRecord>>>,
    _sub: Subscription,
}

/// The registry's spawn seam for tests: background tasks queue here and [`Env::settle`] runs
/// them on the pool (deterministic, single-threaded).
#[derive(Clone, Default)]
pub struct QueueSpawn(Arc<Mutex<Vec<agent_surface_engine::host::BoxFuture<()>>>>);

impl QueueSpawn {
    pub fn take(&self) -> Vec<agent_surface_engine::host::BoxFuture<()>> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
    pub fn is_empty(&self) -> bool {
        self.0.lock().unwrap().is_empty()
    }
    /// Tasks spawned so far and not yet handed to the pool.
    pub fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }
}

impl agent_surface_engine::host::Spawn for QueueSpawn {
    fn spawn(&self, future: agent_surface_engine::host::BoxFuture<()>) {
        self.0.lock().unwrap().push(future);
    }
}

/// The result slot of a spawned invocation; records how often it was filled.
#[derive(Clone, Default)]
pub struct Pending(Arc<Mutex<(Option<AgentInvocationResult>, usize)>>);

impl Pending {
    pub fn done(&self) -> bool {
        self.0.lock().unwrap().0.is_some()
    }
    pub fn settlements(&self) -> usize {
        self.0.lock().unwrap().1
    }
    #[track_caller]
    pub fn result(&self) -> AgentInvocationResult {
        self.0.lock().unwrap().0.clone().expect("the invocation has not settled")
    }
}

impl Env {
    pub fn new(a: &CapabilityAuthority) -> Env {
        Self::with(a, |o| o)
    }

    pub fn with(a: &CapabilityAuthority, f: impl FnOnce(RegistryOptions) -> RegistryOptions) -> Env {
        let clock = ManualClock::new(T0);
        let rt = ManualTimer::new(clock.clone());
        let logs: Arc<Mutex<Vec<LogRecord>>> = Arc::default();
        let l = logs.clone();
        let spawned = QueueSpawn::default();
        let opts = RegistryOptions::new(a.clone())
            .clock(Arc::new(clock.clone()))
            .timer(Arc::new(rt.clone()))
            .spawn(Arc::new(spawned.clone()))
            .log(move |r| l.lock().unwrap().push(r.clone()));
        let registry = AgentSurfaceRegistry::new(f(opts));
        let events: Arc<Mutex<Vec<AgentSurfaceEvent>>> = Arc::default();
        let e = events.clone();
        let sub = registry.subscribe(move |ev| e.lock().unwrap().push(ev.clone()));
        Env { clock, rt, spawned, registry, pool: LocalPool::new(), events, logs, _sub: sub }
    }

    /// Starts an invocation on the pool (not yet polled).
    pub fn spawn(&self, inv: AgentInvocation, opts: InvokeOptions) -> Pending {
        let p = Pending::default();
        let slot = p.clone();
        let r = self.registry.clone();
        self.pool
            .spawner()
            .spawn_local(async move {
                let res = r.invoke(inv, opts).await.expect("registry not disposed");
                let mut s = slot.0.lock().unwrap();
                s.0 = Some(res);
                s.1 += 1;
            })
            .unwrap();
        p
    }

    /// Starts an invocation and runs the pool until nothing can progress.
    pub fn start(&mut self, inv: AgentInvocation, opts: InvokeOptions) -> Pending {
        let p = self.spawn(inv, opts);
        self.settle();
        p
    }

    /// Runs the pool (with the registry's background tasks) until stalled.
    pub fn settle(&mut self) {
        loop {
            let tasks = self.spawned.take();
            let none = tasks.is_empty();
            for t in tasks {
                self.pool.spawner().spawn_local(t).unwrap();
            }
            self.pool.run_until_stalled();
            if none && self.spawned.is_empty() {
                break;
            }
        }
    }

    /// Moves the manual clock (firing due timers) and runs the pool until stalled.
    pub fn advance(&mut self, ms: u64) {
        self.rt.advance(ms);
        self.settle();
    }

    /// Invokes and expects the invocation to settle without the clock moving.
    #[track_caller]
    pub fn call(&mut self, inv: AgentInvocation, opts: InvokeOptions) -> AgentInvocationResult {
        let p = self.start(inv, opts);
        p.result()
    }

    pub fn take_events(&self) -> Vec<AgentSurfaceEvent> {
        std::mem::take(&mut *self.events.lock().unwrap())
    }
}

pub fn inv(capability: &str) -> AgentInvocation {
    AgentInvocation::new(capability)
}

/// `details[key]` of an error result.
#[track_caller]
pub fn detail(r: &AgentInvocationResult, key: &str) -> Value {
    r.error.as_ref().expect("an error result").details.as_ref().and_then(|d| d.get(key)).cloned().unwrap_or(Value::Null)
}

/// A confirmation id from a CONFIRMATION_REQUIRED result.
#[track_caller]
pub fn confirmation_id(r: &AgentInvocationResult) -> String {
    detail(r, "confirmationId").as_str().expect("a confirmationId").to_string()
}

use agent_surface_engine::binding::BoxFuture;
use agent_surface_engine::policy::{
    AgentPolicy, DiscoveryContext, DiscoveryDecision, Policy, PolicyContext, PolicyDecision, PolicyPhase,
};

pub type PolicySeen = Arc<Mutex<Vec<(PolicyPhase, PolicyContext)>>>;

/// A configurable policy that records what each phase saw.
pub struct TestPolicy {
    pub name: String,
    pub phases: Vec<PolicyPhase>,
    pub discovery: DiscoveryDecision,
    pub authorize: PolicyDecision,
    pub invoke: PolicyDecision,
    pub panic_in: Option<PolicyPhase>,
    pub seen: PolicySeen,
}

impl TestPolicy {
    pub fn new(name: &str, phases: &[PolicyPhase]) -> TestPolicy {
        TestPolicy {
            name: name.into(),
            phases: phases.to_vec(),
            discovery: DiscoveryDecision::Expose,
            authorize: PolicyDecision::Allow,
            invoke: PolicyDecision::Allow,
            panic_in: None,
            seen: Arc::default(),
        }
    }
    pub fn authorize(mut self, d: PolicyDecision) -> Self {
        self.authorize = d;
        self
    }
    pub fn invoke(mut self, d: PolicyDecision) -> Self {
        self.invoke = d;
        self
    }
    pub fn discovery(mut self, d: DiscoveryDecision) -> Self {
        self.discovery = d;
        self
    }
    pub fn panics_in(mut self, p: PolicyPhase) -> Self {
        self.panic_in = Some(p);
        self
    }
    /// The policy and the log of what it saw.
    pub fn build(self) -> (Policy, PolicySeen) {
        let seen = self.seen.clone();
        (Arc::new(self), seen)
    }
}

impl AgentPolicy for TestPolicy {
    fn name(&self) -> &str {
        &self.name
    }
    fn phases(&self) -> &[PolicyPhase] {
        &self.phases
    }
    fn on_discovery(&self, _ctx: &DiscoveryContext) -> DiscoveryDecision {
        if self.panic_in == Some(PolicyPhase::Discovery) {
            crate::common::deliberate_panic("discovery policy failure");
        }
        self.discovery.clone()
    }
    fn authorize(&self, ctx: PolicyContext) -> BoxFuture<PolicyDecision> {
        self.seen.lock().unwrap().push((PolicyPhase::Authorize, ctx));
        if self.panic_in == Some(PolicyPhase::Authorize) {
            crate::common::deliberate_panic("authorize policy failure");
        }
        let d = self.authorize.clone();
        Box::pin(async move { d })
    }
    fn invoke(&self, ctx: PolicyContext) -> BoxFuture<PolicyDecision> {
        self.seen.lock().unwrap().push((PolicyPhase::Invoke, ctx));
        if self.panic_in == Some(PolicyPhase::Invoke) {
            crate::common::deliberate_panic("invoke policy failure");
        }
        let d = self.invoke.clone();
        Box::pin(async move { d })
    }
}

/// Unwinds like a panic a test causes on purpose (a buggy handler, listener, guard or policy the
/// engine must survive), without the panic hook: nothing is printed, so a passing run reads
/// clean, while a failed assertion still prints as usual.
pub fn deliberate_panic(what: &'static str) -> ! {
    std::panic::resume_unwind(Box::new(what))
}
