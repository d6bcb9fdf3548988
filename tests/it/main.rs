//! The root package's integration tests, in one binary: each module was a test binary of its
//! own (`tests/<module>.rs`), each compiled and linked on its own against the compiler, the
//! language server and the engine, which made every rebuild of the root package pay fourteen
//! links. Snapshots keep their names and folders (`snapshots/`): every snapshot assertion names
//! its file and folder and turns insta's module prefix off.

mod common;

/// The compiler bench's generator of synthetic projects (benches/compiler/gen).
#[path = "../../benches/compiler/gen/mod.rs"]
#[allow(dead_code)]
mod gen;

mod arktype_oracle;
mod bad_input;
mod bridge_cli;
mod cli;
mod conformance;
mod diagnostics;
mod disk_cache;
mod equivalence;
mod formats;
mod fuzz_replay;
mod incremental;
mod locations;
mod lsp;
mod man;
mod oracle_harness;
mod provenance;
mod schema_libs_oracle;
mod serve;
mod tools_cli;
mod tsconfig;
mod verify;
mod watch;
mod zod3_oracle;
mod zod_oracle;
