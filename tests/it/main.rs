//! The binary's CLI tests, in one test binary (the root package's): `agent-surface` run as a
//! user runs it. The compiler's own integration tests (diagnostics fixtures, goldens, caches,
//! schema-library oracles) live beside it in `crates/compiler/tests/it`. Snapshots keep their
//! names and folders (`snapshots/`): every snapshot assertion names its file and folder and
//! turns insta's module prefix off.

mod common;

mod bad_input;
mod bridge_cli;
mod cache_cli;
mod cli;
mod conformance;
mod formats;
mod fuzz_replay;
mod locations;
mod lsp;
mod man;
mod serve;
mod tools_cli;
mod tsconfig;
mod verify;
mod watch;
