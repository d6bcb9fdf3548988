//! Conversions between the compiler's and the protocol's terms: spans to UTF-16 ranges,
//! positions to byte offsets, `didChange` edits, and compiler diagnostics to LSP diagnostics.

use crate::SOURCE;
use agent_surface_compiler::diagnostics::{Diagnostic, Severity};
use agent_surface_compiler::source::{SourceDb, Span};
use lsp_types as lsp;
use std::path::{Path, PathBuf};

fn range(db: &SourceDb, span: Span) -> lsp::Range {
    let f = db.get(span.file);
    let pos = |offset| {
        let lc = f.line_col(offset);
        lsp::Position::new(lc.line.saturating_sub(1), lc.column.saturating_sub(1))
    };
    lsp::Range::new(pos(span.lo), pos(span.hi))
}

/// Byte offset of a UTF-16 position in `text` (clamped to the line and the text).
pub fn offset_of(text: &str, pos: lsp::Position) -> usize {
    let mut start = 0;
    for _ in 0..pos.line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let mut units = 0u32;
    for (i, ch) in text[start..end].char_indices() {
        if units >= pos.character {
            return start + i;
        }
        units += ch.len_utf16() as u32;
    }
    end
}

/// Applies one `didChange` content change (a full text, or a ranged edit).
pub fn apply_change(text: &mut String, change: lsp::TextDocumentContentChangeEvent) {
    match change.range {
        None => *text = change.text,
        Some(r) => {
            let a = offset_of(text, r.start);
            let b = offset_of(text, r.end).max(a);
            text.replace_range(a..b, &change.text);
        }
    }
}

/// The LSP diagnostics of one compiler diagnostic: the diagnostic itself, at its primary span,
/// and a hint at each related location in another place (so the first declaration of a
/// duplicate is marked too), each pointing back at the other.
pub fn to_lsp(d: &Diagnostic, db: &SourceDb, uri_of: &dyn Fn(&Path) -> lsp::Uri) -> Vec<(PathBuf, lsp::Diagnostic)> {
    let info = d.code.info();
    let code_description = info.docs_url().parse().ok().map(|href| lsp::CodeDescription { href });
    let primary_file = db.get(d.primary.span.file);
    let primary_range = range(db, d.primary.span);
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let related: Vec<lsp::DiagnosticRelatedInformation> = d
        .related
        .iter()
        .map(|r| lsp::DiagnosticRelatedInformation {
            location: lsp::Location::new(uri_of(&db.get(r.span.file).path), range(db, r.span)),
            message: r.message.clone(),
        })
        .collect();
    let base = lsp::Diagnostic {
        range: primary_range,
        severity: Some(match d.severity {
            Severity::Error => lsp::DiagnosticSeverity::ERROR,
            Severity::Warning => lsp::DiagnosticSeverity::WARNING,
        }),
        code: Some(lsp::NumberOrString::String(info.id.to_string())),
        code_description,
        source: Some(SOURCE.to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    };
    let mut out = vec![(primary_file.path.clone(), base.clone())];
    let at = primary_file.line_col(d.primary.span.lo);
    for r in d.related.iter().filter(|r| r.span != d.primary.span) {
        let file = db.get(r.span.file);
        let label = if r.message.is_empty() { "related location" } else { r.message.as_str() };
        out.push((
            file.path.clone(),
            lsp::Diagnostic {
                range: range(db, r.span),
                severity: Some(lsp::DiagnosticSeverity::HINT),
                message: format!("{label} (see {} at {}:{})", info.id, primary_file.rel, at.line),
                related_information: Some(vec![lsp::DiagnosticRelatedInformation {
                    location: lsp::Location::new(uri_of(&primary_file.path), primary_range),
                    message: d.message.clone(),
                }]),
                ..base.clone()
            },
        ));
    }
    out
}

/// Merges the diagnostics of one file that say the same thing at the same place (a constant
/// two contracts import, wrong for both, is one problem with two related locations), keeping
/// the first one's position in the list.
pub fn merge_duplicates(diagnostics: &mut Vec<lsp::Diagnostic>) {
    let mut out: Vec<lsp::Diagnostic> = Vec::with_capacity(diagnostics.len());
    for d in diagnostics.drain(..) {
        let same = |o: &&mut lsp::Diagnostic| {
            o.range == d.range && o.severity == d.severity && o.code == d.code && o.message == d.message
        };
        match out.iter_mut().find(|o| same(o)) {
            Some(o) => {
                for r in d.related_information.into_iter().flatten() {
                    let related = o.related_information.get_or_insert_with(Vec::new);
                    if !related.contains(&r) {
                        related.push(r);
                    }
                }
            }
            None => out.push(d),
        }
    }
    *diagnostics = out;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_positions_to_offsets() {
        let text = "ab\n😀x é\nlast";
        assert_eq!(offset_of(text, lsp::Position::new(1, 0)), 3);
        assert_eq!(offset_of(text, lsp::Position::new(1, 2)), 7, "after the surrogate pair");
        assert_eq!(offset_of(text, lsp::Position::new(1, 99)), 11, "clamped to the line");
        assert_eq!(offset_of(text, lsp::Position::new(9, 0)), text.len());
        let mut s = text.to_string();
        apply_change(
            &mut s,
            lsp::TextDocumentContentChangeEvent {
                range: Some(lsp::Range::new(lsp::Position::new(1, 2), lsp::Position::new(1, 3))),
                range_length: None,
                text: "y".into(),
            },
        );
        assert_eq!(s, "ab\n😀y é\nlast");
    }
}
