//! The crate's integration tests, one binary (one link) with a module per topic.
//!
//! - `json_schema_suite`: JSON-Schema-Test-Suite draft 2020-12 conformance.
//! - `pattern_engine`: an engine a host installs is the one `pattern` uses.
//! - `public_paths`: the paths the other crates import still resolve.
//!
//! The pattern engine is process-wide, so this binary installs its own (delegating to regress)
//! before any test compiles a pattern: every test that may compile one calls
//! [`pattern_engine::setup`] first.

mod json_schema_suite;
mod pattern_engine;
mod public_paths;
mod validator_corpus;
