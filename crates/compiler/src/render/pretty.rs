//! `--format pretty`: miette source frames. Labels in the primary file are drawn in one frame;
//! related locations in other files get a frame of their own.

use crate::diagnostics::{Diagnostic, Severity};
use crate::source::{SourceDb, SourceFile, Span};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource};
use std::fmt;
use std::sync::Arc;

/// Rendering options.
#[derive(Clone, Copy, Debug)]
pub struct PrettyOptions {
    pub color: bool,
    pub width: usize,
}

struct Report {
    code: &'static str,
    message: String,
    severity: miette::Severity,
    help: Option<String>,
    url: String,
    source: NamedSource<Arc<str>>,
    labels: Vec<LabeledSpan>,
    related: Vec<Report>,
}

impl fmt::Debug for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
impl std::error::Error for Report {}

impl miette::Diagnostic for Report {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        (!self.code.is_empty()).then(|| Box::new(self.code) as Box<dyn fmt::Display>)
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn url<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        (!self.url.is_empty()).then(|| Box::new(&self.url) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn miette::Diagnostic> + 'a>> {
        if self.related.is_empty() {
            return None;
        }
        Some(Box::new(self.related.iter().map(|r| r as &dyn miette::Diagnostic)))
    }
}

fn named(file: &SourceFile) -> NamedSource<Arc<str>> {
    NamedSource::new(file.rel.clone(), file.text.clone())
}

fn labeled(span: Span, text: &str, primary: bool) -> LabeledSpan {
    let label = (!text.is_empty()).then(|| text.to_string());
    let s = miette::SourceSpan::new((span.lo as usize).into(), span.len() as usize);
    if primary {
        LabeledSpan::new_primary_with_span(label, s)
    } else {
        LabeledSpan::new_with_span(label, s)
    }
}

fn report(d: &Diagnostic, db: &SourceDb) -> Report {
    let file = db.get(d.primary.span.file);
    let mut labels = vec![labeled(d.primary.span, &d.primary.message, true)];
    let mut related = Vec::new();
    for r in &d.related {
        if r.span.file == d.primary.span.file {
            labels.push(labeled(r.span, &r.message, false));
        } else {
            let other = db.get(r.span.file);
            related.push(Report {
                code: "",
                message: r.message.clone(),
                severity: miette::Severity::Advice,
                help: None,
                url: String::new(),
                source: named(&other),
                labels: vec![labeled(r.span, "", true)],
                related: Vec::new(),
            });
        }
    }
    Report {
        code: d.code.id(),
        message: d.message.clone(),
        severity: match d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        },
        help: d.help.clone(),
        url: String::new(),
        source: named(&file),
        labels,
        related,
    }
}

/// Renders diagnostics with source frames.
pub fn render(diags: &[Diagnostic], db: &SourceDb, opts: PrettyOptions) -> String {
    let theme = if opts.color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    let handler =
        GraphicalReportHandler::new_themed(theme).with_width(opts.width).with_links(false).with_context_lines(1);
    let mut out = String::new();
    for d in diags {
        let r = report(d, db);
        if handler.render_report(&mut out, &r).is_err() {
            out.push_str(&format!("{}: {}\n", d.code.id(), d.message));
        }
        out.push('\n');
    }
    out
}
