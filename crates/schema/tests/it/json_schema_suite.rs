//! JSON-Schema-Test-Suite (draft 2020-12) conformance of `validate::Validator`.
//!
//! Every `*.json` under `conformance/json-schema-test-suite/draft2020-12` is loaded,
//! `optional/` included. A group whose schema `check_schema` refuses is outside the supported
//! subset and is skipped, with the violation as the reason; every test of every other group
//! must pass. Prints each skipped group (one line) and the summary line
//! `json-schema-suite: N passed, M failed, K skipped` (individual tests), and fails if M > 0.
//!
//! Format mode: `format.json` (required part of the suite) tests draft 2020-12's default
//! *format-annotation* behaviour ("invalid X string is only an annotation by default"), so it
//! runs with `assert_formats(false)`; everything else, including `optional/format/*.json`, runs
//! with the production default (formats asserted).
//!
//! Patterns are compiled by this binary's installed engine, which delegates to regress (see
//! `pattern_engine`): the verdicts are the default engine's.

use crate::pattern_engine::setup;
use agent_surface_schema::{
    check_schema, SchemaLimits, SchemaViolation, SchemaViolationKind, Validator, ValidatorOptions,
};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

const SUITE_DIR: &str = "../../conformance/json-schema-test-suite/draft2020-12";

/// In-subset tests that cannot pass because of a documented difference between the `regress`
/// engine and ECMAScript regular expressions: (file, group description, test description,
/// reason). Keep in sync with docs/validator.md. Empty: no such difference shows in the suite.
const ALLOWLIST: &[(&str, &str, &str, &str)] = &[];

/// Files whose tests assume format *annotation* (no assertion).
const FORMAT_ANNOTATION_FILES: &[&str] = &["format.json"];

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

/// One-line reason naming the first violation's kind, keyword and schema pointer.
fn skip_reason(violations: &[SchemaViolation]) -> String {
    let v = &violations[0];
    let what = match &v.kind {
        SchemaViolationKind::UnsupportedKeyword { keyword } => {
            format!("unsupported keyword \"{keyword}\"")
        }
        SchemaViolationKind::InvalidKeywordValue { keyword, .. } => {
            format!("invalid value for \"{keyword}\"")
        }
        SchemaViolationKind::NotASchema => "boolean (non-object) schema".to_string(),
        SchemaViolationKind::AdditionalPropertiesNotBoolean => {
            "additionalProperties is a schema, not a boolean".to_string()
        }
        SchemaViolationKind::UnsupportedFormat { format } => {
            format!("unsupported format \"{format}\"")
        }
        SchemaViolationKind::RefNotLocal { reference } => {
            format!("$ref \"{reference}\" is not #/$defs/<name>")
        }
        SchemaViolationKind::RefUnresolved => "$ref does not resolve".to_string(),
        SchemaViolationKind::DefsNotAtRoot => "$defs below the root".to_string(),
        SchemaViolationKind::TooDeep { .. } => "schema too deep".to_string(),
        SchemaViolationKind::TooLarge { .. } => "schema too large".to_string(),
        SchemaViolationKind::InvalidPattern { .. } => "invalid pattern".to_string(),
        SchemaViolationKind::TypeUnknown { name } => format!("unknown type \"{name}\""),
    };
    let more = if violations.len() > 1 { format!(" (+{} more)", violations.len() - 1) } else { String::new() };
    format!("{what} at {}{more}", v.json_pointer())
}

#[test]
fn json_schema_test_suite_draft2020_12() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(SUITE_DIR);
    let mut files = Vec::new();
    collect(&root, &mut files);
    let rel = |p: &Path| p.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
    let names: Vec<String> = files.iter().map(|p| rel(p)).collect();
    for required in [
        "type.json",
        "ref.json",
        "optional/format/date-time.json",
        "optional/format/date.json",
        "optional/format/uuid.json",
        "optional/format/email.json",
        "optional/format/uri.json",
        "optional/ecmascript-regex.json",
        "optional/bignum.json",
        "optional/float-overflow.json",
    ] {
        assert!(names.iter().any(|n| n == required), "suite file {required} missing under {}", root.display());
    }

    setup();
    let limits = SchemaLimits::default();
    let (mut passed, mut failed, mut skipped) = (0usize, 0usize, 0usize);
    let mut lines: Vec<String> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let mut allowlist_used = vec![false; ALLOWLIST.len()];

    for (path, file) in files.iter().zip(&names) {
        let text = std::fs::read_to_string(path).unwrap();
        let groups: Vec<Value> =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: not a JSON test file: {e}"));
        let options = ValidatorOptions::default().assert_formats(!FORMAT_ANNOTATION_FILES.contains(&file.as_str()));
        for group in &groups {
            let description = group["description"].as_str().unwrap_or("?");
            let schema = &group["schema"];
            let tests = group["tests"].as_array().expect("tests array");
            let violations = check_schema(schema, limits);
            if !violations.is_empty() {
                skipped += tests.len();
                lines.push(format!(
                    "skip {file} :: {description} :: {} ({} tests)",
                    skip_reason(&violations),
                    tests.len()
                ));
                continue;
            }
            let validator = match Validator::with_options(schema, limits, options) {
                Ok(v) => v,
                Err(vs) => {
                    failed += tests.len();
                    failures.push(format!(
                        "FAIL {file} :: {description} :: check_schema accepted the schema but \
                         Validator refused it: {}",
                        vs.iter().map(|v| format!("{} {}", v.json_pointer(), v.message)).collect::<Vec<_>>().join("; ")
                    ));
                    continue;
                }
            };
            for test in tests {
                let test_description = test["description"].as_str().unwrap_or("?");
                let expected = test["valid"].as_bool().expect("valid flag");
                let result = validator.validate(&test["data"]);
                let ok = result.is_ok() == expected;
                let allowed =
                    ALLOWLIST.iter().position(|(f, g, t, _)| f == file && *g == description && *t == test_description);
                match (ok, allowed) {
                    (true, None) => passed += 1,
                    (true, Some(i)) => {
                        allowlist_used[i] = true;
                        failed += 1;
                        failures.push(format!(
                            "FAIL {file} :: {description} :: {test_description}: allowlisted \
                             but passes; remove it from ALLOWLIST and docs/validator.md"
                        ));
                    }
                    (false, Some(i)) => {
                        allowlist_used[i] = true;
                        skipped += 1;
                        lines.push(format!(
                            "skip {file} :: {description} :: {test_description} :: allowlisted: {}",
                            ALLOWLIST[i].3
                        ));
                    }
                    (false, None) => {
                        failed += 1;
                        failures.push(format!(
                            "FAIL {file} :: {description} :: {test_description}: expected \
                             {}, got {}",
                            if expected { "valid" } else { "invalid" },
                            match &result {
                                Ok(_) => "valid".to_string(),
                                Err(issues) => format!("invalid {issues:?}"),
                            }
                        ));
                    }
                }
            }
        }
    }
    for (i, used) in allowlist_used.iter().enumerate() {
        if !used {
            failed += 1;
            failures.push(format!("FAIL allowlist entry {:?} matches no test", ALLOWLIST[i]));
        }
    }

    // Written to the process's stdout directly (not print!), so the report shows even when the
    // test harness captures output.
    let summary = format!("json-schema-suite: {passed} passed, {failed} failed, {skipped} skipped");
    let mut out = std::io::stdout().lock();
    for line in lines.iter().chain(&failures) {
        writeln!(out, "{line}").unwrap();
    }
    writeln!(out, "{summary}").unwrap();
    drop(out);
    assert!(passed > 0, "no suite test ran");
    assert_eq!(failed, 0, "{summary}\n{}", failures.join("\n"));
}

/// The anyOf quick check must never reject an alternative that full evaluation accepts. Every
/// in-subset suite schema, wrapped as the only alternative of an `anyOf` (root `$defs` and
/// `$schema` kept at the root), must give every test the same verdict as the schema itself.
#[test]
fn wrapping_in_anyof_preserves_every_verdict() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(SUITE_DIR);
    let mut files = Vec::new();
    collect(&root, &mut files);
    setup();
    let limits = SchemaLimits::default();
    let mut compared = 0;
    for path in &files {
        let file = path.strip_prefix(&root).unwrap().to_string_lossy().to_string();
        let options = ValidatorOptions::default().assert_formats(!FORMAT_ANNOTATION_FILES.contains(&file.as_str()));
        let groups: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        for group in &groups {
            let schema = &group["schema"];
            let Ok(plain) = Validator::with_options(schema, limits, options) else {
                continue;
            };
            let mut inner = schema.as_object().unwrap().clone();
            let mut wrapped = serde_json::Map::new();
            for hoisted in ["$defs", "$schema"] {
                if let Some(v) = inner.remove(hoisted) {
                    wrapped.insert(hoisted.to_string(), v);
                }
            }
            wrapped.insert("anyOf".into(), Value::Array(vec![Value::Object(inner)]));
            let wrapped = Value::Object(wrapped);
            let Ok(any) = Validator::with_options(&wrapped, limits, options) else {
                // Only the depth limit can refuse the extra level.
                continue;
            };
            for test in group["tests"].as_array().unwrap() {
                let data = &test["data"];
                assert_eq!(
                    any.validate(data).ok(),
                    plain.validate(data).ok(),
                    "{file} :: {} :: {}",
                    group["description"],
                    test["description"]
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 600, "only {compared} verdicts compared");
}
