//! TypeBox, statically: `typebox` 1.x and `@sinclair/typebox` 0.34 builders are JSON Schema
//! values, so the evaluator (`evaluate::typebox_calls`) builds the same object tree the builder returns at run
//! time, as a plain object value that `fromJsonSchema(T)` takes like a literal. The two lines
//! differ in a few places (how options merge, `Type.Enum`, what `Partial`/`Pick`/`Omit`/
//! `Required` keep of the source object, a one-member `Type.Union`): [`Flavor`] says which
//! package an import came from. Proven equal to both by `crates/compiler/tests/it/schema_libs_oracle.rs`.

/// Which TypeBox an import came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// `typebox` 1.x.
    V1,
    /// `@sinclair/typebox` 0.34.
    V034,
}

pub fn flavor_of(source: &str) -> Option<Flavor> {
    match source {
        "typebox" => Some(Flavor::V1),
        "@sinclair/typebox" => Some(Flavor::V034),
        _ => None,
    }
}

pub fn is_typebox_source(source: &str) -> bool {
    flavor_of(source).is_some()
}

/// A TypeBox namespace or builder of the evaluator (a schema itself is a plain object value;
/// `Type.Optional(x)` is [`crate::value::Val::TypeBoxOptional`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TbVal {
    /// `Type` (or the package namespace).
    Ns(Flavor),
    /// A builder not yet called (`Type.String`).
    Fn(Flavor, String),
}

impl TbVal {
    pub fn describe(&self) -> &'static str {
        match self {
            TbVal::Ns(_) => "the TypeBox namespace",
            TbVal::Fn(..) => "a TypeBox function",
        }
    }
}
