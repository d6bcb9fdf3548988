//! Planes, effects and governance defaults (DECISIONS §3).
//!
//! The plane a capability lives on bounds the effects it may declare: view actions only touch
//! UI state, anything that changes domain data is a procedure. Defaults are materialized into
//! the manifest so the hash pins them.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// What invoking a capability does to the world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    Read,
    LocalState,
    Navigation,
    Mutation,
    Destructive,
    ExternalSideEffect,
}

impl Effect {
    /// Every effect, in declaration order.
    pub const ALL: [Effect; 6] = [
        Effect::Read,
        Effect::LocalState,
        Effect::Navigation,
        Effect::Mutation,
        Effect::Destructive,
        Effect::ExternalSideEffect,
    ];

    /// The wire spelling (`"local-state"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Read => "read",
            Effect::LocalState => "local-state",
            Effect::Navigation => "navigation",
            Effect::Mutation => "mutation",
            Effect::Destructive => "destructive",
            Effect::ExternalSideEffect => "external-side-effect",
        }
    }
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that is not one of an enum's wire spellings.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} \"{found}\" (expected one of: {expected})")]
pub struct ParseEnumError {
    pub what: &'static str,
    pub found: String,
    pub expected: String,
}

fn parse_enum<T: Copy>(
    what: &'static str,
    s: &str,
    all: &[T],
    name: fn(T) -> &'static str,
) -> Result<T, ParseEnumError> {
    all.iter().copied().find(|v| name(*v) == s).ok_or_else(|| ParseEnumError {
        what,
        found: s.to_string(),
        expected: all.iter().map(|v| format!("\"{}\"", name(*v))).collect::<Vec<_>>().join(", "),
    })
}

impl FromStr for Effect {
    type Err = ParseEnumError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_enum("effect", s, &Effect::ALL, Effect::as_str)
    }
}

/// Whether a human must confirm before the capability runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confirmation {
    Never,
    Optional,
    Required,
}

impl Confirmation {
    pub const ALL: [Confirmation; 3] = [Confirmation::Never, Confirmation::Optional, Confirmation::Required];

    pub fn as_str(self) -> &'static str {
        match self {
            Confirmation::Never => "never",
            Confirmation::Optional => "optional",
            Confirmation::Required => "required",
        }
    }
}

impl fmt::Display for Confirmation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Confirmation {
    type Err = ParseEnumError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_enum("confirmation", s, &Confirmation::ALL, Confirmation::as_str)
    }
}

/// How much of an invocation is written to the audit log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Audit {
    None,
    Metadata,
    Full,
}

impl Audit {
    pub const ALL: [Audit; 3] = [Audit::None, Audit::Metadata, Audit::Full];

    pub fn as_str(self) -> &'static str {
        match self {
            Audit::None => "none",
            Audit::Metadata => "metadata",
            Audit::Full => "full",
        }
    }
}

impl fmt::Display for Audit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Audit {
    type Err = ParseEnumError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_enum("audit", s, &Audit::ALL, Audit::as_str)
    }
}

/// Where a capability's effects land: the UI (view), the application's data (domain), or a
/// system outside the app (external).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Plane {
    View,
    Domain,
    External,
}

impl Plane {
    pub fn as_str(self) -> &'static str {
        match self {
            Plane::View => "view",
            Plane::Domain => "domain",
            Plane::External => "external",
        }
    }
}

impl fmt::Display for Plane {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The four kinds of capability; each fixes a plane and the effects it may declare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CapabilityKind {
    Observation,
    ViewAction,
    DomainProcedure,
    ExternalTool,
}

const OBSERVATION_EFFECTS: &[Effect] = &[Effect::Read];
const VIEW_ACTION_EFFECTS: &[Effect] = &[Effect::LocalState, Effect::Navigation];
const OPERATION_EFFECTS: &[Effect] = &[Effect::Read, Effect::Mutation, Effect::Destructive, Effect::ExternalSideEffect];

impl CapabilityKind {
    pub fn plane(self) -> Plane {
        match self {
            CapabilityKind::Observation | CapabilityKind::ViewAction => Plane::View,
            CapabilityKind::DomainProcedure => Plane::Domain,
            CapabilityKind::ExternalTool => Plane::External,
        }
    }

    pub fn allowed_effects(self) -> &'static [Effect] {
        match self {
            CapabilityKind::Observation => OBSERVATION_EFFECTS,
            CapabilityKind::ViewAction => VIEW_ACTION_EFFECTS,
            CapabilityKind::DomainProcedure | CapabilityKind::ExternalTool => OPERATION_EFFECTS,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            CapabilityKind::Observation => "observation",
            CapabilityKind::ViewAction => "view-action",
            CapabilityKind::DomainProcedure => "domain-procedure",
            CapabilityKind::ExternalTool => "external-tool",
        }
    }

    /// Plural noun for messages ("view actions").
    pub fn noun_plural(self) -> &'static str {
        match self {
            CapabilityKind::Observation => "observations",
            CapabilityKind::ViewAction => "view actions",
            CapabilityKind::DomainProcedure => "domain procedures",
            CapabilityKind::ExternalTool => "external tools",
        }
    }

    /// Singular noun with article for messages ("a view action").
    pub fn noun_singular(self) -> &'static str {
        match self {
            CapabilityKind::Observation => "an observation",
            CapabilityKind::ViewAction => "a view action",
            CapabilityKind::DomainProcedure => "a domain procedure",
            CapabilityKind::ExternalTool => "an external tool",
        }
    }
}

impl fmt::Display for CapabilityKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The governance fields every capability carries, all explicit in the manifest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Governance {
    pub effect: Effect,
    pub idempotent: bool,
    pub reversible: bool,
    pub confirmation: Confirmation,
    pub audit: Audit,
}

/// Audit level used when the author sets none.
pub const DEFAULT_AUDIT: Audit = Audit::Metadata;

/// The defaults of DECISIONS §3 for a capability of `kind` declaring `effect`. The effect is
/// kept as given (even if not allowed for the kind): [`check_effect`] reports that separately.
pub fn default_governance(kind: CapabilityKind, effect: Effect) -> Governance {
    let (idempotent, reversible, confirmation) = match kind {
        CapabilityKind::Observation => (true, true, Confirmation::Never),
        CapabilityKind::ViewAction => (false, true, Confirmation::Never),
        CapabilityKind::DomainProcedure | CapabilityKind::ExternalTool => {
            let dangerous = matches!(effect, Effect::Destructive | Effect::ExternalSideEffect);
            (effect == Effect::Read, !dangerous, if dangerous { Confirmation::Required } else { Confirmation::Never })
        }
    };
    Governance { effect, idempotent, reversible, confirmation, audit: DEFAULT_AUDIT }
}

/// Which plane rule was broken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlaneErrorReason {
    EffectNotAllowed { kind: CapabilityKind, effect: Effect },
    ConfirmationNotAllowed { effect: Effect, confirmation: Confirmation },
}

/// A plane or confirmation rule violation, with a help text telling the author the fix.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PlaneError {
    pub reason: PlaneErrorReason,
    pub message: String,
    pub help: String,
}

fn quoted_list(effects: &[Effect]) -> String {
    let q: Vec<String> = effects.iter().map(|e| format!("\"{e}\"")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        n => format!("{} or {}", q[..n - 1].join(", "), q[n - 1]),
    }
}

/// Refuses an effect outside the kind's plane (e.g. a view action that mutates domain data).
pub fn check_effect(kind: CapabilityKind, effect: Effect) -> Result<(), PlaneError> {
    let allowed = kind.allowed_effects();
    if allowed.contains(&effect) {
        return Ok(());
    }
    let may = format!("{} may only be {}", kind.noun_plural(), quoted_list(allowed));
    let help = match kind {
        CapabilityKind::Observation => format!(
            "observations are always \"read\"; declare an action (actionContract) or a domain \
             procedure (defineAgentProcedureContract) for \"{effect}\""
        ),
        CapabilityKind::ViewAction => match effect {
            Effect::Read => {
                format!("{may}; expose state for reading as an observation (observationContract)")
            }
            _ => format!("{may}; move \"{effect}\" into a domain procedure (defineAgentProcedureContract)"),
        },
        CapabilityKind::DomainProcedure | CapabilityKind::ExternalTool => format!(
            "{may}; UI state changes and navigation belong in a view action (actionContract) \
             of a component contract"
        ),
    };
    Err(PlaneError {
        reason: PlaneErrorReason::EffectNotAllowed { kind, effect },
        message: format!("effect \"{effect}\" is not allowed on {} ({} plane)", kind.noun_singular(), kind.plane()),
        help,
    })
}

/// Refuses `confirmation: "never"` on a destructive effect: irreversible data loss must be
/// confirmable.
pub fn check_confirmation(effect: Effect, confirmation: Confirmation) -> Result<(), PlaneError> {
    if effect == Effect::Destructive && confirmation == Confirmation::Never {
        return Err(PlaneError {
            reason: PlaneErrorReason::ConfirmationNotAllowed { effect, confirmation },
            message: format!("confirmation \"{confirmation}\" is not allowed for a \"{effect}\" effect"),
            help: "use confirmation: \"required\" (the default for destructive effects) or \"optional\"".to_string(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn effect_wire_names() {
        for e in Effect::ALL {
            assert_eq!(serde_json::to_value(e).unwrap(), json!(e.as_str()));
            assert_eq!(e.as_str().parse::<Effect>().unwrap(), e);
            assert_eq!(serde_json::from_value::<Effect>(json!(e.as_str())).unwrap(), e);
        }
        assert_eq!(Effect::LocalState.as_str(), "local-state");
        assert_eq!(Effect::ExternalSideEffect.to_string(), "external-side-effect");
        let e = "delete".parse::<Effect>().unwrap_err();
        assert!(e.to_string().contains("unknown effect \"delete\""), "{e}");
        assert!(e.to_string().contains("\"external-side-effect\""));
        assert!("LocalState".parse::<Effect>().is_err());
        assert!(serde_json::from_value::<Effect>(json!("local_state")).is_err());
    }

    #[test]
    fn confirmation_and_audit_wire_names() {
        for c in Confirmation::ALL {
            assert_eq!(serde_json::to_value(c).unwrap(), json!(c.as_str()));
            assert_eq!(c.as_str().parse::<Confirmation>().unwrap(), c);
        }
        for a in Audit::ALL {
            assert_eq!(serde_json::to_value(a).unwrap(), json!(a.as_str()));
            assert_eq!(a.as_str().parse::<Audit>().unwrap(), a);
        }
        assert!("Required".parse::<Confirmation>().is_err());
        assert!("partial".parse::<Audit>().is_err());
        assert_eq!(serde_json::to_value(Plane::External).unwrap(), json!("external"));
        assert_eq!(serde_json::to_value(CapabilityKind::ViewAction).unwrap(), json!("view-action"));
    }

    #[test]
    fn planes_and_allowed_effects() {
        use CapabilityKind::*;
        assert_eq!(Observation.plane(), Plane::View);
        assert_eq!(ViewAction.plane(), Plane::View);
        assert_eq!(DomainProcedure.plane(), Plane::Domain);
        assert_eq!(ExternalTool.plane(), Plane::External);
        assert_eq!(Observation.allowed_effects(), &[Effect::Read]);
        assert_eq!(ViewAction.allowed_effects(), &[Effect::LocalState, Effect::Navigation]);
        assert_eq!(DomainProcedure.allowed_effects(), ExternalTool.allowed_effects());
        assert!(!DomainProcedure.allowed_effects().contains(&Effect::LocalState));
    }

    #[test]
    fn defaults_follow_the_table() {
        use CapabilityKind::*;
        let g = default_governance(Observation, Effect::Read);
        assert_eq!(
            g,
            Governance {
                effect: Effect::Read,
                idempotent: true,
                reversible: true,
                confirmation: Confirmation::Never,
                audit: Audit::Metadata
            }
        );
        for e in [Effect::LocalState, Effect::Navigation] {
            let g = default_governance(ViewAction, e);
            assert_eq!(
                (g.effect, g.idempotent, g.reversible, g.confirmation, g.audit),
                (e, false, true, Confirmation::Never, Audit::Metadata)
            );
        }
        for kind in [DomainProcedure, ExternalTool] {
            let g = default_governance(kind, Effect::Read);
            assert_eq!((g.idempotent, g.reversible, g.confirmation), (true, true, Confirmation::Never));
            let g = default_governance(kind, Effect::Mutation);
            assert_eq!((g.idempotent, g.reversible, g.confirmation), (false, true, Confirmation::Never));
            let g = default_governance(kind, Effect::Destructive);
            assert_eq!((g.idempotent, g.reversible, g.confirmation), (false, false, Confirmation::Required));
            let g = default_governance(kind, Effect::ExternalSideEffect);
            assert_eq!((g.idempotent, g.reversible, g.confirmation), (false, false, Confirmation::Required));
            assert_eq!(g.audit, Audit::Metadata);
        }
        // Defaults never break the confirmation rule.
        for kind in [Observation, ViewAction, DomainProcedure, ExternalTool] {
            for &e in kind.allowed_effects() {
                let g = default_governance(kind, e);
                check_effect(kind, g.effect).unwrap();
                check_confirmation(g.effect, g.confirmation).unwrap();
            }
        }
        let v = serde_json::to_value(default_governance(DomainProcedure, Effect::Destructive)).unwrap();
        assert_eq!(
            v,
            json!({"effect": "destructive", "idempotent": false, "reversible": false,
            "confirmation": "required", "audit": "metadata"})
        );
    }

    #[test]
    fn check_effect_accepts_allowed_and_refuses_others() {
        use CapabilityKind::*;
        for kind in [Observation, ViewAction, DomainProcedure, ExternalTool] {
            for e in Effect::ALL {
                let r = check_effect(kind, e);
                assert_eq!(r.is_ok(), kind.allowed_effects().contains(&e), "{kind} {e}");
                if let Err(err) = r {
                    assert_eq!(err.reason, PlaneErrorReason::EffectNotAllowed { kind, effect: e });
                    assert!(err.message.contains(&format!("\"{e}\"")), "{}", err.message);
                    assert!(!err.help.is_empty());
                }
            }
        }
        let e = check_effect(ViewAction, Effect::Mutation).unwrap_err();
        assert_eq!(e.message, "effect \"mutation\" is not allowed on a view action (view plane)");
        assert_eq!(
            e.help,
            "view actions may only be \"local-state\" or \"navigation\"; move \"mutation\" into a \
             domain procedure (defineAgentProcedureContract)"
        );
        let e = check_effect(ViewAction, Effect::Read).unwrap_err();
        assert!(e.help.contains("observation"), "{}", e.help);
        let e = check_effect(DomainProcedure, Effect::LocalState).unwrap_err();
        assert!(
            e.help.starts_with(
                "domain procedures may only be \"read\", \"mutation\", \"destructive\" or \"external-side-effect\""
            ),
            "{}",
            e.help
        );
        let e = check_effect(ExternalTool, Effect::Navigation).unwrap_err();
        assert!(e.message.contains("external tool (external plane)"), "{}", e.message);
        let e = check_effect(Observation, Effect::Mutation).unwrap_err();
        assert!(e.help.contains("always \"read\""));
    }

    #[test]
    fn destructive_never_is_refused() {
        let e = check_confirmation(Effect::Destructive, Confirmation::Never).unwrap_err();
        assert_eq!(e.help, "use confirmation: \"required\" (the default for destructive effects) or \"optional\"");
        assert_eq!(e.message, "confirmation \"never\" is not allowed for a \"destructive\" effect");
        assert!(matches!(e.reason, PlaneErrorReason::ConfirmationNotAllowed { .. }));
        check_confirmation(Effect::Destructive, Confirmation::Optional).unwrap();
        check_confirmation(Effect::Destructive, Confirmation::Required).unwrap();
        for e in Effect::ALL.into_iter().filter(|e| *e != Effect::Destructive) {
            for c in Confirmation::ALL {
                check_confirmation(e, c).unwrap();
            }
        }
    }
}
