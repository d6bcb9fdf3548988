//! Entry points of the compiler's fuzz targets (`fuzz/fuzz_targets/`), kept here so a stable
//! test (`tests/it/fuzz_replay.rs`) replays every seed and every crash reproducer through exactly
//! the code libFuzzer runs. Each function panics when an invariant breaks; anything else it
//! does is a normal, handled outcome. Not a public API.
#![doc(hidden)]

use crate::serve::Server;
use agent_surface_compiler::compile::compile_files;
use agent_surface_compiler::config::Config;
use agent_surface_compiler::project::Project;
use agent_surface_engine::authority::{AuthorityError, CapabilityAuthority};
use agent_surface_model::manifest::CompletenessStatus;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A project root that does not exist: the fuzzed file lives in an overlay, nothing touches the
/// disk but the import resolver's existence probes (which find nothing).
pub const FUZZ_ROOT: &str = "/nonexistent/agent-surface-fuzz/app";

fn fuzz_project() -> Project {
    Project::new(Config::defaults(Path::new(FUZZ_ROOT)))
}

/// Target `compile_file`: one file's bytes through prefilter → parse → extract → evaluate →
/// build → rules, then every renderer and the provenance edits.
///
/// (A complete manifest may come with errors: a file that only binds instance ids, or fails to
/// parse without mentioning the core package, cannot be missing a contract.)
///
/// Invariants: no panic; every diagnostic span lies inside its file on char boundaries; the
/// provenance edits apply; a manifest the compiler calls complete is accepted by
/// `CapabilityAuthority::new` (up to duplicate ids, which only the project-wide rule reports)
/// and passes the runtime's `check_accepted` (every schema compiles to a validator, ...).
pub fn compile_file(data: &[u8]) {
    // Invalid UTF-8 is the disk reader's concern (tests/it/bad_input.rs); an overlay is text.
    let text = String::from_utf8_lossy(data);
    let jsx = text.contains("</") || text.contains("/>");
    let path = PathBuf::from(FUZZ_ROOT).join(if jsx { "src/c.tsx" } else { "src/c.ts" });
    let project = Arc::new(fuzz_project());
    project.set_overlay(path.clone(), Arc::from(text.as_ref()));
    let c = compile_files(project, std::slice::from_ref(&path));

    for d in &c.diagnostics {
        for label in std::iter::once(&d.primary).chain(&d.related) {
            let f = c.project.db.get(label.span.file);
            let (lo, hi) = (label.span.lo as usize, label.span.hi as usize);
            assert!(
                lo <= hi && hi <= f.text.len(),
                "{}: span {lo}..{hi} outside {} ({} bytes)",
                d.code.id(),
                f.rel,
                f.text.len()
            );
            assert!(
                f.text.is_char_boundary(lo) && f.text.is_char_boundary(hi),
                "{}: span {lo}..{hi} splits a character",
                d.code.id()
            );
            let _ = f.line_col(label.span.lo);
        }
    }
    let _ = agent_surface_compiler::render::json::render(&c.diagnostics, &c.project.db);
    let _ = agent_surface_compiler::render::sarif::render(&c.diagnostics, &c.project.db);
    let _ = agent_surface_compiler::render::github::render(&c.diagnostics, &c.project.db);
    let _ = agent_surface_compiler::render::pretty::render(
        &c.diagnostics,
        &c.project.db,
        agent_surface_compiler::render::pretty::PrettyOptions { color: false, width: 100 },
    );

    let edits = agent_surface_compiler::provenance::provenance_edits(&c, &path);
    for e in &edits {
        assert!(
            e.offset <= text.len() && text.is_char_boundary(e.offset),
            "provenance edit at {} is not a char boundary of the file",
            e.offset
        );
    }
    let _ = agent_surface_compiler::provenance::apply_edits(&text, &edits);

    if c.manifest().completeness.status == CompletenessStatus::Complete {
        match CapabilityAuthority::new(c.manifest().to_value()) {
            Ok(a) => agent_surface_engine::fuzz_support::check_accepted(&a),
            Err(AuthorityError::DuplicateId { .. }) => {}
            Err(e) => panic!(
                "the runtime refuses a manifest the compiler emitted as complete: {e}\n{}",
                c.manifest().to_pretty_json()
            ),
        }
    }
}

/// The serve target's server: a fresh project per input, so a reproducer replays alone.
pub fn serve_server() -> Server {
    Server::new(fuzz_project())
}

/// Target `serve_lines`: the input is a sequence of newline-separated request lines, handled in
/// order by one server (as `run_stdio` does: blank lines skipped, `shutdown` ends the session).
///
/// Invariants: every line gets exactly one response, a JSON object holding `id` (the request's
/// `id` when the request is an object that has one, else `null`) and exactly one of `result`
/// or `error`; it prints as one line; no request reaches the catch-all panic guard (`internal`).
pub fn serve_lines(data: &[u8]) {
    let server = serve_server();
    // run_stdio answers a non-UTF-8 line with a fixed error; a lossy line is the closest input.
    let text = String::from_utf8_lossy(data);
    for line in text.split('\n') {
        if line.trim().is_empty() {
            continue;
        }
        let (response, shutdown) = server.handle_line(line);
        check_response(line, &response);
        if shutdown {
            break;
        }
    }
}

fn check_response(line: &str, response: &Value) {
    let obj = response.as_object().unwrap_or_else(|| panic!("response is not an object: {response}"));
    assert!(obj.contains_key("id"), "response without id: {response}");
    assert!(obj.contains_key("result") != obj.contains_key("error"), "needs exactly one of result/error: {response}");
    assert_eq!(obj.len(), 2, "unexpected keys: {response}");
    if let Ok(Value::Object(req)) = serde_json::from_str::<Value>(line) {
        assert_eq!(obj["id"], req.get("id").cloned().unwrap_or(Value::Null), "response id differs from the request's");
    }
    if let Some(err) = obj.get("error") {
        assert_ne!(err["code"], "internal", "the compiler panicked on {line:?}: {response}");
        assert!(err["code"].is_string() && err["message"].is_string(), "malformed error: {response}");
    }
    let printed = response.to_string();
    assert!(!printed.contains('\n'), "a response must print as one line");
}
