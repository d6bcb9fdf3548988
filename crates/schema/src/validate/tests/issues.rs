//! Issues: every one, in schema then instance order, with JSON Pointer paths and agent-safe
//! messages.

use super::*;
use serde_json::json;

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
