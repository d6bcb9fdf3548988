//! zod schemas, statically: the evaluator (`crate::evaluate`, its `zod_calls`) builds a
//! [`model`] graph from zod builder calls, and [`emit`] turns it into exactly the JSON Schema
//! zod 4.6.7's `z.toJSONSchema` returns (proven by the differential test against real zod in
//! `crates/compiler/tests/it/zod_oracle.rs`). Nothing here evaluates code: this module knows schemas only.

pub mod emit;
pub mod json;
pub mod model;
pub mod patterns;
pub mod v3;

/// Module specifiers that provide zod 4's API.
pub const ZOD_SOURCES: &[&str] = &["zod", "zod/v4"];

/// Module specifiers whose imports the evaluator interprets: zod 4's, zod 3's
/// (`crate::zod::v3`, which also tells `"zod"` apart by the declared version) and zod 3's converter.
pub fn is_zod_source(source: &str) -> bool {
    ZOD_SOURCES.contains(&source) || source == "zod/v3" || source == crate::zod::v3::CONVERTER_PACKAGE
}
