//! Defaults: filled in (recursively, before `required`), never over a present value, only
//! inside the `anyOf` branch that matched, trusted once inserted.

use super::*;
use serde_json::json;

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
