//! Renderers: one diagnostic type, several outputs.

pub mod json;
pub mod pretty;

use clap::ValueEnum;

/// `--format`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Source frames with labels (miette).
    Pretty,
    /// One JSON document: `{"schemaVersion":1,"diagnostics":[...]}`.
    Json,
}
