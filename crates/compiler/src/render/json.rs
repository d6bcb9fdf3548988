//! `--format json`: exactly one JSON document on stdout. Lines are 1-based, columns 1-based
//! UTF-16 code units, files relative to the project root.

use crate::diagnostics::{Diagnostic, Severity};
use crate::source::{SourceDb, Span};
use serde::Serialize;

pub const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JsonReport {
    pub schema_version: u32,
    pub diagnostics: Vec<JsonDiagnostic>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JsonDiagnostic {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<JsonRelated>,
}

#[derive(Serialize)]
pub struct JsonRelated {
    pub message: String,
    pub file: String,
    pub line: u32,
    pub column: u32,
}

fn position(db: &SourceDb, span: Span) -> (String, crate::source::LineCol, crate::source::LineCol) {
    let f = db.get(span.file);
    (f.rel.clone(), f.line_col(span.lo), f.line_col(span.hi))
}

pub fn to_json(d: &Diagnostic, db: &SourceDb) -> JsonDiagnostic {
    let (file, start, end) = position(db, d.primary.span);
    JsonDiagnostic {
        code: d.code.id(),
        severity: d.severity,
        message: d.message.clone(),
        file,
        line: start.line,
        column: start.column,
        end_line: end.line,
        end_column: end.column,
        help: d.help.clone(),
        related: d
            .related
            .iter()
            .map(|r| {
                let (file, start, _) = position(db, r.span);
                JsonRelated { message: r.message.clone(), file, line: start.line, column: start.column }
            })
            .collect(),
    }
}

/// The whole report as a JSON string (one line, newline-terminated).
pub fn render(diags: &[Diagnostic], db: &SourceDb) -> String {
    let report =
        JsonReport { schema_version: SCHEMA_VERSION, diagnostics: diags.iter().map(|d| to_json(d, db)).collect() };
    let mut s = serde_json::to_string(&report).expect("report serializes");
    s.push('\n');
    s
}
