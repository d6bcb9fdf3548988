//! Helpers shared by the compiler's integration tests, and by the root package's CLI tests
//! (its `tests/it/common.rs` includes this file), so paths are found from the workspace root.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root (where Cargo.lock is): the bundled example app and the pinned test
/// tools live there.
pub fn repo() -> PathBuf {
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    while !dir.join("Cargo.lock").exists() {
        assert!(dir.pop(), "no Cargo.lock above {}", env!("CARGO_MANIFEST_DIR"));
    }
    dir
}

/// The example app (`examples/devices-app`), also the compiler's fixture: a real Vite app whose
/// committed `agent-surface.manifest.json` the tests compare with a fresh compile.
pub fn example_app() -> PathBuf {
    repo().join("examples/devices-app")
}

/// Copies a fixture project, leaving out its manifest (and sidecar), build output, test
/// artifacts and installed packages.
pub fn copy_dir(from: &Path, to: &Path) {
    const LEFT_OUT: [&str; 5] = [
        "node_modules",
        "agent-surface.manifest.json",
        "agent-surface.manifest.locations.json",
        "dist",
        "test-artifacts",
    ];
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let p = entry.unwrap().path();
        let name = p.file_name().unwrap();
        if LEFT_OUT.iter().any(|n| name == *n) {
            continue;
        }
        let target = to.join(name);
        if p.is_dir() {
            copy_dir(&p, &target);
        } else {
            std::fs::copy(&p, &target).unwrap();
        }
    }
}

/// A scratch copy of a fixture project (a folder, or a single file) at a path that never shows
/// in output; the path is normalized as the compiler normalizes roots.
pub fn scratch_copy(fixture: &Path) -> (PathBuf, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let root = agent_surface_compiler::paths::normalize(&std::fs::canonicalize(dir.path()).unwrap());
    if fixture.is_dir() {
        copy_dir(fixture, &root);
    } else {
        std::fs::write(root.join(fixture.file_name().unwrap()), std::fs::read(fixture).unwrap()).unwrap();
    }
    (root, dir)
}

/// Installs a pinned test tool (`test-tools/<name>`: its package-lock.json) with `npm ci` when
/// its `node_modules` is missing, so `cargo test` works on a fresh clone. Each tool has its own
/// folder, and each is installed by one test, so no two installs race.
pub fn npm_tool(name: &str, installed: &str) -> PathBuf {
    let dir = repo().join("test-tools").join(name);
    if !dir.join(installed).exists() {
        let out = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir)
            .output()
            .unwrap_or_else(|e| panic!("npm ci in {} (install Node.js and npm): {e}", dir.display()));
        assert!(out.status.success(), "npm ci in {} failed:\n{}", dir.display(), String::from_utf8_lossy(&out.stderr));
    }
    assert!(dir.join(installed).exists(), "npm ci in {} did not install {installed}", dir.display());
    dir
}
