//! Every path the other crates of the workspace import from this one (model, engine, compiler),
//! spelled as they spell it: a move inside the crate that breaks one fails this build, not
//! theirs.

use agent_surface_schema::canonical::{
    canonical_json, canonical_json_pretty, canonical_member, canonical_members, cmp_utf16, join_members,
    pretty_from_canonical,
};
use agent_surface_schema::pattern::{
    set_pattern_engine, CompiledPattern, PatternEngine, PatternEngineInUse, PatternError, RegressEngine,
};
use agent_surface_schema::subset::{
    check_schema, json_pointer, SchemaViolation, SchemaViolationKind, LOCAL_REF_PREFIX, SCHEMA_DIALECT,
    SUPPORTED_FORMATS, SUPPORTED_KEYWORDS, TYPE_NAMES,
};
use agent_surface_schema::validate::{
    cmp_numbers, is_date, is_date_time, is_email, is_integer, is_json_number_safe, is_uri, is_uuid, json_equal,
    ValidationIssue, Validator, ValidatorOptions, MAX_INSTANCE_DEPTH,
};
use agent_surface_schema::{SchemaLimits, DEFAULT_MAX_SCHEMA_BYTES, DEFAULT_MAX_SCHEMA_DEPTH};
use serde_json::json;

/// What the model's `AgentSurfaceLimits` does: a type of its own that converts by reference.
struct HostLimits;

impl From<&HostLimits> for SchemaLimits {
    fn from(_: &HostLimits) -> Self {
        SchemaLimits { max_schema_bytes: DEFAULT_MAX_SCHEMA_BYTES, max_schema_depth: DEFAULT_MAX_SCHEMA_DEPTH }
    }
}

#[test]
fn the_paths_other_crates_use_resolve() {
    crate::pattern_engine::setup();
    let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
    // Every schema-taking function accepts the limits by value, by reference, or converted.
    assert!(check_schema(&schema, SchemaLimits::default()).is_empty());
    // The by-reference form is what callers holding limits in a struct write.
    #[allow(clippy::needless_borrows_for_generic_args)]
    let by_reference = check_schema(&schema, &SchemaLimits::default());
    assert!(by_reference.is_empty());
    assert!(check_schema(&schema, &HostLimits).is_empty());
    let v: Validator = Validator::with_options(&schema, &HostLimits, ValidatorOptions::default()).unwrap();
    assert!(Validator::check(&schema, &HostLimits).is_ok());
    let issues: Vec<ValidationIssue> = v.validate(&json!({"a": "x"})).unwrap_err();
    assert_eq!(issues[0].path, "/a");
    let violations: Vec<SchemaViolation> = check_schema(&json!({"oneOf": []}), &HostLimits);
    assert!(matches!(violations[0].kind, SchemaViolationKind::UnsupportedKeyword { .. }));
    assert_eq!(json_pointer(&["a/b".to_string()]), "/a~1b");
    assert!(LOCAL_REF_PREFIX.starts_with('#') && SCHEMA_DIALECT.contains("2020-12"));
    assert!(SUPPORTED_FORMATS.contains(&"uuid") && SUPPORTED_KEYWORDS.contains(&"anyOf") && TYPE_NAMES.len() == 7);
    assert!(is_json_number_safe(&serde_json::Number::from(1)) && is_integer(&serde_json::Number::from(1)));
    assert!(json_equal(&json!(1), &json!(1.0)) && cmp_numbers(&1.into(), &2.into()).is_lt());
    assert!(
        is_date("2024-01-31")
            && is_date_time("2024-01-31T00:00:00Z")
            && is_uuid("6f1c1f6e-3c1e-4a57-9d0f-2b0c8a1e9f00")
    );
    assert!(is_email("a@example.com") && is_uri("https://example.com/"));
    let _: usize = MAX_INSTANCE_DEPTH;
    assert_eq!(canonical_json(&json!({"b": 1, "a": 2})), r#"{"a":2,"b":1}"#);
    assert!(canonical_json_pretty(&json!({})).starts_with('{'));
    assert!(cmp_utf16("a", "b").is_lt());
    let m = json!({"a": 1});
    let members = canonical_members(m.as_object().unwrap());
    assert_eq!(join_members(members.iter().map(|(_, t)| t.as_str())), canonical_json(&m));
    assert_eq!(canonical_member("a", &json!(1)), r#""a":1"#);
    assert_eq!(pretty_from_canonical(&canonical_json(&m)), canonical_json_pretty(&m));
    // The pattern engine's nouns are nameable (used by hosts, not yet by the other crates).
    fn takes_engine(_: &dyn PatternEngine) {}
    let _ = takes_engine;
    let _: fn(RegressEngine) -> Result<(), PatternEngineInUse> = set_pattern_engine;
    let _: Option<&dyn CompiledPattern> = None;
    let _ = PatternError::new("x");
}
