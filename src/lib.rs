//! agent-surface: compiles the agent contracts of a TypeScript/React app into a verified,
//! blake3-hashed `CapabilityContractManifest`.
//!
//! The pipeline, one module per stage:
//! [`discover`] → prefilter ([`compile::mentions_core`]) → [`parse`] → [`extract`] →
//! [`evaluate`] → build ([`contracts`]) → check ([`rules`]) → [`emit`].
//! The model (manifest types, hashing, ids, schema subset, limits) lives in
//! `agent-surface-runtime`; this crate maps its violations to source spans.

pub mod cli;
pub mod compile;
pub mod config;
pub mod contracts;
pub mod diagnostics;
pub mod discover;
pub mod emit;
pub mod evaluate;
pub mod extract;
#[doc(hidden)]
pub mod fuzz_support;
pub mod inputs;
pub mod lsp;
pub mod parse;
pub mod project;
pub mod provenance;
pub mod render;
pub mod rules;
pub mod serve;
pub mod source;
pub mod value;
pub mod watch;
pub mod zod;
