//! The validator for the supported JSON Schema subset (spec: "Supported JSON Schema subset").
//!
//! [`crate::subset::check_schema`] decides which schemas are allowed; this module checks JSON
//! values against an allowed schema. A [`Validator`] is compiled once per schema (the subset is
//! checked, every `pattern` compiled, every `#/$defs/...` reference resolved) and then used for
//! every invocation: for inputs (the registry's `INVALID_INPUT`, whose
//! `details.issues[{path, keyword, message}]` are [`ValidationIssue`]s) and for outputs.
//!
//! Semantics are draft 2020-12 for exactly the subset's keywords, with format assertion on for
//! the five supported formats, ECMAScript (`u`-flag) regular expressions, and ajv-style
//! `useDefaults`: on success [`Validator::validate`] returns the value the handler receives,
//! with `default`s filled in. See `docs/validator.md` for the full rules.
//!
//! ```
//! use agent_surface_schema::SchemaLimits;
//! use agent_surface_schema::validate::Validator;
//! use serde_json::json;
//!
//! // Keys in sorted order: issue order follows the schema map's order, which is sorted unless
//! // serde_json's `preserve_order` feature is on.
//! let schema = json!({
//!     "additionalProperties": false,
//!     "properties": {
//!         "ids": {"type": "array", "items": {"type": "string"}, "minItems": 1},
//!         "mode": {"type": "string", "enum": ["replace", "add"], "default": "replace"}
//!     },
//!     "required": ["ids", "mode"],
//!     "type": "object"
//! });
//! let validator = Validator::new(&schema, &SchemaLimits::default()).unwrap();
//!
//! // Defaults are applied (before `required` is checked); the input is not modified.
//! let input = json!({"ids": ["a"]});
//! assert_eq!(validator.validate(&input).unwrap(), json!({"ids": ["a"], "mode": "replace"}));
//!
//! // Every issue is reported, each with a JSON Pointer into the input.
//! let issues = validator.validate(&json!({"ids": [], "extra": 1})).unwrap_err();
//! let found: Vec<(&str, &str)> =
//!     issues.iter().map(|i| (i.path.as_str(), i.keyword.as_str())).collect();
//! assert_eq!(found, [("", "additionalProperties"), ("/ids", "minItems")]);
//! assert_eq!(issues[1].message, "must have at least 1 item");
//! ```

#[cfg(test)]
mod differential;
mod fast;
mod formats;
mod pattern;

pub use formats::{is_date, is_date_time, is_email, is_uri, is_uuid};

use crate::canonical::canonical_json;
use crate::pattern::compile_pattern;
use crate::subset::{check_schema, SchemaViolation, SchemaViolationKind, LOCAL_REF_PREFIX};
use crate::SchemaLimits;
use fast::Verdict;
use formats::{check_format, format_message};
use serde::Serialize;
use serde_json::{Number, Value};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

/// Instance nesting (path segments) beyond which a recursive (`$ref`) schema stops descending
/// into objects and arrays and reports an issue instead, so no input can exhaust the stack.
/// serde_json refuses to parse JSON nested deeper than 128 levels, so parsed input never reaches
/// it; only values built in code can.
pub const MAX_INSTANCE_DEPTH: usize = 128;

/// One reason an instance is invalid: the `details.issues[]` entries of `INVALID_INPUT`.
///
/// Messages are agent-safe: they name the constraint (values the schema itself publishes, such as
/// a bound, an enum or a pattern) and at most a property name or array index of the instance,
/// never internal data or the offending value itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ValidationIssue {
    /// RFC 6901 JSON Pointer into the instance (`""` for the root, `/ids/0`). For `required` and
    /// `additionalProperties` it is the object's pointer and the message names the property.
    pub path: String,
    /// The schema keyword that failed (`type`, `required`, `maxLength`, `anyOf`, ...).
    pub keyword: String,
    /// Human and agent readable, e.g. `must be at most 10 characters`.
    pub message: String,
}

impl fmt::Display for ValidationIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Options of [`Validator::with_options`]. The runtime uses [`ValidatorOptions::default`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ValidatorOptions {
    /// Assert `format` (date-time, date, uuid, email, uri). Default `true`, as the spec and the
    /// registry require. `false` gives draft 2020-12's default "format-annotation" behaviour,
    /// where `format` never fails validation; it exists for conformance testing (the
    /// JSON-Schema-Test-Suite's `format.json` assumes it), not for production use.
    pub assert_formats: bool,
}

impl Default for ValidatorOptions {
    fn default() -> Self {
        ValidatorOptions { assert_formats: true }
    }
}

impl ValidatorOptions {
    /// Sets [`ValidatorOptions::assert_formats`].
    pub fn assert_formats(mut self, on: bool) -> Self {
        self.assert_formats = on;
        self
    }
}

/// A compiled schema: compile once with [`Validator::new`], validate many times.
///
/// Cloning is cheap (the compiled form is shared behind an [`Arc`]) and the validator is
/// `Send + Sync`, so one instance can serve every invocation of a capability.
#[derive(Clone)]
pub struct Validator {
    inner: Arc<Compiled>,
}

impl fmt::Debug for Validator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Validator")
            .field("schema", &self.inner.schema)
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

impl Validator {
    /// Compiles `schema` with the default options (formats asserted).
    ///
    /// Refuses, listing every violation:
    /// - whatever [`check_schema`] refuses (keywords outside the subset, size and depth limits);
    /// - a `pattern` that is not a valid ECMAScript regular expression in Unicode (`u` flag)
    ///   mode, the mode JSON Schema patterns use ([`SchemaViolationKind::InvalidPattern`]);
    /// - a `$ref` that leads back to a schema already being applied to the same value without
    ///   descending into a property or an item (`{"$defs": {"a": {"$ref": "#/$defs/a"}}}`): such
    ///   a schema can never finish validating ([`SchemaViolationKind::InvalidKeywordValue`] for
    ///   `$ref`).
    pub fn new(schema: &Value, limits: impl Into<SchemaLimits>) -> Result<Validator, Vec<SchemaViolation>> {
        Self::with_options(schema, limits, ValidatorOptions::default())
    }

    /// [`Validator::new`] with explicit [`ValidatorOptions`].
    pub fn with_options(
        schema: &Value,
        limits: impl Into<SchemaLimits>,
        options: ValidatorOptions,
    ) -> Result<Validator, Vec<SchemaViolation>> {
        let violations = check_schema(schema, limits);
        if !violations.is_empty() {
            return Err(violations);
        }
        let compiled = Compiler::compile(schema, options)?;
        Ok(Validator { inner: Arc::new(compiled) })
    }

    /// Exactly the violations [`Validator::new`] reports, without building what validating
    /// needs: for checking a schema (every contract's schemas are checked when compiling).
    pub fn check(schema: &Value, limits: impl Into<SchemaLimits>) -> Result<(), Vec<SchemaViolation>> {
        let violations = check_schema(schema, limits);
        if !violations.is_empty() {
            return Err(violations);
        }
        Compiler::build_nodes(schema).map(|_| ())
    }

    /// The schema this validator was compiled from.
    pub fn schema(&self) -> &Value {
        &self.inner.schema
    }

    /// Validates `instance`. On success returns a copy with `default`s applied (what a handler
    /// receives); on failure returns every issue, in document order of the schema, then
    /// instance order. `instance` itself is never modified.
    ///
    /// Outputs are validated with the same call; defaults are then applied to outputs too.
    /// [`Validator::validate_cow`] avoids the copy when no default applies.
    pub fn validate(&self, instance: &Value) -> Result<Value, Vec<ValidationIssue>> {
        self.validate_cow(instance).map(Cow::into_owned)
    }

    /// [`Validator::validate`] without a copy when none is needed: a valid `instance` to which
    /// no default applies comes back borrowed; a copy is made only when a default is inserted.
    pub fn validate_cow<'a>(&self, instance: &'a Value) -> Result<Cow<'a, Value>, Vec<ValidationIssue>> {
        let inner = &*self.inner;
        match inner.fast(instance) {
            Verdict::Valid => Ok(Cow::Borrowed(instance)),
            Verdict::Invalid => match inner.collect(instance) {
                Some(issues) => Err(issues),
                None => inner.apply(instance.clone(), Some(instance)).map(Cow::Owned),
            },
            Verdict::ValidWithDefaults | Verdict::Unknown => {
                inner.apply(instance.clone(), Some(instance)).map(Cow::Owned)
            }
        }
    }

    /// [`Validator::validate`] for a value the caller owns: no copy is made. The value is
    /// consumed either way.
    pub fn validate_owned(&self, instance: Value) -> Result<Value, Vec<ValidationIssue>> {
        let inner = &*self.inner;
        match inner.fast(&instance) {
            Verdict::Valid => Ok(instance),
            Verdict::Invalid => match inner.collect(&instance) {
                Some(issues) => Err(issues),
                None => inner.apply(instance, None),
            },
            Verdict::ValidWithDefaults | Verdict::Unknown => inner.apply(instance, None),
        }
    }

    /// `true` if `instance` is valid (defaults count as applied, as in [`Validator::validate`]).
    /// Always the same answer as `validate(instance).is_ok()`, usually without building
    /// anything: it stops at the first failure and copies nothing unless it cannot decide
    /// otherwise (a default to insert in a schema with `$ref`/`anyOf`, see [`Compiled::fast`]).
    pub fn is_valid(&self, instance: &Value) -> bool {
        let inner = &*self.inner;
        match inner.fast(instance) {
            Verdict::Valid | Verdict::ValidWithDefaults => true,
            Verdict::Invalid => false,
            Verdict::Unknown => inner.apply(instance.clone(), Some(instance)).is_ok(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Compiled form
// ---------------------------------------------------------------------------------------------

type NodeId = usize;

/// The seven JSON Schema types as bits.
const T_NULL: u8 = 1;
const T_BOOLEAN: u8 = 2;
const T_OBJECT: u8 = 4;
const T_ARRAY: u8 = 8;
const T_NUMBER: u8 = 16;
const T_INTEGER: u8 = 32;
const T_STRING: u8 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    DateTime,
    Date,
    Uuid,
    Email,
    Uri,
}

/// A string as the fast comparisons see it first: its length and up to 8 of its bytes, which
/// determine a string of at most 8 bytes completely; longer ones also compare `[8..]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tag {
    len: usize,
    head: u64,
}

impl Tag {
    #[inline]
    fn of(s: &str) -> Tag {
        let b = s.as_bytes();
        let n = b.len();
        let u32_at = |i: usize| {
            let w: [u8; 4] = b[i..i + 4].try_into().unwrap_or_default();
            u64::from(u32::from_le_bytes(w))
        };
        let head = if n >= 8 {
            u64::from_le_bytes(b[..8].try_into().unwrap_or_default())
        } else if n >= 4 {
            // The first and the last four bytes overlap and cover all of them.
            u32_at(0) | u32_at(n - 4) << 32
        } else if n > 0 {
            u64::from(b[0]) | u64::from(b[n / 2]) << 8 | u64::from(b[n - 1]) << 16
        } else {
            0
        };
        Tag { len: n, head }
    }

    /// `a` (whose tag is `self`) equals `b`, whose tag is known to be equal too.
    #[inline]
    fn rest_equal(&self, a: &str, b: &str) -> bool {
        self.len <= 8 || a.as_bytes()[8..] == b.as_bytes()[8..]
    }
}

/// `enum`, with its string members listed apart (with their tags) so a string is compared only
/// with strings, mostly without `memcmp`.
struct EnumSet {
    values: Vec<Value>,
    strings: Vec<(Tag, String)>,
    only_strings: bool,
    message: String,
}

impl EnumSet {
    #[inline]
    fn contains_str(&self, s: &str) -> bool {
        let t = Tag::of(s);
        self.strings.iter().any(|(u, x)| *u == t && t.rest_equal(s, x))
    }

    fn contains(&self, value: &Value) -> bool {
        match value {
            Value::String(s) => self.contains_str(s),
            _ if self.only_strings => false,
            _ => self.values.iter().any(|v| json_equal(v, value)),
        }
    }
}

enum Keyword {
    /// Type bits plus the message (which lists the names in schema order).
    Type(u8, String),
    Enum(Box<EnumSet>),
    /// The value and the message.
    Const(Value, String),
    Properties(Vec<(String, NodeId)>),
    Required(Vec<String>),
    /// `additionalProperties: false`; holds the sibling `properties` names.
    NoAdditionalProperties(Vec<String>),
    Items(NodeId),
    MinItems(u64),
    MaxItems(u64),
    UniqueItems,
    MinLength(u64),
    MaxLength(u64),
    Pattern(Box<pattern::Pattern>),
    Format(Format),
    Minimum(Number),
    Maximum(Number),
    ExclusiveMinimum(Number),
    ExclusiveMaximum(Number),
    MultipleOf(Number, Decimal),
    AnyOf(Vec<NodeId>),
    Ref(NodeId),
}

impl Keyword {
    /// Applicators that evaluate the same value and may insert defaults into it.
    fn is_in_place_applicator(&self) -> bool {
        matches!(self, Keyword::Ref(_) | Keyword::AnyOf(_))
    }

    /// The schema keyword, as issues name it.
    fn name(&self) -> &'static str {
        match self {
            Keyword::Type(..) => "type",
            Keyword::Enum(_) => "enum",
            Keyword::Const(..) => "const",
            Keyword::Properties(_) => "properties",
            Keyword::Required(_) => "required",
            Keyword::NoAdditionalProperties(_) => "additionalProperties",
            Keyword::Items(_) => "items",
            Keyword::MinItems(_) => "minItems",
            Keyword::MaxItems(_) => "maxItems",
            Keyword::UniqueItems => "uniqueItems",
            Keyword::MinLength(_) => "minLength",
            Keyword::MaxLength(_) => "maxLength",
            Keyword::Pattern(_) => "pattern",
            Keyword::Format(_) => "format",
            Keyword::Minimum(_) => "minimum",
            Keyword::Maximum(_) => "maximum",
            Keyword::ExclusiveMinimum(_) => "exclusiveMinimum",
            Keyword::ExclusiveMaximum(_) => "exclusiveMaximum",
            Keyword::MultipleOf(..) => "multipleOf",
            Keyword::AnyOf(_) => "anyOf",
            Keyword::Ref(_) => "$ref",
        }
    }

    /// The message of a failed leaf keyword whose message depends on the schema only.
    fn message(&self) -> String {
        match self {
            Keyword::Type(_, m) | Keyword::Const(_, m) => m.clone(),
            Keyword::Enum(set) => set.message.clone(),
            Keyword::Pattern(p) => p.message.clone(),
            Keyword::MinItems(n) => format!("must have at least {}", count(*n, "item")),
            Keyword::MaxItems(n) => format!("must have at most {}", count(*n, "item")),
            Keyword::MinLength(n) => format!("must be at least {}", count(*n, "character")),
            Keyword::MaxLength(n) => format!("must be at most {}", count(*n, "character")),
            Keyword::Format(f) => format_message(*f).to_string(),
            Keyword::Minimum(m) => format!("must be greater than or equal to {}", number_text(m)),
            Keyword::Maximum(m) => format!("must be less than or equal to {}", number_text(m)),
            Keyword::ExclusiveMinimum(m) => format!("must be greater than {}", number_text(m)),
            Keyword::ExclusiveMaximum(m) => format!("must be less than {}", number_text(m)),
            Keyword::MultipleOf(n, _) => format!("must be a multiple of {}", number_text(n)),
            _ => String::new(),
        }
    }
}

/// `minLength`: at least `n` code points (a code point is 1 to 4 bytes, so the byte length
/// often decides without counting).
#[inline]
fn length_at_least(s: &str, n: u64) -> bool {
    let bytes = s.len() as u64;
    bytes >= n && (bytes / 4 >= n || s.chars().count() as u64 >= n)
}

/// `maxLength`: at most `n` code points.
#[inline]
fn length_at_most(s: &str, n: u64) -> bool {
    s.len() as u64 <= n || s.chars().count() as u64 <= n
}

#[derive(Default)]
struct Node {
    /// Keywords in document order (annotations and `$defs` omitted).
    keywords: Vec<Keyword>,
    /// `(property, default)` for each `properties` subschema carrying `default`.
    defaults: Vec<(String, Value)>,
    /// Some keyword is `$ref` or `anyOf`: evaluate those first (see [`Compiled::eval`]).
    has_applicators: bool,
    /// The same keywords arranged for the read-only fast path ([`Compiled::fast`]).
    fast: fast::FastNode,
    /// For each of `defaults`, what inserting it costs ([`DefaultCost`]); computed only when
    /// [`Compiled::virtual_defaults`].
    default_costs: Vec<DefaultCost>,
}

/// What evaluating an inserted default against its subschema costs in the slow path: `spends`
/// units of budget (its issues are dropped, and with no `$ref`/`anyOf` in the schema the walk is
/// fixed), provided no compound value in it sits deeper than `reach` levels below the object
/// it is inserted into plus the instance depth limit (else the count would differ).
#[derive(Clone, Copy, Debug, Default)]
struct DefaultCost {
    spends: u64,
    reach: usize,
}

struct Compiled {
    schema: Value,
    options: ValidatorOptions,
    nodes: Vec<Node>,
    root: NodeId,
    /// Some node has defaults; otherwise values are never modified and anyOf needs no copies.
    has_defaults: bool,
    /// Every property name that has a `default` somewhere (the anyOf quick check cannot know
    /// whether such a property will be filled in, so it does not require it).
    defaulted_names: HashSet<String>,
    /// No `$ref` or `anyOf` is reachable from the root, so each instance value is checked by
    /// exactly one node, and defaults can be accounted for without inserting them (see
    /// [`Compiled::fast`] and [`Compiled::collect`]).
    virtual_defaults: bool,
}

struct Compiler<'a> {
    root: &'a Value,
    nodes: Vec<Node>,
    defs: HashMap<String, NodeId>,
    /// Pointer of each `$ref` keyword, by (node, keyword index), for cycle reports.
    ref_pointers: HashMap<(NodeId, usize), Vec<String>>,
    /// Definitions whose id is reserved but whose body is not compiled yet.
    pending: Vec<(NodeId, String)>,
    violations: Vec<SchemaViolation>,
}

/// The `$defs` name a `#/$defs/<name>` reference designates, decoded exactly as
/// [`check_schema`] decodes it (`~1` then `~0`), so both agree on what resolves.
fn ref_name(reference: &str) -> Option<String> {
    reference
        .strip_prefix(LOCAL_REF_PREFIX)
        .filter(|n| !n.is_empty() && !n.contains('/'))
        .map(|n| n.replace("~1", "/").replace("~0", "~"))
}

/// The nodes reachable from `root` through any keyword.
fn reachable(nodes: &[Node], root: NodeId) -> Vec<NodeId> {
    let mut seen = vec![false; nodes.len()];
    let mut stack = vec![root];
    let mut out = Vec::new();
    while let Some(id) = stack.pop() {
        if std::mem::replace(&mut seen[id], true) {
            continue;
        }
        out.push(id);
        for kw in &nodes[id].keywords {
            match kw {
                Keyword::Properties(props) => stack.extend(props.iter().map(|(_, c)| *c)),
                Keyword::Items(c) | Keyword::Ref(c) => stack.push(*c),
                Keyword::AnyOf(bs) => stack.extend(bs.iter().copied()),
                _ => {}
            }
        }
    }
    out
}

/// Non-negative integer keyword values (check_schema accepted them, so integral and >= 0).
fn as_count(v: &Value) -> u64 {
    v.as_u64().or_else(|| v.as_f64().map(|f| f as u64)).unwrap_or(0)
}

impl<'a> Compiler<'a> {
    fn compile(schema: &'a Value, options: ValidatorOptions) -> Result<Compiled, Vec<SchemaViolation>> {
        let (c, root) = Self::build_nodes(schema)?;
        c.finish(root, options)
    }

    /// The nodes of every definition and of the root, and what only building them finds
    /// (patterns regress refuses, `$ref` loops that never descend).
    fn build_nodes(schema: &'a Value) -> Result<(Self, NodeId), Vec<SchemaViolation>> {
        let mut c = Compiler {
            root: schema,
            nodes: Vec::new(),
            defs: HashMap::new(),
            ref_pointers: HashMap::new(),
            pending: Vec::new(),
            violations: Vec::new(),
        };
        let mut ptr = Vec::new();
        // Every definition is compiled, referenced or not, so every pattern is checked.
        if let Some(defs) = schema.get("$defs").and_then(Value::as_object) {
            for name in defs.keys() {
                c.def(name);
            }
        }
        let root = c.node(schema, &mut ptr);
        // Definition bodies are compiled from a worklist, not recursively from `$ref`, so a long
        // chain of definitions costs no stack.
        while let Some((id, name)) = c.pending.pop() {
            if let Some(def_schema) = schema.get("$defs").and_then(|d| d.get(&name)) {
                let mut def_ptr = vec!["$defs".to_string(), name];
                let node = c.build(id, def_schema, &mut def_ptr);
                c.nodes[id] = node;
            }
        }
        c.check_cycles();
        if !c.violations.is_empty() {
            return Err(c.violations);
        }
        Ok((c, root))
    }

    /// What validating needs beyond the nodes: fast paths, default bookkeeping.
    fn finish(self, root: NodeId, options: ValidatorOptions) -> Result<Compiled, Vec<SchemaViolation>> {
        let schema = self.root;
        let c = self;
        let has_defaults = c.nodes.iter().any(|n| !n.defaults.is_empty());
        let defaulted_names = c.nodes.iter().flat_map(|n| n.defaults.iter().map(|(name, _)| name.clone())).collect();
        let mut nodes = c.nodes;
        for node in &mut nodes {
            node.fast = fast::FastNode::of(&node.keywords, &node.defaults, options);
        }
        let virtual_defaults = !reachable(&nodes, root).into_iter().any(|id| nodes[id].has_applicators);
        let mut compiled =
            Compiled { schema: schema.clone(), options, nodes, root, has_defaults, defaulted_names, virtual_defaults };
        if virtual_defaults && has_defaults {
            let costs: Vec<Vec<DefaultCost>> = (0..compiled.nodes.len()).map(|id| compiled.default_costs(id)).collect();
            for (node, costs) in compiled.nodes.iter_mut().zip(costs) {
                node.default_costs = costs;
            }
        }
        Ok(compiled)
    }

    /// The node id of definition `name`, reserved on first use; its body is compiled later
    /// from `pending` (so recursion is allowed and costs no stack).
    fn def(&mut self, name: &str) -> Option<NodeId> {
        if let Some(&id) = self.defs.get(name) {
            return Some(id);
        }
        self.root.get("$defs")?.get(name)?;
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.defs.insert(name.to_string(), id);
        self.pending.push((id, name.to_string()));
        Some(id)
    }

    fn node(&mut self, schema: &Value, ptr: &mut Vec<String>) -> NodeId {
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        let node = self.build(id, schema, ptr);
        self.nodes[id] = node;
        id
    }

    fn child(&mut self, schema: &Value, ptr: &mut Vec<String>, seg: &str) -> NodeId {
        ptr.push(seg.to_string());
        let id = self.node(schema, ptr);
        ptr.pop();
        id
    }

    /// The node for `schema`, whose id `id` is already reserved.
    fn build(&mut self, id: NodeId, schema: &Value, ptr: &mut Vec<String>) -> Node {
        let mut node = Node::default();
        let Some(obj) = schema.as_object() else {
            return node; // unreachable after check_schema
        };
        let property_names: Vec<String> =
            obj.get("properties").and_then(Value::as_object).map(|p| p.keys().cloned().collect()).unwrap_or_default();
        for (key, value) in obj {
            ptr.push(key.clone());
            if let Some(kw) = self.keyword(key, value, &property_names, ptr, &mut node) {
                if let Keyword::Ref(_) = kw {
                    self.ref_pointers.insert((id, node.keywords.len()), ptr.clone());
                }
                node.keywords.push(kw);
            }
            ptr.pop();
        }
        node.has_applicators = node.keywords.iter().any(Keyword::is_in_place_applicator);
        node
    }

    fn keyword(
        &mut self,
        key: &str,
        value: &Value,
        property_names: &[String],
        ptr: &mut Vec<String>,
        node: &mut Node,
    ) -> Option<Keyword> {
        Some(match key {
            "type" => {
                let names: Vec<&str> = match value {
                    Value::String(s) => vec![s.as_str()],
                    Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                    _ => Vec::new(),
                };
                let mut bits = 0;
                let mut statics = Vec::new();
                for n in names {
                    let (bit, name) = match n {
                        "null" => (T_NULL, "null"),
                        "boolean" => (T_BOOLEAN, "boolean"),
                        "object" => (T_OBJECT, "object"),
                        "array" => (T_ARRAY, "array"),
                        "number" => (T_NUMBER, "number"),
                        "integer" => (T_INTEGER, "integer"),
                        "string" => (T_STRING, "string"),
                        _ => continue,
                    };
                    bits |= bit;
                    statics.push(name);
                }
                Keyword::Type(bits, format!("must be {}", type_phrase(&statics)))
            }
            "enum" => {
                let values = value.as_array().cloned().unwrap_or_default();
                let strings: Vec<(Tag, String)> =
                    values.iter().filter_map(|v| v.as_str().map(|s| (Tag::of(s), s.to_string()))).collect();
                let listed = values.iter().map(canonical_json).collect::<Vec<_>>().join(", ");
                let message = if listed.chars().count() <= 200 {
                    format!("must be one of: {listed}")
                } else {
                    "must be one of the allowed values".to_string()
                };
                Keyword::Enum(Box::new(EnumSet {
                    only_strings: strings.len() == values.len(),
                    values,
                    strings,
                    message,
                }))
            }
            "const" => {
                let text = canonical_json(value);
                let message = if text.chars().count() <= 200 {
                    format!("must be {text}")
                } else {
                    "must be the value the schema specifies".to_string()
                };
                Keyword::Const(value.clone(), message)
            }
            "properties" => {
                let mut props = Vec::new();
                if let Some(map) = value.as_object() {
                    for (name, sub) in map {
                        if let Some(d) = sub.get("default") {
                            node.defaults.push((name.clone(), d.clone()));
                        }
                        let id = self.child(sub, ptr, name);
                        props.push((name.clone(), id));
                    }
                }
                Keyword::Properties(props)
            }
            "required" => Keyword::Required(
                value
                    .as_array()
                    .map(|a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect())
                    .unwrap_or_default(),
            ),
            "additionalProperties" => match value {
                Value::Bool(false) => Keyword::NoAdditionalProperties(property_names.to_vec()),
                _ => return None,
            },
            "items" => {
                let id = self.node(value, ptr);
                Keyword::Items(id)
            }
            "minItems" => Keyword::MinItems(as_count(value)),
            "maxItems" => Keyword::MaxItems(as_count(value)),
            "uniqueItems" => match value {
                Value::Bool(true) => Keyword::UniqueItems,
                _ => return None,
            },
            "minLength" => Keyword::MinLength(as_count(value)),
            "maxLength" => Keyword::MaxLength(as_count(value)),
            "pattern" => {
                let source = value.as_str().unwrap_or_default();
                match compile_pattern(source) {
                    Ok(compiled) => Keyword::Pattern(Box::new(pattern::Pattern::new(
                        source,
                        compiled,
                        format!("must match the pattern {}", quote(source)),
                    ))),
                    Err(failure) => {
                        let e = failure.text();
                        self.violations.push(SchemaViolation {
                            pointer: ptr.clone(),
                            kind: SchemaViolationKind::InvalidPattern { pattern: source.to_string(), error: e.clone() },
                            message: format!(
                                "\"pattern\" is not a valid ECMAScript regular expression in \
                                 Unicode mode (the `u` flag JSON Schema patterns use): {e}"
                            ),
                            help: Some(
                                "Unicode mode is stricter: escape only syntax characters \
                                 (\\- only inside a class), and write literal { } ] as \\{ \\} \\]"
                                    .into(),
                            ),
                        });
                        return None;
                    }
                }
            }
            "format" => Keyword::Format(match value.as_str() {
                Some("date-time") => Format::DateTime,
                Some("date") => Format::Date,
                Some("uuid") => Format::Uuid,
                Some("email") => Format::Email,
                Some("uri") => Format::Uri,
                _ => return None,
            }),
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
                let Value::Number(n) = value else {
                    return None;
                };
                let n = n.clone();
                match key {
                    "minimum" => Keyword::Minimum(n),
                    "maximum" => Keyword::Maximum(n),
                    "exclusiveMinimum" => Keyword::ExclusiveMinimum(n),
                    "exclusiveMaximum" => Keyword::ExclusiveMaximum(n),
                    _ => {
                        let d = Decimal::of(&n);
                        Keyword::MultipleOf(n, d)
                    }
                }
            }
            "anyOf" => {
                let mut branches = Vec::new();
                if let Some(items) = value.as_array() {
                    for (i, sub) in items.iter().enumerate() {
                        branches.push(self.child(sub, ptr, &i.to_string()));
                    }
                }
                Keyword::AnyOf(branches)
            }
            "$ref" => {
                let name = value.as_str().and_then(ref_name)?;
                let id = self.def(&name)?;
                Keyword::Ref(id)
            }
            // Annotations, `$schema` and `$defs` (compiled up front) do not validate.
            _ => return None,
        })
    }

    /// Refuses `$ref` cycles that never descend into the instance (only `$ref`/`anyOf` edges):
    /// validating with them would recurse forever.
    fn check_cycles(&mut self) {
        let n = self.nodes.len();
        // 0 = unvisited, 1 = on the stack, 2 = done.
        let mut state = vec![0u8; n];
        let mut reported = Vec::new();
        for start in 0..n {
            if state[start] != 0 {
                continue;
            }
            // Iterative DFS: (node, next edge index).
            let mut stack: Vec<(NodeId, usize)> = vec![(start, 0)];
            state[start] = 1;
            while let Some(&mut (node, ref mut next)) = stack.last_mut() {
                let edges = self.same_value_edges(node);
                if *next < edges.len() {
                    let (target, kw_index) = edges[*next];
                    *next += 1;
                    match state[target] {
                        0 => {
                            state[target] = 1;
                            stack.push((target, 0));
                        }
                        1 => reported.push((node, kw_index)),
                        _ => {}
                    }
                } else {
                    state[node] = 2;
                    stack.pop();
                }
            }
        }
        reported.sort();
        reported.dedup();
        for (node, kw_index) in reported {
            let pointer = self.ref_pointers.get(&(node, kw_index)).cloned().unwrap_or_default();
            let reference = match &self.nodes[node].keywords[kw_index] {
                Keyword::Ref(target) => {
                    self.defs.iter().find(|(_, id)| *id == target).map(|(name, _)| name.clone()).unwrap_or_default()
                }
                _ => String::new(),
            };
            self.violations.push(SchemaViolation {
                pointer,
                kind: SchemaViolationKind::InvalidKeywordValue {
                    keyword: "$ref".into(),
                    expected: "a reference that descends into a property or an item before \
                               reaching itself again"
                        .into(),
                },
                message: format!(
                    "\"$ref\" to \"{reference}\" leads back to a schema already applied to the \
                     same value, so validation would never finish"
                ),
                help: Some(
                    "a recursive definition must recurse through properties or items, e.g. \
                     {\"type\": \"object\", \"properties\": {\"children\": {\"type\": \"array\", \
                     \"items\": {\"$ref\": \"#/$defs/node\"}}}}"
                        .into(),
                ),
            });
        }
    }

    /// `(target, keyword index)` of the `$ref` and `anyOf` edges of `node`.
    fn same_value_edges(&self, node: NodeId) -> Vec<(NodeId, usize)> {
        let mut out = Vec::new();
        for (i, kw) in self.nodes[node].keywords.iter().enumerate() {
            match kw {
                Keyword::Ref(t) => out.push((*t, i)),
                Keyword::AnyOf(bs) => out.extend(bs.iter().map(|b| (*b, i))),
                _ => {}
            }
        }
        out
    }
}

// ---------------------------------------------------------------------------------------------
// Evaluation
// ---------------------------------------------------------------------------------------------

/// One step of the instance path; keys borrow from the compiled schema or the instance.
#[derive(Clone, Copy)]
enum Seg<'s> {
    Key(&'s str),
    Index(usize),
}

fn pointer(path: &[Seg<'_>]) -> String {
    let len: usize = path
        .iter()
        .map(|seg| match seg {
            Seg::Key(k) => k.len() + 1,
            Seg::Index(_) => 4,
        })
        .sum();
    let mut out = String::with_capacity(len);
    for seg in path {
        out.push('/');
        match seg {
            Seg::Key(k) => {
                if k.contains(['~', '/']) {
                    for c in k.chars() {
                        match c {
                            '~' => out.push_str("~0"),
                            '/' => out.push_str("~1"),
                            c => out.push(c),
                        }
                    }
                } else {
                    out.push_str(k);
                }
            }
            Seg::Index(i) => push_decimal(&mut out, *i as u64),
        }
    }
    out
}

/// Appends `n` in decimal (what `n.to_string()` gives, without the formatting machinery).
fn push_decimal(out: &mut String, mut n: u64) {
    if n < 10 {
        out.push(char::from(b'0' + n as u8));
        return;
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    while n > 0 {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

fn issue(path: &[Seg<'_>], keyword: &str, message: String) -> ValidationIssue {
    ValidationIssue { path: pointer(path), keyword: keyword.to_string(), message }
}

/// The fixed part of the work budget (see [`total_budget`]).
const BASE_BUDGET: u64 = 10_000;

/// Work allowed for one pass over an instance of `values` JSON values with a schema of `nodes`
/// nodes: generous for any sensible evaluation (each schema node applied to each instance value
/// a few times), but it stops the exponential blow-up that nested `anyOf`s with several
/// recursive alternatives could otherwise cause on hostile input.
fn total_budget(values: u64, nodes: u64) -> u64 {
    BASE_BUDGET.saturating_add(values.saturating_mul(nodes).saturating_mul(4))
}

/// The budget of one pass, in node evaluations. Its per-value part is computed only once the
/// fixed part is used up, so typical inputs are never counted; the total is the same.
struct Budget<'i> {
    left: u64,
    /// The instance whose values the per-value part counts, until it is counted.
    pending: Option<&'i Value>,
    nodes: u64,
}

impl<'i> Budget<'i> {
    fn lazy(instance: &'i Value, nodes: u64) -> Self {
        Budget { left: BASE_BUDGET, pending: Some(instance), nodes }
    }

    fn fixed(total: u64) -> Self {
        Budget { left: total, pending: None, nodes: 0 }
    }

    /// Takes `n` units; `false` (and nothing left) if fewer remain.
    #[inline]
    fn spend(&mut self, n: u64) -> bool {
        if self.left >= n {
            self.left -= n;
            return true;
        }
        self.refill(n)
    }

    #[cold]
    #[inline(never)]
    fn refill(&mut self, n: u64) -> bool {
        if let Some(v) = self.pending.take() {
            let extra = total_budget(value_count(v), self.nodes) - BASE_BUDGET;
            self.left = self.left.saturating_add(extra);
        }
        if self.left >= n {
            self.left -= n;
            true
        } else {
            self.left = 0;
            false
        }
    }
}

/// State of one validation run.
struct Run<'s> {
    /// Pointer segments from the instance root to the value being checked.
    path: Vec<Seg<'s>>,
    /// Node evaluations left (see [`total_budget`]).
    budget: Budget<'s>,
    /// Where the budget ran out, if it did.
    exhausted_at: Option<String>,
}

impl Run<'_> {
    /// Takes one unit of work; `false` once the budget is spent.
    fn spend(&mut self) -> bool {
        if self.budget.spend(1) {
            return true;
        }
        if self.exhausted_at.is_none() {
            self.exhausted_at = Some(pointer(&self.path));
        }
        false
    }
}

/// Appends the budget issue if the run ran out (sticky: work cut short may have let a branch
/// look valid, so the run fails).
fn finish(run: &mut Run<'_>, issues: &mut Vec<ValidationIssue>) {
    if let Some(path) = run.exhausted_at.take() {
        issues.push(ValidationIssue {
            path,
            keyword: "anyOf".into(),
            message: "is too complex to validate against this schema (evaluation budget \
                      exhausted)"
                .into(),
        });
    }
}

/// Levels of objects and arrays below `v` that contain another object or array: `None` for a
/// scalar, `Some(0)` for an object or array of scalars. Iterative (`v` may be deep).
fn compound_depth(v: &Value) -> Option<usize> {
    let mut deepest = None;
    let mut stack = vec![(v, 0usize)];
    while let Some((v, d)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        deepest = deepest.max(Some(d));
        stack.extend(children.map(|c| (c, d + 1)));
    }
    deepest
}

/// Number of JSON values in `v` (iterative: `v` may be deeper than the stack allows).
fn value_count(v: &Value) -> u64 {
    let mut n = 0u64;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        n += 1;
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    n
}

impl Compiled {
    fn node_count(&self) -> u64 {
        self.nodes.len().max(1) as u64
    }

    /// The reference evaluation: applies the schema to `instance`, inserting defaults, and
    /// collects every issue. `original` is `instance` as given, when the caller still has it
    /// (the budget then counts its values only if needed).
    fn apply(&self, mut instance: Value, original: Option<&Value>) -> Result<Value, Vec<ValidationIssue>> {
        let nodes = self.node_count();
        let budget = match original {
            Some(o) => Budget::lazy(o, nodes),
            None => Budget::fixed(total_budget(value_count(&instance), nodes)),
        };
        let mut issues = Vec::new();
        let mut run = Run { path: Vec::new(), budget, exhausted_at: None };
        self.eval(self.root, &mut instance, &mut run, &mut issues);
        finish(&mut run, &mut issues);
        if issues.is_empty() {
            Ok(instance)
        } else {
            Err(issues)
        }
    }

    /// What inserting each default of node `id` costs (see [`DefaultCost`]): the default is
    /// evaluated once, here, exactly as the slow path would evaluate it at the first level.
    fn default_costs(&self, id: NodeId) -> Vec<DefaultCost> {
        let node = &self.nodes[id];
        let children: HashMap<&str, NodeId> = node
            .keywords
            .iter()
            .filter_map(|kw| match kw {
                Keyword::Properties(props) => Some(props),
                _ => None,
            })
            .flatten()
            .map(|(name, child)| (name.as_str(), *child))
            .collect();
        node.defaults
            .iter()
            .map(|(name, default)| {
                let Some(&child) = children.get(name.as_str()) else {
                    return DefaultCost::default();
                };
                let mut value = default.clone();
                let mut run = Run { path: vec![Seg::Key(name)], budget: Budget::fixed(u64::MAX), exhausted_at: None };
                self.eval(child, &mut value, &mut run, &mut Vec::new());
                DefaultCost { spends: u64::MAX - run.budget.left, reach: compound_depth(&value).map_or(0, |d| d + 1) }
            })
            .collect()
    }

    /// Applies node `id` to `value`, appending issues to `out`.
    ///
    /// Order within a node: (1) the node's own property defaults are inserted into an object
    /// value; (2) `$ref` and `anyOf` run (they may insert further defaults); (3) every other
    /// keyword runs, so `required` sees all defaults. Issues are nevertheless emitted in the
    /// keywords' document order.
    fn eval<'s>(&'s self, id: NodeId, value: &mut Value, run: &mut Run<'s>, out: &mut Vec<ValidationIssue>) {
        let node = &self.nodes[id];
        if !run.spend() {
            return;
        }
        if run.path.len() > MAX_INSTANCE_DEPTH && (value.is_object() || value.is_array()) {
            out.push(issue(
                &run.path,
                "$ref",
                format!("is nested too deeply (at most {MAX_INSTANCE_DEPTH} levels are checked)"),
            ));
            return;
        }
        let mut injected: Vec<&'s str> = Vec::new();
        if !node.defaults.is_empty() {
            if let Value::Object(map) = value {
                for (name, default) in &node.defaults {
                    if !map.contains_key(name) {
                        map.insert(name.clone(), default.clone());
                        injected.push(name);
                    }
                }
            }
        }
        if !node.has_applicators {
            for kw in &node.keywords {
                self.keyword(kw, value, run, out, &injected);
            }
            return;
        }
        let mut early: Vec<(usize, Vec<ValidationIssue>)> = Vec::new();
        for (i, kw) in node.keywords.iter().enumerate() {
            if kw.is_in_place_applicator() {
                let mut issues = Vec::new();
                self.keyword(kw, value, run, &mut issues, &injected);
                early.push((i, issues));
            }
        }
        let mut early = early.into_iter().peekable();
        for (i, kw) in node.keywords.iter().enumerate() {
            if early.peek().is_some_and(|(j, _)| *j == i) {
                out.extend(early.next().map(|(_, v)| v).unwrap_or_default());
            } else {
                self.keyword(kw, value, run, out, &injected);
            }
        }
    }

    /// Applies one keyword. Only the applicators recurse; leaf assertions live in
    /// [`Compiled::assert`] so the recursive frames stay small (deep recursive input must not
    /// exhaust a 2 MiB thread stack, even in debug builds).
    fn keyword<'s>(
        &'s self,
        kw: &'s Keyword,
        value: &mut Value,
        run: &mut Run<'s>,
        out: &mut Vec<ValidationIssue>,
        injected: &[&'s str],
    ) {
        match kw {
            Keyword::Properties(props) => {
                if let Value::Object(map) = value {
                    for (name, child) in props {
                        if let Some(v) = map.get_mut(name.as_str()) {
                            run.path.push(Seg::Key(name));
                            if injected.contains(&name.as_str()) {
                                // An inserted default is the schema author's value: its subschema
                                // runs only to fill in nested defaults; its issues are dropped.
                                let mut dropped = Vec::new();
                                self.eval(*child, v, run, &mut dropped);
                            } else {
                                self.eval(*child, v, run, out);
                            }
                            run.path.pop();
                        }
                    }
                }
            }
            Keyword::Items(child) => {
                if let Value::Array(items) = value {
                    for (i, item) in items.iter_mut().enumerate() {
                        run.path.push(Seg::Index(i));
                        self.eval(*child, item, run, out);
                        run.path.pop();
                    }
                }
            }
            Keyword::AnyOf(branches) => self.any_of(branches, value, run, out),
            Keyword::Ref(target) => self.eval(*target, value, run, out),
            _ => self.assert(kw, value, &run.path, out),
        }
    }

    /// The verdict of a leaf keyword (no issue built): the one definition every path uses.
    /// Applicators pass here (they are evaluated by the callers).
    #[inline]
    fn passes(&self, kw: &Keyword, value: &Value) -> bool {
        match (kw, value) {
            (Keyword::Type(bits, _), v) => has_type(v, *bits),
            (Keyword::Enum(set), v) => set.contains(v),
            (Keyword::Const(c, _), v) => json_equal(c, v),
            (Keyword::Required(names), Value::Object(map)) => names.iter().all(|n| map.contains_key(n)),
            (Keyword::NoAdditionalProperties(allowed), Value::Object(map)) => {
                map.keys().all(|k| allowed.iter().any(|a| a.len() == k.len() && a == k))
            }
            (Keyword::MinItems(n), Value::Array(items)) => items.len() as u64 >= *n,
            (Keyword::MaxItems(n), Value::Array(items)) => items.len() as u64 <= *n,
            (Keyword::UniqueItems, Value::Array(items)) => first_duplicate(items).is_none(),
            (Keyword::MinLength(n), Value::String(s)) => length_at_least(s, *n),
            (Keyword::MaxLength(n), Value::String(s)) => length_at_most(s, *n),
            (Keyword::Pattern(p), Value::String(s)) => p.is_match(s),
            (Keyword::Format(f), Value::String(s)) => !self.options.assert_formats || check_format(*f, s),
            (Keyword::Minimum(m), Value::Number(x)) => cmp_numbers(x, m) != Ordering::Less,
            (Keyword::Maximum(m), Value::Number(x)) => cmp_numbers(x, m) != Ordering::Greater,
            (Keyword::ExclusiveMinimum(m), Value::Number(x)) => cmp_numbers(x, m) == Ordering::Greater,
            (Keyword::ExclusiveMaximum(m), Value::Number(x)) => cmp_numbers(x, m) == Ordering::Less,
            (Keyword::MultipleOf(_, d), Value::Number(x)) => Decimal::of(x).is_multiple_of(d),
            _ => true,
        }
    }

    /// Leaf assertions (no recursion).
    #[inline(never)]
    fn assert(&self, kw: &Keyword, value: &Value, path: &[Seg<'_>], out: &mut Vec<ValidationIssue>) {
        match (kw, value) {
            (Keyword::Required(names), Value::Object(map)) => {
                for name in names {
                    if !map.contains_key(name) {
                        out.push(issue(path, "required", required_message(name)));
                    }
                }
            }
            (Keyword::NoAdditionalProperties(allowed), Value::Object(map)) => {
                for key in map.keys() {
                    if !allowed.iter().any(|a| a.len() == key.len() && a == key) {
                        out.push(issue(path, "additionalProperties", unknown_property(key)));
                    }
                }
            }
            (Keyword::UniqueItems, Value::Array(items)) => {
                if let Some((a, b)) = first_duplicate(items) {
                    // "must not contain duplicate items (items {a} and {b} are equal)"
                    let mut m = String::with_capacity(64);
                    m.push_str("must not contain duplicate items (items ");
                    push_decimal(&mut m, a as u64);
                    m.push_str(" and ");
                    push_decimal(&mut m, b as u64);
                    m.push_str(" are equal)");
                    out.push(issue(path, "uniqueItems", m));
                }
            }
            _ => {
                if !self.passes(kw, value) {
                    out.push(issue(path, kw.name(), kw.message()));
                }
            }
        }
    }

    /// The first alternative that matches wins, and its defaults are kept.
    ///
    /// Each alternative first gets the cheap [`Compiled::quick`] check (in practice: is the
    /// discriminating `const` right?); only those passing it are evaluated fully, so a recursive
    /// discriminated union costs time linear in the input. If none matches, the issues of the
    /// alternatives that fit best are reported: those of every alternative that passed the quick
    /// check (the ones the input was evidently meant for), or, if none did, the quick-check
    /// issues of the alternatives with the fewest of them; then one `anyOf` issue.
    fn any_of<'s>(
        &'s self,
        branches: &'s [NodeId],
        value: &mut Value,
        run: &mut Run<'s>,
        out: &mut Vec<ValidationIssue>,
    ) {
        let (candidates, rejected) = self.pre_check_branches(branches, value, run);
        let mut failed = Vec::new();
        for &branch in &candidates {
            if run.exhausted_at.is_some() {
                return;
            }
            let mut issues = Vec::new();
            if self.has_defaults {
                // Evaluate on a copy so a failing alternative leaves no defaults behind.
                let mut candidate = value.clone();
                self.eval(branch, &mut candidate, run, &mut issues);
                if issues.is_empty() && run.exhausted_at.is_none() {
                    *value = candidate;
                    return;
                }
            } else {
                self.eval(branch, value, run, &mut issues);
                if issues.is_empty() && run.exhausted_at.is_none() {
                    return;
                }
            }
            failed.extend(issues);
        }
        any_of_failed(&run.path, candidates.is_empty(), rejected, failed, out);
    }

    /// The pre-check of [`Compiled::any_of`]: the branches a quick look cannot reject, and the
    /// issues of those it rejects.
    fn pre_check_branches<'s>(
        &'s self,
        branches: &'s [NodeId],
        value: &Value,
        run: &mut Run<'s>,
    ) -> (Vec<NodeId>, Vec<Vec<ValidationIssue>>) {
        let mut rejected: Vec<Vec<ValidationIssue>> = Vec::new();
        let mut candidates = Vec::new();
        for &branch in branches {
            let mut issues = Vec::new();
            self.quick(branch, value, run, &mut issues, true);
            if issues.is_empty() {
                candidates.push(branch);
            } else {
                rejected.push(issues);
            }
        }
        (candidates, rejected)
    }

    /// Cheap, sound pre-check of node `id` for [`Compiled::any_of`]: it reports an issue only
    /// if full evaluation would certainly report one. It applies the node's own assertions
    /// (following `$ref` and `anyOf`, which apply to the same value) and, when `descend`, the
    /// own assertions of the subschemas of properties present in the value; it never goes
    /// deeper. Assertions that defaults could still satisfy are left to the full evaluation:
    /// `required` for a name that has a default somewhere, and `enum`/`const`/`uniqueItems` on
    /// objects and arrays when the schema has defaults.
    fn quick<'s>(
        &'s self,
        id: NodeId,
        value: &Value,
        run: &mut Run<'s>,
        out: &mut Vec<ValidationIssue>,
        descend: bool,
    ) {
        if !run.spend() {
            return;
        }
        for kw in &self.nodes[id].keywords {
            match kw {
                Keyword::Ref(target) => self.quick(*target, value, run, out, descend),
                Keyword::AnyOf(branches) => {
                    let mut any = false;
                    for &branch in branches {
                        let mut issues = Vec::new();
                        self.quick(branch, value, run, &mut issues, descend);
                        if issues.is_empty() {
                            any = true;
                            break;
                        }
                    }
                    if !any {
                        out.push(issue(
                            &run.path,
                            "anyOf",
                            "must match at least one of the allowed alternatives (anyOf)".into(),
                        ));
                    }
                }
                Keyword::Properties(props) => {
                    if let (true, Value::Object(map)) = (descend, value) {
                        for (name, child) in props {
                            if let Some(v) = map.get(name.as_str()) {
                                run.path.push(Seg::Key(name));
                                self.quick(*child, v, run, out, false);
                                run.path.pop();
                            }
                        }
                    }
                }
                Keyword::Items(_) => {}
                Keyword::Required(names) => {
                    if let Value::Object(map) = value {
                        for name in names {
                            if !map.contains_key(name) && !self.defaulted_names.contains(name) {
                                out.push(issue(&run.path, "required", required_message(name)));
                            }
                        }
                    }
                }
                Keyword::Enum(_) | Keyword::Const(..) | Keyword::UniqueItems
                    if self.has_defaults && (value.is_object() || value.is_array()) => {}
                _ => self.assert(kw, value, &run.path, out),
            }
        }
    }
}

/// Why [`Compiled::collect`] gave up: only [`Compiled::apply`] can produce the issues.
struct Fallback;

impl Compiled {
    /// Every issue of an invalid instance, without copying it: exactly what [`Compiled::apply`]
    /// returns, possible when nothing is ever inserted (no defaults), or when no `$ref`/`anyOf`
    /// is reachable ([`Compiled::virtual_defaults`]): then a default that would be inserted
    /// into an object only counts as present for that node's `required`, is allowed by its
    /// `additionalProperties`, and costs its known budget in `properties` (its own issues are
    /// dropped). `None` when it cannot tell (`enum`/`const`/`uniqueItems` on an object or array
    /// that could hold defaults, budget running out inside an inserted default, ...).
    fn collect(&self, instance: &Value) -> Option<Vec<ValidationIssue>> {
        if self.has_defaults && !self.virtual_defaults {
            return None;
        }
        let mut run = Run { path: Vec::new(), budget: Budget::lazy(instance, self.node_count()), exhausted_at: None };
        let mut issues = Vec::new();
        self.collect_node(self.root, instance, &mut run, &mut issues).ok()?;
        finish(&mut run, &mut issues);
        debug_assert!(
            !issues.is_empty(),
            "the fast path found an instance invalid in which the collection finds no issue"
        );
        (!issues.is_empty()).then_some(issues)
    }

    /// [`Compiled::eval`] without inserting (see [`Compiled::collect`]).
    fn collect_node<'s>(
        &'s self,
        id: NodeId,
        value: &Value,
        run: &mut Run<'s>,
        out: &mut Vec<ValidationIssue>,
    ) -> Result<(), Fallback> {
        let node = &self.nodes[id];
        if !run.spend() {
            return Ok(());
        }
        if run.path.len() > MAX_INSTANCE_DEPTH && (value.is_object() || value.is_array()) {
            out.push(issue(
                &run.path,
                "$ref",
                format!("is nested too deeply (at most {MAX_INSTANCE_DEPTH} levels are checked)"),
            ));
            return Ok(());
        }
        // Bit i: `node.defaults[i]` would be inserted.
        let mut missing = 0u64;
        if let (false, Value::Object(map)) = (node.defaults.is_empty(), value) {
            if node.defaults.len() > 64 {
                return Err(Fallback);
            }
            for (i, (name, _)) in node.defaults.iter().enumerate() {
                if !map.contains_key(name) {
                    missing |= 1 << i;
                }
            }
        }
        if !node.has_applicators {
            for kw in &node.keywords {
                self.collect_keyword(kw, node, value, run, out, missing)?;
            }
            return Ok(());
        }
        // Applicators first, issues in keyword order, as in `eval` (no defaults here: a node
        // with applicators is reachable, so the schema has none).
        let mut early: Vec<(usize, Vec<ValidationIssue>)> = Vec::new();
        for (i, kw) in node.keywords.iter().enumerate() {
            if kw.is_in_place_applicator() {
                let mut issues = Vec::new();
                self.collect_keyword(kw, node, value, run, &mut issues, missing)?;
                early.push((i, issues));
            }
        }
        let mut early = early.into_iter().peekable();
        for (i, kw) in node.keywords.iter().enumerate() {
            if early.peek().is_some_and(|(j, _)| *j == i) {
                out.extend(early.next().map(|(_, v)| v).unwrap_or_default());
            } else {
                self.collect_keyword(kw, node, value, run, out, missing)?;
            }
        }
        Ok(())
    }

    fn collect_keyword<'s>(
        &'s self,
        kw: &'s Keyword,
        node: &'s Node,
        value: &Value,
        run: &mut Run<'s>,
        out: &mut Vec<ValidationIssue>,
        missing: u64,
    ) -> Result<(), Fallback> {
        let inserted = |name: &str| {
            missing != 0 && node.defaults.iter().enumerate().any(|(i, (n, _))| missing & (1 << i) != 0 && n == name)
        };
        match kw {
            Keyword::Properties(props) => {
                if let Value::Object(map) = value {
                    for (name, child) in props {
                        if let Some(v) = map.get(name.as_str()) {
                            run.path.push(Seg::Key(name));
                            let r = self.collect_node(*child, v, run, out);
                            run.path.pop();
                            r?;
                        } else if inserted(name) {
                            // What evaluating the inserted default would cost; its issues
                            // would be dropped.
                            let i = node.defaults.iter().position(|(n, _)| n == name);
                            let cost = i.map(|i| node.default_costs[i]).ok_or(Fallback)?;
                            if run.path.len() + cost.reach > MAX_INSTANCE_DEPTH || !run.budget.spend(cost.spends) {
                                return Err(Fallback);
                            }
                        }
                    }
                }
            }
            Keyword::Items(child) => {
                if let Value::Array(items) = value {
                    for (i, item) in items.iter().enumerate() {
                        run.path.push(Seg::Index(i));
                        let r = self.collect_node(*child, item, run, out);
                        run.path.pop();
                        r?;
                    }
                }
            }
            Keyword::AnyOf(branches) => self.collect_any_of(branches, value, run, out)?,
            Keyword::Ref(target) => self.collect_node(*target, value, run, out)?,
            Keyword::Required(names) if missing != 0 => {
                if let Value::Object(map) = value {
                    for name in names {
                        if !map.contains_key(name) && !inserted(name) {
                            out.push(issue(&run.path, "required", required_message(name)));
                        }
                    }
                }
            }
            Keyword::Enum(_) | Keyword::Const(..) if self.has_defaults && (value.is_object() || value.is_array()) => {
                return Err(Fallback)
            }
            Keyword::UniqueItems
                if self.has_defaults
                    && value.as_array().is_some_and(|a| a.iter().any(|x| x.is_object() || x.is_array())) =>
            {
                return Err(Fallback)
            }
            _ => self.assert(kw, value, &run.path, out),
        }
        Ok(())
    }

    /// [`Compiled::any_of`] without copies (only reached when the schema has no defaults).
    fn collect_any_of<'s>(
        &'s self,
        branches: &'s [NodeId],
        value: &Value,
        run: &mut Run<'s>,
        out: &mut Vec<ValidationIssue>,
    ) -> Result<(), Fallback> {
        if self.has_defaults {
            return Err(Fallback);
        }
        let (candidates, rejected) = self.pre_check_branches(branches, value, run);
        let mut failed = Vec::new();
        for &branch in &candidates {
            if run.exhausted_at.is_some() {
                return Ok(());
            }
            let mut issues = Vec::new();
            self.collect_node(branch, value, run, &mut issues)?;
            if issues.is_empty() && run.exhausted_at.is_none() {
                return Ok(());
            }
            failed.extend(issues);
        }
        any_of_failed(&run.path, candidates.is_empty(), rejected, failed, out);
        Ok(())
    }
}

/// The issues of an `anyOf` no branch matched: those of the branches that got a full
/// evaluation, or, when the pre-check rejected every branch, those of the branches with the
/// fewest; then one `anyOf` issue.
fn any_of_failed(
    path: &[Seg<'_>],
    all_rejected: bool,
    rejected: Vec<Vec<ValidationIssue>>,
    failed: Vec<ValidationIssue>,
    out: &mut Vec<ValidationIssue>,
) {
    if all_rejected {
        let fewest = rejected.iter().map(Vec::len).min().unwrap_or(0);
        out.extend(rejected.into_iter().filter(|r| r.len() == fewest).flatten());
    } else {
        out.extend(failed);
    }
    out.push(issue(path, "anyOf", "must match at least one of the allowed alternatives (anyOf)".into()));
}

fn has_type(value: &Value, bits: u8) -> bool {
    let bit = match value {
        Value::Null => T_NULL,
        Value::Bool(_) => T_BOOLEAN,
        Value::Object(_) => T_OBJECT,
        Value::Array(_) => T_ARRAY,
        Value::String(_) => T_STRING,
        Value::Number(n) => {
            return bits & T_NUMBER != 0 || (bits & T_INTEGER != 0 && is_integer(n));
        }
    };
    bits & bit != 0
}

/// An integer in the JSON Schema sense: a number with a zero fractional part (`1.0` counts).
pub fn is_integer(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

fn type_phrase(names: &[&str]) -> String {
    let phrases: Vec<&str> = names
        .iter()
        .map(|n| match *n {
            "null" => "null",
            "boolean" => "a boolean",
            "object" => "an object",
            "array" => "an array",
            "number" => "a number",
            "integer" => "an integer",
            _ => "a string",
        })
        .collect();
    match phrases.as_slice() {
        [] => "of no type".into(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A JSON string literal for messages, shortened to 64 characters (property names come from the
/// instance and may be long).
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_quoted(&mut out, s);
    out
}

/// Appends what [`quote`] returns: `s` escaped as `JSON.stringify` (and [`canonical_json`])
/// write it, cut after 64 code points with `…` before the closing quote.
fn push_quoted(out: &mut String, s: &str) {
    const MAX: usize = 64;
    let (text, cut) = match s.char_indices().nth(MAX) {
        Some((i, _)) => (&s[..i], true),
        None => (s, false),
    };
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0C}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                use std::fmt::Write;
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    if cut {
        out.push('…');
    }
    out.push('"');
}

/// The `required` message for property `name`.
fn required_message(name: &str) -> String {
    let mut m = String::with_capacity(name.len().min(256) + 36);
    m.push_str("must have the required property ");
    push_quoted(&mut m, name);
    m
}

/// The `additionalProperties` message for instance property `key`.
fn unknown_property(key: &str) -> String {
    let mut m = String::with_capacity(key.len().min(256) + 48);
    m.push_str("must not have the property ");
    push_quoted(&mut m, key);
    m.push_str(" (unknown property)");
    m
}

/// ECMAScript number text (`1e+21`, `0.5`), as the schema shows it to a JavaScript agent.
fn number_text(n: &Number) -> String {
    canonical_json(&Value::Number(n.clone()))
}

// ---------------------------------------------------------------------------------------------
// JSON equality and numbers
// ---------------------------------------------------------------------------------------------

/// JSON Schema equality (`enum`, `const`, `uniqueItems`): numbers compare by mathematical value
/// (`1 == 1.0`), objects ignore key order, arrays compare element-wise.
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => cmp_numbers(x, y) == Ordering::Equal,
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equal(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => false,
    }
}

/// Indices of the first pair of equal items, if any. Items are bucketed by canonical JSON
/// (equal values always share it) and compared exactly within a bucket.
fn first_duplicate(items: &[Value]) -> Option<(usize, usize)> {
    // Typical arrays are short: comparing pairs beats canonicalizing every item into a bucket
    // key (same answer: the smallest later index, then the smallest earlier one).
    if items.len() <= 16 {
        if items.iter().all(Value::is_string) {
            // Strings only (ids, tags): no dispatch on the type.
            let text = |i: usize| items[i].as_str().unwrap_or_default().as_bytes();
            for j in 1..items.len() {
                let b = text(j);
                if let Some(i) = (0..j).find(|&i| {
                    let a = text(i);
                    a.len() == b.len() && a == b
                }) {
                    return Some((i, j));
                }
            }
            return None;
        }
        for j in 1..items.len() {
            if let Some(i) = (0..j).find(|&i| json_equal(&items[i], &items[j])) {
                return Some((i, j));
            }
        }
        return None;
    }
    let mut buckets: HashMap<String, Vec<usize>> = HashMap::new();
    let mut best: Option<(usize, usize)> = None;
    for (j, item) in items.iter().enumerate() {
        let bucket = buckets.entry(canonical_json(item)).or_default();
        if let Some(&i) = bucket.iter().find(|&&i| json_equal(&items[i], item)) {
            // The first duplicate by its later index; report the earliest such pair.
            best = Some((i, j));
            break;
        }
        bucket.push(j);
    }
    best
}

#[derive(Clone, Copy, Debug)]
enum Num {
    Int(i128),
    Float(f64),
}

fn num(n: &Number) -> Num {
    if let Some(u) = n.as_u64() {
        Num::Int(u as i128)
    } else if let Some(i) = n.as_i64() {
        Num::Int(i as i128)
    } else {
        Num::Float(n.as_f64().or_else(|| n.to_string().parse().ok()).unwrap_or(f64::NAN))
    }
}

/// Exact comparison of an integer with a finite double.
fn cmp_int_float(i: i128, f: f64) -> Ordering {
    const TWO_127: f64 = 1.7014118346046923e38;
    if f.is_nan() {
        return Ordering::Equal;
    }
    if f >= TWO_127 {
        return Ordering::Less;
    }
    if f < -TWO_127 {
        return Ordering::Greater;
    }
    let t = f.trunc();
    match i.cmp(&(t as i128)) {
        Ordering::Equal if f > t => Ordering::Less,
        Ordering::Equal if f < t => Ordering::Greater,
        o => o,
    }
}

/// Compares two JSON numbers by exact mathematical value, whatever their representation
/// (`u64`, `i64` or `f64`): no precision is lost for integers beyond 2^53.
pub fn cmp_numbers(a: &Number, b: &Number) -> Ordering {
    cmp_num(num(a), num(b))
}

/// [`cmp_numbers`] on converted numbers (a schema's bounds are converted once).
#[inline]
fn cmp_num(a: Num, b: Num) -> Ordering {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => x.cmp(&y),
        (Num::Float(x), Num::Float(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
        (Num::Int(x), Num::Float(y)) => cmp_int_float(x, y),
        (Num::Float(x), Num::Int(y)) => cmp_int_float(y, x).reverse(),
    }
}

/// `true` if JavaScript reads `n` as the same number, i.e. an IEEE-754 double holds it exactly.
/// Floats always qualify (serde_json parses them to the nearest double); integers qualify up to
/// 2^53 in magnitude, and beyond only when they happen to be representable (such as 2^60).
/// Validation does not use it: it is for hosts that hand values to JavaScript.
pub fn is_json_number_safe(n: &Number) -> bool {
    match num(n) {
        Num::Int(i) => {
            let f = i as f64;
            f.is_finite() && f as i128 == i
        }
        Num::Float(f) => f.is_finite(),
    }
}

/// A non-negative decimal `mantissa * 10^exponent` with no trailing zeros in the mantissa (the
/// sign is irrelevant to `multipleOf`). For doubles it is the shortest decimal that round-trips,
/// i.e. the number as written in the JSON text (up to 17 significant digits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Decimal {
    mantissa: u128,
    exponent: i32,
}

impl Decimal {
    fn of(n: &Number) -> Decimal {
        let (mut mantissa, mut exponent) = match num(n) {
            Num::Int(i) => (i.unsigned_abs(), 0),
            Num::Float(f) => {
                // `{:e}` prints the shortest round-trip form: `7.5e-3`, `1e308`.
                let text = format!("{:e}", f.abs());
                let (digits, exp) = text.split_once('e').unwrap_or((&text, "0"));
                let exp: i32 = exp.parse().unwrap_or(0);
                let (int_part, frac_part) = digits.split_once('.').unwrap_or((digits, ""));
                let all = format!("{int_part}{frac_part}");
                let mantissa = all.parse::<u128>().unwrap_or(0);
                (mantissa, exp - frac_part.len() as i32)
            }
        };
        if mantissa == 0 {
            return Decimal { mantissa: 0, exponent: 0 };
        }
        while mantissa % 10 == 0 {
            mantissa /= 10;
            exponent += 1;
        }
        Decimal { mantissa, exponent }
    }

    /// Exact: `self / by` is an integer. `by` is positive (check_schema guarantees it).
    fn is_multiple_of(&self, by: &Decimal) -> bool {
        if self.mantissa == 0 {
            return true;
        }
        if by.mantissa == 0 {
            return false;
        }
        if self.exponent < by.exponent {
            // self = m * 10^e with m not divisible by 10: dividing by anything carrying a larger
            // power of ten leaves a fraction.
            return false;
        }
        // m_a * 10^(e_a - e_b) mod m_b == 0, by modular multiplication (m_b < 10^20).
        let modulus = by.mantissa;
        let mut r = self.mantissa % modulus;
        let mut steps = self.exponent - by.exponent;
        while steps > 0 && r != 0 {
            r = (r * 10) % modulus;
            steps -= 1;
        }
        r == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn compile(schema: Value) -> Validator {
        Validator::new(&schema, &SchemaLimits::default()).unwrap_or_else(|e| panic!("schema refused: {e:#?}"))
    }

    fn issues(schema: Value, instance: Value) -> Vec<(String, String, String)> {
        compile(schema)
            .validate(&instance)
            .expect_err("expected the instance to be invalid")
            .into_iter()
            .map(|i| (i.path, i.keyword, i.message))
            .collect()
    }

    fn paths_and_keywords(schema: Value, instance: Value) -> Vec<(String, String)> {
        issues(schema, instance).into_iter().map(|(p, k, _)| (p, k)).collect()
    }

    fn pk(p: &str, k: &str) -> (String, String) {
        (p.to_string(), k.to_string())
    }

    #[test]
    fn validator_is_clone_send_sync() {
        fn check<T: Clone + Send + Sync + 'static>() {}
        check::<Validator>();
        let v = compile(json!({"type": "string"}));
        let shared = Arc::new(v.clone());
        let t = std::thread::spawn(move || shared.is_valid(&json!("x")));
        assert!(t.join().unwrap());
        assert!(!v.is_valid(&json!(1)));
        assert_eq!(v.schema(), &json!({"type": "string"}));
    }

    #[test]
    fn refuses_what_check_schema_refuses() {
        let e = Validator::new(&json!({"oneOf": [{}]}), &SchemaLimits::default()).unwrap_err();
        assert_eq!(e[0].kind, SchemaViolationKind::UnsupportedKeyword { keyword: "oneOf".into() });
        let limits = SchemaLimits { max_schema_depth: 1, ..Default::default() };
        let e = Validator::new(&json!({"items": {}}), &limits).unwrap_err();
        assert!(matches!(e[0].kind, SchemaViolationKind::TooDeep { .. }));
    }

    #[test]
    fn defaults_fill_missing_properties_without_touching_the_input() {
        let v = compile(json!({
            "type": "object",
            "properties": {
                "mode": {"type": "string", "default": "replace"},
                "tags": {"type": "array", "default": ["a", {"b": 1}]},
                "name": {"type": "string", "default": "x"}
            }
        }));
        let input = json!({"name": "given"});
        let out = v.validate(&input).unwrap();
        assert_eq!(out, json!({"name": "given", "mode": "replace", "tags": ["a", {"b": 1}]}));
        // Present values are never overridden, the input is never modified, and each result
        // gets its own deep copy of the default.
        assert_eq!(input, json!({"name": "given"}));
        let mut again = v.validate(&json!({})).unwrap();
        again["tags"][1]["b"] = json!(2);
        assert_eq!(v.validate(&json!({})).unwrap()["tags"][1]["b"], json!(1));
        // A present null is a value, not a missing property.
        assert_eq!(v.validate(&json!({"mode": null})).unwrap_err()[0].path, "/mode");
        // Types are never coerced.
        assert!(v.validate(&json!({"name": 5})).is_err());
        // validate_owned gives the same result without a copy.
        assert_eq!(v.validate_owned(input.clone()).unwrap(), out);
    }

    #[test]
    fn defaults_apply_recursively_and_before_required() {
        let v = compile(json!({
            "type": "object",
            "properties": {
                "page": {
                    "type": "object",
                    "default": {},
                    "properties": {
                        "size": {"type": "integer", "default": 20},
                        "sort": {
                            "type": "object",
                            "properties": {"dir": {"enum": ["asc", "desc"], "default": "asc"}}
                        }
                    },
                    "required": ["size"]
                },
                "items": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"qty": {"default": 1}}}
                }
            },
            "required": ["page"]
        }));
        assert_eq!(v.validate(&json!({})).unwrap(), json!({"page": {"size": 20}}));
        assert_eq!(
            v.validate(&json!({"page": {"sort": {}}, "items": [{}, {"qty": 5}]})).unwrap(),
            json!({"page": {"size": 20, "sort": {"dir": "asc"}}, "items": [{"qty": 1}, {"qty": 5}]})
        );
        // Without a default, required still fails.
        let v = compile(json!({"properties": {"a": {}}, "required": ["a"]}));
        assert_eq!(
            issues(json!({"properties": {"a": {}}, "required": ["a"]}), json!({})),
            vec![("".to_string(), "required".to_string(), "must have the required property \"a\"".to_string())]
        );
        assert!(v.is_valid(&json!({"a": null})));
    }

    #[test]
    fn defaults_apply_only_inside_the_anyof_branch_that_matched() {
        let v = compile(json!({
            "anyOf": [
                {
                    "type": "object",
                    "properties": {"kind": {"const": "circle"}, "r": {"default": 1}},
                    "required": ["kind"]
                },
                {
                    "type": "object",
                    "properties": {"kind": {"const": "rect"}, "w": {"default": 2}, "h": {"default": 3}},
                    "required": ["kind"]
                }
            ]
        }));
        assert_eq!(v.validate(&json!({"kind": "rect", "h": 9})).unwrap(), json!({"kind": "rect", "w": 2, "h": 9}));
        assert_eq!(v.validate(&json!({"kind": "circle"})).unwrap(), json!({"kind": "circle", "r": 1}));
        // No branch matches: every branch's issues, then the anyOf issue; no defaults leak.
        let got = v.validate(&json!({"kind": "hexagon"})).unwrap_err();
        let got: Vec<(&str, &str)> = got.iter().map(|i| (i.path.as_str(), i.keyword.as_str())).collect();
        assert_eq!(got, vec![("/kind", "const"), ("/kind", "const"), ("", "anyOf")]);
        // Defaults in the root schema and a $ref target are applied together.
        let v = compile(json!({
            "$defs": {"base": {"properties": {"a": {"default": 1}}, "required": ["a", "b"]}},
            "$ref": "#/$defs/base",
            "properties": {"b": {"default": 2}}
        }));
        assert_eq!(v.validate(&json!({})).unwrap(), json!({"a": 1, "b": 2}));
    }

    #[test]
    fn inserted_defaults_are_trusted() {
        // A default that violates its own subschema does not make valid input invalid (the
        // suite's default.json); the value is still inserted.
        let v = compile(json!({
            "properties": {"n": {"type": "integer", "maximum": 3, "default": 5}}
        }));
        assert_eq!(v.validate(&json!({})).unwrap(), json!({"n": 5}));
        assert_eq!(
            paths_and_keywords(
                json!({"properties": {"n": {"type": "integer", "maximum": 3, "default": 5}}}),
                json!({"n": 5})
            ),
            vec![pk("/n", "maximum")]
        );
    }

    #[test]
    fn collects_every_issue_in_schema_then_instance_order() {
        // Keys in sorted order so the expectation holds with or without preserve_order.
        let schema = json!({
            "additionalProperties": false,
            "properties": {
                "a": {"maxLength": 2, "pattern": "^[a-z]+$", "type": "string"},
                "list": {"items": {"minimum": 0, "type": "integer"}, "maxItems": 2}
            },
            "required": ["a", "z"],
            "type": "object"
        });
        let got = paths_and_keywords(schema, json!({"a": "ABC", "list": [1, -1, 2.5], "x": 1, "y": 2}));
        assert_eq!(
            got,
            vec![
                pk("", "additionalProperties"),
                pk("", "additionalProperties"),
                pk("/a", "maxLength"),
                pk("/a", "pattern"),
                pk("/list/1", "minimum"),
                pk("/list/2", "type"),
                pk("/list", "maxItems"),
                pk("", "required"),
            ]
        );
    }

    #[test]
    fn issue_paths_are_json_pointers_into_the_instance() {
        let schema = json!({
            "properties": {
                "a/b": {"properties": {"c~d": {"items": {"type": "string"}}}}
            }
        });
        assert_eq!(paths_and_keywords(schema, json!({"a/b": {"c~d": ["ok", 1]}})), vec![pk("/a~1b/c~0d/1", "type")]);
        assert_eq!(paths_and_keywords(json!({"type": "null"}), json!(0)), vec![pk("", "type")]);
        let issue = compile(json!({"minimum": 1})).validate(&json!(0)).unwrap_err();
        assert_eq!(
            serde_json::to_value(&issue).unwrap(),
            json!([{"path": "", "keyword": "minimum", "message": "must be greater than or equal to 1"}])
        );
    }

    #[test]
    fn messages_are_agent_safe() {
        let secret = "s3cr3t-value-from-the-agent";
        let cases = [
            (json!({"maxLength": 10}), json!(format!("{secret}!!")), "must be at most 10 characters"),
            (json!({"minLength": 1}), json!(""), "must be at least 1 character"),
            (json!({"type": ["string", "null"]}), json!(1), "must be a string or null"),
            (json!({"type": "integer"}), json!(1.5), "must be an integer"),
            (json!({"enum": ["a", 1, null]}), json!(secret), "must be one of: \"a\", 1, null"),
            (json!({"const": {"k": [1]}}), json!(secret), "must be {\"k\":[1]}"),
            (json!({"pattern": "^a"}), json!(secret), "must match the pattern \"^a\""),
            (json!({"format": "uuid"}), json!(secret), "must be a UUID (8-4-4-4-12 hexadecimal digits)"),
            (json!({"exclusiveMaximum": 1e21}), json!(1e22), "must be less than 1e+21"),
            (json!({"multipleOf": 0.5}), json!(0.3), "must be a multiple of 0.5"),
            (json!({"minItems": 2}), json!([secret]), "must have at least 2 items"),
            (
                json!({"uniqueItems": true}),
                json!([secret, 1, secret]),
                "must not contain duplicate items (items 0 and 2 are equal)",
            ),
        ];
        for (schema, instance, want) in cases {
            let got = compile(schema.clone()).validate(&instance).unwrap_err();
            assert_eq!(got.len(), 1, "{schema}");
            assert_eq!(got[0].message, want, "{schema}");
            assert!(!got[0].message.contains(secret));
        }
        // Long property names from the instance are shortened.
        let long = "k".repeat(500);
        let got = compile(json!({"additionalProperties": false})).validate(&json!({ long.clone(): 1 })).unwrap_err();
        assert!(got[0].message.len() < 150, "{}", got[0].message);
        // Long enums are not spelled out.
        let many: Vec<String> = (0..100).map(|i| format!("value-{i}")).collect();
        let got = compile(json!({"enum": many})).validate(&json!("x")).unwrap_err();
        assert_eq!(got[0].message, "must be one of the allowed values");
    }

    #[test]
    fn recursion_through_defs() {
        let tree = json!({
            "$defs": {
                "node": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "open": {"type": "boolean", "default": false},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
                    },
                    "required": ["name"],
                    "additionalProperties": false
                }
            },
            "$ref": "#/$defs/node"
        });
        let v = compile(tree);
        let input = json!({"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]});
        assert_eq!(
            v.validate(&input).unwrap(),
            json!({"name": "a", "open": false, "children": [
                {"name": "b", "open": false, "children": [{"name": "c", "open": false}]}
            ]})
        );
        assert_eq!(
            v.validate(&json!({"name": "a", "children": [{"children": [{"name": 1}]}]}))
                .unwrap_err()
                .iter()
                .map(|i| (i.path.as_str(), i.keyword.as_str()))
                .collect::<Vec<_>>(),
            vec![("/children/0/children/0/name", "type"), ("/children/0", "required")]
        );
        // Arbitrarily deep input stops at MAX_INSTANCE_DEPTH instead of exhausting the stack.
        let mut deep = json!({"name": "leaf"});
        for _ in 0..200 {
            deep = json!({"name": "n", "children": [deep]});
        }
        let got = v.validate(&deep).unwrap_err();
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].keyword, "$ref");
        assert!(got[0].message.contains("nested too deeply"));
        // 60 levels = 120 path segments, within the limit.
        let mut ok = json!({"name": "leaf"});
        for _ in 0..60 {
            ok = json!({"name": "n", "children": [ok]});
        }
        assert!(v.is_valid(&ok));
        // Worst case per level (anyOf + $ref + properties, with defaults so anyOf copies) at and
        // beyond the depth limit, on the 2 MiB test thread stack.
        let v = compile(json!({
            "$defs": {"n": {"anyOf": [
                {"type": "null"},
                {"type": "object", "properties": {"d": {"default": 0}, "c": {"$ref": "#/$defs/n"}}}
            ]}},
            "$ref": "#/$defs/n"
        }));
        let nest = |levels: usize| {
            let mut x = json!(null);
            for _ in 0..levels {
                x = json!({ "c": x });
            }
            x
        };
        assert!(v.is_valid(&nest(MAX_INSTANCE_DEPTH)));
        let got = v.validate(&nest(MAX_INSTANCE_DEPTH + 50)).unwrap_err();
        assert!(got.iter().any(|i| i.message.contains("nested too deeply")), "{got:?}");
        // Mutual recursion and refs to refs.
        let v = compile(json!({
            "$defs": {
                "a": {"$ref": "#/$defs/b"},
                "b": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#/$defs/a"}}]}
            },
            "$ref": "#/$defs/a"
        }));
        assert!(v.is_valid(&json!([1, [2, [3]]])));
        assert!(!v.is_valid(&json!([1, ["x"]])));
    }

    fn filter_schema() -> Value {
        let branch = |op: &str| {
            json!({"type": "object", "properties": {"op": {"const": op},
                "args": {"type": "array", "items": {"$ref": "#/$defs/f"}}},
                "required": ["op", "args"], "additionalProperties": false})
        };
        json!({"$defs": {"f": {"anyOf": [
            branch("and"),
            branch("or"),
            {"type": "object", "properties": {"op": {"const": "eq"}, "field": {"type": "string"}},
             "required": ["op", "field"], "additionalProperties": false}
        ]}}, "$ref": "#/$defs/f"})
    }

    #[test]
    fn recursive_discriminated_unions_cost_linear_time() {
        // Without the anyOf quick check this is 2^depth work and would exhaust the budget.
        let v = compile(filter_schema());
        let mut x = json!({"op": "eq", "field": "a"});
        for i in 0..60 {
            x = json!({"op": if i % 2 == 0 { "or" } else { "and" }, "args": [x, {"op": "eq", "field": "b"}]});
        }
        assert!(v.is_valid(&x));
        // A deep mistake is reported through the alternatives the input chose (its `op`), not
        // with every alternative's complaints.
        let x = json!({"op": "or", "args": [{"op": "and", "args": [{"op": "eq", "field": 1}]}]});
        let got: Vec<(String, String)> = v.validate(&x).unwrap_err().into_iter().map(|i| (i.path, i.keyword)).collect();
        assert_eq!(
            got,
            vec![
                pk("/args/0/args/0/field", "type"),
                pk("/args/0/args/0", "anyOf"),
                pk("/args/0", "anyOf"),
                pk("", "anyOf"),
            ]
        );
        // No alternative fits even superficially: the issues of those that fit best.
        let got: Vec<(String, String)> =
            v.validate(&json!({"op": "xor"})).unwrap_err().into_iter().map(|i| (i.path, i.keyword)).collect();
        assert_eq!(got.last(), Some(&pk("", "anyOf")));
        assert_eq!(got.iter().filter(|(_, k)| k == "const").count(), 3);
        let got = issues(json!({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer"}]}), json!("abcdef"));
        let messages: Vec<&str> = got.iter().map(|(_, _, m)| m.as_str()).collect();
        assert_eq!(
            messages,
            vec![
                "must be at most 3 characters",
                "must be an integer",
                "must match at least one of the allowed alternatives (anyOf)"
            ]
        );
    }

    #[test]
    fn pathological_unions_hit_the_budget_instead_of_hanging() {
        // Two alternatives that look alike until the bottom: inherently exponential.
        let alt = json!({"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}}});
        let v = compile(json!({"$defs": {"n": {"anyOf": [{"type": "null"}, alt, alt]}},
            "$ref": "#/$defs/n"}));
        let nest = |levels: usize, leaf: Value| {
            let mut x = leaf;
            for _ in 0..levels {
                x = json!({ "c": x });
            }
            x
        };
        assert!(v.is_valid(&nest(100, json!(null))));
        let started = std::time::Instant::now();
        let got = v.validate(&nest(60, json!(5))).unwrap_err();
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
        let last = got.last().unwrap();
        assert_eq!(last.keyword, "anyOf");
        assert!(last.message.contains("too complex"), "{got:?}");
    }

    #[test]
    fn long_chains_of_definitions() {
        // d0 -> d1 -> ... -> d399 -> {"type": "integer"}; compiled and evaluated in a 2 MiB
        // test thread without deep compile-time recursion.
        let mut defs = serde_json::Map::new();
        for i in 0..400 {
            defs.insert(format!("d{i}"), json!({"$ref": format!("#/$defs/d{}", i + 1)}));
        }
        defs.insert("d400".into(), json!({"type": "integer"}));
        let v = compile(json!({"$defs": defs, "$ref": "#/$defs/d0"}));
        assert!(v.is_valid(&json!(3)));
        assert!(!v.is_valid(&json!("3")));
    }

    #[test]
    fn refuses_ref_cycles_that_never_descend() {
        let limits = SchemaLimits::default();
        for schema in [
            json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
            json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}),
            json!({"$defs": {"a": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/a"}]}}}),
        ] {
            assert!(check_schema(&schema, &limits).is_empty(), "{schema}");
            let e = Validator::new(&schema, &limits).unwrap_err();
            assert!(
                e.iter().all(|v| matches!(&v.kind,
                    SchemaViolationKind::InvalidKeywordValue { keyword, .. } if keyword == "$ref")),
                "{e:#?}"
            );
            assert_eq!(e[0].pointer.last().map(String::as_str), Some("$ref"));
        }
    }

    #[test]
    fn deep_but_allowed_schemas() {
        // 8 levels (the default maximum): root object, then nested objects and arrays.
        let schema = json!({"type": "object", "properties": {"a": {"type": "array", "items":
            {"type": "object", "properties": {"b": {"type": "array", "items":
            {"type": "object", "properties": {"c": {"type": "array", "items":
            {"type": "object", "properties": {"d": {"type": "string", "default": "deep"}}}}}}}}}}}});
        assert!(check_schema(&schema, &SchemaLimits::default()).is_empty());
        let v = compile(schema);
        assert_eq!(
            v.validate(&json!({"a": [{"b": [{"c": [{}]}]}]})).unwrap(),
            json!({"a": [{"b": [{"c": [{"d": "deep"}]}]}]})
        );
        assert_eq!(v.validate(&json!({"a": [{"b": [{"c": [{"d": 1}]}]}]})).unwrap_err()[0].path, "/a/0/b/0/c/0/d");
    }

    #[test]
    fn patterns_use_ecmascript_unicode_mode() {
        let v = compile(json!({"pattern": "^\\p{Letter}+$"}));
        assert!(v.is_valid(&json!("héllo")));
        assert!(!v.is_valid(&json!("h3llo")));
        // Unanchored search; \d and \w are ASCII-only; . matches one code point.
        assert!(compile(json!({"pattern": "b+"})).is_valid(&json!("abbc")));
        assert!(!compile(json!({"pattern": "^\\d$"})).is_valid(&json!("\u{07C0}")));
        assert!(compile(json!({"pattern": "^.$"})).is_valid(&json!("🐲")));
        assert!(compile(json!({"pattern": "^\\p{Script=Greek}\\p{Nd}$"})).is_valid(&json!("π٣")));
        assert!(!compile(json!({"pattern": "^abc$"})).is_valid(&json!("abc\n")));
        // Valid without flags but not in Unicode mode: check_schema (registration and the
        // compiler) and the validator refuse them alike.
        let limits = SchemaLimits::default();
        for p in ["\\-", "a{", "\\_"] {
            let s = json!({"properties": {"x": {"pattern": p}}});
            assert!(!check_schema(&s, &limits).is_empty(), "{p}");
            let e = Validator::new(&s, &limits).unwrap_err();
            assert!(matches!(e[0].kind, SchemaViolationKind::InvalidPattern { .. }), "{p}");
            assert_eq!(e[0].json_pointer(), "/properties/x/pattern");
        }
    }

    #[test]
    fn types_and_numbers() {
        let int = compile(json!({"type": "integer"}));
        for ok in [json!(1), json!(1.0), json!(-0.0), json!(u64::MAX), json!(1e300)] {
            assert!(int.is_valid(&ok), "{ok}");
        }
        assert!(!int.is_valid(&json!(1.5)));
        assert!(!int.is_valid(&json!("1")));
        assert!(compile(json!({"type": "number"})).is_valid(&json!(3)));
        // Exact comparison across representations.
        assert!(!compile(json!({"maximum": 9007199254740992u64})).is_valid(&json!(9007199254740993u64)));
        assert!(compile(json!({"maximum": 9007199254740992.0})).is_valid(&json!(9007199254740992u64)));
        assert!(!compile(json!({"exclusiveMinimum": -1})).is_valid(&json!(-1.0)));
        assert_eq!(cmp_numbers(&Number::from(u64::MAX), &Number::from(-1)), Ordering::Greater);
        // multipleOf is exact on the decimal values.
        let cases = [
            (json!(0.0001), json!(0.0075), true),
            (json!(0.0001), json!(0.00751), false),
            (json!(0.1), json!(0.3), true),
            (json!(0.01), json!(19.99), true),
            (json!(1.5), json!(4.5), true),
            (json!(1.5), json!(35), false),
            (json!(2), json!(u64::MAX - 1), true),
            (json!(3), json!(u64::MAX), true),
            (json!(0.5), json!(1e308), true),
            (json!(0.123456789), json!(1e308), false),
            (json!(1e-8), json!(12391239123u64), true),
            (json!(7), json!(-14), true),
            (json!(7), json!(0), true),
            (json!(1e300), json!(1e-300), false),
        ];
        for (by, x, want) in cases {
            assert_eq!(compile(json!({"multipleOf": by})).is_valid(&x), want, "{x} multipleOf {by}");
        }
        assert!(is_json_number_safe(&Number::from(9007199254740992u64)));
        assert!(!is_json_number_safe(&Number::from(9007199254740993u64)));
        assert!(is_json_number_safe(&Number::from(1u64 << 60)));
        assert!(!is_json_number_safe(&Number::from(i64::MAX)));
        assert!(!is_json_number_safe(&Number::from(u64::MAX)));
        assert!(is_json_number_safe(&Number::from(i64::MIN)));
    }

    #[test]
    fn equality_and_uniqueness() {
        assert!(json_equal(&json!({"a": 1, "b": [1.0]}), &json!({"b": [1], "a": 1.0})));
        assert!(!json_equal(&json!([1, 2]), &json!([2, 1])));
        assert!(!json_equal(&json!(0), &json!(false)));
        assert!(!json_equal(&json!({"a": null}), &json!({})));
        let v = compile(json!({"uniqueItems": true}));
        assert!(v.is_valid(&json!([1, "1", [1], {"a": 1}, {"a": 2}, true])));
        assert!(!v.is_valid(&json!([{"a": 1, "b": 2}, {"b": 2, "a": 1}])));
        assert!(!v.is_valid(&json!([1, 1.0])));
        assert!(v.is_valid(&json!([9007199254740992u64, 9007199254740993u64])));
        assert!(compile(json!({"enum": [[1, {"x": 2.0}]]})).is_valid(&json!([1.0, {"x": 2}])));
        assert!(compile(json!({"const": 1})).is_valid(&json!(1.0)));
    }

    #[test]
    fn lengths_count_code_points() {
        let v = compile(json!({"maxLength": 2, "minLength": 2}));
        assert!(v.is_valid(&json!("💩💩")));
        assert!(v.is_valid(&json!("é\u{301}")));
        assert!(!v.is_valid(&json!("💩")));
    }

    #[test]
    fn formats() {
        let ok = |f: &str, s: &str| compile(json!({"format": f})).is_valid(&json!(s));
        assert!(ok("date-time", "2024-02-29T23:59:60Z"));
        assert!(ok("date-time", "2024-01-01t00:00:00.5+14:00"));
        assert!(ok("date-time", "2024-06-30T18:59:60-05:00"));
        assert!(!ok("date-time", "2024-06-30T23:59:60+01:00"));
        assert!(!ok("date-time", "2024-01-01T00:00:00"));
        assert!(!ok("date-time", "2024-01-01 00:00:00Z"));
        assert!(!ok("date-time", "2024-01-01T00:00:00.Z"));
        assert!(ok("date", "2000-02-29"));
        assert!(!ok("date", "1900-02-29"));
        assert!(!ok("date", "2024-1-01"));
        assert!(ok("uuid", "2EB8AA08-aa98-11ea-b4aa-73b441d16380"));
        assert!(!ok("uuid", "{2eb8aa08-aa98-11ea-b4aa-73b441d16380}"));
        assert!(ok("email", "a.b+tag@sub.example.org"));
        assert!(ok("email", "\"a b\"@example.org"));
        assert!(ok("email", "x@[IPv6:2001:db8::1]"));
        assert!(!ok("email", "a@b@c"));
        assert!(!ok("email", "a@-b.com"));
        assert!(!ok("email", "é@example.org"));
        assert!(ok("uri", "https://user:pw@example.com:8080/p/a%20th?q=1&r=/x?#frag/?"));
        assert!(!ok("uri", "https://example.com/?r[]=2"));
        assert!(ok("uri", "urn:isbn:0451450523"));
        assert!(ok("uri", "http://[v1.fe80::a+en1]/"));
        assert!(!ok("uri", "example.com/path"));
        assert!(!ok("uri", "https://example.com/%zz"));
        assert!(!ok("uri", "https://exa mple.com"));
        assert!(!ok("uri", "http://[1:2:3:4:5:6:7:8:9]/"));
        // Formats only constrain strings, and can be switched off for conformance testing.
        assert!(ok("date", "2024-01-01") && compile(json!({"format": "date"})).is_valid(&json!(5)));
        let annotation = Validator::with_options(
            &json!({"format": "date"}),
            &SchemaLimits::default(),
            ValidatorOptions::default().assert_formats(false),
        )
        .unwrap();
        assert!(annotation.is_valid(&json!("not a date")));
    }

    #[test]
    fn annotations_do_not_validate() {
        let v = compile(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "T", "description": "D", "examples": [1], "deprecated": true,
            "$defs": {"unused": {"type": "null"}},
            "additionalProperties": true, "uniqueItems": false
        }));
        for x in [json!(1), json!("s"), json!({"a": 1}), json!([1, 1]), json!(null)] {
            assert!(v.is_valid(&x), "{x}");
        }
    }
}
