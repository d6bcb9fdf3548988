//! The compiler's integration tests, in one binary, beside the crate (as Relay keeps its
//! fixtures): the diagnostics fixtures and their snapshots, the equivalence goldens (one pass
//! against a fresh compile per file), the caches, incremental recompiles, provenance, and the
//! differential tests of every schema library against its own converter (`test-tools/*-oracle`).
//! `cargo test -p agent-surface-compiler` runs them; the binary's CLI tests stay in the root
//! package (`tests/it`). Snapshots keep their names (`snapshots/<folder>`, insta's module prefix off).

mod common;

/// The compiler bench's generator of synthetic projects (benches/compiler/gen at the root).
#[path = "../../../../benches/compiler/gen/mod.rs"]
#[allow(dead_code)]
mod gen;

mod arktype_oracle;
mod diagnostics;
mod disk_cache;
mod equivalence;
mod incremental;
mod oracle_harness;
mod provenance;
mod schema_libs_oracle;
mod zod3_oracle;
mod zod_oracle;
