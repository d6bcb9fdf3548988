//! What this validator answers, committed for the TypeScript validator of the page
//! (`packages/core/src/validate`), which must answer the same:
//!
//! - `conformance/suite-verdicts.json`: for every group of the JSON-Schema-Test-Suite under
//!   `conformance/`, the schema refused (each violation as `"<pointer> pattern"` for an invalid
//!   pattern, else `"<pointer> subset"`: the engines word invalid patterns differently) or, per
//!   test, `true` or its issues as `"<path> <keyword>"`. Read by
//!   `packages/core/test/patterns.test.js` and `test/validate/suite.test.js`.
//! - `conformance/validator-corpus.json`: a seeded corpus of schemas over the whole subset
//!   (nested objects, `required`, `additionalProperties: false`, defaults, enums, consts,
//!   `anyOf`, recursive `$defs`/`$ref`, string/number/array bounds, formats, patterns regress
//!   and ECMAScript agree on, property names that sort differently by code point and by UTF-16)
//!   with generated instances, each with the verdict: the effective value (defaults applied) or
//!   every issue (path, keyword, message, in order). Read by
//!   `packages/core/test/validate/corpus.test.js`.
//!
//! And `conformance/ecmascript-patterns.json` (hand-written ECMA-262 answers) holds natively, as it
//! holds for the page's validator (`packages/core/test/patterns.test.js`).
//!
//! The two generated files are regenerated and compared with the committed ones: after an intended change
//! to the suite, the generator or what the validator answers, run
//! `UPDATE_SUITE_VERDICTS=1 UPDATE_VALIDATOR_CORPUS=1 cargo test -p agent-surface-schema --test it validator_corpus`
//! and read the diff.

use crate::pattern_engine::setup;
use agent_surface_schema::validate::MAX_INSTANCE_DEPTH;
use agent_surface_schema::{SchemaLimits, Validator};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

const SUITE_DIR: &str = "conformance/json-schema-test-suite/draft2020-12";
const VERDICTS: &str = "conformance/suite-verdicts.json";
const CORPUS: &str = "conformance/validator-corpus.json";
const CASES: &str = "conformance/ecmascript-patterns.json";
const SEED: u64 = 0x5eed_2025_0025;
const GENERATED_SCHEMAS: usize = 420;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Compares `text` with the committed file, or rewrites it when `update_var` is set.
fn compare_or_update(rel: &str, text: &str, update_var: &str) {
    let path = repo().join(rel);
    if std::env::var_os(update_var).is_some() {
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    assert!(
        committed == text,
        "{rel} is stale: the validator (or the generator) now answers differently; if intended, run \
         {update_var}=1 cargo test -p agent-surface-schema --test it validator_corpus (and read the diff)"
    );
}

// ------------------------------------------------------------------------------------------
// The suite's verdicts.

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

/// Every group of the suite, in file order: `{file, group, refused}` or `{file, group,
/// results}`, one group a line.
fn suite_verdicts() -> String {
    let root = repo().join(SUITE_DIR);
    let mut files = Vec::new();
    collect(&root, &mut files);
    let mut lines = Vec::new();
    for path in &files {
        let file = path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        let groups: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        for group in &groups {
            let description = group["description"].as_str().unwrap();
            let entry = match Validator::new(&group["schema"], SchemaLimits::default()) {
                Err(violations) => {
                    let refused: Vec<String> = violations
                        .iter()
                        .map(|v| {
                            let what =
                                if v.message.starts_with("\"pattern\" is not a valid ECMAScript regular expression") {
                                    "pattern"
                                } else {
                                    "subset"
                                };
                            format!("{} {what}", v.json_pointer())
                        })
                        .collect();
                    json!({ "file": file, "group": description, "refused": refused })
                }
                Ok(validator) => {
                    let results: Vec<Value> = group["tests"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|t| match validator.validate(&t["data"]) {
                            Ok(_) => json!(true),
                            Err(issues) => issues.iter().map(|i| json!(format!("{} {}", i.path, i.keyword))).collect(),
                        })
                        .collect();
                    json!({ "file": file, "group": description, "results": results })
                }
            };
            lines.push(format!("    {entry}"));
        }
    }
    let about =
        "What the Rust validator (agent_surface_schema::Validator with the default limits, patterns by regress) \
                 answers for every group of conformance/json-schema-test-suite: refused (each violation as pointer and \
                 'pattern' or 'subset') or results (per test: true, or its issues as path and keyword). The TypeScript \
                 validator (the page's RegExp) must answer the same (packages/core/test/patterns.test.js, \
                 test/validate/suite.test.js). Generated by UPDATE_SUITE_VERDICTS=1 cargo test -p agent-surface-schema \
                 --test it validator_corpus (crates/schema/tests/it/validator_corpus.rs).";
    format!("{{\n  \"about\": {},\n  \"groups\": [\n{}\n  ]\n}}\n", json!(about), lines.join(",\n"))
}

#[test]
fn suite_verdicts_are_current() {
    setup();
    compare_or_update(VERDICTS, &suite_verdicts(), "UPDATE_SUITE_VERDICTS");
}

/// `conformance/ecmascript-patterns.json`, hand-written ECMA-262 answers (checked against Node's
/// `RegExp`) for patterns only ECMAScript's Unicode-mode semantics decide, hold natively; the page's
/// validator is checked against the same file (`packages/core/test/patterns.test.js`).
#[test]
fn ecmascript_pattern_cases_hold_natively() {
    setup();
    let text = std::fs::read_to_string(repo().join(CASES)).unwrap();
    let cases: Value = serde_json::from_str(&text).unwrap();
    let cases = cases["cases"].as_array().expect("cases");
    assert!(cases.len() >= 20);
    for case in cases {
        let pattern = case["pattern"].as_str().unwrap();
        match Validator::new(&json!({ "type": "string", "pattern": pattern }), SchemaLimits::default()) {
            Err(violations) => {
                assert_eq!(case["valid"], json!(false), "{pattern:?}: refused natively: {violations:?}");
                let refused: Vec<String> = violations.iter().map(|v| v.json_pointer()).collect();
                assert_eq!(refused, ["/pattern"], "{pattern:?}");
                assert!(violations[0].message.starts_with("\"pattern\" is not a valid ECMAScript regular expression"));
            }
            Ok(validator) => {
                assert_eq!(case["valid"], json!(true), "{pattern:?}: accepted natively");
                for t in case["tests"].as_array().expect("tests") {
                    let got = validator.validate(&t["data"]).is_ok();
                    assert_eq!(json!(got), t["match"], "{pattern:?} on {}", t["data"]);
                }
            }
        }
    }
}

/// ES2025 syntax (pattern modifiers, duplicate named groups) that regress accepts: natively it is
/// valid with ES2025's answers; in the page the host's version decides (`patterns.test.js`
/// checks the page's validator agrees with the host's own `RegExp`).
#[test]
fn host_dependent_syntax_is_accepted_natively() {
    setup();
    let text = std::fs::read_to_string(repo().join(CASES)).unwrap();
    let cases: Value = serde_json::from_str(&text).unwrap();
    let cases = cases["hostDependent"].as_array().expect("hostDependent");
    assert!(!cases.is_empty());
    for case in cases {
        let pattern = case["pattern"].as_str().unwrap();
        let validator = Validator::new(&json!({ "type": "string", "pattern": pattern }), SchemaLimits::default())
            .unwrap_or_else(|e| panic!("{pattern:?}: refused natively: {e:?}"));
        for t in case["tests"].as_array().expect("tests") {
            let got = validator.validate(&t["data"]).is_ok();
            assert_eq!(json!(got), t["match"], "{pattern:?} on {}", t["data"]);
        }
    }
}

// ------------------------------------------------------------------------------------------
// The generated corpus.

/// splitmix64: small, seedable, the same on every platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())].clone()
    }
}

/// Property names: ASCII, integer-like (JavaScript lists those first), pointer escapes,
/// non-ASCII, above U+FFFF and in U+E000.. (code-point and UTF-16 order differ), and names an
/// object's prototype has.
const NAMES: &[&str] =
    &["a", "b", "id", "name", "mode", "10", "2", "a/b", "c~d", "é", "z", "😀", "\u{e000}", "__proto__", "constructor"];

/// Patterns whose validity and matching regress and ECMAScript agree on, with strings to try.
const PATTERNS: &[(&str, &[&str])] = &[
    ("^[a-z]+$", &["abc", "ABC", "", "ab1"]),
    ("^dev_[a-z0-9]{6,}$", &["dev_abc123", "dev_ab", "xdev_abcdef"]),
    ("\\d{3}", &["a123b", "12", "٣٣٣"]),
    ("^(?:red|green|blue)$", &["red", "blue", "redd"]),
    ("^\\p{L}+$", &["héllo", "日本語", "abc1"]),
    ("^.$", &["😀", "ab", "é", "\n"]),
    ("^[^@\\s]+@[^@\\s]+$", &["a@b", "a b@c", "@"]),
    ("colou?r", &["color", "colour", "colr"]),
    ("^\\w+$", &["a_1", "é", "A"]),
    ("(?<=a)b", &["ab", "cb"]),
    ("^[\\u{1F600}-\\u{1F64F}]+$", &["😀😃", "a"]),
    ("^a{2,3}$", &["aa", "aaaa", "a"]),
    ("^(\\d+)-\\1$", &["12-12", "12-13"]),
    ("^$", &["", "a"]),
    ("^\\S+$", &["x", "a b", "\u{a0}"]),
    ("^[A-Z][a-z]*(?: [A-Z][a-z]*)*$", &["Ada Lovelace", "ada", "Ada  B"]),
];

const FORMATS: &[(&str, &[&str])] = &[
    (
        "date-time",
        &[
            "2024-01-31T09:30:00Z",
            "2024-02-29T23:59:60Z",
            "2024-01-01t00:00:00.5+14:00",
            "2024-01-01T00:00:00",
            "2024-13-01T00:00:00Z",
            "yesterday",
        ],
    ),
    ("date", &["2000-02-29", "1900-02-29", "2024-1-01", "2024-12-31"]),
    ("uuid", &["2EB8AA08-aa98-11ea-b4aa-73b441d16380", "{2eb8aa08-aa98-11ea-b4aa-73b441d16380}", "not-a-uuid"]),
    (
        "email",
        &[
            "a.b+tag@sub.example.org",
            "\"a b\"@example.org",
            "x@[IPv6:2001:db8::1]",
            "a@b@c",
            "a@-b.com",
            "é@example.org",
            "a..b@c.d",
        ],
    ),
    (
        "uri",
        &[
            "https://user:pw@example.com:8080/p/a%20th?q=1#frag",
            "urn:isbn:0451450523",
            "http://[v1.fe80::a+en1]/",
            "example.com/path",
            "https://example.com/%zz",
            "https://exa mple.com",
            "http://[1:2:3:4:5:6:7:8:9]/",
        ],
    ),
];

fn numbers() -> Vec<Value> {
    vec![
        json!(0),
        json!(1),
        json!(-1),
        json!(2.5),
        json!(3),
        json!(10),
        json!(100),
        json!(0.1),
        json!(0.3),
        json!(1e21),
        json!(-0.5),
        json!(9007199254740991i64),
        json!(4.5),
        json!(6),
        json!(1.0),
        json!(-7),
        json!(19.99),
        json!(0.0075),
        json!(1e-7),
    ]
}

fn strings() -> Vec<Value> {
    ["", "x", "hello", "😀😀😀", "é\u{301}", "a\"b\\c\n", "0123456789abcdef", "red", "ab", "12-12"]
        .iter()
        .map(|s| json!(s))
        .collect()
}

fn any_value(rng: &mut Rng) -> Value {
    let pool = [
        json!(null),
        json!(true),
        json!(false),
        json!(0),
        json!(1.5),
        json!("s"),
        json!([]),
        json!({}),
        json!([1, "1", 1.0]),
        json!({"a": 1}),
        json!([{"b": [1]}, {"b": [1]}]),
    ];
    rng.pick(&pool)
}

fn name(rng: &mut Rng) -> String {
    rng.pick(NAMES).to_string()
}

fn annotate(rng: &mut Rng, mut s: Map<String, Value>) -> Value {
    if rng.chance(8) {
        s.insert("description".into(), json!("annotated"));
    }
    if rng.chance(4) {
        s.insert("title".into(), json!("T"));
        s.insert("examples".into(), json!([1]));
    }
    Value::Object(s)
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// A schema in the subset; `depth` 0 is the root; `defs` the names `$ref` may use.
fn gen_schema(rng: &mut Rng, depth: usize, defs: &[String]) -> Value {
    let leaf_only = depth >= 3;
    let kinds = if leaf_only { 6 } else { 11 };
    let mut s = Map::new();
    match rng.below(kinds) {
        0 => {
            s.insert("type".into(), json!("string"));
            if rng.chance(35) {
                s.insert("minLength".into(), json!(rng.below(4)));
            }
            if rng.chance(35) {
                s.insert("maxLength".into(), json!(rng.below(6) + 1));
            }
            if rng.chance(35) {
                s.insert("pattern".into(), json!(rng.pick(PATTERNS).0));
            } else if rng.chance(35) {
                s.insert("format".into(), json!(rng.pick(FORMATS).0));
            }
        }
        1 => {
            s.insert("type".into(), json!(if rng.chance(50) { "integer" } else { "number" }));
            for (kw, pct) in [("minimum", 25), ("maximum", 25), ("exclusiveMinimum", 15), ("exclusiveMaximum", 15)] {
                if rng.chance(pct) {
                    let n = rng.pick(&numbers());
                    s.insert(kw.into(), n);
                }
            }
            if rng.chance(35) {
                let by = rng.pick(&[
                    json!(2),
                    json!(3),
                    json!(0.5),
                    json!(0.1),
                    json!(0.01),
                    json!(1.5),
                    json!(7),
                    json!(0.0001),
                ]);
                s.insert("multipleOf".into(), by);
            }
        }
        2 => {
            let t = rng.pick(&[
                json!("boolean"),
                json!("null"),
                json!(["string", "null"]),
                json!(["integer", "string"]),
                json!(["number", "boolean", "null"]),
                json!("object"),
                json!("array"),
            ]);
            s.insert("type".into(), t);
        }
        3 => {
            let e = rng.pick(&[
                json!(["replace", "add", "remove"]),
                json!(["a", 1, null]),
                json!([{"k": [1]}, [1, 2], "x"]),
                json!([1.0, 2, "2"]),
                json!([true]),
            ]);
            s.insert("enum".into(), e);
            if rng.chance(30) {
                s.insert("type".into(), json!("string"));
            }
        }
        4 => {
            let c = rng.pick(&[
                json!("v1"),
                json!(1),
                json!({"k": [1, {"z": null}]}),
                json!([1, "a"]),
                json!(null),
                json!(2.5),
            ]);
            s.insert("const".into(), c);
        }
        5 => {
            if !defs.is_empty() && rng.chance(60) {
                let d = rng.pick(defs);
                s.insert("$ref".into(), json!(format!("#/$defs/{}", d.replace('~', "~0").replace('/', "~1"))));
            } else if rng.chance(50) {
                // Any value.
            } else {
                s.insert("type".into(), json!("string"));
                s.insert("enum".into(), json!(["on", "off"]));
            }
        }
        6 => {
            s.insert("type".into(), json!("array"));
            s.insert("items".into(), gen_schema(rng, depth + 1, defs));
            if rng.chance(35) {
                s.insert("minItems".into(), json!(rng.below(3)));
            }
            if rng.chance(35) {
                s.insert("maxItems".into(), json!(rng.below(3) + 1));
            }
            if rng.chance(30) {
                s.insert("uniqueItems".into(), json!(true));
            }
        }
        7 | 8 => return gen_object(rng, depth, defs),
        9 => {
            let branches: Vec<Value> = if rng.chance(50) {
                // A discriminated union: const-tagged objects, with defaults.
                ["circle", "rect", "line"][..rng.below(2) + 2]
                    .iter()
                    .map(|tag| {
                        let mut props = Map::new();
                        props.insert("kind".into(), json!({"const": tag}));
                        let extra = name(rng);
                        if extra != "kind" {
                            let mut sub = obj(gen_schema(rng, depth + 2, defs));
                            if rng.chance(40) {
                                let d = gen_instance(rng, &Value::Object(sub.clone()), &json!({}), 0);
                                sub.insert("default".into(), d);
                            }
                            props.insert(extra, Value::Object(sub));
                        }
                        let mut b = Map::new();
                        b.insert("type".into(), json!("object"));
                        b.insert("properties".into(), Value::Object(props));
                        b.insert("required".into(), json!(["kind"]));
                        if rng.chance(50) {
                            b.insert("additionalProperties".into(), json!(false));
                        }
                        Value::Object(b)
                    })
                    .collect()
            } else {
                (0..rng.below(2) + 2).map(|_| gen_schema(rng, depth + 1, defs)).collect()
            };
            s.insert("anyOf".into(), Value::Array(branches));
        }
        _ => {
            s.insert("type".into(), json!(["string", "integer"]));
            s.insert("anyOf".into(), json!([{"minLength": 2}, {"minimum": 5}]));
        }
    }
    annotate(rng, s)
}

fn gen_object(rng: &mut Rng, depth: usize, defs: &[String]) -> Value {
    let mut s = Map::new();
    s.insert("type".into(), json!("object"));
    let mut props = Map::new();
    let mut required = Vec::new();
    for _ in 0..rng.below(5) {
        let n = name(rng);
        if props.contains_key(&n) {
            continue;
        }
        let mut sub = obj(gen_schema(rng, depth + 1, defs));
        if rng.chance(45) {
            let d = gen_instance(rng, &Value::Object(sub.clone()), &json!({}), 0);
            sub.insert("default".into(), d);
        }
        if rng.chance(50) {
            required.push(json!(n));
        }
        props.insert(n, Value::Object(sub));
    }
    if rng.chance(10) {
        required.push(json!(name(rng)));
        required.dedup();
    }
    let mut seen = std::collections::HashSet::new();
    required.retain(|r| seen.insert(r.to_string()));
    s.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        s.insert("required".into(), Value::Array(required));
    }
    match rng.below(10) {
        0..=4 => {
            s.insert("additionalProperties".into(), json!(false));
        }
        5 => {
            s.insert("additionalProperties".into(), json!(true));
        }
        _ => {}
    }
    annotate(rng, s)
}

/// The definition at `#/$defs/<name>` of `root`.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let name = reference.strip_prefix("#/$defs/")?.replace("~1", "/").replace("~0", "~");
    root.get("$defs")?.get(&name)
}

/// A value meant for `schema`, often slightly wrong.
fn gen_instance(rng: &mut Rng, schema: &Value, root: &Value, depth: usize) -> Value {
    if rng.chance(10) || depth > 8 {
        return any_value(rng);
    }
    if let Some(c) = schema.get("const") {
        return if rng.chance(75) { c.clone() } else { any_value(rng) };
    }
    if let Some(Value::Array(e)) = schema.get("enum") {
        return if rng.chance(75) { rng.pick(e) } else { rng.pick(&strings()) };
    }
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        if let Some(target) = resolve(root, r) {
            return gen_instance(rng, target, root, depth + 1);
        }
    }
    if let Some(Value::Array(branches)) = schema.get("anyOf") {
        let b = rng.pick(branches);
        return gen_instance(rng, &b, root, depth + 1);
    }
    let t = match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => rng.pick(ts).as_str().unwrap_or("null").to_string(),
        _ if schema.get("properties").is_some() => "object".to_string(),
        _ if schema.get("items").is_some() => "array".to_string(),
        _ => return any_value(rng),
    };
    match t.as_str() {
        "object" => {
            let mut out = Map::new();
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(Value::Object(props)) = schema.get("properties") {
                for (n, sub) in props {
                    let pct = if required.contains(&n.as_str()) { 85 } else { 50 };
                    if rng.chance(pct) {
                        out.insert(n.clone(), gen_instance(rng, sub, root, depth + 1));
                    }
                }
            }
            if rng.chance(12) {
                out.insert(name(rng), any_value(rng));
            }
            Value::Object(out)
        }
        "array" => {
            let items = schema.get("items").cloned().unwrap_or(json!({}));
            let mut out: Vec<Value> = (0..rng.below(4)).map(|_| gen_instance(rng, &items, root, depth + 1)).collect();
            if !out.is_empty() && rng.chance(20) {
                let dup = out[rng.below(out.len())].clone();
                out.push(dup);
            }
            Value::Array(out)
        }
        "string" => {
            if let Some(p) = schema.get("pattern").and_then(Value::as_str) {
                if let Some((_, samples)) = PATTERNS.iter().find(|(q, _)| *q == p) {
                    if rng.chance(80) {
                        return json!(rng.pick(samples));
                    }
                }
            }
            if let Some(f) = schema.get("format").and_then(Value::as_str) {
                if let Some((_, samples)) = FORMATS.iter().find(|(q, _)| *q == f) {
                    if rng.chance(85) {
                        return json!(rng.pick(samples));
                    }
                }
            }
            rng.pick(&strings())
        }
        "number" | "integer" => rng.pick(&numbers()),
        "boolean" => json!(rng.chance(50)),
        _ => json!(null),
    }
}

/// A root schema, maybe with `$defs` (recursive ones among them).
fn gen_root(rng: &mut Rng) -> Value {
    if !rng.chance(30) {
        return gen_schema(rng, 0, &[]);
    }
    let mut defs = Map::new();
    let mut names: Vec<String> = Vec::new();
    if rng.chance(50) {
        defs.insert(
            "node".into(),
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "open": {"type": "boolean", "default": false},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
                },
                "required": ["name"],
                "additionalProperties": false
            }),
        );
        names.push("node".into());
    }
    if rng.chance(40) {
        defs.insert(
            "list".into(),
            json!({"anyOf": [{"type": "null"}, {"type": "object", "properties": {
                "v": {"type": "integer"}, "next": {"$ref": "#/$defs/list"}}, "required": ["v"]}]}),
        );
        names.push("list".into());
    }
    let extra = rng.pick(&["pos", "a/b", "ti~lde", "é"]);
    let body = gen_schema(rng, 1, &names);
    defs.insert(extra.to_string(), body);
    names.push(extra.to_string());
    let mut root = obj(if rng.chance(50) {
        json!({"$ref": format!("#/$defs/{}", rng.pick(&names).replace('~', "~0").replace('/', "~1"))})
    } else {
        gen_object(rng, 0, &names)
    });
    root.insert("$defs".into(), Value::Object(defs));
    Value::Object(root)
}

/// Hand-written groups the generator would rarely reach: nesting beyond the instance depth
/// limit, the work budget running out, a deep mistake in a recursive discriminated union.
fn edge_groups() -> Vec<(Value, Vec<Value>)> {
    let nest = |levels: usize, leaf: Value| {
        let mut x = leaf;
        for _ in 0..levels {
            x = json!({ "c": x });
        }
        x
    };
    let branch = |op: &str| {
        json!({"type": "object", "properties": {"op": {"const": op},
            "args": {"type": "array", "items": {"$ref": "#/$defs/f"}}},
            "required": ["op", "args"], "additionalProperties": false})
    };
    let filter = json!({"$defs": {"f": {"anyOf": [
        branch("and"),
        branch("or"),
        {"type": "object", "properties": {"op": {"const": "eq"}, "field": {"type": "string"}},
         "required": ["op", "field"], "additionalProperties": false}
    ]}}, "$ref": "#/$defs/f"});
    let alt = json!({"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}}});
    vec![
        (
            json!({"$defs": {"n": {"anyOf": [
                {"type": "null"},
                {"type": "object", "properties": {"d": {"default": 0}, "c": {"$ref": "#/$defs/n"}}}
            ]}}, "$ref": "#/$defs/n"}),
            vec![
                nest(3, json!(null)),
                nest(MAX_INSTANCE_DEPTH, json!(null)),
                nest(MAX_INSTANCE_DEPTH + 20, json!(null)),
            ],
        ),
        (
            json!({"$defs": {"n": {"anyOf": [{"type": "null"}, alt, alt]}}, "$ref": "#/$defs/n"}),
            vec![nest(20, json!(null)), nest(30, json!(5))],
        ),
        (
            filter,
            vec![
                json!({"op": "or", "args": [{"op": "and", "args": [{"op": "eq", "field": 1}]}]}),
                json!({"op": "xor"}),
                json!({"op": "and", "args": [{"op": "eq", "field": "a"}, {"op": "or", "args": []}]}),
            ],
        ),
        (
            json!({"type": "array", "uniqueItems": true, "items": {}}),
            vec![
                json!((0..20).map(|i| json!(i % 17)).collect::<Vec<_>>()),
                json!((0..20).map(|i| json!({"k": [i]})).collect::<Vec<_>>()),
                json!([1, "1", [1], {"a": 1}, {"a": 2}, true, 1.0]),
            ],
        ),
        (
            // Issue order is code-point order; JavaScript lists integer-like keys first and sorts
            // by UTF-16 code units.
            json!({"type": "object", "additionalProperties": false, "required": ["a", "2", "10", "😀", "\u{e000}", "zz"],
                "properties": {"2": {"type": "string"}, "10": {"type": "string"}, "a": {"type": "string"},
                    "😀": {"type": "string"}, "\u{e000}": {"type": "string", "default": 1}}}),
            vec![
                json!({"2": 1, "10": 1, "a": 1, "😀": 1, "\u{e000}": 1, "b": 1, "3": 1, "\u{e001}": 1, "😁": 1}),
                json!({}),
                json!({"2": "", "10": "", "a": "", "😀": "", "zz": null}),
            ],
        ),
        (
            json!({"additionalProperties": false, "properties": {"k": {"enum": (0..60).map(|i| format!("value-{i}")).collect::<Vec<_>>()}}}),
            vec![
                json!({"k": "x", "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk": 1, "😀": 2, "\u{e000}": 3}),
            ],
        ),
    ]
}

fn corpus() -> (String, usize) {
    let mut rng = Rng(SEED);
    let mut groups: Vec<(Value, Vec<Value>)> = Vec::new();
    for _ in 0..GENERATED_SCHEMAS {
        let schema = gen_root(&mut rng);
        let mut instances = vec![json!({})];
        for _ in 0..7 {
            let x = gen_instance(&mut rng, &schema, &schema, 0);
            if !instances.contains(&x) {
                instances.push(x);
            }
        }
        groups.push((schema, instances));
    }
    groups.extend(edge_groups());
    let mut pairs = 0;
    let mut lines = Vec::new();
    for (schema, instances) in groups {
        let validator = Validator::new(&schema, SchemaLimits::default())
            .unwrap_or_else(|e| panic!("generated schema refused: {schema}: {e:?}"));
        let tests: Vec<Value> = instances
            .into_iter()
            .map(|x| match validator.validate(&x) {
                Ok(value) => json!({"instance": x, "value": value}),
                Err(issues) => json!({"instance": x, "issues": issues}),
            })
            .collect();
        pairs += tests.len();
        lines.push(format!("    {}", json!({"schema": schema, "tests": tests})));
    }
    let about = "Generated schemas over the supported subset with generated instances, and what the Rust validator \
                 (agent_surface_schema::Validator, default limits, patterns by regress) answers for each: `value` (the \
                 effective value, defaults applied) or `issues` (every issue, in order). The TypeScript validator must \
                 answer exactly the same (packages/core/test/validate/corpus.test.js). Generated by \
                 UPDATE_VALIDATOR_CORPUS=1 cargo test -p agent-surface-schema --test it validator_corpus \
                 (crates/schema/tests/it/validator_corpus.rs).";
    let text = format!(
        "{{\n  \"about\": {},\n  \"seed\": {SEED},\n  \"pairs\": {pairs},\n  \"groups\": [\n{}\n  ]\n}}\n",
        json!(about),
        lines.join(",\n")
    );
    (text, pairs)
}

#[test]
fn validator_corpus_is_current() {
    setup();
    let (text, pairs) = corpus();
    assert!(pairs >= 2000, "only {pairs} (schema, instance) pairs");
    println!("validator corpus: {pairs} (schema, instance) pairs");
    compare_or_update(CORPUS, &text, "UPDATE_VALIDATOR_CORPUS");
}
