//! zod schemas, statically: the evaluator (`crate::evaluate`, its `zod_calls`) builds a
//! [`model`] graph from zod builder calls, and [`emit`] turns it into exactly the JSON Schema
//! zod 4.6.7's `z.toJSONSchema` returns (proven by the differential test against real zod in
//! `tests/it/zod_oracle.rs`). Nothing here evaluates code: this module knows schemas only.

pub mod emit;
pub mod json;
pub mod model;
pub mod patterns;

/// Module specifiers that provide zod 4's API.
pub const ZOD_SOURCES: &[&str] = &["zod", "zod/v4"];

pub fn is_zod_source(source: &str) -> bool {
    ZOD_SOURCES.contains(&source)
}
