//! `agent-surface tools`: the exact tool block a model would receive for the example app's
//! manifest, as JSON (snapshot-tested per provider and mode in `snapshots/cli/`), with sizes
//! that add up, entries identical to the runtime's provider adapters, and the pretty form.

use std::path::{Path, PathBuf};
use std::process::Command;

fn manifest() -> PathBuf {
    crate::common::example_manifest()
}

fn tools(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_agent-surface"))
        .arg("tools")
        .arg(manifest())
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("runs");
    (
        out.status.code().expect("exited normally"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots/cli"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name.to_string(), text));
}

fn json_block(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let (code, stdout, stderr) = tools(&all);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    assert!(stdout.ends_with('\n') && stdout.lines().count() == 1, "one JSON document on one line");
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn json_output_per_provider_and_mode() {
    let cases: &[(&str, &[&str], &str, Option<&str>)] = &[
        ("tools-json-neutral", &[], "direct", None),
        ("tools-json-meta", &["--mode", "meta"], "meta", None),
        ("tools-json-openai", &["--provider", "openai"], "direct", Some("openai")),
        ("tools-json-anthropic", &["--provider", "anthropic"], "direct", Some("anthropic")),
        ("tools-json-gemini", &["--provider", "gemini"], "direct", Some("gemini")),
        ("tools-json-mcp", &["--provider", "mcp"], "direct", Some("mcp")),
        ("tools-json-mcp-meta", &["--provider", "mcp", "--mode", "meta"], "meta", Some("mcp")),
    ];
    for (name, args, mode, provider) in cases {
        let doc = json_block(args);
        let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["mode", "provider", "tools", "totalBytes"], "{name}");
        assert_eq!(doc["mode"], *mode);
        assert_eq!(doc["provider"], provider.map(serde_json::Value::from).unwrap_or(serde_json::Value::Null));
        let sizes: usize =
            doc["tools"].as_array().unwrap().iter().map(|t| serde_json::to_string(t).unwrap().len()).sum();
        assert_eq!(doc["totalBytes"], sizes, "{name}: totalBytes is the sum of the entries' sizes");
        snapshot(name, &serde_json::to_string_pretty(&doc).unwrap());
    }
}

#[test]
fn entries_are_the_providers_own_shapes() {
    let openai = json_block(&["--provider", "openai"]);
    for t in openai["tools"].as_array().unwrap() {
        assert_eq!(t["type"], "function");
        assert_eq!(t["function"]["strict"], true);
    }
    let anthropic = json_block(&["--provider", "anthropic"]);
    for t in anthropic["tools"].as_array().unwrap() {
        assert_eq!(t.as_object().unwrap().keys().collect::<Vec<_>>(), ["description", "input_schema", "name"]);
    }
    let mcp = json_block(&["--provider", "mcp"]);
    for t in mcp["tools"].as_array().unwrap() {
        assert!(t["inputSchema"].is_object() && t["annotations"].is_object());
    }
    let neutral = json_block(&[]);
    for t in neutral["tools"].as_array().unwrap() {
        for k in ["name", "description", "inputSchema", "state"] {
            assert!(t.get(k).is_some(), "{k} in {t}");
        }
    }
}

#[test]
fn pretty_output_lists_sizes_and_the_total() {
    let (code, stdout, _) = tools(&["--provider", "anthropic"]);
    assert_eq!(code, 0);
    let doc = json_block(&["--provider", "anthropic"]);
    let total = doc["totalBytes"].as_u64().unwrap();
    assert!(stdout.contains("── domain_devices_decommission ("), "{stdout}");
    assert!(stdout.trim_end().ends_with(&format!("15 tools, {total} bytes (anthropic, direct mode)")), "{stdout}");
    snapshot("tools-pretty-anthropic", &stdout);
}

#[test]
fn a_bad_manifest_is_an_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_agent-surface"))
        .args(["tools", "/nonexistent/manifest.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read the manifest"));
}
