//! Dispatch to the schema libraries other than zod (issue 29): a callee that resolves to a
//! function of an import from Valibot ([`crate::valibot`]) or TypeBox ([`crate::typebox`]) is handed to that library's
//! evaluation. Only callees rooted at such an import are evaluated here.

use super::{Evaluator, M};
use crate::source::Span;
use crate::value::{Node, Val};
use swc_ecma_ast::*;

/// A function of a schema library, ready to be called.
pub(super) enum LibFn {
    Valibot(String),
    TypeBox(crate::typebox::Flavor, String),
}

/// The identifier a callee's member chain starts at (`v` in `v.string`).
fn root_ident(e: &Expr) -> Option<&Ident> {
    match e {
        Expr::Ident(i) => Some(i),
        Expr::Member(m) => root_ident(&m.obj),
        Expr::Paren(p) => root_ident(&p.expr),
        _ => None,
    }
}

impl Evaluator<'_> {
    /// `Some(None)`: not a schema library's function; `None`: an error was reported.
    pub(super) fn schema_lib_callee(&mut self, m: &M, callee: &Expr) -> Option<Option<LibFn>> {
        let Some(root) = root_ident(callee) else { return Some(None) };
        let from_lib = m.index.imports.get(root.sym.as_str()).is_some_and(|i| {
            crate::valibot::is_valibot_source(&i.source) || crate::typebox::is_typebox_source(&i.source)
        });
        if !from_lib || m.index.bindings.contains_key(root.sym.as_str()) {
            return Some(None);
        }
        let span = self.sp(m, swc_common::Spanned::span(callee));
        let v = self.eval(m, callee)?;
        Some(match v.val {
            Val::Valibot(crate::valibot::VbVal::Fn(name)) => Some(LibFn::Valibot(name)),
            Val::TypeBox(crate::typebox::TbVal::Fn(flavor, name)) => Some(LibFn::TypeBox(flavor, name)),
            _ => {
                let _ = span;
                None
            }
        })
    }

    pub(super) fn schema_lib_call(&mut self, m: &M, f: LibFn, call: &CallExpr, span: Span) -> Option<Node> {
        match f {
            LibFn::Valibot(name) => self.valibot_call(m, &name, call, span),
            LibFn::TypeBox(flavor, name) => self.typebox_call(m, flavor, &name, call, span),
        }
    }

    /// Whether a callee is a schema library's JSON Schema converter (Valibot's `toJsonSchema`).
    pub(super) fn is_schema_lib_converter(&mut self, m: &M, callee: &Expr) -> bool {
        let before = self.mark();
        let r = matches!(self.schema_lib_callee(m, callee), Some(Some(LibFn::Valibot(ref n))) if n == "toJsonSchema");
        self.discard_since(before);
        r
    }
}
