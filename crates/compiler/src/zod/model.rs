//! The zod schema graph as the compiler evaluates it: one node per zod schema object, with the
//! identity zod itself has (a `const` evaluated once is one node; `.describe()`, `.meta()` and
//! check methods make a clone whose `parent` is the original, exactly as zod does), so that the
//! JSON Schema emitter can reproduce zod's `$defs`, cycle and inheritance rules.

use crate::extract::ModuleInfo;
use crate::source::Span;
use serde_json::Value as Json;
use std::sync::Arc;
use swc_ecma_ast::Expr;

/// A zod schema object. Its identity is the allocation, as a JS object's is: a `const`
/// evaluated once is one node wherever it is used, and a clone (`.describe()`, checks) is a new
/// node. Nodes are immutable and shared (`Arc`), so a schema evaluated once per compile can be
/// used by every contract file that imports it, from any thread.
#[derive(Clone)]
pub struct ZodId(Arc<ZNode>);

impl ZodId {
    pub fn new(node: ZNode) -> ZodId {
        ZodId(Arc::new(node))
    }

    /// A node of `kind` with no checks, parent or metadata.
    pub fn of(kind: Kind, span: Span) -> ZodId {
        ZodId::new(ZNode { kind, checks: Vec::new(), parent: None, meta: Vec::new(), span, v3: false })
    }

    /// A clone with `parent` (what zod's check methods, `.describe` and `.meta` return), its
    /// own metadata and one more check if given.
    pub fn child(&self, span: Span, meta: Vec<(String, Json)>, check: Option<Check>) -> ZodId {
        let mut n = (*self.0).clone();
        n.parent = Some(self.clone());
        n.meta = meta;
        n.span = span;
        n.checks.extend(check);
        ZodId::new(n)
    }

    /// A clone with a changed definition and no parent (`.extend`, `.partial`, `.strict`...).
    pub fn with_kind(&self, kind: Kind, span: Span) -> ZodId {
        let mut n = (*self.0).clone();
        n.kind = kind;
        n.parent = None;
        n.meta = Vec::new();
        n.span = span;
        ZodId::new(n)
    }

    fn addr(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// The nodes and thunks this node refers to directly (its parent included).
    pub fn refs(&self, nodes: &mut Vec<ZodId>, thunks: &mut Vec<ThunkId>) {
        nodes.extend(self.parent.iter().cloned());
        match &self.kind {
            Kind::Array { element } => nodes.push(element.clone()),
            Kind::Object { shape, .. } => {
                for (_, f) in shape {
                    match f {
                        Field::Schema(s) => nodes.push(s.clone()),
                        Field::Getter(t) => thunks.push(t.clone()),
                    }
                }
            }
            Kind::Union { options } => nodes.extend(options.iter().cloned()),
            Kind::Intersection { left, right } => nodes.extend([left.clone(), right.clone()]),
            Kind::Optional(i) | Kind::ExactOptional(i) | Kind::Nullable(i) | Kind::NonOptional(i) => {
                nodes.push(i.clone())
            }
            Kind::Default { inner, .. } | Kind::Prefault { inner, .. } | Kind::Catch { inner, .. } => {
                nodes.push(inner.clone())
            }
            Kind::Pipe { input, output, .. } => nodes.extend([input.clone(), output.clone()]),
            Kind::Lazy(t) => thunks.push(t.clone()),
            _ => {}
        }
    }
}

impl std::ops::Deref for ZodId {
    type Target = ZNode;
    fn deref(&self) -> &ZNode {
        &self.0
    }
}

impl PartialEq for ZodId {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ZodId {}

impl std::hash::Hash for ZodId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.addr().hash(state)
    }
}

impl std::fmt::Debug for ZodId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ZodId({:#x})", self.addr())
    }
}

/// A deferred schema (a getter of an object shape, the function of `z.lazy`), by identity like
/// [`ZodId`]. Which node it resolves to is kept outside it ([`Targets`]): per evaluation, as
/// zod evaluates a getter where the schema is used.
#[derive(Clone)]
pub struct ThunkId(Arc<Thunk>);

impl ThunkId {
    pub fn new(t: Thunk) -> ThunkId {
        ThunkId(Arc::new(t))
    }

    fn addr(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }
}

impl std::ops::Deref for ThunkId {
    type Target = Thunk;
    fn deref(&self) -> &Thunk {
        &self.0
    }
}

impl PartialEq for ThunkId {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ThunkId {}

impl std::hash::Hash for ThunkId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.addr().hash(state)
    }
}

impl std::fmt::Debug for ThunkId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ThunkId({:#x})", self.addr())
    }
}

/// What each resolved thunk evaluated to.
pub type Targets = rustc_hash::FxHashMap<ThunkId, ZodId>;

/// A regular expression object. `id` is its identity: zod deduplicates patterns by object, so
/// `.regex(R).regex(R)` is one pattern and `.regex(/a/).regex(/a/)` two.
#[derive(Clone, Debug, PartialEq)]
pub struct Regex {
    pub id: u64,
    pub source: String,
    pub flags: String,
}

impl Regex {
    /// A new regular expression object (unique in the process).
    pub fn fresh(source: String, flags: String) -> Regex {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Regex { id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed), source, flags }
    }

    /// A regex constant of zod itself (shared object, stable identity by name).
    pub fn builtin(name: &str, source: &str) -> Regex {
        let mut h: u64 = 0xcbf29ce484222325;
        for b in name.bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100000001b3);
        }
        Regex { id: h | (1 << 63), source: source.to_string(), flags: String::new() }
    }
}
/// The tightest `minLength` and `maxLength` that `checks` imply (`.length(n)` counts as both):
/// what zod 4's `toJSONSchema` and zod-to-json-schema both emit.
pub fn length_bounds(checks: &[Check]) -> (Option<f64>, Option<f64>) {
    let (mut min, mut max): (Option<f64>, Option<f64>) = (None, None);
    for c in checks {
        match c {
            Check::MinLength(v) => min = Some(min.map_or(*v, |m| m.max(*v))),
            Check::MaxLength(v) => max = Some(max.map_or(*v, |m| m.min(*v))),
            Check::LengthEquals(v) => {
                min = Some(min.map_or(*v, |m| m.max(*v)));
                max = Some(max.map_or(*v, |m| m.min(*v)));
            }
            _ => {}
        }
    }
    (min, max)
}

/// A zod check (`def.checks`), reduced to what the JSON Schema emitter reads.
#[derive(Clone, Debug, PartialEq)]
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
    Getter(ThunkId),
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
    /// `z.lazy(() => X)`.
    Lazy(ThunkId),
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
    /// Built with zod 3's API (`crate::zod::v3`): converted by `zodToJsonSchema`, never by
    /// `z.toJSONSchema`.
    pub v3: bool,
}
