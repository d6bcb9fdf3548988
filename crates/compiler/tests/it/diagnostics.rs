//! Fixture tests for diagnostics: every file (or folder) in `fixtures/diagnostics/` is a small
//! project. It declares what it expects in a header comment:
//!
//! ```text
//! // expect: AS0101            (an error fixture: exactly these codes, in order, one per line)
//! // expect: AS0101 AS0302     (several)
//! // expect: clean             (a clean fixture: no diagnostics at all)
//! ```
//!
//! In a folder fixture every `.ts`/`.tsx` file may carry a header; the codes of all headers are
//! expected together. The rendered diagnostics (pretty, no colour, width 100, then JSON) are
//! snapshot-tested under `snapshots/diagnostics/`.

use crate::common::scratch_copy;
use agent_surface_compiler::compile::{compile, Compilation};
use agent_surface_compiler::config::Config;
use agent_surface_compiler::project::Project;
use agent_surface_compiler::render::{json, pretty};
use std::path::{Path, PathBuf};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/diagnostics")
}

/// Codes a fixture declares, or `None` for a clean fixture.
fn expectations(root: &Path) -> Vec<String> {
    let mut files: Vec<PathBuf> = if root.is_dir() { walk(root) } else { vec![root.to_path_buf()] };
    files.sort();
    let mut codes = Vec::new();
    let mut declared = false;
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        for line in text.lines() {
            if let Some(rest) = line.trim().strip_prefix("// expect:") {
                declared = true;
                for word in rest.split_whitespace() {
                    if word != "clean" {
                        codes.push(word.to_string());
                    }
                }
            }
        }
    }
    assert!(declared, "fixture {} does not declare `// expect: ...`", root.display());
    codes.sort();
    codes
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if matches!(p.extension().and_then(|e| e.to_str()), Some("ts" | "tsx")) {
            out.push(p);
        }
    }
    out
}

/// Compiles a fixture in a scratch copy (so the checkout path never shows in output).
fn compile_fixture(fixture: &Path) -> (Compilation, tempfile::TempDir) {
    let (root, dir) = scratch_copy(fixture);
    let c = compile(Project::new(Config::load(&root).expect("fixture config"))).unwrap();
    (c, dir)
}

#[test]
fn diagnostic_fixtures() {
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(fixtures_dir()).unwrap().map(|e| e.unwrap().path()).collect();
    fixtures.sort();
    assert!(!fixtures.is_empty());
    let mut failures = Vec::new();
    for fixture in &fixtures {
        let name = fixture.file_stem().unwrap().to_string_lossy().to_string();
        let expected = expectations(fixture);
        let (c, _dir) = compile_fixture(fixture);
        let mut got: Vec<String> = c.diagnostics.iter().map(|d| d.code.id().to_string()).collect();
        got.sort();
        if got != expected {
            failures.push(format!("{name}: expected {expected:?}, got {got:?}"));
        }
        // A clean fixture compiles to a complete manifest; an error in a contract makes it
        // incomplete. (An invalid instance id in a `.bind()` call is an error of the code that
        // binds, not of a contract: the manifest stays complete.)
        let complete = c.manifest().completeness.status == agent_surface_model::manifest::CompletenessStatus::Complete;
        let contract_errors = c
            .diagnostics
            .iter()
            .any(|d| d.is_error() && d.code != agent_surface_compiler::diagnostics::Code::InvalidInstanceId);
        if contract_errors == complete {
            failures.push(format!("{name}: contract errors={contract_errors} but manifest complete={complete}"));
        }
        let rendered = format!(
            "{}\n---- json ----\n{}",
            pretty::render(&c.diagnostics, &c.project.db, pretty::PrettyOptions { color: false, width: 100 }),
            json::render(&c.diagnostics, &c.project.db)
        );
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots/diagnostics"));
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.bind(|| insta::assert_snapshot!(name.clone(), rendered));
    }
    assert!(failures.is_empty(), "fixture expectations failed:\n{}", failures.join("\n"));
}

#[test]
fn every_code_has_an_error_fixture() {
    let mut declared = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(fixtures_dir()).unwrap() {
        declared.extend(expectations(&entry.unwrap().path()));
    }
    let missing: Vec<&str> =
        agent_surface_compiler::diagnostics::CODES.iter().map(|c| c.id).filter(|id| !declared.contains(*id)).collect();
    assert!(missing.is_empty(), "codes without a fixture that trips them: {missing:?}");
}
