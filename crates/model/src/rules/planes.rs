//! Rule: planes and effects ([`crate::effects`], DECISIONS §3). The kind of a capability bounds
//! the effects it may declare (view actions only `local-state` or `navigation`; procedures and
//! external tools `read`, `mutation`, `destructive` or `external-side-effect`), and a legal
//! effect bounds its confirmation (`destructive` never runs unconfirmed).
//!
//! Reports [`DefinitionViolationKind::EffectNotAllowed`] and
//! [`DefinitionViolationKind::ConfirmationNotAllowed`]; the compiler maps them in
//! `rules/planes.rs`.

use super::violation::{field, DefinitionViolation, DefinitionViolationKind};
use crate::effects::{check_confirmation, check_effect, CapabilityKind, Confirmation, Effect};

/// The `effect` and then the `confirmation` of the capability at `base`, declared as a `kind`.
/// An effect the plane refuses is reported alone: the confirmation default follows from a legal
/// effect, so judging it against this one would only repeat the same mistake.
pub fn check(
    base: &[String],
    kind: CapabilityKind,
    effect: Effect,
    confirmation: Confirmation,
    out: &mut Vec<DefinitionViolation>,
) {
    if let Err(e) = check_effect(kind, effect) {
        let (message, help) = (e.message.clone(), Some(e.help.clone()));
        out.push(DefinitionViolation {
            pointer: field(base, "effect"),
            kind: DefinitionViolationKind::EffectNotAllowed(e),
            message,
            help,
        });
        return;
    }
    if let Err(e) = check_confirmation(effect, confirmation) {
        let (message, help) = (e.message.clone(), Some(e.help.clone()));
        out.push(DefinitionViolation {
            pointer: field(base, "confirmation"),
            kind: DefinitionViolationKind::ConfirmationNotAllowed(e),
            message,
            help,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::PlaneErrorReason;
    use crate::manifest::samples::{sample_component, sample_external, sample_procedure};
    use crate::manifest::ManifestContract;
    use crate::rules::testing::{comp, ptr, validate};
    use DefinitionViolationKind as K;

    fn plane(kind: CapabilityKind, effect: Effect, confirmation: Confirmation) -> Vec<DefinitionViolation> {
        let mut out = Vec::new();
        check(&ptr(&["actions", "a"]), kind, effect, confirmation, &mut out);
        out
    }

    #[test]
    fn allowed_effects_pass() {
        assert_eq!(plane(CapabilityKind::ViewAction, Effect::Navigation, Confirmation::Never), vec![]);
        assert_eq!(plane(CapabilityKind::ViewAction, Effect::LocalState, Confirmation::Never), vec![]);
        assert_eq!(plane(CapabilityKind::DomainProcedure, Effect::Destructive, Confirmation::Optional), vec![]);
        assert_eq!(plane(CapabilityKind::ExternalTool, Effect::ExternalSideEffect, Confirmation::Required), vec![]);
    }

    #[test]
    fn an_effect_outside_the_plane_fails_at_the_effect() {
        let vs = plane(CapabilityKind::ViewAction, Effect::Mutation, Confirmation::Never);
        assert_eq!(vs.len(), 1);
        assert_eq!(vs[0].pointer, ptr(&["actions", "a", "effect"]));
        assert!(matches!(vs[0].kind, K::EffectNotAllowed(_)));
    }

    #[test]
    fn destructive_never_fails_at_the_confirmation() {
        let vs = plane(CapabilityKind::DomainProcedure, Effect::Destructive, Confirmation::Never);
        assert_eq!(vs.len(), 1);
        assert_eq!(vs[0].pointer, ptr(&["actions", "a", "confirmation"]));
        assert!(matches!(vs[0].kind, K::ConfirmationNotAllowed(_)));
    }

    // Through the composition (`validate_contract`).

    #[test]
    fn plane_rules() {
        let mut c = sample_component();
        let a = c.actions.get_mut("select").unwrap();
        a.effect = Effect::Mutation;
        let vs = comp(c);
        assert_eq!(vs.len(), 1);
        assert_eq!(vs[0].pointer, ptr(&["actions", "select", "effect"]));
        let K::EffectNotAllowed(e) = &vs[0].kind else { panic!() };
        assert_eq!(
            e.reason,
            PlaneErrorReason::EffectNotAllowed { kind: CapabilityKind::ViewAction, effect: Effect::Mutation }
        );
        assert!(vs[0].help.as_deref().unwrap().contains("defineAgentProcedureContract"));

        let mut p = sample_procedure();
        p.confirmation = Confirmation::Never;
        let vs = validate(ManifestContract::Procedure(p));
        assert_eq!(vs.len(), 1);
        assert_eq!(vs[0].pointer, ptr(&["confirmation"]));
        assert!(matches!(vs[0].kind, K::ConfirmationNotAllowed(_)));
        assert_eq!(
            vs[0].help.as_deref(),
            Some("use confirmation: \"required\" (the default for destructive effects) or \"optional\"")
        );

        // A destructive view action (confirmation "never") is reported once, for the effect:
        // the confirmation rule is only judged against an effect the plane allows.
        let mut c = sample_component();
        let a = c.actions.get_mut("open").unwrap();
        a.effect = Effect::Destructive;
        let kinds: Vec<_> = comp(c).into_iter().map(|v| v.pointer).collect();
        assert_eq!(kinds, vec![ptr(&["actions", "open", "effect"])]);

        let mut t = sample_external();
        t.effect = Effect::LocalState;
        let vs = validate(ManifestContract::ExternalTool(t));
        assert_eq!(vs[0].pointer, ptr(&["effect"]));
        assert!(matches!(&vs[0].kind, K::EffectNotAllowed(e)
            if e.reason == PlaneErrorReason::EffectNotAllowed { kind: CapabilityKind::ExternalTool, effect: Effect::LocalState }));
    }
}
