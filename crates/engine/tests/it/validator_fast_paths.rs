//! The validator's fast paths through the public API: no copy unless a default is inserted, the
//! work budget still enforced by every entry point, and `is_valid` always agreeing with
//! `validate` (the exhaustive comparison with the reference evaluation is the unit test
//! `validate::differential`).

use agent_surface_model::limits::AgentSurfaceLimits;
use agent_surface_schema::validate::Validator;
use serde_json::{json, Value};
use std::borrow::Cow;

fn compile(schema: Value) -> Validator {
    Validator::new(&schema, &AgentSurfaceLimits::default()).expect("in the subset")
}

fn select() -> Validator {
    compile(json!({
        "type": "object",
        "properties": {
            "ids": {"type": "array", "items": {"type": "string", "pattern": "^dev_[a-z0-9]{6,}$"},
                "minItems": 1, "uniqueItems": true},
            "notify": {"type": "boolean", "default": true}
        },
        "required": ["ids"],
        "additionalProperties": false
    }))
}

#[test]
fn valid_input_without_missing_defaults_is_not_copied() {
    let v = select();
    let x = json!({"ids": ["dev_abc123"], "notify": false});
    match v.validate_cow(&x) {
        Ok(Cow::Borrowed(b)) => assert!(std::ptr::eq(b, &x)),
        other => panic!("expected the instance itself, got {other:?}"),
    }
    // validate_owned hands back the very same value (same heap buffers).
    let before = x["ids"][0].as_str().unwrap().as_ptr();
    let out = v.validate_owned(x).unwrap();
    assert_eq!(out["ids"][0].as_str().unwrap().as_ptr(), before);
    // validate still returns an owned copy, equal to the input.
    let x = json!({"ids": ["dev_abc123"], "notify": false});
    assert_eq!(v.validate(&x).unwrap(), x);
}

#[test]
fn a_missing_default_is_inserted_into_a_copy() {
    let v = select();
    let x = json!({"ids": ["dev_abc123"]});
    assert!(v.is_valid(&x));
    match v.validate_cow(&x) {
        Ok(Cow::Owned(o)) => assert_eq!(o, json!({"ids": ["dev_abc123"], "notify": true})),
        other => panic!("expected a copy with the default, got {other:?}"),
    }
    assert_eq!(x, json!({"ids": ["dev_abc123"]}));
    assert_eq!(v.validate_owned(x).unwrap(), json!({"ids": ["dev_abc123"], "notify": true}));
}

#[test]
fn invalid_input_reports_every_issue_whichever_path_finds_it() {
    let v = select();
    let x = json!({"ids": ["dev_abc123", "nope", "dev_abc123"], "extra": 1});
    assert!(!v.is_valid(&x));
    let got: Vec<(String, String)> = v.validate(&x).unwrap_err().into_iter().map(|i| (i.path, i.keyword)).collect();
    let want: Vec<(String, String)> = [("", "additionalProperties"), ("/ids/1", "pattern"), ("/ids", "uniqueItems")]
        .iter()
        .map(|(p, k)| (p.to_string(), k.to_string()))
        .collect();
    assert_eq!(got, want);
    assert_eq!(v.validate_owned(x.clone()).unwrap_err().len(), 3);
    assert_eq!(v.validate_cow(&x).unwrap_err().len(), 3);
}

fn too_complex(issues: &[agent_surface_schema::validate::ValidationIssue]) -> bool {
    issues.iter().any(|i| i.message.contains("too complex"))
}

#[test]
fn the_budget_stops_exponential_unions_on_every_entry_point() {
    let alt = json!({"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}}});
    let v = compile(json!({"$defs": {"n": {"anyOf": [{"type": "null"}, alt, alt]}}, "$ref": "#/$defs/n"}));
    let mut x = json!(5);
    for _ in 0..60 {
        x = json!({ "c": x });
    }
    assert!(!v.is_valid(&x));
    assert!(too_complex(&v.validate(&x).unwrap_err()));
    assert!(too_complex(&v.validate_owned(x.clone()).unwrap_err()));
}

#[test]
fn the_budget_counts_inserted_defaults() {
    // No $ref/anyOf, so the fast path accounts for defaults without inserting them; each
    // inserted 2000-item default still costs its 2001 node evaluations, which 100 objects
    // cannot afford (10 000 + 4 x 101 values x 4 nodes).
    let big = vec![0u32; 2000];
    let v = compile(json!({"type": "array", "items": {"type": "object",
        "properties": {"d": {"type": "array", "items": {}, "default": big}}}}));
    let few = Value::Array(vec![json!({}); 2]);
    assert!(v.is_valid(&few));
    assert_eq!(v.validate(&few).unwrap()[1]["d"].as_array().unwrap().len(), 2000);
    let many = Value::Array(vec![json!({}); 100]);
    assert!(!v.is_valid(&many));
    assert!(too_complex(&v.validate(&many).unwrap_err()));
    assert!(too_complex(&v.validate_owned(many.clone()).unwrap_err()));
    // Present values cost nothing extra.
    let present = Value::Array(vec![json!({"d": []}); 100]);
    assert!(v.is_valid(&present));
    assert!(matches!(v.validate_cow(&present), Ok(Cow::Borrowed(_))));
}

#[test]
fn the_budget_counts_values_only_when_needed_but_counts_them_all() {
    // 10 000 units suffice for small inputs; a large valid input needs the per-value part.
    let v = compile(json!({"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}));
    let x = Value::Array(vec![Value::Array(vec![json!(1); 100]); 200]);
    assert!(v.is_valid(&x));
    assert!(matches!(v.validate_cow(&x), Ok(Cow::Borrowed(_))));
}

#[test]
fn patterns_outside_the_simple_class_still_use_regress() {
    let v = compile(json!({"type": "string", "pattern": "^(?:[a-z]+\\.)*[a-z]+@\\p{L}+$"}));
    assert!(v.is_valid(&json!("a.b@héllo")));
    assert!(!v.is_valid(&json!("a..b@x")));
    let v = compile(json!({"pattern": "^dev_[a-z0-9]{6,}$"}));
    assert!(v.is_valid(&json!("dev_abc123")));
    assert!(!v.is_valid(&json!("dev_abc12")));
    assert!(!v.is_valid(&json!("dev_abc123\n")));
    assert!(v.is_valid(&json!(12)));
}

/// The fuzz target's invariants (`is_valid` agrees with `validate`, determinism, idempotent
/// defaults) on generated schemas and instances beyond the seed corpus.
#[cfg(feature = "fuzzing")]
#[test]
fn fuzz_target_invariants_on_generated_inputs() {
    let mut state = 0x2545F4914F6CDD1Du64;
    for len in 0..6000usize {
        let bytes: Vec<u8> = (0..(len % 300) + 8)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect();
        agent_surface_engine::fuzz_support::schema_validate(&bytes);
    }
    let stats = &agent_surface_engine::fuzz_support::SCHEMA_STATS;
    let [pairs, compiled, valid, _] = std::array::from_fn(|i| stats[i].load(std::sync::atomic::Ordering::Relaxed));
    eprintln!("generated: {pairs} pairs, {compiled} compiled, {valid} valid");
    assert!(compiled > 1000 && valid > 100, "{pairs} {compiled} {valid}");
}

#[test]
fn compiled_patterns_are_shared_and_invalid_ones_refused_every_time() {
    // Patterns are compiled once per process; the second schema with the same pattern gets the
    // same answers, and an invalid pattern is refused again, not remembered as valid.
    let schema = json!({"type": "string", "pattern": "^a(b|c)+$"});
    for _ in 0..2 {
        let v = compile(schema.clone());
        assert!(v.is_valid(&json!("abcb")));
        assert!(!v.is_valid(&json!("abd")));
    }
    for _ in 0..2 {
        let err =
            Validator::new(&json!({"type": "string", "pattern": "a{"}), &AgentSurfaceLimits::default()).unwrap_err();
        assert!(err[0].message.contains("not a valid ECMAScript regular expression"), "{:?}", err[0].message);
    }
}
