//! The one diagnostic type, shared by every renderer (pretty, JSON, and later LSP/SARIF).

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
        .map(|c| (levenshtein(&s.to_lowercase(), &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(b.1)))
        .map(|(_, c)| c)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
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
