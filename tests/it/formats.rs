//! `--format github` and `--format sarif`, snapshot-tested; the SARIF log is validated by the
//! official SARIF Multitool against the SARIF 2.1.0 schema (installed by the test command into
//! test-tools/sarif).

use crate::common::copy_dir;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/compiler/fixtures/diagnostics").join(name)
}

fn check(root: &Path, format: &str) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_agent-surface"))
        .args(["check", "--root"])
        .arg(root)
        .args(["--format", format])
        .output()
        .unwrap();
    (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap())
}

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots/cli"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name.to_string(), text));
}

#[test]
fn github_annotations() {
    let (code, out) = check(&fixture("as0501-duplicate-component-type"), "github");
    assert_eq!(code, 1);
    assert!(out.starts_with("::error file=src/"), "{out}");
    snapshot("format-github", &out);
}

#[test]
fn sarif_log_validates_against_the_schema() {
    let (code, out) = check(&fixture("as0501-duplicate-component-type"), "sarif");
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rules = v["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), agent_surface_compiler::diagnostics::CODES.len(), "one rule per code");
    let fp = v["runs"][0]["results"][0]["partialFingerprints"]["agentSurface/v1"].as_str().unwrap().to_string();
    snapshot("format-sarif", &out);

    // Fingerprints are stable when the flagged code moves down a line.
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("p");
    copy_dir(&fixture("as0501-duplicate-component-type"), &copy);
    for e in walk(&copy) {
        let text = std::fs::read_to_string(&e).unwrap();
        std::fs::write(&e, format!("// a new first line\n{text}")).unwrap();
    }
    let (_, moved) = check(&copy, "sarif");
    let mv: serde_json::Value = serde_json::from_str(&moved).unwrap();
    assert_eq!(mv["runs"][0]["results"][0]["partialFingerprints"]["agentSurface/v1"].as_str().unwrap(), fp);

    let tool_dir = crate::common::npm_tool("sarif", "node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool")
        .join("node_modules/@microsoft/sarif-multitool-linux");
    let tool = tool_dir.join("Sarif.Multitool");
    let log = tmp.path().join("out.sarif");
    std::fs::write(&log, &out).unwrap();
    let report = tmp.path().join("validation.sarif");
    let status = Command::new(&tool)
        .arg("validate")
        .arg(&log)
        .arg("-o")
        .arg(&report)
        .arg("-j")
        .arg(tool_dir.join("sarif-2.1.0.json"))
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stdout));
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let problems: Vec<String> = r["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["level"] == "error" || x["level"] == "warning")
        .map(|x| format!("{} {}", x["ruleId"], x["message"]))
        .collect();
    assert!(problems.is_empty(), "SARIF validation: {problems:#?}");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "ts") {
            out.push(p);
        }
    }
    out
}
