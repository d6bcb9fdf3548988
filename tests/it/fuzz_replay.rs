//! Issue 10 "Fuzzing": the test command replays each fuzz target's seed corpus and every crash
//! reproducer (`fuzz/artifacts/<target>/`) on stable Rust, through the same functions the
//! libFuzzer targets call (`fuzz/fuzz_targets/*.rs` are one-line wrappers). Seeds are derived
//! from the fixtures, not committed: `fuzz/make_seeds.py --out` writes them into this test's
//! temporary folder once per run. A reproducer stays in `fuzz/artifacts/` after its fix: it is
//! the regression test. See docs/fuzzing.md.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The seed corpora, generated once per test run by the same script fuzzing starts with.
fn seeds() -> &'static Path {
    static SEEDS: OnceLock<PathBuf> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-seeds");
        let _ = std::fs::remove_dir_all(&out);
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/make_seeds.py");
        let run = std::process::Command::new("python3")
            .arg(&script)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap_or_else(|e| panic!("python3 {}: {e}", script.display()));
        assert!(run.status.success(), "{} failed: {}", script.display(), String::from_utf8_lossy(&run.stderr));
        out
    })
}

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
    let corpus = inputs(&seeds().join(target));
    let artifacts = inputs(&fuzz.join("artifacts").join(target));
    assert!(!corpus.is_empty(), "make_seeds.py wrote no seeds for {target}");
    let mut failed = Vec::new();
    for path in corpus.iter().chain(&artifacts) {
        let data = std::fs::read(path).unwrap();
        if std::panic::catch_unwind(|| harness(&data)).is_err() {
            failed.push(path.display().to_string());
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
