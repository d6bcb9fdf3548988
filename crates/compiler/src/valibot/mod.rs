//! Valibot 1.x schemas, statically: the evaluator builds a [`Schema`] graph from Valibot builder
//! and action calls (`evaluate::valibot_calls`), and [`convert`] turns it into exactly the JSON Schema
//! `toJsonSchema` of `@valibot/to-json-schema` 1.8.0 returns with `{ target: "draft-2020-12" }`
//! (proven by the differential test against real Valibot in `crates/compiler/tests/it/schema_libs_oracle.rs`).
//! What Valibot's converter refuses (throws on) or what leaves the supported subset is refused
//! on the construct itself (AS0601).

pub mod convert;

use crate::source::Span;
use serde_json::Value as Json;
use std::sync::Arc;

/// Module specifiers that provide Valibot's builders.
pub const VALIBOT_SOURCES: &[&str] = &["valibot"];
/// The converter's package.
pub const CONVERTER_SOURCE: &str = "@valibot/to-json-schema";

pub fn is_valibot_source(source: &str) -> bool {
    VALIBOT_SOURCES.contains(&source) || source == CONVERTER_SOURCE
}

/// A Valibot value of the evaluator.
#[derive(Clone, Debug)]
pub enum VbVal {
    /// `import * as v from "valibot"`.
    Ns,
    /// A builder or action not yet called (`v.string`), or `toJsonSchema`.
    Fn(String),
    /// A schema object (its identity is the `Arc`'s, as Valibot's is the object's).
    Schema(Arc<Schema>),
    /// A pipe action (`v.minLength(3)`).
    Action(Arc<Action>),
}

impl PartialEq for VbVal {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (VbVal::Ns, VbVal::Ns) => true,
            (VbVal::Fn(a), VbVal::Fn(b)) => a == b,
            (VbVal::Schema(a), VbVal::Schema(b)) => Arc::ptr_eq(a, b),
            (VbVal::Action(a), VbVal::Action(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl VbVal {
    pub fn describe(&self) -> &'static str {
        match self {
            VbVal::Ns => "the valibot namespace",
            VbVal::Fn(_) => "a valibot function",
            VbVal::Schema(_) => "a valibot schema",
            VbVal::Action(_) => "a valibot action",
        }
    }
}

/// A schema: its kind and, when built by `v.pipe`, the pipe (the first item is the schema piped).
#[derive(Debug)]
pub struct Schema {
    pub kind: Kind,
    pub pipe: Option<Vec<PipeItem>>,
    /// The builder call (where refusals point).
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum PipeItem {
    Schema(Arc<Schema>),
    Action(Arc<Action>),
}

/// A deferred schema (`v.lazy(() => S)`): evaluated when converted, so `S` may refer to itself.
#[derive(Debug)]
pub struct Thunk {
    pub module: Arc<crate::extract::ModuleInfo>,
    pub expr: Box<swc_ecma_ast::Expr>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ObjectMode {
    Object,
    Loose,
    Strict,
    Rest(Arc<Schema>),
}

#[derive(Clone, Debug)]
pub enum Kind {
    Boolean,
    Null,
    Number,
    String,
    Any,
    Unknown,
    /// `v.never()`: `{ not: {} }`, outside the subset.
    Never,
    Array(Arc<Schema>),
    Object {
        mode: ObjectMode,
        entries: Vec<(String, Arc<Schema>)>,
    },
    /// `optional`, `exact_optional`, `undefinedable`, `nullable`, `nullish`, with a default.
    Wrap {
        ty: &'static str,
        wrapped: Arc<Schema>,
        default: Option<Json>,
    },
    /// `v.literal(x)`: `None` when the value is not a JSON const value.
    Literal(Option<Json>),
    /// `picklist` or `enum`; `None` when an option is not JSON compatible.
    Options {
        ty: &'static str,
        options: Option<Vec<Json>>,
    },
    Union(Vec<Arc<Schema>>),
    Lazy(Arc<Thunk>),
    /// Any other Valibot schema type (`date`, `tuple`, `record`, `variant`, ...): refused with
    /// its reason when converted.
    Other {
        ty: String,
        message: &'static str,
        help: &'static str,
    },
}

impl Kind {
    /// Valibot's `type` of the schema.
    pub fn type_name(&self) -> &str {
        match self {
            Kind::Boolean => "boolean",
            Kind::Null => "null",
            Kind::Number => "number",
            Kind::String => "string",
            Kind::Any => "any",
            Kind::Unknown => "unknown",
            Kind::Never => "never",
            Kind::Array(_) => "array",
            Kind::Object { mode, .. } => match mode {
                ObjectMode::Object => "object",
                ObjectMode::Loose => "loose_object",
                ObjectMode::Strict => "strict_object",
                ObjectMode::Rest(_) => "object_with_rest",
            },
            Kind::Wrap { ty, .. } => ty,
            Kind::Literal(_) => "literal",
            Kind::Options { ty, .. } => ty,
            Kind::Union(_) => "union",
            Kind::Lazy(_) => "lazy",
            Kind::Other { ty, .. } => ty,
        }
    }
}

/// A pipe action: its Valibot `type` (`min_length`), whether it is a transformation, and the
/// requirement the converter reads.
#[derive(Debug)]
pub struct Action {
    /// Valibot's `type` (snake case).
    pub ty: String,
    /// The function the user called (`minLength`), for messages.
    pub name: String,
    pub transformation: bool,
    pub req: Req,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum Req {
    None,
    Num(f64),
    Str(String),
    /// A regular expression (`regex`, and the built-in ones of `digits`, `slug`, ...).
    Regex {
        source: String,
        flags: String,
    },
    /// `value`, `not_value`: the value (`None`: not a JSON const value).
    Value(Option<Json>),
    /// `values`, `not_values` (`None`: some value is not a JSON const value).
    Values(Option<Vec<Json>>),
    /// `metadata({...})`.
    Metadata(Vec<(String, Json)>),
    /// `examples([...])`.
    Examples(Vec<Json>),
}

/// `camelCase` function name to Valibot's `snake_case` type.
pub fn snake(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether a value is a JSON const value for Valibot (`isJsonConstValue`).
pub fn is_json_const(v: &Json) -> bool {
    matches!(v, Json::Bool(_) | Json::String(_) | Json::Number(_))
}
