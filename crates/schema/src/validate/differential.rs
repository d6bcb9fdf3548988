//! The fast path, the copy-free issue collection and the lazy budget against the reference
//! evaluation ([`Compiled::apply`], the path `validate` always took before them): on every
//! schema of the JSON-Schema-Test-Suite and of the fuzz seed corpus, variants of them with
//! defaults added, and many instances derived from theirs, `validate`, `validate_owned`,
//! `validate_cow` and `is_valid` must give exactly the reference's result (value or every
//! issue, in order).

use super::equality::first_duplicate;
use super::message::{pointer, push_decimal, quote, required_message, unknown_property, Seg};
use super::*;
use crate::canonical::canonical_json;
use serde_json::json;
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|e| e == "json") || dir.ends_with("schema_validate") {
            out.push(p);
        }
    }
}

/// (schema, instances) from the suite and the fuzz seeds.
fn sources() -> Vec<(Value, Vec<Value>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    files(&root.join("../../conformance/json-schema-test-suite/draft2020-12"), &mut paths);
    let suite_files = paths.len();
    files(&root.join("../../fuzz/corpus/schema_validate"), &mut paths);
    assert!(suite_files > 20, "the JSON-Schema-Test-Suite is missing");
    let mut out = Vec::new();
    for p in paths {
        let Ok(doc) = serde_json::from_slice::<Value>(&std::fs::read(&p).unwrap()) else {
            continue;
        };
        match doc {
            Value::Array(groups) => {
                for g in groups {
                    let instances = g["tests"]
                        .as_array()
                        .map(|ts| ts.iter().map(|t| t["data"].clone()).collect())
                        .unwrap_or_default();
                    out.push((g["schema"].clone(), instances));
                }
            }
            Value::Object(m) => {
                if let (Some(s), Some(Value::Array(is))) = (m.get("schema"), m.get("instances")) {
                    out.push((s.clone(), is.clone()));
                }
            }
            _ => {}
        }
    }
    out
}

/// The schema with a `default` on every `properties` subschema that has none (values that
/// satisfy or break it, so both trusted-default cases occur).
fn with_defaults(schema: &Value, seed: &mut u64) -> Value {
    fn walk(v: &mut Value, seed: &mut u64) {
        match v {
            Value::Object(m) => {
                if let Some(Value::Object(props)) = m.get_mut("properties") {
                    for (_, sub) in props.iter_mut() {
                        if let Value::Object(sm) = sub {
                            if !sm.contains_key("default") {
                                *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                                let d = match (*seed >> 33) % 6 {
                                    0 => json!(null),
                                    1 => json!({}),
                                    2 => json!("x"),
                                    3 => json!(1),
                                    4 => json!([1, {"a": 1}]),
                                    _ => sm
                                        .get("const")
                                        .cloned()
                                        .or_else(|| sm.get("enum").and_then(|e| e.get(0)).cloned())
                                        .unwrap_or(json!({"k": "v"})),
                                };
                                sm.insert("default".into(), d);
                            }
                        }
                    }
                }
                for (_, c) in m.iter_mut() {
                    walk(c, seed);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|c| walk(c, seed)),
            _ => {}
        }
    }
    let mut s = schema.clone();
    walk(&mut s, seed);
    s
}

/// `x` and values one edit away from it, a level or two down.
fn variants(x: &Value, depth: usize, out: &mut Vec<Value>) {
    out.push(x.clone());
    if depth == 0 || out.len() > 400 {
        return;
    }
    let scalars = [json!(null), json!(true), json!(0), json!(1.5), json!("s"), json!([]), json!({})];
    match x {
        Value::Object(m) => {
            for k in m.keys() {
                let mut y = m.clone();
                y.remove(k);
                out.push(Value::Object(y));
                for s in &scalars {
                    let mut y = m.clone();
                    y.insert(k.clone(), s.clone());
                    out.push(Value::Object(y));
                }
                let mut inner = Vec::new();
                variants(&m[k], depth - 1, &mut inner);
                for v in inner {
                    let mut y = m.clone();
                    y.insert(k.clone(), v);
                    out.push(Value::Object(y));
                }
            }
            let mut y = m.clone();
            y.insert("zz".into(), json!(1));
            out.push(Value::Object(y));
        }
        Value::Array(items) if !items.is_empty() => {
            out.push(Value::Array(items[1..].to_vec()));
            let mut y = items.clone();
            y.push(items[0].clone());
            out.push(Value::Array(y));
            for (i, item) in items.iter().enumerate().take(4) {
                let mut inner = Vec::new();
                variants(item, depth - 1, &mut inner);
                for v in inner {
                    let mut y = items.clone();
                    y[i] = v;
                    out.push(Value::Array(y));
                }
            }
        }
        _ => {}
    }
}

/// Every entry point gives the reference's answer on `x`.
fn check(v: &Validator, x: &Value) -> bool {
    let inner = &*v.inner;
    let want = inner.apply(x.clone(), Some(x));
    assert_eq!(inner.apply(x.clone(), None), want, "eager and lazy budgets differ: schema {} instance {x}", v.schema());
    let got = v.validate(x);
    assert_eq!(got, want, "validate: schema {} instance {x}", v.schema());
    assert_eq!(v.validate_owned(x.clone()), want, "validate_owned: schema {}", v.schema());
    assert_eq!(v.is_valid(x), want.is_ok(), "is_valid: schema {} instance {x}", v.schema());
    match v.validate_cow(x) {
        Ok(Cow::Borrowed(b)) => assert_eq!(Ok(b.clone()), want),
        Ok(Cow::Owned(o)) => assert_eq!(Ok(o), want),
        Err(e) => assert_eq!(Err(e), want),
    }
    want.is_ok()
}

#[test]
fn every_path_agrees_with_the_reference_evaluation() {
    let limits = SchemaLimits::default();
    let mut seed = 7u64;
    let (mut schemas, mut pairs, mut valid) = (0, 0, 0);
    for (schema, instances) in sources() {
        let mut forms = vec![schema.clone(), with_defaults(&schema, &mut seed)];
        forms.push(json!({"anyOf": [forms[1].clone()]}));
        for form in forms {
            let Ok(v) = Validator::new(&form, &limits) else {
                continue;
            };
            schemas += 1;
            let mut xs = Vec::new();
            for i in &instances {
                variants(i, 2, &mut xs);
            }
            for x in &xs {
                pairs += 1;
                valid += usize::from(check(&v, x));
            }
        }
    }
    eprintln!("differential: {schemas} schemas, {pairs} instances, {valid} valid");
    assert!(schemas > 400 && pairs > 8_000 && valid > 2_000, "{schemas} {pairs} {valid}");
}

#[test]
fn bench_like_schemas_agree_with_the_reference_evaluation() {
    let row = json!({
        "type": "object",
        "properties": {
            "id": {"type": "string", "pattern": "^dev_[a-z0-9]{6,}$"},
            "name": {"type": "string", "maxLength": 12},
            "status": {"enum": ["online", "offline", "maintenance"]},
            "lastSeen": {"type": ["string", "null"], "format": "date-time"},
            "owner": {"type": "object", "properties": {"email": {"type": "string", "format": "email"},
                "id": {"type": "string", "format": "uuid"}}, "required": ["email", "id"],
                "additionalProperties": false}
        },
        "required": ["id", "name", "status", "lastSeen"],
        "additionalProperties": false
    });
    let schemas = [
        json!({"type": "object", "properties": {
            "ids": {"type": "array", "items": {"type": "string", "pattern": "^dev_[a-z0-9]{6,}$"},
                "minItems": 1, "maxItems": 5, "uniqueItems": true},
            "reason": {"type": "string", "maxLength": 20},
            "notify": {"type": "boolean", "default": true},
            "page": {"type": "object", "default": {}, "properties": {"size": {"default": 20, "maximum": 50}},
                "required": ["size"]}
        }, "required": ["ids", "notify"], "additionalProperties": false}),
        json!({"type": "object", "properties": {
            "rows": {"type": "array", "items": {"$ref": "#/$defs/Row"}, "maxItems": 3},
            "next": {"anyOf": [{"type": "string"}, {"type": "null"}]}
        }, "required": ["rows", "next"], "additionalProperties": false, "$defs": {"Row": row}}),
    ];
    let instances = [
        json!({"ids": ["dev_abc123", "dev_def456"], "notify": false}),
        json!({"ids": ["dev_abc123", "nope", "dev_abc123"], "extra": 1}),
        json!({"ids": ["dev_abc123"], "page": {"size": 60}}),
        json!({"rows": [{"id": "dev_abcdef", "name": "n", "status": "online", "lastSeen": null,
            "owner": {"email": "a@b.c", "id": "6f1c1f6e-3c1e-4a57-9d0f-2b0c8a1e9f00"}}], "next": "c"}),
    ];
    let limits = SchemaLimits::default();
    let mut n = 0;
    for s in &schemas {
        let v = Validator::new(s, &limits).unwrap();
        for i in &instances {
            let mut xs = Vec::new();
            variants(i, 3, &mut xs);
            for x in &xs {
                check(&v, x);
                n += 1;
            }
        }
    }
    eprintln!("bench-like: {n} instances");
    assert!(n > 250, "{n}");
}

#[test]
fn message_and_pointer_helpers_match_their_plain_definitions() {
    // The definitions they replace (allocation-heavy, kept here as the reference).
    fn old_pointer(path: &[Seg<'_>]) -> String {
        let mut out = String::new();
        for seg in path {
            out.push('/');
            match seg {
                Seg::Key(k) => out.push_str(&k.replace('~', "~0").replace('/', "~1")),
                Seg::Index(i) => out.push_str(&i.to_string()),
            }
        }
        out
    }
    fn old_quote(s: &str) -> String {
        if s.chars().count() <= 64 {
            canonical_json(&Value::String(s.to_string()))
        } else {
            let short: String = s.chars().take(64).collect();
            let text = canonical_json(&Value::String(short));
            format!("{}…\"", &text[..text.len() - 1])
        }
    }
    let keys = [
        "",
        "a",
        "a/b",
        "c~d",
        "~/~/",
        "é💩",
        "\u{0}\u{1f}\"\\\n\r\t\u{8}\u{c}\u{7f}",
        &"k".repeat(64),
        &"k".repeat(65),
        &"é".repeat(70),
        "x\u{2028}y",
    ];
    for k in keys {
        assert_eq!(quote(k), old_quote(k), "{k:?}");
        assert_eq!(unknown_property(k), format!("must not have the property {} (unknown property)", old_quote(k)));
        assert_eq!(required_message(k), format!("must have the required property {}", old_quote(k)));
        for i in [0usize, 7, 10, 99, 12345, usize::MAX] {
            let path = [Seg::Key(k), Seg::Index(i), Seg::Key("z")];
            assert_eq!(pointer(&path), old_pointer(&path), "{k:?} {i}");
        }
    }
    assert_eq!(pointer(&[]), "");
    for n in [0u64, 1, 9, 10, 101, u64::MAX] {
        let mut s = String::new();
        push_decimal(&mut s, n);
        assert_eq!(s, n.to_string());
    }
}

#[test]
fn first_duplicate_of_strings_matches_the_general_comparison() {
    let pool = ["a", "b", "ab", "abcdefgh", "abcdefghi", "abcdefghj", "", "é"];
    let mut seed = 1u64;
    for _ in 0..3000 {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let len = (seed >> 60) as usize + 1;
        let items: Vec<Value> =
            (0..len).map(|k| json!(pool[((seed >> (k * 3 % 56)) % pool.len() as u64) as usize])).collect();
        let general = (1..items.len()).find_map(|j| (0..j).find(|&i| json_equal(&items[i], &items[j])).map(|i| (i, j)));
        assert_eq!(first_duplicate(&items), general, "{items:?}");
    }
}
