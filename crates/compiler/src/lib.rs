//! The agent-surface compiler: discover → prefilter → parse → extract → evaluate (zod included)
//! → build → rules → diagnostics → emit. It finds contract declarations imported from
//! `@agent-surface/core` in a TypeScript/React project, evaluates them statically, checks them
//! with the model's rules and writes a deterministic, blake3-hashed
//! `CapabilityContractManifest`. It depends on the model, never on the engine: compiling runs no
//! handler, no executor and no random number generator.

pub mod cache;
pub mod compile;
pub mod config;
pub mod contracts;
pub mod diagnostics;
pub mod discover;
pub mod emit;
pub mod evaluate;
pub mod extract;
pub mod inputs;
pub mod parse;
pub mod paths;
pub mod prefilter;
pub mod project;
pub mod provenance;
pub mod render;
pub mod rules;
pub mod source;
pub mod value;
pub mod zod;
