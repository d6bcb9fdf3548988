//! The compiler's output does not change when its internals do: every fixture project and two
//! generated corpora (the bench's generator, tests/../benches/compiler/gen) compile to exactly
//! the manifest bytes and the diagnostics (JSON, positions and messages included) that the
//! compiler wrote before the cross-file evaluation memo (issue 20). The goldens in
//! `fixtures/equivalence/golden/` were written by that compiler; `cross-file` is a project
//! made to exercise what a shared memo could get wrong (cycles entered from either side,
//! errors in shared constants used by several files, `export *` barrels, core re-exports,
//! namespaces, zod getters and `z.lazy`, regex identity, `$defs` ids, output-mode conversions
//! held in constants).
//!
//! Each project is also compiled on one worker thread and on four, and both must agree: the
//! memo is filled in whatever order the threads get there.
//!
//! And each is compiled through the disk cache (`--cache-dir`): into an empty cache, then again
//! from it, where contract files come back without being parsed; both must write the same.
//!
//! `AGENT_SURFACE_BLESS_EQUIVALENCE=1 cargo test --test it equivalence` rewrites the goldens:
//! only for a change of output that is meant (say why in the commit).

use crate::common::scratch_copy;
use crate::gen;
use agent_surface_compiler::compile::{compile, compile_cached, manifest_text};
use agent_surface_compiler::config::Config;
use agent_surface_compiler::disk_cache::DiskCache;
use agent_surface_compiler::paths::normalize;
use agent_surface_compiler::project::Project;
use agent_surface_compiler::render::json;
use std::path::{Path, PathBuf};

/// This crate's folder: its fixtures.
fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn golden_dir() -> PathBuf {
    crate_dir().join("fixtures/equivalence/golden")
}

fn bless() -> bool {
    std::env::var_os("AGENT_SURFACE_BLESS_EQUIVALENCE").is_some()
}

/// (manifest text, JSON diagnostics) of a compile of `root` on `threads` worker threads, and
/// how many files the memo could not reproduce (evaluated alone).
fn outputs(root: &Path, threads: usize) -> ((String, String), u64) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).stack_size(64 << 20).build().unwrap();
    pool.install(|| {
        let c = compile(Project::new(Config::load(root).expect("config"))).expect("compile");
        ((manifest_text(&c), json::render(&c.diagnostics, &c.project.db)), c.project.memo.fallbacks())
    })
}

/// (manifest text, JSON diagnostics) of a compile of `root` through a disk cache in `dir`, and
/// how many contract files came from it.
fn cached_outputs(root: &Path, dir: &Path) -> ((String, String), usize) {
    let project = Project::new(Config::load(root).expect("config"));
    let (cache, note) = DiskCache::open(dir, &project).expect("cache folder");
    assert_eq!(note, None);
    let c = compile_cached(project, &cache).expect("compile");
    cache.save().expect("save the cache");
    ((manifest_text(&c), json::render(&c.diagnostics, &c.project.db)), cache.stats().hits)
}

/// Compares one project's outputs with its goldens (whole texts, or only their blake3 for the
/// generated corpora, whose manifests run to megabytes).
fn check(name: &str, root: &Path, whole: bool, failures: &mut Vec<String>) {
    let ((manifest, diagnostics), fallbacks) = outputs(root, 1);
    let (other, _) = outputs(root, 4);
    if other != (manifest.clone(), diagnostics.clone()) {
        failures.push(format!("{name}: one thread and four threads disagree"));
    }
    if fallbacks > 0 {
        eprintln!("{name}: {fallbacks} files evaluated alone");
    }
    let cache = tempfile::tempdir().unwrap();
    let (cold, cold_hits) = cached_outputs(root, cache.path());
    let (warm, warm_hits) = cached_outputs(root, cache.path());
    if cold != (manifest.clone(), diagnostics.clone()) {
        failures.push(format!("{name}: a compile into an empty disk cache writes something else"));
    }
    if warm != (manifest.clone(), diagnostics.clone()) {
        failures
            .push(format!("{name}: a compile from the disk cache ({warm_hits} files from it) writes something else"));
    }
    if cold_hits != 0 {
        failures.push(format!("{name}: an empty cache served {cold_hits} files"));
    }
    let hash = |s: &str| format!("blake3:{}", blake3::hash(s.as_bytes()).to_hex());
    let files: Vec<(String, String)> = if whole {
        vec![(format!("{name}.manifest.json"), manifest), (format!("{name}.diagnostics.json"), diagnostics)]
    } else {
        vec![(format!("{name}.hashes"), format!("manifest {}\ndiagnostics {}\n", hash(&manifest), hash(&diagnostics)))]
    };
    for (file, text) in files {
        let path = golden_dir().join(&file);
        if bless() {
            std::fs::create_dir_all(golden_dir()).unwrap();
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(golden) if golden == text => {}
            Ok(golden) => {
                let at =
                    golden.bytes().zip(text.bytes()).position(|(a, b)| a != b).unwrap_or(golden.len().min(text.len()));
                let from = at.saturating_sub(200);
                failures.push(format!(
                    "{name}: {file} differs from the golden at byte {at}:\n golden: …{}…\n    now: …{}…",
                    &golden[from..(at + 200).min(golden.len())],
                    &text[from..(at + 200).min(text.len())]
                ));
            }
            Err(e) => failures.push(format!("{name}: no golden {} ({e})", path.display())),
        }
    }
}

#[test]
fn fixtures_compile_to_the_golden_outputs() {
    let mut failures = Vec::new();
    let mut projects = vec![
        ("cross-file".to_string(), crate_dir().join("fixtures/equivalence/cross-file")),
        ("devices-app".to_string(), crate::common::example_app()),
    ];
    let mut diagnostics: Vec<PathBuf> =
        std::fs::read_dir(crate_dir().join("fixtures/diagnostics")).unwrap().map(|e| e.unwrap().path()).collect();
    diagnostics.sort();
    for d in diagnostics {
        projects.push((format!("diagnostics-{}", d.file_stem().unwrap().to_string_lossy()), d));
    }
    for (name, fixture) in &projects {
        let (root, _dir) = scratch_copy(fixture);
        check(name, &root, true, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn generated_corpora_compile_to_the_golden_outputs() {
    let mut failures = Vec::new();
    let seed = gen::GenOptions::default().seed;
    for (name, opts) in [
        ("generated-600", gen::GenOptions { files: 600, seed, ..Default::default() }),
        ("generated-1200-inject-250", gen::GenOptions { files: 1200, seed, inject: Some(250), ..Default::default() }),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let root = normalize(&std::fs::canonicalize(dir.path()).unwrap()).join("app");
        gen::generate(&root, &opts).expect("generate");
        check(name, &root, false, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
