//! Rule: planes and effects (DECISIONS §3). View actions may only be `local-state` or
//! `navigation`; procedures and external tools `read`, `mutation`, `destructive` or
//! `external-side-effect`. A `destructive` effect with `confirmation: "never"` is refused: the
//! user must be able to confirm what cannot be undone. AS0401, AS0402.

use crate::contracts::BuiltContract;
use crate::diagnostics::{Code, Diagnostic};
use agent_surface_model::definition::{DefinitionViolation, DefinitionViolationKind as Kind};

pub fn diagnose(c: &BuiltContract, v: &DefinitionViolation) -> Diagnostic {
    let span = c.span_at(&v.pointer);
    match &v.kind {
        Kind::EffectNotAllowed(e) => {
            Diagnostic::new(Code::EffectNotAllowed, span, v.message.clone()).help(e.help.clone())
        }
        Kind::ConfirmationNotAllowed(e) => {
            let mut effect_ptr = v.pointer.clone();
            effect_ptr.pop();
            effect_ptr.push("effect".into());
            Diagnostic::new(Code::ConfirmationNotAllowed, span, v.message.clone())
                .related(c.span_at(&effect_ptr), "the effect is declared here")
                .help(e.help.clone())
        }
        _ => unreachable!("planes only gets plane violations"),
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn allowed_effects_pass() {
        let body = "defineAgentComponentContract({ type: 'a', description: 'd', actions: { \
            go: actionContract({ description: 'g', input: emptyObjectSchema, effect: 'navigation' }), \
            set: actionContract({ description: 's', input: emptyObjectSchema, effect: 'local-state' }) } });\n\
            defineAgentProcedureContract({ id: 'domain:a.b', description: 'd', input: emptyObjectSchema, effect: 'destructive', confirmation: 'optional' });";
        assert_eq!(codes_of(body), Vec::<String>::new());
    }

    #[test]
    fn a_view_action_cannot_mutate() {
        let body = "defineAgentComponentContract({ type: 'a', description: 'd', actions: { \
            del: actionContract({ description: 'g', input: emptyObjectSchema, effect: 'mutation' }) } });";
        assert_eq!(codes_of(body), vec!["AS0401"]);
        assert_eq!(first_span_text(body), "'mutation'");
    }

    #[test]
    fn a_procedure_cannot_be_local_state() {
        let body = "defineAgentProcedureContract({ id: 'domain:a.b', description: 'd', input: emptyObjectSchema, effect: 'local-state' });";
        assert_eq!(codes_of(body), vec!["AS0401"]);
    }

    #[test]
    fn destructive_never_is_refused() {
        let body = "defineExternalAgentToolContract({ id: 'external:wipe', description: 'd', input: emptyObjectSchema, effect: 'destructive', confirmation: 'never' });";
        assert_eq!(codes_of(body), vec!["AS0402"]);
        assert_eq!(first_span_text(body), "'never'");
    }
}
