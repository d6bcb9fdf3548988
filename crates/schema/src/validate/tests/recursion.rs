//! Recursion through `$defs`, unions and the work budget: deep and hostile input terminates,
//! discriminated unions cost linear time, loops that never descend are refused.

use super::*;
use serde_json::json;

#[test]
fn recursion_through_defs() {
    let tree = json!({
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "open": {"type": "boolean", "default": false},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
                },
                "required": ["name"],
                "additionalProperties": false
            }
        },
        "$ref": "#/$defs/node"
    });
    let v = compile(tree);
    let input = json!({"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]});
    assert_eq!(
        v.validate(&input).unwrap(),
        json!({"name": "a", "open": false, "children": [
            {"name": "b", "open": false, "children": [{"name": "c", "open": false}]}
        ]})
    );
    assert_eq!(
        v.validate(&json!({"name": "a", "children": [{"children": [{"name": 1}]}]}))
            .unwrap_err()
            .iter()
            .map(|i| (i.path.as_str(), i.keyword.as_str()))
            .collect::<Vec<_>>(),
        vec![("/children/0/children/0/name", "type"), ("/children/0", "required")]
    );
    // Arbitrarily deep input stops at MAX_INSTANCE_DEPTH instead of exhausting the stack.
    let mut deep = json!({"name": "leaf"});
    for _ in 0..200 {
        deep = json!({"name": "n", "children": [deep]});
    }
    let got = v.validate(&deep).unwrap_err();
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].keyword, "$ref");
    assert!(got[0].message.contains("nested too deeply"));
    // 60 levels = 120 path segments, within the limit.
    let mut ok = json!({"name": "leaf"});
    for _ in 0..60 {
        ok = json!({"name": "n", "children": [ok]});
    }
    assert!(v.is_valid(&ok));
    // Worst case per level (anyOf + $ref + properties, with defaults so anyOf copies) at and
    // beyond the depth limit, on the 2 MiB test thread stack.
    let v = compile(json!({
        "$defs": {"n": {"anyOf": [
            {"type": "null"},
            {"type": "object", "properties": {"d": {"default": 0}, "c": {"$ref": "#/$defs/n"}}}
        ]}},
        "$ref": "#/$defs/n"
    }));
    let nest = |levels: usize| {
        let mut x = json!(null);
        for _ in 0..levels {
            x = json!({ "c": x });
        }
        x
    };
    assert!(v.is_valid(&nest(MAX_INSTANCE_DEPTH)));
    let got = v.validate(&nest(MAX_INSTANCE_DEPTH + 50)).unwrap_err();
    assert!(got.iter().any(|i| i.message.contains("nested too deeply")), "{got:?}");
    // Mutual recursion and refs to refs.
    let v = compile(json!({
        "$defs": {
            "a": {"$ref": "#/$defs/b"},
            "b": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#/$defs/a"}}]}
        },
        "$ref": "#/$defs/a"
    }));
    assert!(v.is_valid(&json!([1, [2, [3]]])));
    assert!(!v.is_valid(&json!([1, ["x"]])));
}

fn filter_schema() -> Value {
    let branch = |op: &str| {
        json!({"type": "object", "properties": {"op": {"const": op},
            "args": {"type": "array", "items": {"$ref": "#/$defs/f"}}},
            "required": ["op", "args"], "additionalProperties": false})
    };
    json!({"$defs": {"f": {"anyOf": [
        branch("and"),
        branch("or"),
        {"type": "object", "properties": {"op": {"const": "eq"}, "field": {"type": "string"}},
         "required": ["op", "field"], "additionalProperties": false}
    ]}}, "$ref": "#/$defs/f"})
}

#[test]
fn recursive_discriminated_unions_cost_linear_time() {
    // Without the anyOf quick check this is 2^depth work and would exhaust the budget.
    let v = compile(filter_schema());
    let mut x = json!({"op": "eq", "field": "a"});
    for i in 0..60 {
        x = json!({"op": if i % 2 == 0 { "or" } else { "and" }, "args": [x, {"op": "eq", "field": "b"}]});
    }
    assert!(v.is_valid(&x));
    // A deep mistake is reported through the alternatives the input chose (its `op`), not
    // with every alternative's complaints.
    let x = json!({"op": "or", "args": [{"op": "and", "args": [{"op": "eq", "field": 1}]}]});
    let got: Vec<(String, String)> = v.validate(&x).unwrap_err().into_iter().map(|i| (i.path, i.keyword)).collect();
    assert_eq!(
        got,
        vec![
            pk("/args/0/args/0/field", "type"),
            pk("/args/0/args/0", "anyOf"),
            pk("/args/0", "anyOf"),
            pk("", "anyOf"),
        ]
    );
    // No alternative fits even superficially: the issues of those that fit best.
    let got: Vec<(String, String)> =
        v.validate(&json!({"op": "xor"})).unwrap_err().into_iter().map(|i| (i.path, i.keyword)).collect();
    assert_eq!(got.last(), Some(&pk("", "anyOf")));
    assert_eq!(got.iter().filter(|(_, k)| k == "const").count(), 3);
    let got = issues(json!({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer"}]}), json!("abcdef"));
    let messages: Vec<&str> = got.iter().map(|(_, _, m)| m.as_str()).collect();
    assert_eq!(
        messages,
        vec![
            "must be at most 3 characters",
            "must be an integer",
            "must match at least one of the allowed alternatives (anyOf)"
        ]
    );
}

#[test]
fn pathological_unions_hit_the_budget_instead_of_hanging() {
    // Two alternatives that look alike until the bottom: inherently exponential.
    let alt = json!({"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}}});
    let v = compile(json!({"$defs": {"n": {"anyOf": [{"type": "null"}, alt, alt]}},
        "$ref": "#/$defs/n"}));
    let nest = |levels: usize, leaf: Value| {
        let mut x = leaf;
        for _ in 0..levels {
            x = json!({ "c": x });
        }
        x
    };
    assert!(v.is_valid(&nest(100, json!(null))));
    let started = std::time::Instant::now();
    let got = v.validate(&nest(60, json!(5))).unwrap_err();
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let last = got.last().unwrap();
    assert_eq!(last.keyword, "anyOf");
    assert!(last.message.contains("too complex"), "{got:?}");
}

#[test]
fn long_chains_of_definitions() {
    // d0 -> d1 -> ... -> d399 -> {"type": "integer"}; compiled and evaluated in a 2 MiB
    // test thread without deep compile-time recursion.
    let mut defs = serde_json::Map::new();
    for i in 0..400 {
        defs.insert(format!("d{i}"), json!({"$ref": format!("#/$defs/d{}", i + 1)}));
    }
    defs.insert("d400".into(), json!({"type": "integer"}));
    let v = compile(json!({"$defs": defs, "$ref": "#/$defs/d0"}));
    assert!(v.is_valid(&json!(3)));
    assert!(!v.is_valid(&json!("3")));
}

#[test]
fn refuses_ref_cycles_that_never_descend() {
    let limits = SchemaLimits::default();
    for schema in [
        json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
        json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}),
        json!({"$defs": {"a": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/a"}]}}}),
    ] {
        assert!(check_schema(&schema, limits).is_empty(), "{schema}");
        let e = Validator::new(&schema, limits).unwrap_err();
        assert!(
            e.iter().all(|v| matches!(&v.kind,
                SchemaViolationKind::InvalidKeywordValue { keyword, .. } if keyword == "$ref")),
            "{e:#?}"
        );
        assert_eq!(e[0].pointer.last().map(String::as_str), Some("$ref"));
    }
}
