//! What a registry is created with (the spec's `RegistryOptions`) and the types of its hooks.

use crate::audit::AuditSink;
use crate::authority::CapabilityAuthority;
use crate::host::clock::{default_clock, Clock};
use crate::host::spawn::{default_spawn, Spawn};
use crate::host::timer::{default_timer, Timer};
use crate::host::{MaybeSend, MaybeSync};
use crate::policy::Policy;
use crate::snapshot::AgentRouteInfo;
use agent_surface_model::limits::AgentSurfaceLimits;
use serde_json::{Map, Value};
use std::sync::Arc;

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
    /// What kind of record this is, when it is one a host may act on.
    pub kind: Option<LogKind>,
    /// The invocation the record is about (set for [`LogKind::LateSettlement`]).
    pub invocation_id: Option<String>,
    /// The capability the record is about (set for [`LogKind::LateSettlement`]).
    pub capability_id: Option<String>,
}

/// The kinds of [`LogRecord`] with a fixed meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogKind {
    /// A handler settled after its invocation had already settled TIMEOUT, CANCELLED or
    /// COMPONENT_UNMOUNTED; the settlement was ignored (spec: "ignores (but logs) any late
    /// handler settlement").
    LateSettlement,
    /// A settled invocation's audit line, logged in development when no audit sink was given
    /// (the records themselves go to the default in-memory sink).
    Audit,
}

impl LogKind {
    /// The spec's name: `"late-settlement"`.
    pub fn as_str(self) -> &'static str {
        match self {
            LogKind::LateSettlement => "late-settlement",
            LogKind::Audit => "audit",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogLevel {
    Info,
    Warn,
    Error,
}

pub type ContextFn = Arc<crate::dyn_send_sync!(Fn() -> Map<String, Value>)>;
pub type GuardFn = Arc<crate::dyn_send_sync!(Fn(&RegistrationCandidate) -> GuardDecision)>;
pub type RouteFn = Arc<crate::dyn_send_sync!(Fn() -> Option<AgentRouteInfo>)>;
pub type LogFn = Arc<crate::dyn_send_sync!(Fn(&LogRecord))>;

/// The spec's `RegistryOptions`, every field. The authority is mandatory: it is the
/// constructor's argument.
#[derive(Clone)]
pub struct RegistryOptions {
    pub authority: CapabilityAuthority,
    pub environment: Environment,
    pub context: Option<ContextFn>,
    pub policies: Vec<Policy>,
    pub audit: Option<Arc<dyn AuditSink>>,
    pub on_register: Option<GuardFn>,
    pub on_duplicate_instance: DuplicateInstance,
    pub duplicate_suffix_policy: DuplicateSuffixPolicy,
    pub route: Option<RouteFn>,
    pub limits: AgentSurfaceLimits,
    pub clock: Arc<dyn Clock>,
    pub log: Option<LogFn>,
    /// Timeouts and confirmation TTLs (the host's [`Timer`]); `None`: they never fire.
    pub timer: Option<Arc<dyn Timer>>,
    /// Background work (the host's [`Spawn`]): with a [`timer`](Self::timer) too, a pending
    /// confirmation expires at its TTL by itself (`confirmation-resolved {outcome: "expired"}`
    /// and the `confirmations().subscribe` listeners fire without any other call). Natively
    /// the default is a thread per pending confirmation ([`ThreadSpawn`](crate::host::spawn::ThreadSpawn),
    /// at most `maxPendingConfirmations` of them); on wasm32 there is no default. Without a
    /// timer or a spawner, expiry is checked lazily: on the next `pending()`, `resolve`,
    /// `wait_for` deadline or confirmation check.
    pub spawn: Option<Arc<dyn Spawn>>,
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
            clock: default_clock(),
            log: None,
            timer: default_timer(),
            spawn: default_spawn(),
        }
    }
    pub fn environment(mut self, e: Environment) -> Self {
        self.environment = e;
        self
    }
    pub fn context(mut self, f: impl Fn() -> Map<String, Value> + MaybeSend + MaybeSync + 'static) -> Self {
        self.context = Some(Arc::new(f));
        self
    }
    pub fn policy(mut self, p: Policy) -> Self {
        self.policies.push(p);
        self
    }
    pub fn audit(mut self, sink: Arc<dyn AuditSink>) -> Self {
        self.audit = Some(sink);
        self
    }
    pub fn on_register(
        mut self,
        f: impl Fn(&RegistrationCandidate) -> GuardDecision + MaybeSend + MaybeSync + 'static,
    ) -> Self {
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
    pub fn route(mut self, f: impl Fn() -> Option<AgentRouteInfo> + MaybeSend + MaybeSync + 'static) -> Self {
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
    pub fn log(mut self, f: impl Fn(&LogRecord) + MaybeSend + MaybeSync + 'static) -> Self {
        self.log = Some(Arc::new(f));
        self
    }
    /// The timers for timeouts and confirmation TTLs. Background work sleeps on them too, so a
    /// timer bound to an executor (tokio's) needs that executor's spawner as well:
    /// `.timer(Arc::new(TokioTimer)).spawn(Arc::new(TokioSpawn))`.
    pub fn timer(mut self, t: Arc<dyn Timer>) -> Self {
        self.timer = Some(t);
        self
    }
    /// Where background work runs: a pending confirmation's expiry and the watch on a handler
    /// that lost to its timeout. Default: one shared thread natively, none on wasm32.
    pub fn spawn(mut self, s: Arc<dyn Spawn>) -> Self {
        self.spawn = Some(s);
        self
    }
}
