//! `--format github`: GitHub Actions workflow commands, one per diagnostic
//! (`::error file=…,line=…,col=…,endLine=…,endColumn=…,title=AS0101::message`), escaped as the
//! runner requires: `%`, CR and LF everywhere; `:` and `,` in properties too.

use crate::diagnostics::{Diagnostic, Severity};
use crate::source::SourceDb;

fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub fn render(diags: &[Diagnostic], db: &SourceDb) -> String {
    let mut out = String::new();
    for d in diags {
        let f = db.get(d.primary.span.file);
        let start = f.line_col(d.primary.span.lo);
        let end = f.line_col(d.primary.span.hi);
        let kind = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut message = d.message.clone();
        if let Some(h) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(h);
        }
        out.push_str(&format!(
            "::{kind} file={},line={},col={},endLine={},endColumn={},title={}::{}\n",
            escape_property(&f.rel),
            start.line,
            start.column,
            end.line,
            end.column,
            escape_property(d.code.id()),
            escape_data(&message)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_the_actions_toolkit() {
        assert_eq!(escape_data("50% done\r\nnext"), "50%25 done%0D%0Anext");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}
