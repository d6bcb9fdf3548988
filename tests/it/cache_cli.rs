//! `--cache-dir` as a user sees it: the CLI reports what the cache served, and a bad cache is
//! a warning and a cold compile, never a failure. (The cache itself is tested beside the
//! compiler: crates/compiler/tests/it/disk_cache.rs.)

use crate::common::{copy_dir, example_app, run};
use agent_surface_compiler::paths::normalize;
use std::path::PathBuf;

fn scratch_root(dir: &tempfile::TempDir) -> PathBuf {
    normalize(&std::fs::canonicalize(dir.path()).unwrap()).join("app")
}

#[test]
fn the_cli_reports_the_cache_and_survives_a_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    let root = scratch_root(&dir);
    copy_dir(&example_app(), &root);
    let cache = dir.path().join("ci-cache");
    let cache_arg = cache.to_str().unwrap();
    let cold = run(&root, &["compile", "--cache-dir", cache_arg]);
    assert_eq!(cold.code, 0, "{}", cold.stderr);
    assert!(cold.stderr.contains("; 0 of 11 contract files from the cache"), "{}", cold.stderr);
    let manifest = std::fs::read(root.join("agent-surface.manifest.json")).unwrap();
    std::fs::remove_file(root.join("agent-surface.manifest.json")).unwrap();
    let warm = run(&root, &["compile", "--cache-dir", cache_arg]);
    assert_eq!(warm.code, 0, "{}", warm.stderr);
    assert!(warm.stderr.contains("; 11 of 11 contract files from the cache"), "{}", warm.stderr);
    assert_eq!(std::fs::read(root.join("agent-surface.manifest.json")).unwrap(), manifest);
    let check = run(&root, &["check", "--cache-dir", cache_arg]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    assert!(check.stderr.contains("; 11 of 11 contract files from the cache"), "{}", check.stderr);

    // A damaged cache file: a warning naming it, a cold compile, the same manifest, and a
    // repaired cache.
    let files: Vec<PathBuf> = std::fs::read_dir(&cache).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1, "one cache file per project: {files:?}");
    std::fs::write(&files[0], b"{\"format\": 1, \"key\": tr").unwrap();
    let damaged = run(&root, &["compile", "--cache-dir", cache_arg]);
    assert_eq!(damaged.code, 0, "{}", damaged.stderr);
    assert!(damaged.stderr.contains("warning: ignoring the unreadable cache"), "{}", damaged.stderr);
    assert!(damaged.stderr.contains(files[0].file_name().unwrap().to_str().unwrap()), "{}", damaged.stderr);
    assert!(damaged.stderr.contains("; 0 of 11 contract files from the cache"), "{}", damaged.stderr);
    assert_eq!(std::fs::read(root.join("agent-surface.manifest.json")).unwrap(), manifest);
    let repaired = run(&root, &["compile", "--cache-dir", cache_arg]);
    assert!(repaired.stderr.contains("; 11 of 11 contract files from the cache"), "{}", repaired.stderr);

    // A cache folder that cannot be made (a file is in the way): a warning, the compile still
    // runs and fails or passes on its own merits.
    let blocked = dir.path().join("blocked");
    std::fs::write(&blocked, "not a folder").unwrap();
    let out = run(&root, &["compile", "--cache-dir", blocked.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("warning: cannot create the cache folder"), "{}", out.stderr);
    assert!(!out.stderr.contains("from the cache"), "{}", out.stderr);

    // Usage: the cache has no meaning for a watch or a buffer on stdin.
    let usage = run(&root, &["compile", "--watch", "--cache-dir", cache_arg]);
    assert_eq!(usage.code, 2, "{}", usage.stderr);
    let usage = run(&root, &["check", "--stdin-filepath", "src/a.ts", "--cache-dir", cache_arg]);
    assert_eq!(usage.code, 2, "{}", usage.stderr);
}
