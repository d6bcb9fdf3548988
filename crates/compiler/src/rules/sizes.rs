//! Rule: sizes (spec: Limits). Descriptions are required and non-empty; a component
//! description is at most 500 characters, a capability, procedure or external tool description
//! at most 300 (counted in UTF-16 code units, as JavaScript's `.length`); `meta` serializes to
//! at most 2 kB of canonical JSON. AS0301 empty, AS0302 too long, AS0303 meta too large.

use crate::contracts::BuiltContract;
use crate::diagnostics::{Code, Diagnostic};
use agent_surface_model::definition::{DefinitionViolation, DefinitionViolationKind as Kind};

pub fn diagnose(c: &BuiltContract, v: &DefinitionViolation) -> Diagnostic {
    let span = c.span_at(&v.pointer);
    match &v.kind {
        Kind::DescriptionEmpty => Diagnostic::new(Code::EmptyDescription, span, v.message.clone())
            .help("the description is what the agent reads to decide when to use this: say what it is and when it applies"),
        Kind::DescriptionTooLong { len, max } => Diagnostic::new(Code::DescriptionTooLong, span, v.message.clone())
            .label(format!("{len} characters"))
            .help(format!("shorten it to {max} characters or fewer; put details the agent does not need for choosing into code comments")),
        Kind::MetaTooLarge { bytes, max } => Diagnostic::new(Code::MetaTooLarge, c.key_span_at(&v.pointer), v.message.clone())
            .label(format!("{bytes} bytes of JSON"))
            .help(format!("`meta` is sent to agents with every snapshot: keep it under {max} bytes")),
        _ => unreachable!("sizes only gets size violations"),
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn descriptions_at_the_limit_pass() {
        let body = format!(
            "defineAgentComponentContract({{ type: 'a', description: '{}', meta: {{ note: '{}' }}, \
             observations: {{ s: observationContract({{ description: '{}', output: emptyObjectSchema }}) }} }});",
            "d".repeat(500),
            "m".repeat(1000),
            "é".repeat(300)
        );
        assert_eq!(codes_of(&body), Vec::<String>::new());
    }

    #[test]
    fn empty_and_long_descriptions_fail() {
        let body = format!(
            "defineAgentComponentContract({{ type: 'a', description: '', \
             observations: {{ s: observationContract({{ description: '{}', output: emptyObjectSchema }}) }} }});",
            "😀".repeat(151)
        );
        assert_eq!(codes_of(&body), vec!["AS0301", "AS0302"]);
        assert_eq!(first_span_text(&body), "''");
    }

    #[test]
    fn meta_over_two_kilobytes_fails() {
        let body = format!(
            "defineAgentComponentContract({{ type: 'a', description: 'd', meta: {{ note: '{}' }} }});",
            "m".repeat(2100)
        );
        assert_eq!(codes_of(&body), vec!["AS0303"]);
    }
}
