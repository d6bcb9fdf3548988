//! The agent-surface compiler: discover → prefilter → parse → extract → evaluate (zod included)
//! → build → rules → diagnostics → emit. It finds contract declarations imported from
//! `@agent-surface/core` in a TypeScript/React project, evaluates them statically, checks them
//! with the model's rules and writes a deterministic, blake3-hashed
//! `CapabilityContractManifest`. It depends on the model, never on the engine: compiling runs no
//! handler, no executor and no random number generator.
//!
//! Modules import only modules listed before them (`scripts/check-module-cycles.py` keeps it so):
//!
//! - [`paths`] (one normalization for every path key), [`source`] (files, spans, line/column),
//!   [`diagnostics`] (the one diagnostic type and its codes);
//! - [`prefilter`] (which files can declare a contract, on bytes), [`parse`] (swc),
//!   [`extract`] (a module's imports, exports, bindings and macro calls: [`extract::ModuleInfo`]);
//! - [`numbers`], [`zod`] (the schema model and its JSON Schema emitter), [`value`] (what
//!   evaluation produces), [`contracts`] (build: evaluated macro arguments to a manifest
//!   contract);
//! - [`config`], [`discover`] (the project's files), [`inputs`] (what a result was computed
//!   from), [`memo`] (what evaluating each constant did, shared by every file), [`cache`]
//!   (results across compiles), [`project`] (loader, resolver, overlays, change
//!   tracking; [`project::changes`] for watcher events), [`disk_cache`] (results between
//!   one-shot compiles, `--cache-dir`);
//! - [`evaluate`] (static evaluation, zod builder calls included), [`rules`] (the checks),
//!   [`compile`] (the pipeline, in parallel, sorted output);
//! - [`provenance`] (edits for the Vite plugin), [`render`] (pretty, JSON, GitHub, SARIF) and
//!   [`emit`] (atomic manifest writes) at the edges.

pub mod arktype;
pub mod cache;
pub mod compile;
pub mod config;
pub mod contracts;
pub mod diagnostics;
pub mod discover;
pub mod disk_cache;
pub mod emit;
pub mod evaluate;
pub mod extract;
pub mod inputs;
pub mod memo;
pub mod numbers;
pub mod parse;
pub mod paths;
pub mod prefilter;
pub mod project;
pub mod provenance;
pub mod render;
pub mod rules;
pub mod source;
pub mod typebox;
pub mod valibot;
pub mod value;
pub mod zod;
