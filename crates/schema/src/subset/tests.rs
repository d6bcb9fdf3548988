//! The checker: what it accepts, every violation with its pointer, kind and help.

use super::*;
use serde_json::json;
use SchemaViolationKind as K;

fn check(v: Value) -> Vec<SchemaViolation> {
    check_schema(&v, SchemaLimits::default())
}

fn ptr(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| x.to_string()).collect()
}

fn one(v: Value) -> SchemaViolation {
    let mut vs = check(v);
    assert_eq!(vs.len(), 1, "expected exactly one violation, got {vs:#?}");
    vs.remove(0)
}

#[test]
fn accepts_typical_zod_output() {
    let s = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "description": "Select rows",
        "properties": {
            "ids": {"type": "array", "items": {"type": "string", "format": "uuid"},
                    "minItems": 1, "maxItems": 100, "uniqueItems": true,
                    "description": "Device ids to select"},
            "mode": {"default": "replace", "type": "string", "enum": ["replace", "add", "remove"]},
            "note": {"type": ["string", "null"], "minLength": 0, "maxLength": 200,
                     "pattern": "^[a-z]+(?:-[a-z]+)*$"},
            "count": {"type": "integer", "minimum": 0, "exclusiveMaximum": 10, "multipleOf": 2},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1.5},
            "when": {"type": "string", "format": "date-time", "examples": ["2024-01-01T00:00:00Z"]},
            "kind": {"anyOf": [
                {"type": "object", "properties": {"tag": {"const": "a"}}, "required": ["tag"],
                 "additionalProperties": false},
                {"$ref": "#/$defs/b"}
            ]},
            "old": {"deprecated": true, "title": "Old"}
        },
        "required": ["ids", "mode"],
        "additionalProperties": false,
        "$defs": {"b": {"type": "object", "properties": {"tag": {"const": "b"}}}}
    });
    assert_eq!(check(s), vec![]);
    assert_eq!(check(json!({})), vec![]);
    // A trailing '#' on the dialect is tolerated; 1.0 counts as an integer.
    assert_eq!(check(json!({"$schema": format!("{SCHEMA_DIALECT}#"), "minItems": 1.0})), vec![]);
}

#[test]
fn unsupported_keywords_name_the_alternative() {
    let v = one(json!({"oneOf": [{"type": "string"}]}));
    assert_eq!(v.kind, K::UnsupportedKeyword { keyword: "oneOf".into() });
    assert_eq!(v.pointer, ptr(&["oneOf"]));
    assert!(v.help.as_deref().unwrap().starts_with("use anyOf"));
    assert_eq!(v.message, "unsupported keyword \"oneOf\"");

    for (kw, help_part) in [
        ("allOf", "merge"),
        ("not", "positively"),
        ("if", "anyOf"),
        ("patternProperties", "properties"),
        ("prefixItems", "tuples"),
        ("unevaluatedProperties", "additionalProperties: false"),
        ("definitions", "$defs"),
        ("dependentRequired", "anyOf"),
        ("nullable", "type array"),
        ("minProperties", "properties"),
        ("frobnicate", "supported keywords:"),
    ] {
        let v = one(json!({ kw: {} }));
        assert_eq!(v.kind, K::UnsupportedKeyword { keyword: kw.into() });
        assert!(v.help.as_deref().unwrap().contains(help_part), "{kw}: {:?}", v.help);
    }
    // Every supported keyword is actually accepted somewhere (no drift with the list).
    for kw in SUPPORTED_KEYWORDS {
        assert!(
            check(json!({ *kw: 1 })).iter().all(|v| v.kind != K::UnsupportedKeyword { keyword: kw.to_string() }),
            "{kw}"
        );
    }
}

#[test]
fn not_a_schema() {
    let v = one(json!(true));
    assert_eq!((v.kind, v.pointer), (K::NotASchema, vec![]));
    let v = one(json!([]));
    assert_eq!(v.kind, K::NotASchema);
    assert!(v.message.contains("found array"));
    let v = one(json!({"properties": {"a": false}}));
    assert_eq!((v.kind, v.pointer), (K::NotASchema, ptr(&["properties", "a"])));
    let v = one(json!({"items": true}));
    assert_eq!((v.kind, v.pointer), (K::NotASchema, ptr(&["items"])));
    let v = one(json!({"anyOf": [{}, 3]}));
    assert_eq!((v.kind, v.pointer), (K::NotASchema, ptr(&["anyOf", "1"])));
}

#[test]
fn additional_properties_must_be_boolean() {
    assert_eq!(check(json!({"additionalProperties": true})), vec![]);
    let v = one(json!({"additionalProperties": {"type": "string"}}));
    assert_eq!((v.kind, v.pointer), (K::AdditionalPropertiesNotBoolean, ptr(&["additionalProperties"])));
    assert!(v.help.unwrap().contains("z.record"));
    assert_eq!(one(json!({"additionalProperties": {}})).kind, K::AdditionalPropertiesNotBoolean);
    assert_eq!(one(json!({"additionalProperties": "no"})).kind, K::AdditionalPropertiesNotBoolean);
}

#[test]
fn formats() {
    for f in SUPPORTED_FORMATS {
        assert_eq!(check(json!({"type": "string", "format": f})), vec![]);
    }
    let v = one(json!({"properties": {"x": {"format": "ipv4"}}}));
    assert_eq!(v.kind, K::UnsupportedFormat { format: "ipv4".into() });
    assert_eq!(v.pointer, ptr(&["properties", "x", "format"]));
    assert!(v.help.unwrap().contains("date-time, date, uuid, email, uri"));
    assert_eq!(
        one(json!({"format": 1})).kind,
        K::InvalidKeywordValue { keyword: "format".into(), expected: "a string".into() }
    );
}

#[test]
fn refs() {
    let v = one(json!({"$ref": "https://example.com/s.json"}));
    assert_eq!(v.kind, K::RefNotLocal { reference: "https://example.com/s.json".into() });
    assert_eq!(v.pointer, ptr(&["$ref"]));
    for r in ["#/definitions/a", "#/$defs/", "#/$defs/a/properties/b", "#", "other.json#/$defs/a"] {
        assert!(matches!(one(json!({"$ref": r})).kind, K::RefNotLocal { .. }), "{r}");
    }
    let v = one(json!({"properties": {"a": {"$ref": "#/$defs/missing"}}, "$defs": {"b": {}}}));
    assert_eq!((v.kind, v.pointer), (K::RefUnresolved, ptr(&["properties", "a", "$ref"])));
    assert!(v.message.contains("\"missing\""));
    assert_eq!(one(json!({"$ref": "#/$defs/a"})).kind, K::RefUnresolved);
    // JSON pointer escapes in the name are decoded; recursive refs are fine.
    assert_eq!(check(json!({"$ref": "#/$defs/a~1b", "$defs": {"a/b": {"$ref": "#/$defs/a~1b"}}})), vec![]);
    assert!(matches!(one(json!({"$ref": 1})).kind, K::InvalidKeywordValue { .. }));
}

#[test]
fn defs_and_schema_only_at_root() {
    let v = one(json!({"properties": {"a": {"$defs": {"x": {}}}}}));
    assert_eq!((v.kind, v.pointer), (K::DefsNotAtRoot, ptr(&["properties", "a", "$defs"])));
    let v = one(json!({"items": {"$schema": SCHEMA_DIALECT}}));
    assert_eq!(v.kind, K::UnsupportedKeyword { keyword: "$schema".into() });
    assert_eq!(v.pointer, ptr(&["items", "$schema"]));
    let v = one(json!({"$schema": "http://json-schema.org/draft-07/schema#"}));
    assert!(matches!(v.kind, K::InvalidKeywordValue { ref keyword, .. } if keyword == "$schema"));
    // Definitions themselves are checked.
    let v = one(json!({"$defs": {"x": {"oneOf": []}}}));
    assert_eq!(v.pointer, ptr(&["$defs", "x", "oneOf"]));
    assert!(matches!(one(json!({"$defs": []})).kind, K::InvalidKeywordValue { .. }));
}

fn nested(levels: usize) -> Value {
    // `levels` schemas in total: the root plus levels-1 nested `items`.
    let mut s = json!({"type": "string"});
    for _ in 1..levels {
        s = json!({"type": "array", "items": s});
    }
    s
}

#[test]
fn depth_limit() {
    assert_eq!(check(nested(8)), vec![]);
    let v = one(nested(9));
    assert_eq!(v.kind, K::TooDeep { depth: 9, max: 8 });
    assert_eq!(v.pointer, vec!["items".to_string(); 8]);
    // Reported once per subtree, at the first too-deep level.
    let v = one(nested(12));
    assert_eq!(v.kind, K::TooDeep { depth: 9, max: 8 });
    // Two offending subtrees, two reports; every kind of child adds a level.
    let deep = nested(7);
    let s = json!({"properties": {"a": {"anyOf": [deep.clone()]}, "b": {"items": deep}}});
    let vs = check(s);
    assert_eq!(vs.len(), 2, "{vs:#?}");
    assert!(vs.iter().all(|v| v.kind == K::TooDeep { depth: 9, max: 8 }));
    assert_eq!(vs[0].pointer[..4], ptr(&["properties", "a", "anyOf", "0"])[..]);
    let s = json!({"$defs": {"d": nested(7)}, "$ref": "#/$defs/d"});
    assert_eq!(check(s), vec![]);
    let s = json!({"$defs": {"d": nested(8)}});
    assert_eq!(one(s).kind, K::TooDeep { depth: 9, max: 8 });
    // The limit comes from SchemaLimits.
    let limits = SchemaLimits { max_schema_depth: 2, ..Default::default() };
    assert_eq!(check_schema(&nested(2), limits), vec![]);
    assert_eq!(check_schema(&nested(3), limits)[0].kind, K::TooDeep { depth: 3, max: 2 });
}

#[test]
fn size_limit_uses_canonical_bytes() {
    let s = json!({"description": "x".repeat(100)});
    let bytes = canonical_json(&s).len();
    let at = SchemaLimits { max_schema_bytes: bytes, ..Default::default() };
    assert_eq!(check_schema(&s, at), vec![]);
    let below = SchemaLimits { max_schema_bytes: bytes - 1, ..Default::default() };
    let vs = check_schema(&s, below);
    assert_eq!(vs.len(), 1);
    assert_eq!(vs[0].kind, K::TooLarge { bytes, max: bytes - 1 });
    assert_eq!(vs[0].pointer, Vec::<String>::new());
    let big = json!({"description": "x".repeat(16_384)});
    assert!(matches!(one(big).kind, K::TooLarge { max: 16_384, .. }));
}

#[test]
fn patterns_are_compiled_as_ecmascript() {
    assert_eq!(check(json!({"pattern": "^\\d{3}-\\w+$"})), vec![]);
    assert_eq!(check(json!({"pattern": "(?<year>\\d{4})"})), vec![]);
    let v = one(json!({"pattern": "([a-z]"}));
    assert!(matches!(v.kind, K::InvalidPattern { ref pattern, .. } if pattern == "([a-z]"));
    assert_eq!(v.pointer, ptr(&["pattern"]));
    // Lookbehind is valid ECMAScript; Perl's possessive quantifier is not.
    assert_eq!(check(json!({"pattern": "(?<=a)b"})), vec![]);
    assert!(matches!(one(json!({"pattern": "a++"})).kind, K::InvalidPattern { .. }));
    // `u` mode quantifies no assertion (regress alone would accept these; ECMAScript refuses).
    for quantified in ["\\b*", "x\\B{2}y", "\\b?", "(?:\\b+)"] {
        assert!(matches!(one(json!({"pattern": quantified})).kind, K::InvalidPattern { .. }), "{quantified}");
    }
    // A backspace class and an escaped backslash are quantifiable.
    assert_eq!(check(json!({"pattern": "[\\b]*"})), vec![]);
    assert_eq!(check(json!({"pattern": "\\\\b*"})), vec![]);
    assert!(matches!(one(json!({"pattern": 5})).kind, K::InvalidKeywordValue { .. }));
}

#[test]
fn types() {
    let v = one(json!({"type": "date"}));
    assert_eq!((v.kind, v.pointer), (K::TypeUnknown { name: "date".into() }, ptr(&["type"])));
    let v = one(json!({"type": ["string", "nul"]}));
    assert_eq!((v.kind, v.pointer), (K::TypeUnknown { name: "nul".into() }, ptr(&["type", "1"])));
    assert!(matches!(one(json!({"type": []})).kind, K::InvalidKeywordValue { .. }));
    assert!(matches!(one(json!({"type": 1})).kind, K::InvalidKeywordValue { .. }));
    let v = one(json!({"type": ["string", "string"]}));
    assert_eq!(v.pointer, ptr(&["type", "1"]));
    assert!(matches!(one(json!({"type": ["string", 1]})).kind, K::InvalidKeywordValue { .. }));
}

#[test]
fn keyword_values() {
    let bad = [
        (json!({"enum": []}), "enum"),
        (json!({"enum": "a"}), "enum"),
        (json!({"properties": []}), "properties"),
        (json!({"required": "a"}), "required"),
        (json!({"minItems": -1}), "minItems"),
        (json!({"maxLength": 1.5}), "maxLength"),
        (json!({"minLength": "1"}), "minLength"),
        (json!({"uniqueItems": 1}), "uniqueItems"),
        (json!({"deprecated": "yes"}), "deprecated"),
        (json!({"description": 1}), "description"),
        (json!({"title": null}), "title"),
        (json!({"examples": "a"}), "examples"),
        (json!({"minimum": "0"}), "minimum"),
        (json!({"multipleOf": 0}), "multipleOf"),
        (json!({"multipleOf": -2}), "multipleOf"),
        (json!({"anyOf": []}), "anyOf"),
        (json!({"anyOf": {}}), "anyOf"),
        (json!({"items": [{}]}), "items"),
    ];
    for (s, kw) in bad {
        let v = one(s.clone());
        assert!(matches!(&v.kind, K::InvalidKeywordValue { keyword, .. } if keyword == kw), "{s}: {v:?}");
    }
    let v = one(json!({"exclusiveMinimum": true, "minimum": 0}));
    assert_eq!(v.pointer, ptr(&["exclusiveMinimum"]));
    assert!(v.help.unwrap().contains("\"exclusiveMinimum\": <number>"));
    let v = one(json!({"required": ["a", "b", "a"]}));
    assert_eq!(v.pointer, ptr(&["required", "2"]));
    let v = one(json!({"required": ["a", 1]}));
    assert_eq!(v.pointer, ptr(&["required", "1"]));
    assert_eq!(check(json!({"const": null, "default": {"x": [1]}, "enum": [1, "a", null]})), vec![]);
}

#[test]
fn reports_all_violations_in_document_order() {
    // Written in sorted key order so the test holds with or without serde_json's
    // preserve_order feature (document order is the map's iteration order).
    let s = json!({
        "allOf": [],
        "properties": {
            "a": {"format": "hostname", "type": "string"},
            "b": {"oneOf": [{"type": "bogus"}]},
            "c": {"additionalProperties": {}}
        },
        "type": "object"
    });
    let vs = check(s);
    let got: Vec<(String, &K)> = vs.iter().map(|v| (v.json_pointer(), &v.kind)).collect();
    assert_eq!(
        got,
        vec![
            ("/allOf".to_string(), &K::UnsupportedKeyword { keyword: "allOf".into() }),
            ("/properties/a/format".to_string(), &K::UnsupportedFormat { format: "hostname".into() }),
            ("/properties/b/oneOf".to_string(), &K::UnsupportedKeyword { keyword: "oneOf".into() }),
            ("/properties/c/additionalProperties".to_string(), &K::AdditionalPropertiesNotBoolean),
        ]
    );
}

#[test]
fn json_pointer_escapes() {
    assert_eq!(json_pointer(&ptr(&["properties", "a/b", "c~d"])), "/properties/a~1b/c~0d");
    assert_eq!(json_pointer(&[]), "");
}

/// Without the `regress` feature and without an installed engine, a `pattern` is refused as a
/// violation, not a panic; schemas without one still work. Run it with
/// `cargo test -p agent-surface-schema --no-default-features --lib without_an_engine` (the
/// other tests need an engine).
#[cfg(not(feature = "regress"))]
#[test]
fn without_an_engine_every_pattern_is_a_violation() {
    let s = json!({"properties": {"id": {"type": "string", "pattern": "^a$"}}});
    let v = one(s.clone());
    assert!(
        matches!(&v.kind, K::InvalidPattern { pattern, error }
            if pattern == "^a$" && error.contains("no regular-expression engine")),
        "{v:#?}"
    );
    assert_eq!(v.json_pointer(), "/properties/id/pattern");
    assert!(v.message.contains("cannot be checked"), "{}", v.message);
    assert!(crate::validate::Validator::new(&s, SchemaLimits::default()).is_err());
    let plain = crate::validate::Validator::new(&json!({"type": "string"}), SchemaLimits::default()).unwrap();
    assert!(plain.is_valid(&json!("x")));
}
