//! Rule: sizes (spec: Limits). A description is not blank and at most `max` UTF-16 code units
//! (JavaScript `.length`, so the limit means the same in the compiler and in a browser); a
//! `meta` object is at most `max` bytes of canonical JSON. The caller picks the limit: a
//! component description has `max_component_description`, everything else
//! `max_capability_description`.
//!
//! Reports [`DefinitionViolationKind::DescriptionEmpty`],
//! [`DefinitionViolationKind::DescriptionTooLong`] and [`DefinitionViolationKind::MetaTooLarge`];
//! the compiler maps them in `rules/sizes.rs`.

use super::violation::{field, DefinitionViolation, DefinitionViolationKind};
use crate::canonical::canonical_json;
use serde_json::{Map, Value};

/// Description length as JavaScript counts it (`.length`, UTF-16 code units), so the limit
/// means the same in the compiler and in a browser runtime.
pub fn description_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// The `description` of the value at `base`: not blank, at most `max` UTF-16 code units. A
/// blank description is reported as empty only, not also measured.
pub fn check_description(base: &[String], text: &str, max: usize, out: &mut Vec<DefinitionViolation>) {
    let pointer = field(base, "description");
    if text.trim().is_empty() {
        out.push(DefinitionViolation {
            pointer,
            kind: DefinitionViolationKind::DescriptionEmpty,
            message: "description is empty".into(),
            help: Some("say what it is for: agents choose capabilities by their descriptions".into()),
        });
        return;
    }
    let len = description_len(text);
    if len > max {
        out.push(DefinitionViolation {
            pointer,
            kind: DefinitionViolationKind::DescriptionTooLong { len, max },
            message: format!("description is {len} characters long (UTF-16 code units); at most {max} are allowed"),
            help: Some("shorten it; put details in the schemas' property descriptions".into()),
        });
    }
}

/// The `meta` of the value at `base`: at most `max` bytes as canonical JSON.
pub fn check_meta(base: &[String], meta: &Map<String, Value>, max: usize, out: &mut Vec<DefinitionViolation>) {
    let bytes = canonical_json(&Value::Object(meta.clone())).len();
    if bytes > max {
        out.push(DefinitionViolation {
            pointer: field(base, "meta"),
            kind: DefinitionViolationKind::MetaTooLarge { bytes, max },
            message: format!("meta is {bytes} bytes as canonical JSON; at most {max} are allowed"),
            help: Some("keep meta to small identifiers; look larger data up at run time".into()),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::AgentSurfaceLimits;
    use crate::manifest::samples::{sample_component, sample_external, sample_procedure};
    use crate::manifest::ManifestContract;
    use crate::rules::testing::{comp, ptr, validate};
    use serde_json::json;
    use DefinitionViolationKind as K;

    fn description(text: &str, max: usize) -> Vec<DefinitionViolation> {
        let mut out = Vec::new();
        check_description(&ptr(&["actions", "a"]), text, max, &mut out);
        out
    }

    fn meta(m: Value, max: usize) -> Vec<DefinitionViolation> {
        let Value::Object(m) = m else { panic!("meta is an object") };
        let mut out = Vec::new();
        check_meta(&[], &m, max, &mut out);
        out
    }

    #[test]
    fn descriptions_up_to_the_limit_pass() {
        assert_eq!(description("abc", 3), vec![]);
        assert_eq!(description("é😀", 3), vec![]);
    }

    #[test]
    fn blank_descriptions_are_empty_whatever_the_limit() {
        for text in ["", " \t\n"] {
            let vs = description(text, 0);
            assert_eq!(vs.len(), 1);
            assert_eq!(
                (vs[0].kind.clone(), vs[0].pointer.clone()),
                (K::DescriptionEmpty, ptr(&["actions", "a", "description"]))
            );
        }
    }

    #[test]
    fn long_descriptions_report_their_length_in_utf16_units() {
        let vs = description("😀😀", 3);
        assert_eq!(vs[0].kind, K::DescriptionTooLong { len: 4, max: 3 });
        assert!(vs[0].message.contains("4 characters"), "{}", vs[0].message);
    }

    #[test]
    fn meta_is_measured_as_canonical_json() {
        // `{"b":1,"a":2}` and its canonical form `{"a":2,"b":1}` are 13 bytes either way.
        assert_eq!(meta(json!({"b": 1, "a": 2}), 13), vec![]);
        let vs = meta(json!({"b": 1, "a": 2}), 12);
        assert_eq!(
            (vs[0].kind.clone(), vs[0].pointer.clone()),
            (K::MetaTooLarge { bytes: 13, max: 12 }, ptr(&["meta"]))
        );
        assert_eq!(meta(json!({}), 2), vec![]);
    }

    // Through the composition (`validate_contract`).

    #[test]
    fn descriptions_count_utf16_units() {
        let limits = AgentSurfaceLimits::default();
        let mut c = sample_component();
        c.description = "x".repeat(500);
        assert_eq!(comp(c.clone()), vec![]);
        c.description = "x".repeat(501);
        let vs = comp(c.clone());
        assert_eq!(vs[0].kind, K::DescriptionTooLong { len: 501, max: 500 });
        assert_eq!(vs[0].pointer, ptr(&["description"]));
        // 150 emoji = 300 UTF-16 units (OK for a capability); 151 = 302 (too long).
        let mut c = sample_component();
        c.actions.get_mut("open").unwrap().description = "😀".repeat(150);
        assert_eq!(comp(c.clone()), vec![]);
        c.actions.get_mut("open").unwrap().description = "😀".repeat(151);
        let vs = comp(c);
        assert_eq!(vs[0].kind, K::DescriptionTooLong { len: 302, max: limits.max_capability_description });
        assert_eq!(vs[0].pointer, ptr(&["actions", "open", "description"]));
        assert_eq!(description_len("é😀"), 3);

        let mut c = sample_component();
        c.observations.get_mut("readState").unwrap().description = "  ".into();
        let vs = comp(c);
        assert_eq!(
            (vs[0].kind.clone(), vs[0].pointer.clone()),
            (K::DescriptionEmpty, ptr(&["observations", "readState", "description"]))
        );

        let mut p = sample_procedure();
        p.description = "p".repeat(301);
        let vs = validate(ManifestContract::Procedure(p));
        assert_eq!(vs[0].kind, K::DescriptionTooLong { len: 301, max: 300 });
        let mut p = sample_external();
        p.description = String::new();
        assert_eq!(validate(ManifestContract::ExternalTool(p))[0].kind, K::DescriptionEmpty);
    }

    #[test]
    fn meta_size() {
        let mut c = sample_component();
        // {"k":"..."} is 8 bytes plus the string.
        c.meta = Map::new();
        c.meta.insert("k".into(), json!("v".repeat(2040)));
        assert_eq!(comp(c.clone()), vec![]);
        c.meta.insert("k".into(), json!("v".repeat(2041)));
        let vs = comp(c);
        assert_eq!(vs[0].kind, K::MetaTooLarge { bytes: 2049, max: 2048 });
        assert_eq!(vs[0].pointer, ptr(&["meta"]));

        let mut c = sample_component();
        c.actions.get_mut("select").unwrap().meta.insert("k".into(), json!("v".repeat(3000)));
        assert_eq!(comp(c)[0].pointer, ptr(&["actions", "select", "meta"]));
        let mut p = sample_procedure();
        p.meta.insert("k".into(), json!("v".repeat(3000)));
        assert_eq!(validate(ManifestContract::Procedure(p))[0].pointer, ptr(&["meta"]));
    }
}
