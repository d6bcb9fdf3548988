//! The validator's behaviour through its public API: defaults, issue order and paths,
//! messages, recursion, budgets, patterns, numbers, formats.

use super::*;
use crate::subset::SchemaViolationKind;
use serde_json::{json, Number};
use std::cmp::Ordering;

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

#[test]
fn defaults_fill_missing_properties_without_touching_the_input() {
    let v = compile(json!({
        "type": "object",
        "properties": {
            "mode": {"type": "string", "default": "replace"},
            "tags": {"type": "array", "default": ["a", {"b": 1}]},
            "name": {"type": "string", "default": "x"}
        }
    }));
    let input = json!({"name": "given"});
    let out = v.validate(&input).unwrap();
    assert_eq!(out, json!({"name": "given", "mode": "replace", "tags": ["a", {"b": 1}]}));
    // Present values are never overridden, the input is never modified, and each result
    // gets its own deep copy of the default.
    assert_eq!(input, json!({"name": "given"}));
    let mut again = v.validate(&json!({})).unwrap();
    again["tags"][1]["b"] = json!(2);
    assert_eq!(v.validate(&json!({})).unwrap()["tags"][1]["b"], json!(1));
    // A present null is a value, not a missing property.
    assert_eq!(v.validate(&json!({"mode": null})).unwrap_err()[0].path, "/mode");
    // Types are never coerced.
    assert!(v.validate(&json!({"name": 5})).is_err());
    // validate_owned gives the same result without a copy.
    assert_eq!(v.validate_owned(input.clone()).unwrap(), out);
}

#[test]
fn defaults_apply_recursively_and_before_required() {
    let v = compile(json!({
        "type": "object",
        "properties": {
            "page": {
                "type": "object",
                "default": {},
                "properties": {
                    "size": {"type": "integer", "default": 20},
                    "sort": {
                        "type": "object",
                        "properties": {"dir": {"enum": ["asc", "desc"], "default": "asc"}}
                    }
                },
                "required": ["size"]
            },
            "items": {
                "type": "array",
                "items": {"type": "object", "properties": {"qty": {"default": 1}}}
            }
        },
        "required": ["page"]
    }));
    assert_eq!(v.validate(&json!({})).unwrap(), json!({"page": {"size": 20}}));
    assert_eq!(
        v.validate(&json!({"page": {"sort": {}}, "items": [{}, {"qty": 5}]})).unwrap(),
        json!({"page": {"size": 20, "sort": {"dir": "asc"}}, "items": [{"qty": 1}, {"qty": 5}]})
    );
    // Without a default, required still fails.
    let v = compile(json!({"properties": {"a": {}}, "required": ["a"]}));
    assert_eq!(
        issues(json!({"properties": {"a": {}}, "required": ["a"]}), json!({})),
        vec![("".to_string(), "required".to_string(), "must have the required property \"a\"".to_string())]
    );
    assert!(v.is_valid(&json!({"a": null})));
}

#[test]
fn defaults_apply_only_inside_the_anyof_branch_that_matched() {
    let v = compile(json!({
        "anyOf": [
            {
                "type": "object",
                "properties": {"kind": {"const": "circle"}, "r": {"default": 1}},
                "required": ["kind"]
            },
            {
                "type": "object",
                "properties": {"kind": {"const": "rect"}, "w": {"default": 2}, "h": {"default": 3}},
                "required": ["kind"]
            }
        ]
    }));
    assert_eq!(v.validate(&json!({"kind": "rect", "h": 9})).unwrap(), json!({"kind": "rect", "w": 2, "h": 9}));
    assert_eq!(v.validate(&json!({"kind": "circle"})).unwrap(), json!({"kind": "circle", "r": 1}));
    // No branch matches: every branch's issues, then the anyOf issue; no defaults leak.
    let got = v.validate(&json!({"kind": "hexagon"})).unwrap_err();
    let got: Vec<(&str, &str)> = got.iter().map(|i| (i.path.as_str(), i.keyword.as_str())).collect();
    assert_eq!(got, vec![("/kind", "const"), ("/kind", "const"), ("", "anyOf")]);
    // Defaults in the root schema and a $ref target are applied together.
    let v = compile(json!({
        "$defs": {"base": {"properties": {"a": {"default": 1}}, "required": ["a", "b"]}},
        "$ref": "#/$defs/base",
        "properties": {"b": {"default": 2}}
    }));
    assert_eq!(v.validate(&json!({})).unwrap(), json!({"a": 1, "b": 2}));
}

#[test]
fn inserted_defaults_are_trusted() {
    // A default that violates its own subschema does not make valid input invalid (the
    // suite's default.json); the value is still inserted.
    let v = compile(json!({
        "properties": {"n": {"type": "integer", "maximum": 3, "default": 5}}
    }));
    assert_eq!(v.validate(&json!({})).unwrap(), json!({"n": 5}));
    assert_eq!(
        paths_and_keywords(
            json!({"properties": {"n": {"type": "integer", "maximum": 3, "default": 5}}}),
            json!({"n": 5})
        ),
        vec![pk("/n", "maximum")]
    );
}

#[test]
fn collects_every_issue_in_schema_then_instance_order() {
    // Keys in sorted order so the expectation holds with or without preserve_order.
    let schema = json!({
        "additionalProperties": false,
        "properties": {
            "a": {"maxLength": 2, "pattern": "^[a-z]+$", "type": "string"},
            "list": {"items": {"minimum": 0, "type": "integer"}, "maxItems": 2}
        },
        "required": ["a", "z"],
        "type": "object"
    });
    let got = paths_and_keywords(schema, json!({"a": "ABC", "list": [1, -1, 2.5], "x": 1, "y": 2}));
    assert_eq!(
        got,
        vec![
            pk("", "additionalProperties"),
            pk("", "additionalProperties"),
            pk("/a", "maxLength"),
            pk("/a", "pattern"),
            pk("/list/1", "minimum"),
            pk("/list/2", "type"),
            pk("/list", "maxItems"),
            pk("", "required"),
        ]
    );
}

#[test]
fn issue_paths_are_json_pointers_into_the_instance() {
    let schema = json!({
        "properties": {
            "a/b": {"properties": {"c~d": {"items": {"type": "string"}}}}
        }
    });
    assert_eq!(paths_and_keywords(schema, json!({"a/b": {"c~d": ["ok", 1]}})), vec![pk("/a~1b/c~0d/1", "type")]);
    assert_eq!(paths_and_keywords(json!({"type": "null"}), json!(0)), vec![pk("", "type")]);
    let issue = compile(json!({"minimum": 1})).validate(&json!(0)).unwrap_err();
    assert_eq!(
        serde_json::to_value(&issue).unwrap(),
        json!([{"path": "", "keyword": "minimum", "message": "must be greater than or equal to 1"}])
    );
}

#[test]
fn messages_are_agent_safe() {
    let secret = "s3cr3t-value-from-the-agent";
    let cases = [
        (json!({"maxLength": 10}), json!(format!("{secret}!!")), "must be at most 10 characters"),
        (json!({"minLength": 1}), json!(""), "must be at least 1 character"),
        (json!({"type": ["string", "null"]}), json!(1), "must be a string or null"),
        (json!({"type": "integer"}), json!(1.5), "must be an integer"),
        (json!({"enum": ["a", 1, null]}), json!(secret), "must be one of: \"a\", 1, null"),
        (json!({"const": {"k": [1]}}), json!(secret), "must be {\"k\":[1]}"),
        (json!({"pattern": "^a"}), json!(secret), "must match the pattern \"^a\""),
        (json!({"format": "uuid"}), json!(secret), "must be a UUID (8-4-4-4-12 hexadecimal digits)"),
        (json!({"exclusiveMaximum": 1e21}), json!(1e22), "must be less than 1e+21"),
        (json!({"multipleOf": 0.5}), json!(0.3), "must be a multiple of 0.5"),
        (json!({"minItems": 2}), json!([secret]), "must have at least 2 items"),
        (
            json!({"uniqueItems": true}),
            json!([secret, 1, secret]),
            "must not contain duplicate items (items 0 and 2 are equal)",
        ),
    ];
    for (schema, instance, want) in cases {
        let got = compile(schema.clone()).validate(&instance).unwrap_err();
        assert_eq!(got.len(), 1, "{schema}");
        assert_eq!(got[0].message, want, "{schema}");
        assert!(!got[0].message.contains(secret));
    }
    // Long property names from the instance are shortened.
    let long = "k".repeat(500);
    let got = compile(json!({"additionalProperties": false})).validate(&json!({ long.clone(): 1 })).unwrap_err();
    assert!(got[0].message.len() < 150, "{}", got[0].message);
    // Long enums are not spelled out.
    let many: Vec<String> = (0..100).map(|i| format!("value-{i}")).collect();
    let got = compile(json!({"enum": many})).validate(&json!("x")).unwrap_err();
    assert_eq!(got[0].message, "must be one of the allowed values");
}

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

#[test]
fn deep_but_allowed_schemas() {
    // 8 levels (the default maximum): root object, then nested objects and arrays.
    let schema = json!({"type": "object", "properties": {"a": {"type": "array", "items":
        {"type": "object", "properties": {"b": {"type": "array", "items":
        {"type": "object", "properties": {"c": {"type": "array", "items":
        {"type": "object", "properties": {"d": {"type": "string", "default": "deep"}}}}}}}}}}}});
    assert!(check_schema(&schema, SchemaLimits::default()).is_empty());
    let v = compile(schema);
    assert_eq!(
        v.validate(&json!({"a": [{"b": [{"c": [{}]}]}]})).unwrap(),
        json!({"a": [{"b": [{"c": [{"d": "deep"}]}]}]})
    );
    assert_eq!(v.validate(&json!({"a": [{"b": [{"c": [{"d": 1}]}]}]})).unwrap_err()[0].path, "/a/0/b/0/c/0/d");
}

#[test]
fn patterns_use_ecmascript_unicode_mode() {
    let v = compile(json!({"pattern": "^\\p{Letter}+$"}));
    assert!(v.is_valid(&json!("héllo")));
    assert!(!v.is_valid(&json!("h3llo")));
    // Unanchored search; \d and \w are ASCII-only; . matches one code point.
    assert!(compile(json!({"pattern": "b+"})).is_valid(&json!("abbc")));
    assert!(!compile(json!({"pattern": "^\\d$"})).is_valid(&json!("\u{07C0}")));
    assert!(compile(json!({"pattern": "^.$"})).is_valid(&json!("🐲")));
    assert!(compile(json!({"pattern": "^\\p{Script=Greek}\\p{Nd}$"})).is_valid(&json!("π٣")));
    assert!(!compile(json!({"pattern": "^abc$"})).is_valid(&json!("abc\n")));
    // Valid without flags but not in Unicode mode: check_schema (registration and the
    // compiler) and the validator refuse them alike.
    let limits = SchemaLimits::default();
    for p in ["\\-", "a{", "\\_"] {
        let s = json!({"properties": {"x": {"pattern": p}}});
        assert!(!check_schema(&s, limits).is_empty(), "{p}");
        let e = Validator::new(&s, limits).unwrap_err();
        assert!(matches!(e[0].kind, SchemaViolationKind::InvalidPattern { .. }), "{p}");
        assert_eq!(e[0].json_pointer(), "/properties/x/pattern");
    }
}

#[test]
fn types_and_numbers() {
    let int = compile(json!({"type": "integer"}));
    for ok in [json!(1), json!(1.0), json!(-0.0), json!(u64::MAX), json!(1e300)] {
        assert!(int.is_valid(&ok), "{ok}");
    }
    assert!(!int.is_valid(&json!(1.5)));
    assert!(!int.is_valid(&json!("1")));
    assert!(compile(json!({"type": "number"})).is_valid(&json!(3)));
    // Exact comparison across representations.
    assert!(!compile(json!({"maximum": 9007199254740992u64})).is_valid(&json!(9007199254740993u64)));
    assert!(compile(json!({"maximum": 9007199254740992.0})).is_valid(&json!(9007199254740992u64)));
    assert!(!compile(json!({"exclusiveMinimum": -1})).is_valid(&json!(-1.0)));
    assert_eq!(cmp_numbers(&Number::from(u64::MAX), &Number::from(-1)), Ordering::Greater);
    // multipleOf is exact on the decimal values.
    let cases = [
        (json!(0.0001), json!(0.0075), true),
        (json!(0.0001), json!(0.00751), false),
        (json!(0.1), json!(0.3), true),
        (json!(0.01), json!(19.99), true),
        (json!(1.5), json!(4.5), true),
        (json!(1.5), json!(35), false),
        (json!(2), json!(u64::MAX - 1), true),
        (json!(3), json!(u64::MAX), true),
        (json!(0.5), json!(1e308), true),
        (json!(0.123456789), json!(1e308), false),
        (json!(1e-8), json!(12391239123u64), true),
        (json!(7), json!(-14), true),
        (json!(7), json!(0), true),
        (json!(1e300), json!(1e-300), false),
    ];
    for (by, x, want) in cases {
        assert_eq!(compile(json!({"multipleOf": by})).is_valid(&x), want, "{x} multipleOf {by}");
    }
    assert!(is_json_number_safe(&Number::from(9007199254740992u64)));
    assert!(!is_json_number_safe(&Number::from(9007199254740993u64)));
    assert!(is_json_number_safe(&Number::from(1u64 << 60)));
    assert!(!is_json_number_safe(&Number::from(i64::MAX)));
    assert!(!is_json_number_safe(&Number::from(u64::MAX)));
    assert!(is_json_number_safe(&Number::from(i64::MIN)));
}

#[test]
fn equality_and_uniqueness() {
    assert!(json_equal(&json!({"a": 1, "b": [1.0]}), &json!({"b": [1], "a": 1.0})));
    assert!(!json_equal(&json!([1, 2]), &json!([2, 1])));
    assert!(!json_equal(&json!(0), &json!(false)));
    assert!(!json_equal(&json!({"a": null}), &json!({})));
    let v = compile(json!({"uniqueItems": true}));
    assert!(v.is_valid(&json!([1, "1", [1], {"a": 1}, {"a": 2}, true])));
    assert!(!v.is_valid(&json!([{"a": 1, "b": 2}, {"b": 2, "a": 1}])));
    assert!(!v.is_valid(&json!([1, 1.0])));
    assert!(v.is_valid(&json!([9007199254740992u64, 9007199254740993u64])));
    assert!(compile(json!({"enum": [[1, {"x": 2.0}]]})).is_valid(&json!([1.0, {"x": 2}])));
    assert!(compile(json!({"const": 1})).is_valid(&json!(1.0)));
}

#[test]
fn lengths_count_code_points() {
    let v = compile(json!({"maxLength": 2, "minLength": 2}));
    assert!(v.is_valid(&json!("💩💩")));
    assert!(v.is_valid(&json!("é\u{301}")));
    assert!(!v.is_valid(&json!("💩")));
}

#[test]
fn formats() {
    let ok = |f: &str, s: &str| compile(json!({"format": f})).is_valid(&json!(s));
    assert!(ok("date-time", "2024-02-29T23:59:60Z"));
    assert!(ok("date-time", "2024-01-01t00:00:00.5+14:00"));
    assert!(ok("date-time", "2024-06-30T18:59:60-05:00"));
    assert!(!ok("date-time", "2024-06-30T23:59:60+01:00"));
    assert!(!ok("date-time", "2024-01-01T00:00:00"));
    assert!(!ok("date-time", "2024-01-01 00:00:00Z"));
    assert!(!ok("date-time", "2024-01-01T00:00:00.Z"));
    assert!(ok("date", "2000-02-29"));
    assert!(!ok("date", "1900-02-29"));
    assert!(!ok("date", "2024-1-01"));
    assert!(ok("uuid", "2EB8AA08-aa98-11ea-b4aa-73b441d16380"));
    assert!(!ok("uuid", "{2eb8aa08-aa98-11ea-b4aa-73b441d16380}"));
    assert!(ok("email", "a.b+tag@sub.example.org"));
    assert!(ok("email", "\"a b\"@example.org"));
    assert!(ok("email", "x@[IPv6:2001:db8::1]"));
    assert!(!ok("email", "a@b@c"));
    assert!(!ok("email", "a@-b.com"));
    assert!(!ok("email", "é@example.org"));
    assert!(ok("uri", "https://user:pw@example.com:8080/p/a%20th?q=1&r=/x?#frag/?"));
    assert!(!ok("uri", "https://example.com/?r[]=2"));
    assert!(ok("uri", "urn:isbn:0451450523"));
    assert!(ok("uri", "http://[v1.fe80::a+en1]/"));
    assert!(!ok("uri", "example.com/path"));
    assert!(!ok("uri", "https://example.com/%zz"));
    assert!(!ok("uri", "https://exa mple.com"));
    assert!(!ok("uri", "http://[1:2:3:4:5:6:7:8:9]/"));
    // Formats only constrain strings, and can be switched off for conformance testing.
    assert!(ok("date", "2024-01-01") && compile(json!({"format": "date"})).is_valid(&json!(5)));
    let annotation = Validator::with_options(
        &json!({"format": "date"}),
        SchemaLimits::default(),
        ValidatorOptions::default().assert_formats(false),
    )
    .unwrap();
    assert!(annotation.is_valid(&json!("not a date")));
}

#[test]
fn annotations_do_not_validate() {
    let v = compile(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "T", "description": "D", "examples": [1], "deprecated": true,
        "$defs": {"unused": {"type": "null"}},
        "additionalProperties": true, "uniqueItems": false
    }));
    for x in [json!(1), json!("s"), json!({"a": 1}), json!([1, 1]), json!(null)] {
        assert!(v.is_valid(&x), "{x}");
    }
}
