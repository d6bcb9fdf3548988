//! Shared fixtures of the `registry_*` tests: a manifest assembled in the test (several
//! component types and priorities, procedures, an external tool), bindings of every handler, a
//! registry on a manual clock, and an event recorder.
#![allow(dead_code)]

use agent_surface_engine::authority::CapabilityAuthority;
use agent_surface_engine::binding::{execute_fn, read_sync, BoundComponent, ComponentBinder};
use agent_surface_engine::events::AgentSurfaceEvent;
use agent_surface_engine::host::ManualClock;
use agent_surface_engine::invoke::{AgentInvocation, AgentInvocationResult, InvokeOptions};
use agent_surface_engine::registry::{AgentSurfaceRegistry, Environment, LogRecord, RegistryOptions, Subscription};
use agent_surface_model::effects::{default_governance, CapabilityKind, Effect};
use agent_surface_model::manifest::{
    ActionContract, CapabilityContractManifest, ComponentContract, Generator, ManifestContract, ObservationContract,
    OperationContract,
};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// Start of the manual clock (2023-11-14T22:13:20Z).
pub const T0: u64 = 1_700_000_000_000;

pub fn generator() -> Generator {
    Generator { name: "registry-tests".into(), version: "0.0.0".into() }
}

pub fn empty_input() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
}

/// A component contract; every observation returns an object, every action takes `{}` and is
/// `local-state` (or `navigation` when its name starts with "navigate").
pub fn component(ty: &str, priority: i64, observations: &[&str], actions: &[&str]) -> ManifestContract {
    let mut c = ComponentContract::new(ty, format!("The {ty} component"));
    c.priority = priority;
    for o in observations {
        c.observations.insert(o.to_string(), ObservationContract::new(format!("Reads {o}"), json!({"type": "object"})));
    }
    for a in actions {
        let effect = if a.starts_with("navigate") { Effect::Navigation } else { Effect::LocalState };
        c.actions.insert(
            a.to_string(),
            ActionContract::new(
                format!("Does {a}"),
                empty_input(),
                default_governance(CapabilityKind::ViewAction, effect),
            ),
        );
    }
    ManifestContract::Component(c)
}

pub fn procedure(id: &str, effect: Effect) -> ManifestContract {
    ManifestContract::Procedure(OperationContract::new(
        id,
        format!("Runs {id}"),
        empty_input(),
        default_governance(CapabilityKind::DomainProcedure, effect),
    ))
}

pub fn external_tool(id: &str) -> ManifestContract {
    ManifestContract::ExternalTool(OperationContract::new(
        id,
        format!("Calls {id}"),
        empty_input(),
        default_governance(CapabilityKind::ExternalTool, Effect::ExternalSideEffect),
    ))
}

pub fn assemble(contracts: Vec<ManifestContract>) -> CapabilityContractManifest {
    CapabilityContractManifest::assemble(generator(), contracts, 0)
}

/// The standard test manifest.
/// - `devices.table` (priority 10): readState, readSelection / select, sort
/// - `devices.detail` (10): readDevice / close
/// - `devicesx.panel` (5): readPanel (a type that shares a string prefix, not a segment)
/// - `app.nav` (0): currentRoute / navigate
/// - `alerts.feed` (0): readFeed / dismiss (collides with `domain:alerts.feed.dismiss`)
/// - `low.widget` (-1): readWidget
/// - procedures `domain:devices.reboot` (mutation), `domain:devices.wipe` (destructive),
///   `domain:alerts.feed.dismiss` (mutation); external tool `external:reports.export`.
pub fn standard_manifest() -> CapabilityContractManifest {
    assemble(vec![
        component("devices.table", 10, &["readState", "readSelection"], &["select", "sort"]),
        component("devices.detail", 10, &["readDevice"], &["close"]),
        component("devicesx.panel", 5, &["readPanel"], &[]),
        component("app.nav", 0, &["currentRoute"], &["navigate"]),
        component("alerts.feed", 0, &["readFeed"], &["dismiss"]),
        component("low.widget", -1, &["readWidget"], &[]),
        procedure("domain:devices.reboot", Effect::Mutation),
        procedure("domain:devices.wipe", Effect::Destructive),
        procedure("domain:alerts.feed.dismiss", Effect::Mutation),
        external_tool("external:reports.export"),
    ])
}

pub fn authority() -> CapabilityAuthority {
    CapabilityAuthority::new(standard_manifest().to_value()).expect("the standard manifest verifies")
}

/// Binds every declared observation and action of `ty` with trivial handlers, then lets `f`
/// adjust the binder (later calls for the same name replace the trivial handler).
pub fn bind_with(
    a: &CapabilityAuthority,
    ty: &str,
    instance: &str,
    f: impl FnOnce(ComponentBinder) -> ComponentBinder,
) -> BoundComponent {
    let contract = a.component(ty).expect("a contract of the standard manifest");
    let mut b = contract.bind().instance(instance);
    for name in contract.contract().observations.keys() {
        b = b.observation(name.clone(), read_sync(|_| json!({})));
    }
    for name in contract.contract().actions.keys() {
        b = b.action(name.clone(), execute_fn(|_, _| async { Ok(json!(null)) }));
    }
    f(b).build().expect("a complete binding")
}

pub fn bind(a: &CapabilityAuthority, ty: &str, instance: &str) -> BoundComponent {
    bind_with(a, ty, instance, |b| b)
}

/// A registry on a manual clock at [`T0`].
pub fn registry_with(
    a: &CapabilityAuthority,
    f: impl FnOnce(RegistryOptions) -> RegistryOptions,
) -> (AgentSurfaceRegistry, ManualClock) {
    let clock = ManualClock::new(T0);
    let options = RegistryOptions::new(a.clone()).clock(Arc::new(clock.clone()));
    (AgentSurfaceRegistry::new(f(options)), clock)
}

pub fn registry(a: &CapabilityAuthority) -> (AgentSurfaceRegistry, ManualClock) {
    registry_with(a, |o| o)
}

/// Records every event a registry emits.
#[derive(Clone, Default)]
pub struct Recorder(Arc<Mutex<Vec<AgentSurfaceEvent>>>);

impl Recorder {
    pub fn attach(registry: &AgentSurfaceRegistry) -> (Recorder, Subscription) {
        let r = Recorder::default();
        let sink = r.0.clone();
        let sub = registry.subscribe(move |e| sink.lock().unwrap().push(e.clone()));
        (r, sub)
    }
    pub fn events(&self) -> Vec<AgentSurfaceEvent> {
        self.0.lock().unwrap().clone()
    }
    pub fn take(&self) -> Vec<AgentSurfaceEvent> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
    /// Versions carried by the surface-changed events so far.
    pub fn surface_changes(&self) -> Vec<String> {
        self.events()
            .into_iter()
            .filter_map(|e| match e {
                AgentSurfaceEvent::SurfaceChanged { surface_version } => Some(surface_version),
                _ => None,
            })
            .collect()
    }
}

/// A development registry whose `log` option collects the records.
pub fn dev_registry(a: &CapabilityAuthority) -> (AgentSurfaceRegistry, ManualClock, Arc<Mutex<Vec<LogRecord>>>) {
    let logs: Arc<Mutex<Vec<LogRecord>>> = Arc::default();
    let sink = logs.clone();
    let (r, c) = registry_with(a, |o| {
        o.environment(Environment::Development).log(move |rec| sink.lock().unwrap().push(rec.clone()))
    });
    (r, c, logs)
}

/// Invokes with no executor timers (handlers here settle at once).
pub fn invoke(registry: &AgentSurfaceRegistry, inv: AgentInvocation) -> AgentInvocationResult {
    futures::executor::block_on(registry.invoke(inv, InvokeOptions::default())).expect("the registry is live")
}

pub fn version(registry: &AgentSurfaceRegistry) -> u64 {
    registry.version().parse().expect("a decimal surface version")
}
