//! The registry: live registrations of bound contracts, the surface version, tombstones,
//! availability, snapshots and events. Construction requires a [`CapabilityAuthority`]; raw
//! definitions, contracts from another authority and structurally broken bindings are refused.
//!
//! Mutations happen under one lock and publish events after releasing it (see
//! [`crate::events`]); user code (`when`, policies, listeners) never runs under the lock.

use crate::authority::CapabilityAuthority;
use crate::binding::{BindingError, BoundComponent, HostContext, Registrable};
use crate::clock::{Clock, SystemClock};
use crate::events::{AgentSurfaceEvent, Dispatcher, Listener, RejectReason};
use crate::policy::{evaluate_discovery, DiscoveryContext, DiscoveryDecision, Policy, PolicyPhase};
use crate::snapshot::*;
use agent_surface_model::limits::AgentSurfaceLimits;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

/// `RegistryOptions.environment`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Environment {
    Development,
    #[default]
    Production,
    Test,
}

/// What to do with a second live registration of the same (type, instanceId).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DuplicateInstance {
    /// First wins: the newcomer gets a dead handle.
    #[default]
    Reject,
    /// The previous registration is unregistered, then the newcomer registers.
    Replace,
}

/// Cross-plane suffix collision handling (`view:X.Y` vs a known `domain:X.Y`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DuplicateSuffixPolicy {
    Off,
    #[default]
    Warn,
    Error,
}

/// What `onRegister` sees.
#[derive(Clone, Debug)]
pub struct RegistrationCandidate {
    pub component_type: String,
    pub instance_id: String,
    pub origin: String,
    pub internal: Map<String, Value>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GuardDecision {
    Accept,
    Reject,
}

/// A log line from the registry (dev warnings, late settlements).
#[derive(Clone, Debug, PartialEq)]
pub struct LogRecord {
    pub level: LogLevel,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogLevel {
    Warn,
    Error,
}

pub type ContextFn = Arc<dyn Fn() -> Map<String, Value> + Send + Sync>;
pub type GuardFn = Arc<dyn Fn(&RegistrationCandidate) -> GuardDecision + Send + Sync>;
pub type RouteFn = Arc<dyn Fn() -> Option<AgentRouteInfo> + Send + Sync>;
pub type LogFn = Arc<dyn Fn(&LogRecord) + Send + Sync>;

/// The spec's `RegistryOptions`, every field. The authority is mandatory: it is the
/// constructor's argument.
#[derive(Clone)]
pub struct RegistryOptions {
    pub authority: CapabilityAuthority,
    pub environment: Environment,
    pub context: Option<ContextFn>,
    pub policies: Vec<Policy>,
    pub audit: Option<Arc<dyn crate::audit::AuditSink>>,
    pub on_register: Option<GuardFn>,
    pub on_duplicate_instance: DuplicateInstance,
    pub duplicate_suffix_policy: DuplicateSuffixPolicy,
    pub route: Option<RouteFn>,
    pub limits: AgentSurfaceLimits,
    pub clock: Arc<dyn Clock>,
    pub log: Option<LogFn>,
    pub runtime: Option<Arc<dyn crate::exec::Runtime>>,
}

impl RegistryOptions {
    pub fn new(authority: CapabilityAuthority) -> Self {
        RegistryOptions {
            authority,
            environment: Environment::Production,
            context: None,
            policies: Vec::new(),
            audit: None,
            on_register: None,
            on_duplicate_instance: DuplicateInstance::Reject,
            duplicate_suffix_policy: DuplicateSuffixPolicy::Warn,
            route: None,
            limits: AgentSurfaceLimits::default(),
            clock: Arc::new(SystemClock),
            log: None,
            runtime: crate::exec::default_runtime(),
        }
    }
    pub fn environment(mut self, e: Environment) -> Self {
        self.environment = e;
        self
    }
    pub fn context(mut self, f: impl Fn() -> Map<String, Value> + Send + Sync + 'static) -> Self {
        self.context = Some(Arc::new(f));
        self
    }
    pub fn policy(mut self, p: Policy) -> Self {
        self.policies.push(p);
        self
    }
    pub fn audit(mut self, sink: Arc<dyn crate::audit::AuditSink>) -> Self {
        self.audit = Some(sink);
        self
    }
    pub fn on_register(mut self, f: impl Fn(&RegistrationCandidate) -> GuardDecision + Send + Sync + 'static) -> Self {
        self.on_register = Some(Arc::new(f));
        self
    }
    pub fn on_duplicate_instance(mut self, d: DuplicateInstance) -> Self {
        self.on_duplicate_instance = d;
        self
    }
    pub fn duplicate_suffix_policy(mut self, p: DuplicateSuffixPolicy) -> Self {
        self.duplicate_suffix_policy = p;
        self
    }
    pub fn route(mut self, f: impl Fn() -> Option<AgentRouteInfo> + Send + Sync + 'static) -> Self {
        self.route = Some(Arc::new(f));
        self
    }
    pub fn limits(mut self, l: AgentSurfaceLimits) -> Self {
        self.limits = l;
        self
    }
    pub fn clock(mut self, c: Arc<dyn Clock>) -> Self {
        self.clock = c;
        self
    }
    pub fn log(mut self, f: impl Fn(&LogRecord) + Send + Sync + 'static) -> Self {
        self.log = Some(Arc::new(f));
        self
    }
    pub fn runtime(mut self, r: Arc<dyn crate::exec::Runtime>) -> Self {
        self.runtime = Some(r);
        self
    }
}

/// A structural defect or misuse at registration (the spec's `AgentSurfaceDefinitionError`,
/// thrown in every environment).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DefinitionError {
    #[error(
        "\"{0}\" is a raw definition without compiler provenance: bind a contract from the CapabilityAuthority instead"
    )]
    Unverified(String),
    #[error("\"{0}\" was bound from a contract of another manifest (or another authority)")]
    ForeignProvenance(String),
    #[error(transparent)]
    Binding(#[from] BindingError),
    #[error("\"{view}\" collides with the domain procedure \"{domain}\" (duplicateSuffixPolicy: error)")]
    SuffixCollision { view: String, domain: String },
    #[error("\"{id}\" breaks the registry's limits at {pointer}: {message}")]
    Invalid { id: String, pointer: String, message: String },
    #[error("the registry was disposed")]
    Disposed,
}

/// Status of a registration handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegistrationStatus {
    Active,
    Rejected,
    Unregistered,
}

/// A pushed availability override.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AvailabilityOverride {
    pub available: bool,
    pub reason: Option<String>,
}

/// `handle.update(...)`: only these fields are updatable.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RegistrationPatch {
    pub enabled: Option<bool>,
    /// Per-capability (by name) availability overrides.
    pub availability: Option<BTreeMap<String, AvailabilityOverride>>,
}

pub(crate) struct Reg {
    pub id: String,
    pub bound: BoundComponent,
    pub status: Arc<Mutex<RegistrationStatus>>,
}

#[derive(Clone, Default)]
pub(crate) struct Dynamic {
    pub enabled: bool,
    pub overrides: BTreeMap<String, AvailabilityOverride>,
}

#[derive(Clone, Debug)]
#[allow(dead_code)] // identifiers kept for diagnostics; never executable references
pub(crate) struct Tombstone {
    pub registration_id: String,
    pub component_type: String,
    pub instance_id: String,
    pub at_ms: u64,
}

#[derive(Default)]
pub(crate) struct State {
    pub version: u64,
    pub seq: u64,
    pub regs: BTreeMap<String, Arc<Reg>>,
    pub dynamic: HashMap<String, Dynamic>,
    pub keys: HashMap<(String, String), String>,
    pub tombstones: VecDeque<Tombstone>,
    pub disposed: bool,
}

pub(crate) struct Shared {
    pub options: RegistryOptions,
    pub surface_id: String,
    pub state: Mutex<State>,
    pub events: Dispatcher,
    pub inflight: crate::invoke::Inflight,
    pub confirmations: crate::confirm::Confirmations,
    pub validators: Mutex<HashMap<String, Arc<agent_surface_schema::validate::Validator>>>,
}

/// The spec's `AgentSurfaceRegistry`. Cheap to clone (shared).
#[derive(Clone)]
pub struct AgentSurfaceRegistry {
    pub(crate) shared: Arc<Shared>,
}

const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

pub(crate) fn base62(n: usize) -> String {
    (0..n).map(|_| BASE62[fastrand::usize(..62)] as char).collect()
}

impl AgentSurfaceRegistry {
    /// The spec's `createAgentSurfaceRegistry({ authority, ... })`.
    pub fn new(options: RegistryOptions) -> Self {
        AgentSurfaceRegistry {
            shared: Arc::new(Shared {
                surface_id: format!("srf_{}", base62(22)),
                options,
                state: Mutex::new(State::default()),
                events: Dispatcher::default(),
                inflight: Default::default(),
                confirmations: Default::default(),
                validators: Mutex::default(),
            }),
        }
    }

    pub fn surface_id(&self) -> &str {
        &self.shared.surface_id
    }

    pub fn authority(&self) -> &CapabilityAuthority {
        &self.shared.options.authority
    }

    pub fn options(&self) -> &RegistryOptions {
        &self.shared.options
    }

    /// The current surface version (decimal string; compare for equality only).
    pub fn version(&self) -> String {
        self.shared.lock().version.to_string()
    }

    /// Subscribes to events; the subscription ends when the returned guard is dropped or
    /// `unsubscribe` is called.
    pub fn subscribe(&self, f: impl Fn(&AgentSurfaceEvent) + Send + Sync + 'static) -> Subscription {
        let l: Listener = Arc::new(f);
        let id = self.shared.events.subscribe(l);
        Subscription { shared: Arc::downgrade(&self.shared), id: Some(id) }
    }

    /// Registers a bound component. Structural defects are errors; runtime conditions
    /// (duplicates, guard rejection) give a dead handle and a `component-rejected` event.
    pub fn register(&self, def: impl Into<Registrable>) -> Result<RegistrationHandle, DefinitionError> {
        let bound = match def.into() {
            Registrable::Raw(raw) => return Err(DefinitionError::Unverified(raw.component_type)),
            Registrable::Bound(b) => *b,
        };
        let shared = &self.shared;
        let authority = &shared.options.authority;
        let contract_id = agent_surface_model::ids::component_contract_id(bound.component_type());
        if !authority.recognizes(&bound.provenance()) {
            return Err(DefinitionError::ForeignProvenance(contract_id));
        }
        for p in &bound.procedures {
            if !authority.recognizes(&p.provenance()) {
                return Err(DefinitionError::ForeignProvenance(p.id().to_string()));
            }
        }
        agent_surface_model::ids::check_instance_id(bound.instance_id())
            .map_err(|e| DefinitionError::Binding(BindingError::InvalidInstanceId(e)))?;
        // The authority verified its contracts against its own limits; a registry configured
        // with other limits enforces those (oversize descriptions, meta, schemas).
        if shared.options.limits != *authority.limits() {
            use agent_surface_model::manifest::ManifestContract;
            let contracts = std::iter::once(ManifestContract::Component(bound.contract().clone()))
                .chain(bound.procedures.iter().map(|p| ManifestContract::Procedure(p.contract.contract().clone())));
            for c in contracts {
                if let Some(v) =
                    agent_surface_model::definition::validate_contract(&c, &shared.options.limits).into_iter().next()
                {
                    return Err(DefinitionError::Invalid {
                        id: c.id().to_string(),
                        pointer: v.json_pointer(),
                        message: v.message,
                    });
                }
            }
        }
        // Cross-plane suffix collisions: a heuristic lint, not a security control.
        let ty = bound.component_type().to_string();
        let mut collisions = Vec::new();
        if shared.options.duplicate_suffix_policy != DuplicateSuffixPolicy::Off {
            for name in bound.contract().observations.keys().chain(bound.contract().actions.keys()) {
                let domain = format!("domain:{ty}.{name}");
                if authority.procedure(&domain).is_ok() {
                    let view = agent_surface_model::ids::capability_id(&ty, name);
                    if shared.options.duplicate_suffix_policy == DuplicateSuffixPolicy::Error {
                        return Err(DefinitionError::SuffixCollision { view, domain });
                    }
                    collisions.push((view, domain));
                }
            }
        }
        let candidate = RegistrationCandidate {
            component_type: ty.clone(),
            instance_id: bound.instance_id().to_string(),
            origin: bound.contract().origin.clone(),
            internal: bound.internal.clone(),
        };
        let guard_rejects = shared.options.on_register.as_ref().is_some_and(|g| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| g(&candidate))).unwrap_or(GuardDecision::Reject)
                == GuardDecision::Reject
        });
        let status = Arc::new(Mutex::new(RegistrationStatus::Active));
        let id;
        // Log lines go out after the lock is released: the log option is user code.
        let mut logs = Vec::new();
        {
            let mut st = shared.lock();
            if st.disposed {
                return Err(DefinitionError::Disposed);
            }
            st.seq += 1;
            id = format!("reg_{}_{}", st.seq, base62(8));
            let key = (ty.clone(), bound.instance_id().to_string());
            let mut reject = |reason: RejectReason| {
                *status.lock().unwrap_or_else(|e| e.into_inner()) = RegistrationStatus::Rejected;
                shared.events.push(AgentSurfaceEvent::ComponentRejected {
                    component_type: key.0.clone(),
                    instance_id: key.1.clone(),
                    reason,
                });
                if shared.options.environment == Environment::Development {
                    let why = match reason {
                        RejectReason::Duplicate => "another registration of the same (type, instanceId) is live",
                        RejectReason::Guard => "the onRegister guard rejected it",
                    };
                    logs.push((
                        LogLevel::Error,
                        format!("registration of \"{}\" (instance \"{}\") rejected: {why}", key.0, key.1),
                    ));
                }
            };
            if guard_rejects {
                reject(RejectReason::Guard);
            } else if let Some(existing) = st.keys.get(&key).cloned() {
                match shared.options.on_duplicate_instance {
                    DuplicateInstance::Reject => reject(RejectReason::Duplicate),
                    DuplicateInstance::Replace => {
                        // One surface-affecting mutation: the registration below bumps the
                        // version, the removal of the previous one does not bump it again.
                        shared.detach_locked(&mut st, &existing);
                    }
                }
            }
            if *status.lock().unwrap_or_else(|e| e.into_inner()) == RegistrationStatus::Active {
                let enabled = bound.enabled;
                let reg = Arc::new(Reg { id: id.clone(), bound, status: status.clone() });
                st.keys.insert(key.clone(), id.clone());
                st.regs.insert(id.clone(), reg);
                st.dynamic.insert(id.clone(), Dynamic { enabled, overrides: BTreeMap::new() });
                st.version += 1;
                shared.events.push(AgentSurfaceEvent::ComponentRegistered {
                    registration_id: id.clone(),
                    component_type: key.0,
                    instance_id: key.1,
                });
                for (view, domain) in collisions {
                    logs.push((
                        LogLevel::Warn,
                        format!(
                            "\"{view}\" looks like the domain procedure \"{domain}\" (duplicateSuffixPolicy: warn)"
                        ),
                    ));
                    shared.events.push(AgentSurfaceEvent::CollisionSuspected {
                        view_capability_id: view,
                        domain_procedure_id: domain,
                    });
                }
                shared.events.surface_changed();
            }
        }
        for (level, message) in logs {
            shared.log(level, message);
        }
        shared.flush();
        Ok(RegistrationHandle { shared: Arc::downgrade(shared), registration_id: id, status })
    }

    /// The synchronous, side-effect-free catalog for `ctx`.
    pub fn snapshot(&self, ctx: &SnapshotContext) -> AgentSurfaceSnapshot {
        self.shared.snapshot(ctx)
    }

    /// Tears down: in-flight invocations settle CANCELLED, pending confirmations expire,
    /// everything is unregistered and listeners are dropped. Idempotent.
    pub fn dispose(&self) {
        let shared = &self.shared;
        {
            let mut st = shared.lock();
            if st.disposed {
                return;
            }
            st.disposed = true;
        }
        // In-flight work is cancelled by the disposal (CANCELLED, signal reason "disposed")
        // before the registrations go, so it is not mistaken for an unmount.
        shared.inflight.dispose_all(shared);
        {
            let mut st = shared.lock();
            for id in st.regs.keys().cloned().collect::<Vec<_>>() {
                shared.remove_locked(&mut st, &id);
            }
        }
        shared.flush();
        shared.events.clear();
    }

    pub fn is_disposed(&self) -> bool {
        self.shared.lock().disposed
    }

    /// Sizes of the bounded structures, for tests and monitoring.
    pub fn stats(&self) -> RegistryStats {
        let (dedupe_entries, admission_groups, running, observation_slots) = self.shared.inflight.stats();
        // Outside the state lock: reading the pending list may expire some and flush events.
        let pending_confirmations = self.confirmations().pending().len();
        let mut st = self.shared.lock();
        // Expired tombstones are dropped lazily; do not report them as remembered.
        Shared::trim_tombstones(&mut st, &self.shared.options.limits, self.shared.now());
        RegistryStats {
            registrations: st.regs.len(),
            tombstones: st.tombstones.len(),
            dedupe_entries,
            admission_groups,
            running,
            observation_slots,
            pending_confirmations,
        }
    }

    /// Live registrations as (registrationId, type, instanceId), in registration-id order.
    pub fn registrations(&self) -> Vec<(String, String, String)> {
        self.shared
            .lock()
            .regs
            .values()
            .map(|r| (r.id.clone(), r.bound.component_type().to_string(), r.bound.instance_id().to_string()))
            .collect()
    }
}

/// See [`AgentSurfaceRegistry::stats`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegistryStats {
    pub registrations: usize,
    pub tombstones: usize,
    pub dedupe_entries: usize,
    pub admission_groups: usize,
    pub running: usize,
    /// Observations running or queued at the gates.
    pub observation_slots: usize,
    pub pending_confirmations: usize,
}

impl Shared {
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn now(&self) -> u64 {
        self.options.clock.now_ms()
    }

    pub(crate) fn host(&self) -> HostContext {
        Arc::new(self.options.context.as_ref().map(|f| f()).unwrap_or_default())
    }

    pub(crate) fn log(&self, level: LogLevel, message: String) {
        let rec = LogRecord { level, message };
        match &self.options.log {
            Some(f) => f(&rec),
            None if self.options.environment == Environment::Development => eprintln!("agent-surface: {}", rec.message),
            None => {}
        }
    }

    pub(crate) fn flush(&self) {
        self.events.flush(|| self.lock().version.to_string());
    }

    /// Unregisters under the lock: tombstone, events, version bump, abort in-flight work.
    pub(crate) fn remove_locked(&self, st: &mut State, id: &str) {
        if self.detach_locked(st, id) {
            st.version += 1;
            self.events.surface_changed();
        }
    }

    /// [`Shared::remove_locked`] without the version bump (a replace is one mutation).
    /// Returns whether a live registration was removed.
    pub(crate) fn detach_locked(&self, st: &mut State, id: &str) -> bool {
        let Some(reg) = st.regs.remove(id) else { return false };
        st.dynamic.remove(id);
        let key = (reg.bound.component_type().to_string(), reg.bound.instance_id().to_string());
        if st.keys.get(&key).map(String::as_str) == Some(id) {
            st.keys.remove(&key);
        }
        *reg.status.lock().unwrap_or_else(|e| e.into_inner()) = RegistrationStatus::Unregistered;
        let now = self.now();
        st.tombstones.push_back(Tombstone {
            registration_id: id.to_string(),
            component_type: key.0.clone(),
            instance_id: key.1.clone(),
            at_ms: now,
        });
        Self::trim_tombstones(st, &self.options.limits, now);
        self.inflight.unmounted(id);
        self.events.push(AgentSurfaceEvent::ComponentUnregistered {
            registration_id: id.to_string(),
            component_type: key.0,
            instance_id: key.1,
        });
        true
    }

    pub(crate) fn trim_tombstones(st: &mut State, limits: &AgentSurfaceLimits, now: u64) {
        while st.tombstones.len() > limits.tombstone_size {
            st.tombstones.pop_front();
        }
        while st.tombstones.front().is_some_and(|t| now.saturating_sub(t.at_ms) > limits.tombstone_ttl_ms) {
            st.tombstones.pop_front();
        }
    }

    /// The tombstone of a registration id, if still remembered.
    pub(crate) fn tombstone(&self, st: &mut State, id: &str) -> Option<Tombstone> {
        Self::trim_tombstones(st, &self.options.limits, self.now());
        st.tombstones.iter().find(|t| t.registration_id == id).cloned()
    }

    /// Availability of one capability for a consumer. `None`: hidden by policy.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn availability(
        &self,
        reg: &Reg,
        dynamic: &Dynamic,
        capability_id: &str,
        name: &str,
        capability_policies: &[Policy],
        when: Option<&crate::binding::WhenFn>,
        reason: Option<&str>,
        discovery: &mut DiscoveryScope,
    ) -> Option<(bool, Option<String>)> {
        let policies =
            || self.options.policies.iter().chain(reg.bound.policies.iter()).chain(capability_policies.iter());
        // Most capabilities have no discovery policy: then no context is needed at all.
        let decision = if policies().any(|p| p.phases().contains(&PolicyPhase::Discovery)) {
            evaluate_discovery(
                policies(),
                discovery.context(capability_id, reg.bound.component_type(), reg.bound.instance_id()),
            )
        } else {
            DiscoveryDecision::Expose
        };
        if decision == DiscoveryDecision::Hide {
            return None;
        }
        let base = self.base_availability(dynamic, name, when, reason, capability_id);
        if !base.0 {
            return Some(base);
        }
        if let DiscoveryDecision::Disable(r) = decision {
            return Some((false, Some(r)));
        }
        Some((true, None))
    }

    /// Availability of the `index`-th procedure a registration references (same formula:
    /// enabled, `when()`, discovery policies; pushed overrides name observations and actions
    /// only, and a procedure id never matches one).
    pub(crate) fn procedure_availability(
        &self,
        reg: &Reg,
        dynamic: &Dynamic,
        index: usize,
        discovery: &mut DiscoveryScope,
    ) -> Option<(bool, Option<String>)> {
        let p = &reg.bound.procedures[index];
        let id = p.id();
        self.availability(
            reg,
            dynamic,
            id,
            id,
            &p.binding.policies,
            p.binding.when.as_ref(),
            p.binding.unavailable_reason.as_deref(),
            discovery,
        )
    }

    /// Availability from state alone (enabled, pushed override, `when()`), without policies:
    /// what `explain_surface` reports apart from policy votes.
    pub(crate) fn base_availability(
        &self,
        dynamic: &Dynamic,
        name: &str,
        when: Option<&crate::binding::WhenFn>,
        reason: Option<&str>,
        capability_id: &str,
    ) -> (bool, Option<String>) {
        if !dynamic.enabled {
            return (false, Some("component-disabled".into()));
        }
        if let Some(o) = dynamic.overrides.get(name) {
            if !o.available {
                return (false, Some(o.reason.clone().unwrap_or_else(|| "unavailable".into())));
            }
        }
        if let Some(w) = when {
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| w())) {
                Ok(true) => {}
                Ok(false) => return (false, Some(reason.unwrap_or("unavailable").to_string())),
                Err(_) => {
                    if self.options.environment == Environment::Development {
                        self.log(LogLevel::Warn, format!("when() of {capability_id} panicked"));
                    }
                    return (false, Some("when-error".into()));
                }
            }
        }
        (true, None)
    }

    pub(crate) fn snapshot(&self, ctx: &SnapshotContext) -> AgentSurfaceSnapshot {
        let (regs, version) = {
            let st = self.lock();
            let regs: Vec<(Arc<Reg>, Dynamic)> =
                st.regs.values().map(|r| (r.clone(), st.dynamic.get(&r.id).cloned().unwrap_or_default())).collect();
            (regs, st.version)
        };
        // Snapshot order: (priority desc, type, instanceId), then the registration id so the
        // order is total. Sorted on small keys, not on the built descriptors (large to move).
        let mut order: Vec<(std::cmp::Reverse<i64>, &str, &str, &str, usize)> = regs
            .iter()
            .enumerate()
            .map(|(i, (r, _))| {
                (
                    std::cmp::Reverse(r.bound.contract().priority),
                    r.bound.component_type(),
                    r.bound.instance_id(),
                    r.id.as_str(),
                    i,
                )
            })
            .collect();
        order.sort_unstable();
        let host = self.host();
        let mut discovery = DiscoveryScope::new(&ctx.consumer, &host);
        let mut components = Vec::with_capacity(regs.len());
        let mut procedures = Vec::new();
        for &(.., index) in &order {
            let (reg, dynamic) = &regs[index];
            let b = &reg.bound;
            let ty = b.component_type();
            if let Some(scope) = &ctx.scope {
                if !scope.iter().any(|p| in_scope(ty, p)) {
                    continue;
                }
            }
            let template = b.contract.descriptor_template();
            // A binding has exactly its contract's names (checked by `build`), and both maps
            // iterate in name order: template and binding zip.
            let mut observations = Vec::with_capacity(template.observations.len());
            for (t, (name, ob)) in template.observations.iter().zip(&b.observations) {
                debug_assert_eq!(t.name, *name);
                let Some((available, reason)) = self.availability(
                    reg,
                    dynamic,
                    &t.capability_id,
                    &t.name,
                    &ob.policies,
                    ob.when.as_ref(),
                    ob.unavailable_reason.as_deref(),
                    &mut discovery,
                ) else {
                    continue;
                };
                if !available && !ctx.include_unavailable {
                    continue;
                }
                observations.push(AgentObservationDescriptor { available, unavailable_reason: reason, ..t.clone() });
            }
            let mut actions = Vec::with_capacity(template.actions.len());
            for (t, (name, ab)) in template.actions.iter().zip(&b.actions) {
                debug_assert_eq!(t.name, *name);
                let Some((available, reason)) = self.availability(
                    reg,
                    dynamic,
                    &t.capability_id,
                    &t.name,
                    &ab.policies,
                    ab.when.as_ref(),
                    ab.unavailable_reason.as_deref(),
                    &mut discovery,
                ) else {
                    continue;
                };
                if !available && !ctx.include_unavailable {
                    continue;
                }
                actions.push(AgentActionDescriptor { available, unavailable_reason: reason, ..t.clone() });
            }
            for (index, p) in b.procedures.iter().enumerate() {
                // `when()` counts for procedures too (it is re-checked at invocation).
                let Some((available, reason)) = self.procedure_availability(reg, dynamic, index, &mut discovery) else {
                    continue;
                };
                if !available && !ctx.include_unavailable {
                    continue;
                }
                let note = p
                    .describe
                    .as_ref()
                    .and_then(|f| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f())).ok().flatten());
                let component = crate::binding::ParentLink {
                    component_type: ty.to_string(),
                    instance_id: b.instance_id().to_string(),
                };
                procedures
                    .push(p.contract.descriptor_template().procedure(available, reason, &reg.id, component, note));
            }
            components.push(template.component(b.instance_id(), &reg.id, b.parent.clone(), observations, actions));
        }
        procedures.sort_by(|a, b| {
            a.capability_id.cmp(&b.capability_id).then_with(|| a.registration_id.cmp(&b.registration_id))
        });
        let mut snapshot = AgentSurfaceSnapshot {
            surface_id: self.surface_id.clone(),
            surface_version: version.to_string(),
            captured_at: iso8601(self.now()),
            route: self
                .options
                .route
                .as_ref()
                .and_then(|f| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f())).ok().flatten()),
            components,
            procedures,
            truncated: None,
            scope_rejected: None,
        };
        if let Some(budget) = &ctx.budget {
            apply_budget(&mut snapshot, budget);
        }
        snapshot
    }
}

/// The [`DiscoveryContext`] of one snapshot, explanation or invocation: built the first time a
/// discovery policy will read it, then rewritten in place for each capability (no allocation
/// per capability).
pub(crate) struct DiscoveryScope<'a> {
    consumer: &'a AgentConsumer,
    host: &'a HostContext,
    context: Option<DiscoveryContext>,
}

impl<'a> DiscoveryScope<'a> {
    pub(crate) fn new(consumer: &'a AgentConsumer, host: &'a HostContext) -> Self {
        DiscoveryScope { consumer, host, context: None }
    }

    fn context(&mut self, capability_id: &str, component_type: &str, instance_id: &str) -> &DiscoveryContext {
        let (consumer, host) = (self.consumer, self.host);
        let c = self.context.get_or_insert_with(|| DiscoveryContext {
            capability_id: String::new(),
            component_type: String::new(),
            instance_id: String::new(),
            consumer: consumer.clone(),
            host: host.clone(),
        });
        for (field, value) in [
            (&mut c.capability_id, capability_id),
            (&mut c.component_type, component_type),
            (&mut c.instance_id, instance_id),
        ] {
            if field != value {
                field.clear();
                field.push_str(value);
            }
        }
        c
    }
}

/// Drops lowest-priority components (from the end of the ordering) until the budget holds, and
/// says so in `truncated`: no silent truncation.
/// The byte budget is measured on the snapshot as returned: without the dropped components'
/// procedures and with the `truncated` marker.
fn apply_budget(s: &mut AgentSurfaceSnapshot, budget: &SnapshotBudget) {
    let mut dropped = 0;
    let drop_last = |s: &mut AgentSurfaceSnapshot, dropped: &mut usize| {
        if let Some(c) = s.components.pop() {
            s.procedures.retain(|p| p.registration_id != c.registration_id);
            *dropped += 1;
            s.truncated = Some(Truncated { dropped_components: *dropped });
        }
    };
    if let Some(max) = budget.max_components {
        while s.components.len() > max {
            drop_last(s, &mut dropped);
        }
    }
    if let Some(max_bytes) = budget.max_bytes {
        while !s.components.is_empty() && agent_surface_model::canonical::canonical_json(&s.to_json()).len() > max_bytes
        {
            drop_last(s, &mut dropped);
        }
    }
}

/// A listener subscription; dropping it unsubscribes.
#[must_use = "dropping the Subscription unsubscribes at once; keep it, or call .forever()"]
pub struct Subscription {
    shared: Weak<Shared>,
    id: Option<u64>,
}

impl Subscription {
    pub fn unsubscribe(mut self) {
        self.end();
    }
    fn end(&mut self) {
        if let (Some(s), Some(id)) = (self.shared.upgrade(), self.id.take()) {
            s.events.unsubscribe(id);
        }
    }
    /// Keeps the listener for the registry's lifetime.
    pub fn forever(mut self) {
        self.id = None;
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.end();
    }
}

/// The handle `register` returns (the spec's `AgentRegistrationHandle`).
pub struct RegistrationHandle {
    shared: Weak<Shared>,
    registration_id: String,
    status: Arc<Mutex<RegistrationStatus>>,
}

impl RegistrationHandle {
    pub fn registration_id(&self) -> &str {
        &self.registration_id
    }

    pub fn status(&self) -> RegistrationStatus {
        *self.status.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn live(&self) -> Option<Arc<Shared>> {
        let shared = self.shared.upgrade()?;
        if self.status() != RegistrationStatus::Active {
            if shared.options.environment == Environment::Development {
                shared.log(LogLevel::Warn, format!("{} is not active: the call is ignored", self.registration_id));
            }
            return None;
        }
        Some(shared)
    }

    /// Pushes `enabled` and availability overrides; bumps the surface version and emits
    /// `availability-changed` for each capability whose pushed availability changed.
    pub fn update(&self, patch: RegistrationPatch) {
        let Some(shared) = self.live() else { return };
        let mut unknown = Vec::new();
        {
            let mut st = shared.lock();
            let Some(reg) = st.regs.get(&self.registration_id).cloned() else { return };
            let Some(before) = st.dynamic.get(&self.registration_id).cloned() else { return };
            let contract = reg.bound.contract();
            let mut after = before.clone();
            if let Some(e) = patch.enabled {
                after.enabled = e;
            }
            if let Some(av) = patch.availability {
                for (name, o) in av {
                    // Overrides name this component's observations and actions; anything else
                    // is a mistake to report, not to keep (it would never match).
                    if contract.observations.contains_key(&name) || contract.actions.contains_key(&name) {
                        after.overrides.insert(name, o);
                    } else {
                        unknown.push(name);
                    }
                }
            }
            let ty = reg.bound.component_type().to_string();
            let pushed = |d: &Dynamic, name: &str| d.enabled && d.overrides.get(name).is_none_or(|o| o.available);
            let capabilities = contract
                .observations
                .keys()
                .chain(contract.actions.keys())
                .map(|name| (name.clone(), agent_surface_model::ids::capability_id(&ty, name)));
            // Procedures follow `enabled` (no override can name them).
            let procedures = reg.bound.procedures.iter().map(|p| (p.id().to_string(), p.id().to_string()));
            for (name, capability_id) in capabilities.chain(procedures) {
                let (b, a) = (pushed(&before, &name), pushed(&after, &name));
                if a != b {
                    shared.events.push(AgentSurfaceEvent::AvailabilityChanged {
                        registration_id: self.registration_id.clone(),
                        capability_id,
                        available: a,
                    });
                }
            }
            st.dynamic.insert(self.registration_id.clone(), after);
            st.version += 1;
            shared.events.surface_changed();
        }
        for name in unknown {
            shared.log(LogLevel::Warn, format!("update of {}: \"{name}\" is not an observation or action of this component; the override is ignored", self.registration_id));
        }
        shared.flush();
    }

    /// Bumps the surface version without changing anything.
    pub fn invalidate(&self) {
        let Some(shared) = self.live() else { return };
        {
            let mut st = shared.lock();
            st.version += 1;
            shared.events.surface_changed();
        }
        shared.flush();
    }

    /// Unregisters (a no-op, with a development warning, when not active).
    pub fn unregister(&self) {
        let Some(shared) = self.live() else { return };
        {
            let mut st = shared.lock();
            shared.remove_locked(&mut st, &self.registration_id);
        }
        shared.flush();
    }
}
