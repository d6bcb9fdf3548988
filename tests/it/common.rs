//! Helpers shared by the integration tests: the compiler's (example app, copies, pinned test
//! tools), and the binary's.

#[path = "../../crates/compiler/tests/it/common.rs"]
mod shared;

pub use shared::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The example app's committed manifest (`compile --check`-ed by the CLI tests): the manifest
/// the runtime's tests, benches and examples read.
pub fn example_manifest() -> PathBuf {
    example_app().join("agent-surface.manifest.json")
}

/// The binary under test, with colour and width fixed so output can be snapshot-tested.
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_agent-surface"));
    c.env_remove("NO_COLOR").env("COLUMNS", "100");
    c
}

/// What one run of the binary did.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the binary in `cwd` with `args`.
pub fn run(cwd: &Path, args: &[&str]) -> Run {
    let out = bin().current_dir(cwd).args(args).output().expect("runs");
    Run {
        code: out.status.code().expect("exited normally (no signal, no panic abort)"),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}
