//! The leaf keywords: patterns (ECMAScript `u` mode), types and numbers, equality and
//! uniqueness, lengths, formats, annotations.

use super::*;
use serde_json::{json, Number};
use std::cmp::Ordering;

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
