//! The one diagnostic type, shared by every renderer (`render`: pretty, JSON, GitHub annotations,
//! SARIF) and by the language server (`agent-surface-lsp`).

pub mod codes;

pub use codes::{Category, Code, CodeInfo, CODES};

use crate::source::{SourceDb, Span};
use serde::Serialize;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// A labelled span.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// One finding. Built with [`Diagnostic::new`] and the builder methods.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    pub primary: Label,
    pub related: Vec<Label>,
    pub help: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with the code's default severity, pointing at `span`.
    pub fn new(code: Code, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: code.info().severity,
            message: message.into(),
            primary: Label { span, message: String::new() },
            related: Vec::new(),
            help: Some(code.info().help).filter(|h| !h.is_empty()).map(str::to_string),
        }
    }

    /// Text under the primary span (defaults to nothing: the message says it).
    pub fn label(mut self, message: impl Into<String>) -> Self {
        self.primary.message = message.into();
        self
    }

    pub fn related(mut self, span: Span, message: impl Into<String>) -> Self {
        self.related.push(Label { span, message: message.into() });
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn maybe_help(mut self, help: Option<String>) -> Self {
        if help.is_some() {
            self.help = help;
        }
        self
    }

    pub fn severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// The candidate closest to `s` (edit distance ≤ 2, or ≤ 1 for short names), for "did you mean".
pub fn closest<'a>(s: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = if s.chars().count() <= 3 { 1 } else { 2 };
    candidates
        .into_iter()
        .filter(|c| *c != s)
        .map(|c| (strsim::levenshtein(&s.to_lowercase(), &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(b.1)))
        .map(|(_, c)| c)
}

/// Sorts diagnostics into the order every renderer prints: by file path, position, code.
/// Deterministic whatever order threads produced them in.
pub fn sort_diagnostics(diags: &mut Vec<Diagnostic>, db: &SourceDb) {
    diags.sort_by_cached_key(|d| {
        let f = db.get(d.primary.span.file);
        (f.rel.clone(), d.primary.span.lo, d.primary.span.hi, d.code, d.message.clone())
    });
    diags.dedup();
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn suggestions_are_close_in_characters_ignoring_case() {
        assert_eq!(closest("descripton", ["description", "type"]), Some("description"));
        assert_eq!(closest("Typ", ["type"]), Some("type"), "one edit for a short name");
        assert_eq!(closest("ty", ["type"]), None, "two edits are too many for a short name");
        assert_eq!(closest("efect", ["effect", "affect"]), Some("effect"), "the closest wins");
        assert_eq!(closest("ab", ["ac", "ad"]), Some("ac"), "ties go to the first by name");
        // Distance in characters, not bytes: `ä` is one edit away from `a`.
        assert_eq!(closest("ät", ["at"]), Some("at"));
        assert_eq!(closest("type", ["type"]), None, "the name itself is no suggestion");
    }
}
