//! Parse: one file's text into a swc module. Each file is parsed once per content; spans are
//! converted to our own byte ranges (no shared swc `SourceMap`, which is `Rc`-based and cannot
//! cross threads).

use crate::diagnostics::{Code, Diagnostic};
use crate::source::{SourceFile, Span};
use swc_common::BytePos;
use swc_ecma_ast::{EsVersion, Module};
use swc_ecma_parser::{lexer::Lexer, Parser, StringInput, Syntax, TsSyntax};

/// swc reserves position 0 for "no position"; every file starts at 1.
pub const BASE: u32 = 1;

/// Converts a swc span of a file parsed by [`parse_module`] to ours.
pub fn span_of(file: &SourceFile, span: swc_common::Span) -> Span {
    let lo = span.lo.0.saturating_sub(BASE);
    let hi = span.hi.0.saturating_sub(BASE);
    Span::new(file.id, lo, hi)
}

fn syntax_for(file: &SourceFile) -> Syntax {
    let tsx = file.path.extension().is_some_and(|e| e == "tsx");
    Syntax::Typescript(TsSyntax { tsx, decorators: true, ..Default::default() })
}

thread_local! {
    static IN_PARSER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this thread is inside swc's parser, where a panic is caught and reported as a
/// syntax error.
#[doc(hidden)]
pub fn in_parser() -> bool {
    IN_PARSER.with(std::cell::Cell::get)
}

/// Wraps the panic hook (once) so that a panic inside swc's parser, which [`parse_module`]
/// catches, prints nothing; every other panic goes to the previous hook (the default one, or
/// libFuzzer's, which aborts).
fn quiet_parser_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !in_parser() {
                previous(info)
            }
        }));
    });
}

/// Parses a file as an ES module. Any syntax error (fatal or recovered) is reported and the
/// module is not used: a contract in a file that does not parse cannot be trusted.
pub fn parse_module(file: &SourceFile) -> Result<Module, Vec<Diagnostic>> {
    let text: &str = &file.text;
    let input = StringInput::new(text, BytePos(BASE), BytePos(BASE + text.len() as u32));
    let lexer = Lexer::new(syntax_for(file), EsVersion::latest(), input, None);
    // swc 47 panics on some malformed input (found by fuzzing: `<a:b.c />`, a member access on
    // a namespaced JSX name, hits an `unreachable!`). Such a file is a syntax error, not a crash.
    quiet_parser_panics();
    IN_PARSER.with(|p| p.set(true));
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        let mut parser = Parser::new_from(lexer);
        let result = parser.parse_module();
        (result, parser.take_errors())
    }));
    IN_PARSER.with(|p| p.set(false));
    let Ok((result, mut errors)) = parsed else {
        let at = Span::new(file.id, 0, 0);
        return Err(vec![Diagnostic::new(
            Code::SyntaxError,
            at,
            "syntax error: the TypeScript parser failed on this file (an internal error of swc)",
        )
        .label("somewhere in this file")]);
    };
    let module = match result {
        Ok(m) => Some(m),
        Err(e) => {
            errors.push(e);
            None
        }
    };
    if errors.is_empty() {
        if let Some(m) = module {
            return Ok(m);
        }
    }
    let mut diags: Vec<Diagnostic> = errors
        .into_iter()
        .map(|e| {
            use swc_common::Spanned;
            let span = span_of(file, e.span());
            Diagnostic::new(Code::SyntaxError, span, format!("syntax error: {}", e.kind().msg()))
                .label(e.kind().msg().to_string())
        })
        .collect();
    diags.sort_by_key(|d| (d.primary.span.lo, d.primary.span.hi));
    diags.dedup_by(|a, b| a.primary.span == b.primary.span && a.message == b.message);
    Err(diags)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    fn file(name: &str, text: &str) -> SourceFile {
        SourceFile::new(FileId(0), name.into(), name.into(), text.into())
    }

    #[test]
    fn parses_tsx_and_decorators() {
        let f = file("a.tsx", "@dec class A {}\nexport const x = <div>{1}</div>;");
        assert!(parse_module(&f).is_ok());
    }

    #[test]
    fn syntax_error_has_a_location() {
        let f = file("a.ts", "const a = 1;\nconst b = ;\n");
        let diags = parse_module(&f).unwrap_err();
        assert_eq!(diags[0].code, Code::SyntaxError);
        assert_eq!(f.line_col(diags[0].primary.span.lo).line, 2);
    }

    #[test]
    fn a_parser_panic_is_a_syntax_error() {
        // Found by fuzzing (fuzz/artifacts/compile_file/jsx-namespaced-member.tsx).
        let diags = parse_module(&file("a.tsx", "export const X = () => <a:b.c />;\n")).unwrap_err();
        assert_eq!(diags[0].code, Code::SyntaxError);
        assert!(!in_parser());
    }

    #[test]
    fn ts_file_is_not_jsx() {
        // `<T>x` is a type assertion in .ts, a syntax error in .tsx
        assert!(parse_module(&file("a.ts", "const y = <string>x;")).is_ok());
        assert!(parse_module(&file("a.tsx", "const y = <string>x;")).is_err());
    }
}
