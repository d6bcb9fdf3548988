//! The JSON Schema subset that crosses the agent boundary (spec: "Supported JSON Schema
//! subset").
//!
//! - [`subset`]: the checker — which schemas are allowed, every violation with a pointer.
//! - [`validate`]: the validator — values checked against an allowed schema, defaults applied.
//! - [`pattern`]: the ECMAScript regular-expression engine `pattern` uses: regress by default
//!   (cargo feature `regress`), or one the host installs ([`pattern::set_pattern_engine`]; the
//!   browser build uses the page's `RegExp`).
//! - [`canonical`]: RFC 8785 canonical JSON, which `enum`, `const` and `uniqueItems` compare by
//!   and the model crate hashes.
//!
//! Both the compiler (through the model's definition rules) and the engine use this crate, so a
//! schema means the same thing at build time and at run time.

pub mod canonical;
pub mod pattern;
pub mod subset;
pub mod validate;

pub use pattern::PatternEngine;
pub use subset::{check_schema, SchemaViolation, SchemaViolationKind};
pub use validate::{ValidationIssue, Validator, ValidatorOptions};

/// Canonical JSON bytes of one schema (spec: Limits and defaults, `maxSchemaBytes`).
pub const DEFAULT_MAX_SCHEMA_BYTES: usize = 16_384;
/// Schema nesting levels; the root schema is level 1 (`maxSchemaDepth`).
pub const DEFAULT_MAX_SCHEMA_DEPTH: usize = 8;

/// The two limits a schema is checked against. The model's `AgentSurfaceLimits` converts into
/// these, so every schema-taking function accepts either.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchemaLimits {
    pub max_schema_bytes: usize,
    pub max_schema_depth: usize,
}

impl Default for SchemaLimits {
    fn default() -> Self {
        SchemaLimits { max_schema_bytes: DEFAULT_MAX_SCHEMA_BYTES, max_schema_depth: DEFAULT_MAX_SCHEMA_DEPTH }
    }
}

impl From<&SchemaLimits> for SchemaLimits {
    fn from(limits: &SchemaLimits) -> Self {
        *limits
    }
}
