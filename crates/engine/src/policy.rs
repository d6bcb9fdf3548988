//! Policies: discovery (synchronous: expose, disable or hide a capability), authorize (before the
//! input is looked at) and invoke (sees the effective input; may deny or ask for confirmation).
//! Attached at registry, component or capability scope; the registry's are outermost.

use crate::consumer::AgentConsumer;
use crate::host::BoxFuture;
use crate::host::{MaybeSend, MaybeSync};
use serde_json::Value;
use std::sync::Arc;

/// A discovery vote. On the wire (the page's `DiscoveryDecision`, `explain_surface`'s
/// `discovery`): `"expose"`, `"hide"` or `{"disable": reason}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiscoveryDecision {
    Expose,
    /// Visible but unavailable, with a reason.
    Disable(String),
    /// Absent from the snapshot.
    Hide,
}

impl serde::Serialize for DiscoveryDecision {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            DiscoveryDecision::Expose => s.serialize_str("expose"),
            DiscoveryDecision::Hide => s.serialize_str("hide"),
            DiscoveryDecision::Disable(reason) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("disable", reason)?;
                m.end()
            }
        }
    }
}

/// A discovery policy that could not decide (a JavaScript `onDiscovery` that threw; natively a
/// panic counts the same): the capability is hidden (fail closed) and `explain_surface` says
/// `threw: true`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the discovery policy failed: {0}")]
pub struct DiscoveryFailed(pub String);

/// An authorize/invoke verdict.
#[derive(Clone, Debug, PartialEq)]
pub enum PolicyDecision {
    Allow,
    /// Denied with an agent-safe message.
    Deny(String),
    /// Allowed only after the user confirms (invoke phase).
    RequireConfirmation,
}

/// What a policy sees when discovering.
#[derive(Clone, Debug)]
pub struct DiscoveryContext {
    pub capability_id: String,
    pub component_type: String,
    pub instance_id: String,
    pub consumer: AgentConsumer,
    pub host: Arc<serde_json::Map<String, Value>>,
}

/// What a policy sees when invoked (`effective_input` only in the invoke phase).
#[derive(Clone, Debug)]
pub struct PolicyContext {
    pub capability_id: String,
    pub registration_id: String,
    pub consumer: AgentConsumer,
    pub host: Arc<serde_json::Map<String, Value>>,
    pub effective_input: Option<Value>,
}

/// The phases a policy takes part in (for `explain_surface`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PolicyPhase {
    Discovery,
    Authorize,
    Invoke,
}

/// A runtime policy. Discovery MUST be synchronous, cheap and side-effect free; a panicking
/// discovery fails closed (hide).
pub trait AgentPolicy: MaybeSend + MaybeSync {
    fn name(&self) -> &str;
    fn phases(&self) -> &[PolicyPhase];
    fn on_discovery(&self, _ctx: &DiscoveryContext) -> DiscoveryDecision {
        DiscoveryDecision::Expose
    }
    /// The vote, or the policy's failure: what the engine calls. The default is
    /// [`AgentPolicy::on_discovery`]; a host whose policies can fail without panicking (the
    /// page's, whose `onDiscovery` may throw) overrides this one.
    fn try_on_discovery(&self, ctx: &DiscoveryContext) -> Result<DiscoveryDecision, DiscoveryFailed> {
        Ok(self.on_discovery(ctx))
    }
    fn authorize(&self, _ctx: PolicyContext) -> BoxFuture<PolicyDecision> {
        Box::pin(async { PolicyDecision::Allow })
    }
    fn invoke(&self, _ctx: PolicyContext) -> BoxFuture<PolicyDecision> {
        Box::pin(async { PolicyDecision::Allow })
    }
}

/// A shareable policy.
pub type Policy = Arc<dyn AgentPolicy>;

/// A discovery-only policy from a closure.
pub fn discovery_policy(
    name: impl Into<String>,
    f: impl Fn(&DiscoveryContext) -> DiscoveryDecision + MaybeSend + MaybeSync + 'static,
) -> Policy {
    struct P<F> {
        name: String,
        f: F,
    }
    impl<F: Fn(&DiscoveryContext) -> DiscoveryDecision + MaybeSend + MaybeSync> AgentPolicy for P<F> {
        fn name(&self) -> &str {
            &self.name
        }
        fn phases(&self) -> &[PolicyPhase] {
            &[PolicyPhase::Discovery]
        }
        fn on_discovery(&self, ctx: &DiscoveryContext) -> DiscoveryDecision {
            (self.f)(ctx)
        }
    }
    Arc::new(P { name: name.into(), f })
}

/// One policy's own discovery vote: `Err` when it failed (an error or a panic), which counts as
/// hide.
pub fn discovery_vote(p: &dyn AgentPolicy, ctx: &DiscoveryContext) -> Result<DiscoveryDecision, DiscoveryFailed> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| p.try_on_discovery(ctx)))
        .unwrap_or_else(|_| Err(DiscoveryFailed("the policy panicked".into())))
}

/// Composes discovery votes: the first hide wins, else any disable, else expose. A failing
/// (erroring or panicking) policy counts as hide (fail closed).
pub fn evaluate_discovery<'a>(
    policies: impl IntoIterator<Item = &'a Policy>,
    ctx: &DiscoveryContext,
) -> DiscoveryDecision {
    let mut disabled: Option<String> = None;
    for p in policies {
        if !p.phases().contains(&PolicyPhase::Discovery) {
            continue;
        }
        match discovery_vote(&**p, ctx) {
            Ok(DiscoveryDecision::Hide) | Err(_) => return DiscoveryDecision::Hide,
            Ok(DiscoveryDecision::Disable(reason)) => {
                disabled.get_or_insert(reason);
            }
            Ok(DiscoveryDecision::Expose) => {}
        }
    }
    match disabled {
        Some(r) => DiscoveryDecision::Disable(r),
        None => DiscoveryDecision::Expose,
    }
}
