//! The live surface: registrations with their pushed state, the surface version, tombstones,
//! the event bus, the validator cache, and availability. The registry mutates it; the
//! invocation pipeline and the confirmation store read it (they get this, not the registry).
//!
//! Mutations happen under one lock and publish events after releasing it (see
//! [`crate::events`]); user code (`when`, policies, listeners) never runs under the lock.

use super::options::{Environment, LogKind, LogLevel, LogRecord, RegistryOptions};
use crate::audit::{AuditRecord, AuditSink, MemoryAuditSink};
use crate::binding::{BoundComponent, BoundProcedure, HostContext, UnavailableReason, WhenFn};
use crate::consumer::AgentConsumer;
use crate::events::Dispatcher;
use crate::policy::{evaluate_discovery, DiscoveryContext, DiscoveryDecision, Policy, PolicyPhase};
use crate::procedure::AgentProcedureExecutor;
use agent_surface_model::canonical::canonical_json;
use agent_surface_model::limits::AgentSurfaceLimits;
use agent_surface_schema::validate::{ValidationIssue, Validator};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

/// The unavailable reason of a procedure referenced without a local `execute` while no
/// procedure executor is installed (snapshot, explanation, CAPABILITY_NOT_AVAILABLE).
pub const NO_PROCEDURE_EXECUTOR: &str = "no-procedure-executor";

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

/// The external tools one `expose` accepted: the exposure gateway runs them on a private
/// registry whose pipeline resolves `external:` ids here (a registry's own `external` is
/// `None`: such ids are CAPABILITY_NOT_FOUND). `id` ("exp_" + random) stands where a
/// registration id would: pending confirmations, audit records, handler contexts.
pub(crate) struct Exposure {
    pub id: String,
    pub tools: Vec<BoundProcedure>,
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

/// The registry's state that its parts share: options, identity, registrations, events,
/// validators. See the module documentation.
pub(crate) struct Surface {
    pub options: RegistryOptions,
    pub surface_id: String,
    pub state: Mutex<State>,
    pub events: Dispatcher,
    pub validators: Mutex<HashMap<String, Arc<Validator>>>,
    /// The bounded in-memory sink used when `options.audit` is not given.
    pub default_audit: Option<Arc<MemoryAuditSink>>,
    /// `setProcedureExecutor`: where procedures without a local `execute` go.
    pub procedure_executor: Mutex<Option<Arc<dyn AgentProcedureExecutor>>>,
    /// The gateway's external tools (a registry has none).
    pub external: Option<Arc<Exposure>>,
}

impl Surface {
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
        self.log_record(LogRecord { level, message, kind: None, invocation_id: None, capability_id: None });
    }

    pub(crate) fn log_record(&self, rec: LogRecord) {
        match &self.options.log {
            Some(f) => f(&rec),
            None if self.options.environment == Environment::Development => eprintln!("agent-surface: {}", rec.message),
            None => {}
        }
    }

    /// Hands a record to the audit sink: the one given, else the default in-memory ring (and,
    /// in development, a log record of kind `audit`).
    pub(crate) fn audit(&self, record: AuditRecord) {
        if let Some(sink) = &self.options.audit {
            sink.record(record);
        } else if let Some(ring) = &self.default_audit {
            if self.options.environment == Environment::Development {
                // Through the log hook, so a host without stderr (the page) shows it too.
                let code = record.code.as_deref().map(|c| format!(" {c}")).unwrap_or_default();
                self.log_record(LogRecord {
                    level: LogLevel::Info,
                    message: format!(
                        "audit: {} {} {} {}{code}",
                        record.invocation_id, record.capability_id, record.consumer_key, record.status
                    ),
                    kind: Some(LogKind::Audit),
                    invocation_id: Some(record.invocation_id.clone()),
                    capability_id: Some(record.capability_id.clone()),
                });
            }
            ring.record(record);
        }
    }

    pub(crate) fn flush(&self) {
        self.events.flush(|| self.lock().version.to_string());
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
        Surface::trim_tombstones(st, &self.options.limits, self.now());
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
        when: Option<&WhenFn>,
        reason: Option<&UnavailableReason>,
        forwarded: bool,
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
        let base = self.base_availability(dynamic, name, when, reason, forwarded, capability_id);
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
    /// only, and a procedure id never matches one), and for a reference without a local
    /// `execute`, an installed procedure executor ("no-procedure-executor").
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
            p.binding.unavailable_reason.as_ref(),
            p.binding.forwarded,
            discovery,
        )
    }

    /// Availability from state alone (enabled, pushed override, `when()`, and for a `forwarded`
    /// procedure reference an installed executor), without policies: what `explain_surface`
    /// reports apart from policy votes.
    pub(crate) fn base_availability(
        &self,
        dynamic: &Dynamic,
        name: &str,
        when: Option<&WhenFn>,
        reason: Option<&UnavailableReason>,
        forwarded: bool,
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
            match crate::binding::evaluate_when(w) {
                Some(true) => {}
                Some(false) => {
                    return (
                        false,
                        Some(reason.map(UnavailableReason::evaluate).unwrap_or_else(|| "unavailable".into())),
                    )
                }
                None => {
                    if self.options.environment == Environment::Development {
                        self.log(LogLevel::Warn, format!("when() of {capability_id} failed"));
                    }
                    return (false, Some("when-error".into()));
                }
            }
        }
        if forwarded && !self.has_procedure_executor() {
            return (false, Some(NO_PROCEDURE_EXECUTOR.into()));
        }
        (true, None)
    }

    /// Whether `setProcedureExecutor` installed one.
    pub(crate) fn has_procedure_executor(&self) -> bool {
        self.procedure_executor.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }

    /// A compiled validator for a schema, cached by its canonical text.
    pub(crate) fn validator(&self, schema: &Value) -> Result<Arc<Validator>, Option<Vec<ValidationIssue>>> {
        let key = canonical_json(schema);
        let mut cache = self.validators.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = cache.get(&key) {
            return Ok(v.clone());
        }
        let v = Arc::new(Validator::new(schema, &self.options.limits).map_err(|_| None)?);
        cache.insert(key, v.clone());
        Ok(v)
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

    pub(crate) fn context(
        &mut self,
        capability_id: &str,
        component_type: &str,
        instance_id: &str,
    ) -> &DiscoveryContext {
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
