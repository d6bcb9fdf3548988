//! Renderers: one diagnostic type, several outputs.

pub mod github;
pub mod json;
pub mod pretty;
pub mod sarif;

use clap::ValueEnum;

/// `--format`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Source frames with labels (miette).
    Pretty,
    /// One JSON document: `{"schemaVersion":1,"diagnostics":[...]}`.
    Json,
}

/// `--format` of `check` and `compile`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum DiagnosticFormat {
    /// Source frames with labels (miette), on stderr.
    Pretty,
    /// One JSON document on stdout.
    Json,
    /// GitHub Actions annotations on stdout.
    Github,
    /// SARIF 2.1.0 on stdout.
    Sarif,
}
