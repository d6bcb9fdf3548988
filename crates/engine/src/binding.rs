//! Bindings: live handlers attached to a contract from the authority. Every declared
//! observation needs a `read`, every action an `execute`; missing or extra names are errors.
//! Bindings may add runtime policies, availability (`when`) and `enabled`, never identity or
//! governance: those come from the manifest. Raw definitions (built by hand, no provenance)
//! exist for tooling; registries refuse them.

use crate::authority::{ContractRef, Provenance};
use crate::consumer::AgentConsumer;
use crate::host::{MaybeSend, MaybeSync};
use crate::policy::Policy;
use crate::signal::AbortSignal;
use agent_surface_model::ids::{check_instance_id, IdError};
use agent_surface_model::manifest::{ComponentContract, OperationContract};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::sync::Arc;

/// Handler futures: `Send` natively, not on wasm32 (see [`crate::host`]).
pub use crate::host::BoxFuture;

/// Host context provided by `RegistryOptions::context`.
pub type HostContext = Arc<Map<String, Value>>;

/// What `read` receives.
#[derive(Clone, Debug)]
pub struct ReadContext {
    pub capability_id: String,
    pub registration_id: String,
    pub consumer: AgentConsumer,
    pub host: HostContext,
}

/// Evidence of an approved confirmation carried by an invocation.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfirmationEvidence {
    pub id: String,
    pub approved_at: String,
}

/// What `execute` receives.
#[derive(Clone, Debug)]
pub struct ActionContext {
    pub capability_id: String,
    pub registration_id: String,
    pub consumer: AgentConsumer,
    pub host: HostContext,
    pub invocation_id: String,
    /// Aborted on timeout, external cancellation or unmount. Cooperative.
    pub signal: AbortSignal,
    pub confirmation: Option<ConfirmationEvidence>,
}

/// An agent-safe precondition failure (PRECONDITION_FAILED).
#[derive(Clone, Debug, PartialEq)]
pub struct PreconditionFailure {
    pub message: String,
    pub details: Option<Map<String, Value>>,
}

/// How a handler fails.
#[derive(Clone, Debug, PartialEq)]
pub enum HandlerError {
    /// An internal failure: logged, never shown to the agent (EXECUTION_FAILED).
    Failed(String),
    /// A precondition raised from inside the handler.
    Precondition(PreconditionFailure),
}

impl<E: std::error::Error> From<E> for HandlerError {
    fn from(e: E) -> Self {
        HandlerError::Failed(e.to_string())
    }
}

pub type HandlerResult = Result<Value, HandlerError>;

/// Reads an observation. MUST be side-effect free.
pub trait ObservationHandler: MaybeSend + MaybeSync {
    fn read(&self, ctx: ReadContext) -> BoxFuture<HandlerResult>;
}

/// Executes an action or procedure with the parsed, defaulted input.
pub trait ActionHandler: MaybeSend + MaybeSync {
    fn execute(&self, input: Value, ctx: ActionContext) -> BoxFuture<HandlerResult>;
}

/// Input-aware validation beyond the schema.
pub trait Precondition: MaybeSend + MaybeSync {
    fn check(&self, input: &Value, ctx: &ReadContext) -> Result<(), PreconditionFailure>;
}

struct ReadFn<F>(F);
impl<F, Fut> ObservationHandler for ReadFn<F>
where
    F: Fn(ReadContext) -> Fut + MaybeSend + MaybeSync,
    Fut: Future<Output = HandlerResult> + MaybeSend + 'static,
{
    fn read(&self, ctx: ReadContext) -> BoxFuture<HandlerResult> {
        Box::pin((self.0)(ctx))
    }
}

struct ExecFn<F>(F);
impl<F, Fut> ActionHandler for ExecFn<F>
where
    F: Fn(Value, ActionContext) -> Fut + MaybeSend + MaybeSync,
    Fut: Future<Output = HandlerResult> + MaybeSend + 'static,
{
    fn execute(&self, input: Value, ctx: ActionContext) -> BoxFuture<HandlerResult> {
        Box::pin((self.0)(input, ctx))
    }
}

struct PreFn<F>(F);
impl<F> Precondition for PreFn<F>
where
    F: Fn(&Value, &ReadContext) -> Result<(), PreconditionFailure> + MaybeSend + MaybeSync,
{
    fn check(&self, input: &Value, ctx: &ReadContext) -> Result<(), PreconditionFailure> {
        (self.0)(input, ctx)
    }
}

/// An async `read` handler from a closure.
pub fn read_fn<F, Fut>(f: F) -> Arc<dyn ObservationHandler>
where
    F: Fn(ReadContext) -> Fut + MaybeSend + MaybeSync + 'static,
    Fut: Future<Output = HandlerResult> + MaybeSend + 'static,
{
    Arc::new(ReadFn(f))
}

/// A synchronous `read` handler (the common case: read from a store).
pub fn read_sync(f: impl Fn(&ReadContext) -> Value + MaybeSend + MaybeSync + 'static) -> Arc<dyn ObservationHandler> {
    let f = Arc::new(f);
    read_fn(move |ctx| {
        let v = f(&ctx);
        async move { Ok(v) }
    })
}

/// An async `execute` handler from a closure.
pub fn execute_fn<F, Fut>(f: F) -> Arc<dyn ActionHandler>
where
    F: Fn(Value, ActionContext) -> Fut + MaybeSend + MaybeSync + 'static,
    Fut: Future<Output = HandlerResult> + MaybeSend + 'static,
{
    Arc::new(ExecFn(f))
}

/// A precondition from a closure.
pub fn precondition_fn(
    f: impl Fn(&Value, &ReadContext) -> Result<(), PreconditionFailure> + MaybeSend + MaybeSync + 'static,
) -> Arc<dyn Precondition> {
    Arc::new(PreFn(f))
}

/// `when()`: availability re-evaluated at snapshot and invocation. Synchronous. `None` means it
/// failed (a JavaScript host's exception; natively a panic counts the same): unavailable,
/// reason "when-error". Hosts whose `when` cannot fail use the `when(f, reason)` builders.
pub type WhenFn = Arc<crate::dyn_send_sync!(Fn() -> Option<bool>)>;

/// Evaluates a `when`: `Some(available)`, `None` if it failed or panicked.
pub(crate) fn evaluate_when(w: &WhenFn) -> Option<bool> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| w())).ok().flatten()
}

/// Validation of the effective input beyond its JSON Schema, with the issues as INVALID_INPUT
/// reports them: a schema library's own validator (the page's `fromStandardSchema`, whose
/// `~standard.validate` must accept the same value the JSON Schema accepted).
pub type InputCheck = Arc<crate::dyn_send_sync!(Fn(&Value) -> Result<(), Vec<agent_surface_schema::ValidationIssue>>)>;

/// The spec's `unavailableReason?: string | (() => string)`: fixed text, or a closure
/// evaluated when availability is computed (snapshot, explanation, invocation phase 3) and
/// `when()` is false. A panicking closure gives "unavailable".
#[derive(Clone)]
pub enum UnavailableReason {
    Text(String),
    Computed(Arc<crate::dyn_send_sync!(Fn() -> String)>),
}

impl UnavailableReason {
    /// A reason computed at evaluation time.
    pub fn computed(f: impl Fn() -> String + MaybeSend + MaybeSync + 'static) -> Self {
        UnavailableReason::Computed(Arc::new(f))
    }
    /// The reason's text now.
    pub fn evaluate(&self) -> String {
        match self {
            UnavailableReason::Text(t) => t.clone(),
            UnavailableReason::Computed(f) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f()))
                .unwrap_or_else(|_| "unavailable".to_string()),
        }
    }
}

impl std::fmt::Debug for UnavailableReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UnavailableReason::Text(t) => f.debug_tuple("Text").field(t).finish(),
            UnavailableReason::Computed(_) => f.write_str("Computed(..)"),
        }
    }
}

impl From<String> for UnavailableReason {
    fn from(t: String) -> Self {
        UnavailableReason::Text(t)
    }
}

impl From<&str> for UnavailableReason {
    fn from(t: &str) -> Self {
        UnavailableReason::Text(t.to_string())
    }
}

impl From<&String> for UnavailableReason {
    fn from(t: &String) -> Self {
        UnavailableReason::Text(t.clone())
    }
}

/// The spec's `AgentConcurrency` (runtime behaviour, not model-visible).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AgentConcurrency {
    Instance { queue_depth: Option<usize> },
    Capability { queue_depth: Option<usize> },
    Key { key: String, queue_depth: Option<usize> },
    Parallel { max: usize, queue_depth: Option<usize> },
}

impl Default for AgentConcurrency {
    fn default() -> Self {
        AgentConcurrency::Instance { queue_depth: None }
    }
}

/// Runtime additions to one observation.
#[derive(Clone)]
pub struct ObservationBinding {
    pub(crate) read: Arc<dyn ObservationHandler>,
    pub(crate) when: Option<WhenFn>,
    pub(crate) unavailable_reason: Option<UnavailableReason>,
    pub(crate) policies: Vec<Policy>,
    pub(crate) timeout_ms: Option<u64>,
}

impl ObservationBinding {
    pub fn new(read: Arc<dyn ObservationHandler>) -> Self {
        ObservationBinding { read, when: None, unavailable_reason: None, policies: Vec::new(), timeout_ms: None }
    }
    pub fn when(
        mut self,
        f: impl Fn() -> bool + MaybeSend + MaybeSync + 'static,
        reason: impl Into<UnavailableReason>,
    ) -> Self {
        self.when = Some(Arc::new(move || Some(f())));
        self.unavailable_reason = Some(reason.into());
        self
    }
    /// A `when` that may fail (`None`: "when-error"), with an optional reason: how a host
    /// whose predicates can throw (JavaScript) binds them.
    pub fn when_fallible(
        mut self,
        f: impl Fn() -> Option<bool> + MaybeSend + MaybeSync + 'static,
        reason: Option<UnavailableReason>,
    ) -> Self {
        self.when = Some(Arc::new(f));
        self.unavailable_reason = reason;
        self
    }
    pub fn policy(mut self, p: Policy) -> Self {
        self.policies.push(p);
        self
    }
    pub fn timeout_ms(mut self, ms: u64) -> Self {
        self.timeout_ms = Some(ms);
        self
    }
}

impl<T: ObservationHandler + 'static> From<Arc<T>> for ObservationBinding {
    fn from(h: Arc<T>) -> Self {
        ObservationBinding::new(h)
    }
}

impl From<Arc<dyn ObservationHandler>> for ObservationBinding {
    fn from(h: Arc<dyn ObservationHandler>) -> Self {
        ObservationBinding::new(h)
    }
}

/// Runtime additions to one action (or a procedure/external tool).
#[derive(Clone)]
pub struct ActionBinding {
    pub(crate) execute: Arc<dyn ActionHandler>,
    pub(crate) when: Option<WhenFn>,
    pub(crate) unavailable_reason: Option<UnavailableReason>,
    pub(crate) precondition: Option<Arc<dyn Precondition>>,
    pub(crate) input_check: Option<InputCheck>,
    pub(crate) policies: Vec<Policy>,
    pub(crate) timeout_ms: Option<u64>,
    pub(crate) concurrency: AgentConcurrency,
    /// No local `execute`: a procedure bound so is forwarded to the registry's
    /// [`AgentProcedureExecutor`](crate::procedure::AgentProcedureExecutor).
    pub(crate) forwarded: bool,
}

/// The `execute` of a forwarded binding: never called (the pipeline forwards instead).
struct NoLocalExecute;
impl ActionHandler for NoLocalExecute {
    fn execute(&self, _input: Value, _ctx: ActionContext) -> BoxFuture<HandlerResult> {
        Box::pin(std::future::ready(Err(HandlerError::Failed("no local execute".into()))))
    }
}

impl ActionBinding {
    /// A procedure binding without a local `execute`: calls are forwarded to the registry's
    /// procedure executor (`set_procedure_executor`); while none is installed the reference is
    /// unavailable ("no-procedure-executor"). `when`, policies, timeout and concurrency apply
    /// as usual.
    pub fn forwarded() -> Self {
        ActionBinding { forwarded: true, ..ActionBinding::new(Arc::new(NoLocalExecute)) }
    }

    pub fn new(execute: Arc<dyn ActionHandler>) -> Self {
        ActionBinding {
            forwarded: false,
            execute,
            when: None,
            unavailable_reason: None,
            precondition: None,
            input_check: None,
            policies: Vec::new(),
            timeout_ms: None,
            concurrency: AgentConcurrency::default(),
        }
    }
    pub fn when(
        mut self,
        f: impl Fn() -> bool + MaybeSend + MaybeSync + 'static,
        reason: impl Into<UnavailableReason>,
    ) -> Self {
        self.when = Some(Arc::new(move || Some(f())));
        self.unavailable_reason = Some(reason.into());
        self
    }
    /// A `when` that may fail (`None`: "when-error"), with an optional reason: how a host
    /// whose predicates can throw (JavaScript) binds them.
    pub fn when_fallible(
        mut self,
        f: impl Fn() -> Option<bool> + MaybeSend + MaybeSync + 'static,
        reason: Option<UnavailableReason>,
    ) -> Self {
        self.when = Some(Arc::new(f));
        self.unavailable_reason = reason;
        self
    }
    pub fn precondition(mut self, p: Arc<dyn Precondition>) -> Self {
        self.precondition = Some(p);
        self
    }
    /// Validation beyond the JSON Schema, run on the effective input right after it (step 5):
    /// its issues answer INVALID_INPUT before any precondition, policy or confirmation.
    pub fn input_check(
        mut self,
        f: impl Fn(&Value) -> Result<(), Vec<agent_surface_schema::ValidationIssue>> + MaybeSend + MaybeSync + 'static,
    ) -> Self {
        self.input_check = Some(Arc::new(f));
        self
    }
    pub fn policy(mut self, p: Policy) -> Self {
        self.policies.push(p);
        self
    }
    pub fn timeout_ms(mut self, ms: u64) -> Self {
        self.timeout_ms = Some(ms);
        self
    }
    pub fn concurrency(mut self, c: AgentConcurrency) -> Self {
        self.concurrency = c;
        self
    }
}

impl From<Arc<dyn ActionHandler>> for ActionBinding {
    fn from(h: Arc<dyn ActionHandler>) -> Self {
        ActionBinding::new(h)
    }
}

/// A structural defect in a binding (the spec's `AgentSurfaceDefinitionError` at bind time).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BindingError {
    #[error("observation \"{name}\" of \"{contract}\" has no read handler")]
    MissingRead { contract: String, name: String },
    #[error("action \"{name}\" of \"{contract}\" has no execute handler")]
    MissingExecute { contract: String, name: String },
    #[error("\"{contract}\" declares no observation \"{name}\"")]
    UnknownObservation { contract: String, name: String },
    #[error("\"{contract}\" declares no action \"{name}\"")]
    UnknownAction { contract: String, name: String },
    #[error("invalid instance id: {0}")]
    InvalidInstanceId(IdError),
    #[error("action \"{name}\": parallel concurrency needs an integer max ≥ 1")]
    InvalidConcurrency { name: String },
    #[error("\"{contract}\" references the procedure \"{id}\" twice")]
    DuplicateProcedure { contract: String, id: String },
    #[error("\"{contract}\" references \"{id}\", which is not a domain procedure (external tools are exposed through a gateway)")]
    NotAProcedure { contract: String, id: String },
    #[error("\"{0}\" is an external tool: it runs where it is exposed and needs its own execute (only domain procedures are forwarded to a procedure executor)")]
    ExternalToolWithoutExecute(String),
}

pub use crate::snapshot::ParentLink;

/// A procedure referenced by a registration (domain plane), bound to its executor.
#[derive(Clone)]
pub struct BoundProcedure {
    pub(crate) contract: ContractRef<OperationContract>,
    pub(crate) binding: ActionBinding,
    pub(crate) describe: Option<Arc<crate::dyn_send_sync!(Fn() -> Option<String>)>>,
}

impl BoundProcedure {
    pub fn id(&self) -> &str {
        self.contract.id()
    }
    pub fn provenance(&self) -> Provenance {
        self.contract.provenance()
    }
}

impl ContractRef<OperationContract> {
    /// Binds a procedure (or external tool) to its executor. Every option of the binding is
    /// honoured by the registry's pipeline, and by the exposure gateway's for an external tool
    /// (`when`/`unavailable_reason`, `precondition`, `input_check`, `policies`, `timeout_ms`,
    /// `concurrency`, `describe`); an external tool without a local `execute`
    /// ([`ActionBinding::forwarded`]) is refused.
    pub fn bind(&self, binding: impl Into<ActionBinding>) -> Result<BoundProcedure, BindingError> {
        let binding = binding.into();
        validate_concurrency(self.id(), &binding.concurrency)?;
        if binding.forwarded && !self.id().starts_with(agent_surface_model::ids::DOMAIN_PREFIX) {
            return Err(BindingError::ExternalToolWithoutExecute(self.id().to_string()));
        }
        Ok(BoundProcedure { contract: self.clone(), binding, describe: None })
    }

    /// References the procedure without a local `execute`: see [`ActionBinding::forwarded`].
    /// An external tool cannot be forwarded ([`BindingError::ExternalToolWithoutExecute`]).
    pub fn forward(&self) -> Result<BoundProcedure, BindingError> {
        self.bind(ActionBinding::forwarded())
    }
}

impl BoundProcedure {
    /// Live text shown next to the stable description (`contextualNote`), never inside it.
    pub fn describe(mut self, f: impl Fn() -> Option<String> + MaybeSend + MaybeSync + 'static) -> Self {
        self.describe = Some(Arc::new(f));
        self
    }
}

fn validate_concurrency(name: &str, c: &AgentConcurrency) -> Result<(), BindingError> {
    match c {
        AgentConcurrency::Parallel { max, .. } if *max < 1 => {
            Err(BindingError::InvalidConcurrency { name: name.to_string() })
        }
        _ => Ok(()),
    }
}

/// A component contract bound to its handlers, ready to register.
#[derive(Clone)]
pub struct BoundComponent {
    pub(crate) contract: ContractRef<ComponentContract>,
    pub(crate) instance_id: String,
    pub(crate) observations: BTreeMap<String, ObservationBinding>,
    pub(crate) actions: BTreeMap<String, ActionBinding>,
    pub(crate) enabled: bool,
    pub(crate) parent: Option<ParentLink>,
    pub(crate) internal: Map<String, Value>,
    pub(crate) policies: Vec<Policy>,
    pub(crate) procedures: Vec<BoundProcedure>,
}

impl BoundComponent {
    pub fn component_type(&self) -> &str {
        &self.contract.contract().r#type
    }
    pub fn instance_id(&self) -> &str {
        &self.instance_id
    }
    pub fn contract(&self) -> &ComponentContract {
        self.contract.contract()
    }
    pub fn provenance(&self) -> Provenance {
        self.contract.provenance()
    }
}

/// Builder returned by [`ContractRef::<ComponentContract>::bind`].
pub struct ComponentBinder {
    contract: ContractRef<ComponentContract>,
    instance_id: String,
    observations: BTreeMap<String, ObservationBinding>,
    actions: BTreeMap<String, ActionBinding>,
    enabled: bool,
    parent: Option<ParentLink>,
    internal: Map<String, Value>,
    policies: Vec<Policy>,
    procedures: Vec<BoundProcedure>,
}

impl ContractRef<ComponentContract> {
    /// Starts binding handlers to this contract (the spec's `contract.bind({...})`).
    pub fn bind(&self) -> ComponentBinder {
        ComponentBinder {
            contract: self.clone(),
            instance_id: "default".into(),
            observations: BTreeMap::new(),
            actions: BTreeMap::new(),
            enabled: true,
            parent: None,
            internal: Map::new(),
            policies: Vec::new(),
            procedures: Vec::new(),
        }
    }
}

impl ComponentBinder {
    /// Distinguishes simultaneous mounts; derive it from data, never render order.
    pub fn instance(mut self, id: impl Into<String>) -> Self {
        self.instance_id = id.into();
        self
    }
    pub fn observation(mut self, name: impl Into<String>, b: impl Into<ObservationBinding>) -> Self {
        self.observations.insert(name.into(), b.into());
        self
    }
    pub fn action(mut self, name: impl Into<String>, b: impl Into<ActionBinding>) -> Self {
        self.actions.insert(name.into(), b.into());
        self
    }
    pub fn enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }
    pub fn parent(mut self, component_type: impl Into<String>, instance_id: impl Into<String>) -> Self {
        self.parent = Some(ParentLink { component_type: component_type.into(), instance_id: instance_id.into() });
        self
    }
    /// Internal metadata for policies and audit sinks; never in snapshots or agent payloads.
    pub fn internal(mut self, key: impl Into<String>, value: Value) -> Self {
        self.internal.insert(key.into(), value);
        self
    }
    pub fn policy(mut self, p: Policy) -> Self {
        self.policies.push(p);
        self
    }
    pub fn procedure(mut self, p: BoundProcedure) -> Self {
        self.procedures.push(p);
        self
    }

    /// Checks the handler set against the contract.
    pub fn build(self) -> Result<BoundComponent, BindingError> {
        let c = self.contract.contract();
        let id = self.contract.id().to_string();
        check_instance_id(&self.instance_id).map_err(BindingError::InvalidInstanceId)?;
        for name in self.observations.keys() {
            if !c.observations.contains_key(name) {
                return Err(BindingError::UnknownObservation { contract: id, name: name.clone() });
            }
        }
        for name in self.actions.keys() {
            if !c.actions.contains_key(name) {
                return Err(BindingError::UnknownAction { contract: id, name: name.clone() });
            }
        }
        for name in c.observations.keys() {
            if !self.observations.contains_key(name) {
                return Err(BindingError::MissingRead { contract: id, name: name.clone() });
            }
        }
        for (name, b) in &self.actions {
            validate_concurrency(name, &b.concurrency)?;
        }
        for name in c.actions.keys() {
            if !self.actions.contains_key(name) {
                return Err(BindingError::MissingExecute { contract: id, name: name.clone() });
            }
        }
        // Capability key = component key + capability name: a procedure referenced twice
        // is a structural duplicate.
        let mut seen = BTreeSet::new();
        for p in &self.procedures {
            if !p.id().starts_with(agent_surface_model::ids::DOMAIN_PREFIX) {
                return Err(BindingError::NotAProcedure { contract: id, id: p.id().to_string() });
            }
            if !seen.insert(p.id()) {
                return Err(BindingError::DuplicateProcedure { contract: id, id: p.id().to_string() });
            }
        }
        Ok(BoundComponent {
            contract: self.contract,
            instance_id: self.instance_id,
            observations: self.observations,
            actions: self.actions,
            enabled: self.enabled,
            parent: self.parent,
            internal: self.internal,
            policies: self.policies,
            procedures: self.procedures,
        })
    }
}

/// A raw definition built by hand (the spec's `defineAgentComponent`): the same shapes, no
/// compiler proof. Useful for tooling and tests of tooling; every registry refuses it.
#[derive(Clone)]
pub struct AgentComponentDefinition {
    pub component_type: String,
    pub instance_id: String,
    pub description: String,
    pub observations: BTreeSet<String>,
    pub actions: BTreeSet<String>,
}

/// What a registry accepts.
pub enum Registrable {
    Bound(Box<BoundComponent>),
    Raw(AgentComponentDefinition),
}

impl From<BoundComponent> for Registrable {
    fn from(b: BoundComponent) -> Self {
        Registrable::Bound(Box::new(b))
    }
}

impl From<AgentComponentDefinition> for Registrable {
    fn from(d: AgentComponentDefinition) -> Self {
        Registrable::Raw(d)
    }
}
