//! The page's `pattern` engine (the host's `RegExp`, [`super`]) must decide every schema and
//! value exactly as the native build (regress) does. Both builds are checked against the same
//! two files, natively here and through the wasm in Node by `packages/core/test/patterns.test.js`:
//!
//! - `conformance/ecmascript-patterns.json`: hand-written ECMA-262 answers (checked against
//!   Node's `RegExp`) for patterns whose validity or matching only ECMAScript's Unicode-mode
//!   semantics decide: property escapes, lookbehind, named groups, code-point escapes, astral
//!   characters, the escapes `u` mode refuses; and, apart, ES2025 syntax whose validity in the
//!   page depends on the host's version.
//! - `conformance/suite-verdicts.json`: what the facade's `compile_schema` and `validate` (the
//!   functions the `SchemaValidator` export wraps) answer for every group and test of the
//!   JSON-Schema-Test-Suite under `conformance/`, computed here. `UPDATE_PATTERN_VERDICTS=1
//!   cargo test -p agent-surface-wasm pattern` rewrites it after an intended change.

use crate::{compile_schema, validate};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const SUITE_DIR: &str = "conformance/json-schema-test-suite/draft2020-12";
const VERDICTS: &str = "conformance/suite-verdicts.json";
const CASES: &str = "conformance/ecmascript-patterns.json";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(rel: &str) -> String {
    let path = repo().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A refusal's violations as `"<pointer> <what>"`: `pattern` for an invalid pattern (the
/// engine's own message is left out: regress and the host word it differently), else `subset`.
fn refusal(thrown: &str) -> Value {
    let thrown: Value = serde_json::from_str(thrown).expect("the facade throws JSON");
    let violations = thrown["violations"].as_array().expect("violations");
    violations
        .iter()
        .map(|v| {
            let message = v["message"].as_str().unwrap_or("");
            let what = if message.starts_with("\"pattern\" is not a valid ECMAScript regular expression") {
                "pattern"
            } else {
                "subset"
            };
            json!(format!("{} {what}", v["pointer"].as_str().unwrap_or("?")))
        })
        .collect()
}

/// A validation's outcome: `true`, or its issues as `"<path> <keyword>"`.
fn verdict(output: &str) -> Value {
    let output: Value = serde_json::from_str(output).expect("validate answers JSON");
    if output["ok"] == json!(true) {
        return json!(true);
    }
    let issues = output["issues"].as_array().expect("issues");
    issues
        .iter()
        .map(|i| json!(format!("{} {}", i["path"].as_str().unwrap_or("?"), i["keyword"].as_str().unwrap_or("?"))))
        .collect()
}

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
            let entry = match compile_schema(&group["schema"].to_string()) {
                Err(thrown) => json!({ "file": file, "group": description, "refused": refusal(&thrown) }),
                Ok(validator) => {
                    let results: Vec<Value> = group["tests"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|t| verdict(&validate(&validator, &t["data"].to_string())))
                        .collect();
                    json!({ "file": file, "group": description, "results": results })
                }
            };
            lines.push(format!("    {entry}"));
        }
    }
    let about = "What agent-surface-wasm's compile_schema and validate answer natively (regress) for every \
                 group of conformance/json-schema-test-suite: refused (each violation as pointer and \
                 'pattern' or 'subset') or results (per test: true, or its issues as path and keyword). \
                 The wasm build (the host's RegExp) must answer the same (packages/core/test/patterns.test.js). \
                 Generated by UPDATE_PATTERN_VERDICTS=1 cargo test -p agent-surface-wasm pattern.";
    format!("{{\n  \"about\": {},\n  \"groups\": [\n{}\n  ]\n}}\n", json!(about), lines.join(",\n"))
}

#[test]
fn suite_verdicts_are_current() {
    let text = suite_verdicts();
    if std::env::var_os("UPDATE_PATTERN_VERDICTS").is_some() {
        std::fs::write(repo().join(VERDICTS), &text).unwrap();
        return;
    }
    assert!(
        read(VERDICTS) == text,
        "{VERDICTS} is stale: the native build now answers differently; if intended, run \
         UPDATE_PATTERN_VERDICTS=1 cargo test -p agent-surface-wasm pattern (and check the diff)"
    );
}

#[test]
fn ecmascript_pattern_cases_hold_natively() {
    let cases: Value = serde_json::from_str(&read(CASES)).unwrap();
    let cases = cases["cases"].as_array().expect("cases");
    assert!(cases.len() >= 20);
    for case in cases {
        let pattern = case["pattern"].as_str().unwrap();
        let schema = json!({ "type": "string", "pattern": pattern }).to_string();
        match compile_schema(&schema) {
            Err(thrown) => {
                assert_eq!(case["valid"], json!(false), "{pattern:?}: refused natively: {thrown}");
                assert_eq!(refusal(&thrown), json!(["/pattern pattern"]), "{pattern:?}");
            }
            Ok(validator) => {
                assert_eq!(case["valid"], json!(true), "{pattern:?}: accepted natively");
                let tests = case["tests"].as_array().expect("tests");
                for t in tests {
                    let text = t["data"].as_str().unwrap();
                    let got = verdict(&validate(&validator, &json!(text).to_string())) == json!(true);
                    assert_eq!(json!(got), t["match"], "{pattern:?} on {text:?}");
                }
            }
        }
    }
}

/// ES2025 syntax (pattern modifiers, duplicate named groups) that regress accepts: natively it is
/// valid with ES2025's answers; in the page the host's version decides (the wasm test checks the
/// wasm agrees with the host's own `RegExp`).
#[test]
fn host_dependent_syntax_is_accepted_natively() {
    let cases: Value = serde_json::from_str(&read(CASES)).unwrap();
    let cases = cases["hostDependent"].as_array().expect("hostDependent");
    assert!(!cases.is_empty());
    for case in cases {
        let pattern = case["pattern"].as_str().unwrap();
        let schema = json!({ "type": "string", "pattern": pattern }).to_string();
        let validator = compile_schema(&schema).unwrap_or_else(|e| panic!("{pattern:?}: refused natively: {e}"));
        for t in case["tests"].as_array().expect("tests") {
            let text = t["data"].as_str().unwrap();
            let got = verdict(&validate(&validator, &json!(text).to_string())) == json!(true);
            assert_eq!(json!(got), t["match"], "{pattern:?} on {text:?}");
        }
    }
}
