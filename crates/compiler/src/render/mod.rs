//! Renderers: one diagnostic type, several outputs. [`render`] picks one by
//! [`DiagnosticFormat`]; the command line maps its `--format` flag onto that enum.

pub mod github;
pub mod json;
pub mod pretty;
pub mod sarif;

use crate::diagnostics::Diagnostic;
use crate::source::SourceDb;
use pretty::PrettyOptions;

/// The outputs diagnostics can be rendered as.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
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

/// Renders `diags` as `format`; `pretty` is asked for the options only when they are needed.
pub fn render(
    format: DiagnosticFormat,
    diags: &[Diagnostic],
    db: &SourceDb,
    pretty: impl FnOnce() -> PrettyOptions,
) -> String {
    match format {
        DiagnosticFormat::Json => json::render(diags, db),
        DiagnosticFormat::Github => github::render(diags, db),
        DiagnosticFormat::Sarif => sarif::render(diags, db),
        DiagnosticFormat::Pretty => pretty::render(diags, db, pretty()),
    }
}
