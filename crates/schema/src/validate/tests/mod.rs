//! The validator's behaviour through its public API: defaults, issue order and paths,
//! messages, recursion, budgets, patterns, numbers, formats.

mod defaults;
mod issues;
mod keywords;
mod recursion;

use super::*;
use crate::subset::SchemaViolationKind;
use serde_json::json;

fn compile(schema: Value) -> Validator {
    Validator::new(&schema, SchemaLimits::default()).unwrap_or_else(|e| panic!("schema refused: {e:#?}"))
}

fn issues(schema: Value, instance: Value) -> Vec<(String, String, String)> {
    compile(schema)
        .validate(&instance)
        .expect_err("expected the instance to be invalid")
        .into_iter()
        .map(|i| (i.path, i.keyword, i.message))
        .collect()
}

fn paths_and_keywords(schema: Value, instance: Value) -> Vec<(String, String)> {
    issues(schema, instance).into_iter().map(|(p, k, _)| (p, k)).collect()
}

fn pk(p: &str, k: &str) -> (String, String) {
    (p.to_string(), k.to_string())
}

#[test]
fn validator_is_clone_send_sync() {
    fn check<T: Clone + Send + Sync + 'static>() {}
    check::<Validator>();
    let v = compile(json!({"type": "string"}));
    let shared = Arc::new(v.clone());
    let t = std::thread::spawn(move || shared.is_valid(&json!("x")));
    assert!(t.join().unwrap());
    assert!(!v.is_valid(&json!(1)));
    assert_eq!(v.schema(), &json!({"type": "string"}));
}

#[test]
fn refuses_what_check_schema_refuses() {
    let e = Validator::new(&json!({"oneOf": [{}]}), SchemaLimits::default()).unwrap_err();
    assert_eq!(e[0].kind, SchemaViolationKind::UnsupportedKeyword { keyword: "oneOf".into() });
    let limits = SchemaLimits { max_schema_depth: 1, ..Default::default() };
    let e = Validator::new(&json!({"items": {}}), limits).unwrap_err();
    assert!(matches!(e[0].kind, SchemaViolationKind::TooDeep { .. }));
}
