//! The zod schema graph as the compiler evaluates it: one node per zod schema object, with the
//! identity zod itself has (a `const` evaluated once is one node; `.describe()`, `.meta()` and
//! check methods make a clone whose `parent` is the original, exactly as zod does), so that the
//! JSON Schema emitter can reproduce zod's `$defs`, cycle and inheritance rules.

use crate::extract::ModuleInfo;
use crate::source::Span;
use serde_json::Value as Json;
use std::sync::Arc;
use swc_ecma_ast::Expr;

pub type ZodId = u32;

/// A regular expression object. `id` is its identity: zod deduplicates patterns by object, so
/// `.regex(R).regex(R)` is one pattern and `.regex(/a/).regex(/a/)` two.
#[derive(Clone, Debug, PartialEq)]
pub struct Regex {
    pub id: u64,
    pub source: String,
    pub flags: String,
}

/// A zod check (`def.checks`), reduced to what the JSON Schema emitter reads.
#[derive(Clone, Debug)]
pub enum Check {
    MinLength(f64),
    MaxLength(f64),
    LengthEquals(f64),
    /// A string format; `lax` is datetime with `local` or `precision: -1` (no `format` emitted).
    Format {
        format: String,
        pattern: Option<Regex>,
        lax: bool,
    },
    GreaterThan {
        value: f64,
        inclusive: bool,
    },
    LessThan {
        value: f64,
        inclusive: bool,
    },
    MultipleOf(f64),
    /// safeint, int32, uint32, float32, float64.
    NumberFormat(&'static str),
    /// refine, superRefine, overwrite, trim...: no JSON Schema.
    Opaque,
}

/// A deferred schema: a getter in an object shape or the function of `z.lazy`. Evaluated once,
/// when the emitter needs it.
#[derive(Clone, Debug)]
pub struct Thunk {
    pub module: Arc<ModuleInfo>,
    pub expr: Box<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Field {
    Schema(ZodId),
    Getter(usize),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Catchall {
    /// Unknown keys are stripped (plain `z.object`).
    Strip,
    /// `z.strictObject`, `.strict()`, `.catchall(z.never())`.
    Strict,
}

#[derive(Clone, Debug)]
pub enum Kind {
    String,
    Number,
    Boolean,
    Null,
    Any,
    Unknown,
    Literal(Vec<Json>),
    Enum(Vec<Json>),
    TemplateLiteral(String),
    Array {
        element: ZodId,
    },
    Object {
        shape: Vec<(String, Field)>,
        catchall: Catchall,
    },
    Union {
        options: Vec<ZodId>,
    },
    Intersection {
        left: ZodId,
        right: ZodId,
    },
    Optional(ZodId),
    ExactOptional(ZodId),
    Nullable(ZodId),
    NonOptional(ZodId),
    Default {
        inner: ZodId,
        value: Json,
    },
    Prefault {
        inner: ZodId,
        value: Json,
    },
    Catch {
        inner: ZodId,
        value: Json,
    },
    Pipe {
        input: ZodId,
        output: ZodId,
        codec: bool,
    },
    Transform,
    /// `z.lazy(() => X)`: the thunk index.
    Lazy(usize),
    /// A construct whose JSON Schema leaves the supported subset (or that zod cannot convert):
    /// refused if the emitter reaches it.
    Unsupported {
        construct: String,
        message: String,
        help: String,
    },
}

#[derive(Clone, Debug)]
pub struct ZNode {
    pub kind: Kind,
    pub checks: Vec<Check>,
    /// The schema this one was cloned from (`.describe`, `.meta`, checks).
    pub parent: Option<ZodId>,
    /// Metadata registered for exactly this node (`.meta`, `.describe`), in key order.
    pub meta: Vec<(String, Json)>,
    /// The expression that built it.
    pub span: Span,
}

/// Every zod node of one evaluation session.
#[derive(Default, Debug)]
pub struct Arena {
    pub nodes: Vec<ZNode>,
    pub thunks: Vec<Thunk>,
    /// Resolved thunks (index → node).
    pub resolved: Vec<Option<ZodId>>,
    next_regex: u64,
}

impl Arena {
    pub fn add(&mut self, kind: Kind, span: Span) -> ZodId {
        self.nodes.push(ZNode { kind, checks: Vec::new(), parent: None, meta: Vec::new(), span });
        (self.nodes.len() - 1) as ZodId
    }

    pub fn get(&self, id: ZodId) -> &ZNode {
        &self.nodes[id as usize]
    }

    /// A clone with `parent` (what zod's check methods, `.describe` and `.meta` return).
    pub fn clone_with_parent(&mut self, id: ZodId, span: Span) -> ZodId {
        let mut n = self.get(id).clone();
        n.parent = Some(id);
        n.meta = Vec::new();
        n.span = span;
        self.nodes.push(n);
        (self.nodes.len() - 1) as ZodId
    }

    /// A clone with a changed definition and no parent (`.extend`, `.partial`, `.strict`...).
    pub fn clone_def(&mut self, id: ZodId, kind: Kind, span: Span) -> ZodId {
        let mut n = self.get(id).clone();
        n.kind = kind;
        n.parent = None;
        n.meta = Vec::new();
        n.span = span;
        self.nodes.push(n);
        (self.nodes.len() - 1) as ZodId
    }

    pub fn with_check(&mut self, id: ZodId, check: Check, span: Span) -> ZodId {
        let c = self.clone_with_parent(id, span);
        self.nodes[c as usize].checks.push(check);
        c
    }

    pub fn add_thunk(&mut self, t: Thunk) -> usize {
        self.thunks.push(t);
        self.resolved.push(None);
        self.thunks.len() - 1
    }

    pub fn new_regex(&mut self, source: String, flags: String) -> Regex {
        self.next_regex += 1;
        Regex { id: self.next_regex, source, flags }
    }

    /// A regex constant of zod itself (shared object, stable identity by name).
    pub fn builtin_regex(name: &str, source: &str) -> Regex {
        let mut h: u64 = 0xcbf29ce484222325;
        for b in name.bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100000001b3);
        }
        Regex { id: h | (1 << 63), source: source.to_string(), flags: String::new() }
    }

    /// The node a lazy or getter resolves to (after the evaluator's `resolve_thunks`).
    pub fn thunk_target(&self, thunk: usize) -> Option<ZodId> {
        self.resolved.get(thunk).copied().flatten()
    }
}
