//! Issue 10 "Fuzzing": the test command replays each fuzz target's seed corpus
//! (`fuzz/corpus/<target>/`) and every crash reproducer (`fuzz/artifacts/<target>/`) on stable
//! Rust, through the same functions the libFuzzer targets call (`fuzz/fuzz_targets/*.rs` are
//! one-line wrappers). A reproducer stays in `fuzz/artifacts/` after its fix: it is the
//! regression test. See docs/fuzzing.md.

use std::path::{Path, PathBuf};

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    files.sort();
    files
}

/// Runs `harness` on every input of `target`; fails listing each input that panicked.
fn replay(target: &str, harness: fn(&[u8])) {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let corpus = inputs(&fuzz.join("corpus").join(target));
    let artifacts = inputs(&fuzz.join("artifacts").join(target));
    assert!(!corpus.is_empty(), "fuzz/corpus/{target} has no seeds");
    let mut failed = Vec::new();
    for path in corpus.iter().chain(&artifacts) {
        let data = std::fs::read(path).unwrap();
        if std::panic::catch_unwind(|| harness(&data)).is_err() {
            failed.push(path.strip_prefix(&fuzz).unwrap().display().to_string());
        }
    }
    eprintln!("fuzz replay {target}: {} seeds, {} reproducers", corpus.len(), artifacts.len());
    assert!(failed.is_empty(), "{target}: {} input(s) fail: {failed:#?}", failed.len());
}

#[test]
fn compile_file_corpus_and_reproducers() {
    replay("compile_file", agent_surface::fuzz_support::compile_file);
}

#[test]
fn serve_lines_corpus_and_reproducers() {
    replay("serve_lines", agent_surface::fuzz_support::serve_lines);
}

#[test]
fn authority_manifest_corpus_and_reproducers() {
    replay("authority_manifest", agent_surface_engine::fuzz_support::authority_manifest);
}

#[test]
fn schema_validate_corpus_and_reproducers() {
    replay("schema_validate", agent_surface_engine::fuzz_support::schema_validate);
}
