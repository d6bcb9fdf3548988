//! The registry: live registrations of bound contracts, the surface version, tombstones,
//! availability, snapshots and events. Construction requires a [`CapabilityAuthority`]; raw
//! definitions, contracts from another authority and structurally broken bindings are refused.
//!
//! - [`options`]: `RegistryOptions` and the hook types (they live in [`crate::surface`], with
//!   the live state the registry shares with the pipeline and the confirmations).
//! - `catalog`: the snapshot. [`handle`]: registration handles and subscriptions.
//!
//! `invoke` is here: it hands the pipeline ([`crate::invoke`]) the parts it needs.

mod catalog;
pub mod handle;
pub use crate::surface::options;

pub use crate::surface::state::{AvailabilityOverride, RegistrationPatch, RegistrationStatus, NO_PROCEDURE_EXECUTOR};
pub use handle::{RegistrationHandle, Subscription};
pub use options::*;

use crate::audit::{AuditRecord, MemoryAuditSink};
use crate::authority::CapabilityAuthority;
use crate::binding::{BindingError, BoundComponent, Registrable};
use crate::confirm::store::{ConfirmationHost, Confirmations};
use crate::confirm::{ConfirmParts, ConfirmationController};
use crate::events::{AgentSurfaceEvent, Dispatcher, Listener, RejectReason};
use crate::host::entropy::base62;
use crate::host::{MaybeSend, MaybeSync};
use crate::invoke::{AgentInvocation, AgentInvocationResult, Inflight, InvokeOptions, Parts, RegistryDisposed};
use crate::procedure::AgentProcedureExecutor;
use crate::snapshot::{AgentSurfaceSnapshot, SnapshotContext};
use crate::surface::state::{Dynamic, Reg, State, Surface, Tombstone};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

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

/// A registry's parts: the live surface, what is in flight, the pending confirmations.
pub(crate) struct Shared {
    pub surface: Surface,
    pub inflight: Inflight,
    pub confirmations: Confirmations,
}

impl ConfirmationHost for Shared {
    fn surface(&self) -> &Surface {
        &self.surface
    }
    fn confirmations(&self) -> &Confirmations {
        &self.confirmations
    }
}

impl ConfirmParts for Shared {
    fn surface(&self) -> &Surface {
        &self.surface
    }
    fn confirmations(&self) -> &Confirmations {
        &self.confirmations
    }
}

impl Parts for Shared {
    fn inflight(&self) -> &Inflight {
        &self.inflight
    }
}

/// The spec's `AgentSurfaceRegistry`. Cheap to clone (shared).
#[derive(Clone)]
pub struct AgentSurfaceRegistry {
    pub(crate) shared: Arc<Shared>,
}

impl AgentSurfaceRegistry {
    /// The spec's `createAgentSurfaceRegistry({ authority, ... })`.
    pub fn new(options: RegistryOptions) -> Self {
        Self::with_external(options, None)
    }

    /// A registry whose pipeline also resolves the `external:` tools of an exposure (the
    /// gateway's private one; nothing registers into it).
    pub(crate) fn with_external(
        options: RegistryOptions,
        external: Option<Arc<crate::surface::state::Exposure>>,
    ) -> Self {
        let default_audit = options.audit.is_none().then(|| Arc::new(MemoryAuditSink::default()));
        let shared = Arc::new(Shared {
            surface: Surface {
                default_audit,
                procedure_executor: Mutex::new(None),
                external,
                surface_id: format!("srf_{}", base62(22)),
                options,
                state: Mutex::new(State::default()),
                events: Dispatcher::default(),
                validators: Mutex::default(),
            },
            inflight: Default::default(),
            confirmations: Default::default(),
        });
        let host: Arc<dyn ConfirmationHost> = shared.clone();
        let _ = shared.confirmations.host.set(Arc::downgrade(&host));
        AgentSurfaceRegistry { shared }
    }

    pub fn surface_id(&self) -> &str {
        &self.shared.surface.surface_id
    }

    pub fn authority(&self) -> &CapabilityAuthority {
        &self.shared.surface.options.authority
    }

    pub fn options(&self) -> &RegistryOptions {
        &self.shared.surface.options
    }

    /// The records of the default audit sink (the newest
    /// [`DEFAULT_AUDIT_CAPACITY`](crate::audit::DEFAULT_AUDIT_CAPACITY), oldest first). Empty
    /// when `RegistryOptions.audit` was given: the records went to that sink.
    pub fn audit_records(&self) -> Vec<AuditRecord> {
        self.shared.surface.default_audit.as_ref().map(|s| s.records()).unwrap_or_default()
    }

    /// The spec's `setProcedureExecutor(executor | undefined)`: procedures referenced without a
    /// local `execute` are forwarded to it with `{procedureId, input, invocationId}` (read at
    /// each invocation). `None` uninstalls it: such references are then unavailable (reason
    /// [`NO_PROCEDURE_EXECUTOR`]) in snapshots and CAPABILITY_NOT_AVAILABLE when invoked. Every
    /// call is a surface-affecting mutation: the version goes up by one and `surface-changed` is
    /// emitted (a no-op on a disposed registry).
    pub fn set_procedure_executor(&self, executor: Option<Arc<dyn AgentProcedureExecutor>>) {
        let surface = &self.shared.surface;
        {
            let mut st = surface.lock();
            if st.disposed {
                return;
            }
            *surface.procedure_executor.lock().unwrap_or_else(|e| e.into_inner()) = executor;
            st.version += 1;
            surface.events.surface_changed();
        }
        surface.flush();
    }

    /// The current surface version (decimal string; compare for equality only).
    pub fn version(&self) -> String {
        self.shared.surface.lock().version.to_string()
    }

    /// Subscribes to events; the subscription ends when the returned guard is dropped or
    /// `unsubscribe` is called.
    pub fn subscribe(&self, f: impl Fn(&AgentSurfaceEvent) + MaybeSend + MaybeSync + 'static) -> Subscription {
        let l: Listener = Arc::new(f);
        let id = self.shared.surface.events.subscribe(l);
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
        let collisions = check_registrable(&shared.surface, &bound)?;
        let ty = bound.component_type().to_string();
        let candidate = RegistrationCandidate {
            component_type: ty.clone(),
            instance_id: bound.instance_id().to_string(),
            origin: bound.contract().origin.clone(),
            internal: bound.internal.clone(),
        };
        let guard_rejects = shared.surface.options.on_register.as_ref().is_some_and(|g| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| g(&candidate))).unwrap_or(GuardDecision::Reject)
                == GuardDecision::Reject
        });
        let status = Arc::new(Mutex::new(RegistrationStatus::Active));
        let id;
        // Log lines go out after the lock is released: the log option is user code.
        let mut logs = Vec::new();
        {
            let mut st = shared.surface.lock();
            if st.disposed {
                return Err(DefinitionError::Disposed);
            }
            st.seq += 1;
            id = format!("reg_{}_{}", st.seq, base62(8));
            let key = (ty.clone(), bound.instance_id().to_string());
            let mut reject = |reason: RejectReason| {
                *status.lock().unwrap_or_else(|e| e.into_inner()) = RegistrationStatus::Rejected;
                shared.surface.events.push(AgentSurfaceEvent::ComponentRejected {
                    component_type: key.0.clone(),
                    instance_id: key.1.clone(),
                    reason,
                });
                if shared.surface.options.environment == Environment::Development {
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
                match shared.surface.options.on_duplicate_instance {
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
                shared.surface.events.push(AgentSurfaceEvent::ComponentRegistered {
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
                    shared.surface.events.push(AgentSurfaceEvent::CollisionSuspected {
                        view_capability_id: view,
                        domain_procedure_id: domain,
                    });
                }
                shared.surface.events.surface_changed();
            }
        }
        for (level, message) in logs {
            shared.surface.log(level, message);
        }
        shared.surface.flush();
        Ok(RegistrationHandle { shared: Arc::downgrade(shared), registration_id: id, status })
    }

    /// The synchronous, side-effect-free catalog for `ctx`.
    pub fn snapshot(&self, ctx: &SnapshotContext) -> AgentSurfaceSnapshot {
        self.shared.surface.snapshot(ctx)
    }

    /// Tears down: in-flight invocations settle CANCELLED, pending confirmations expire,
    /// everything is unregistered and listeners are dropped. Idempotent.
    pub fn dispose(&self) {
        let shared = &self.shared;
        {
            let mut st = shared.surface.lock();
            if st.disposed {
                return;
            }
            st.disposed = true;
        }
        // In-flight work is cancelled by the disposal (CANCELLED, signal reason "disposed")
        // before the registrations go, so it is not mistaken for an unmount.
        shared.inflight.cancel_all();
        shared.confirmations.expire_all(&shared.surface);
        {
            let mut st = shared.surface.lock();
            for id in st.regs.keys().cloned().collect::<Vec<_>>() {
                shared.remove_locked(&mut st, &id);
            }
        }
        shared.surface.flush();
        shared.surface.events.clear();
    }

    pub fn is_disposed(&self) -> bool {
        self.shared.surface.lock().disposed
    }

    /// Sizes of the bounded structures, for tests and monitoring.
    pub fn stats(&self) -> RegistryStats {
        let (dedupe_entries, admission_groups, running, observation_slots) = self.shared.inflight.stats();
        // Outside the state lock: reading the pending list may expire some and flush events.
        let pending_confirmations = self.confirmations().pending().len();
        let mut st = self.shared.surface.lock();
        // Expired tombstones are dropped lazily; do not report them as remembered.
        Surface::trim_tombstones(&mut st, &self.shared.surface.options.limits, self.shared.surface.now());
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

    /// Invokes a capability. Always returns a result envelope; `Err` only when the registry was
    /// disposed (programmer misuse). The pipeline ([`crate::invoke`]) gets this registry's
    /// parts (surface, in-flight state, confirmations), nothing else.
    pub async fn invoke(
        &self,
        request: AgentInvocation,
        options: InvokeOptions,
    ) -> Result<AgentInvocationResult, RegistryDisposed> {
        if self.shared.surface.lock().disposed {
            return Err(RegistryDisposed);
        }
        let parts: Arc<dyn Parts> = self.shared.clone();
        Ok(crate::invoke::invoke(parts, request, options, crate::invoke::Confirmer::Return).await)
    }

    /// The confirmation controller (the spec's `registry.confirmations`).
    pub fn confirmations(&self) -> ConfirmationController {
        let parts: Arc<dyn ConfirmParts> = self.shared.clone();
        ConfirmationController { parts: Arc::downgrade(&parts) }
    }

    /// Live registrations as (registrationId, type, instanceId), in registration-id order.
    pub fn registrations(&self) -> Vec<(String, String, String)> {
        self.shared
            .surface
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
    /// Unregisters under the lock: tombstone, events, version bump, abort in-flight work.
    pub(crate) fn remove_locked(&self, st: &mut State, id: &str) {
        if self.detach_locked(st, id) {
            st.version += 1;
            self.surface.events.surface_changed();
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
        let now = self.surface.now();
        st.tombstones.push_back(Tombstone {
            registration_id: id.to_string(),
            component_type: key.0.clone(),
            instance_id: key.1.clone(),
            at_ms: now,
        });
        Surface::trim_tombstones(st, &self.surface.options.limits, now);
        self.inflight.unmounted(id);
        self.surface.events.push(AgentSurfaceEvent::ComponentUnregistered {
            registration_id: id.to_string(),
            component_type: key.0,
            instance_id: key.1,
        });
        true
    }
}

/// The structural checks of `register`: provenance from this registry's authority, the
/// instance id, this registry's limits (when they differ from the authority's), and
/// cross-plane suffix collisions. Returns the collisions to warn about.
fn check_registrable(surface: &Surface, bound: &BoundComponent) -> Result<Vec<(String, String)>, DefinitionError> {
    let options = &surface.options;
    let authority = &options.authority;
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
    if options.limits != *authority.limits() {
        use agent_surface_model::manifest::ManifestContract;
        let contracts = std::iter::once(ManifestContract::Component(bound.contract().clone()))
            .chain(bound.procedures.iter().map(|p| ManifestContract::Procedure(p.contract.contract().clone())));
        for c in contracts {
            if let Some(v) = agent_surface_model::definition::validate_contract(&c, &options.limits).into_iter().next()
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
    let ty = bound.component_type();
    let mut collisions = Vec::new();
    if options.duplicate_suffix_policy != DuplicateSuffixPolicy::Off {
        for name in bound.contract().observations.keys().chain(bound.contract().actions.keys()) {
            let domain = format!("domain:{ty}.{name}");
            if authority.procedure(&domain).is_ok() {
                let view = agent_surface_model::ids::capability_id(ty, name);
                if options.duplicate_suffix_policy == DuplicateSuffixPolicy::Error {
                    return Err(DefinitionError::SuffixCollision { view, domain });
                }
                collisions.push((view, domain));
            }
        }
    }
    Ok(collisions)
}
