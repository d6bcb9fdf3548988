//! The validator for the supported JSON Schema subset (spec: "Supported JSON Schema subset").
//!
//! [`crate::schema::check_schema`] decides which schemas are allowed; this module checks JSON
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
//! use agent_surface_runtime::limits::AgentSurfaceLimits;
//! use agent_surface_runtime::validate::Validator;
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
//! let validator = Validator::new(&schema, &AgentSurfaceLimits::default()).unwrap();
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

use crate::canonical::canonical_json;
use crate::limits::AgentSurfaceLimits;
use crate::schema::{check_schema, SchemaViolation, SchemaViolationKind, LOCAL_REF_PREFIX};
use serde::Serialize;
use serde_json::{Number, Value};
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
        ValidatorOptions {
            assert_formats: true,
        }
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
    pub fn new(
        schema: &Value,
        limits: &AgentSurfaceLimits,
    ) -> Result<Validator, Vec<SchemaViolation>> {
        Self::with_options(schema, limits, ValidatorOptions::default())
    }

    /// [`Validator::new`] with explicit [`ValidatorOptions`].
    pub fn with_options(
        schema: &Value,
        limits: &AgentSurfaceLimits,
        options: ValidatorOptions,
    ) -> Result<Validator, Vec<SchemaViolation>> {
        let violations = check_schema(schema, limits);
        if !violations.is_empty() {
            return Err(violations);
        }
        let compiled = Compiler::compile(schema, options)?;
        Ok(Validator {
            inner: Arc::new(compiled),
        })
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
    pub fn validate(&self, instance: &Value) -> Result<Value, Vec<ValidationIssue>> {
        self.validate_owned(instance.clone())
    }

    /// [`Validator::validate`] for a value the caller owns: no copy is made. The value is
    /// consumed either way.
    pub fn validate_owned(&self, mut instance: Value) -> Result<Value, Vec<ValidationIssue>> {
        let inner = &*self.inner;
        let mut issues = Vec::new();
        let mut run = Run {
            path: Vec::new(),
            budget: inner.budget_for(&instance),
            exhausted_at: None,
        };
        inner.eval(inner.root, &mut instance, &mut run, &mut issues);
        if let Some(path) = run.exhausted_at {
            // Sticky: work cut short may have let a branch look valid, so the run fails.
            issues.push(ValidationIssue {
                path,
                keyword: "anyOf".into(),
                message: "is too complex to validate against this schema (evaluation budget \
                          exhausted)"
                    .into(),
            });
        }
        if issues.is_empty() {
            Ok(instance)
        } else {
            Err(issues)
        }
    }

    /// `true` if `instance` is valid (defaults count as applied, as in [`Validator::validate`]).
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validate(instance).is_ok()
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

enum Keyword {
    /// Type bits plus the names in schema order (for the message).
    Type(u8, Vec<&'static str>),
    Enum(Vec<Value>),
    Const(Value),
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
    Pattern(Box<regress::Regex>, String),
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
}

#[derive(Default)]
struct Node {
    /// Keywords in document order (annotations and `$defs` omitted).
    keywords: Vec<Keyword>,
    /// `(property, default)` for each `properties` subschema carrying `default`.
    defaults: Vec<(String, Value)>,
    /// Some keyword is `$ref` or `anyOf`: evaluate those first (see [`Compiled::eval`]).
    has_applicators: bool,
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

/// Non-negative integer keyword values (check_schema accepted them, so integral and >= 0).
fn as_count(v: &Value) -> u64 {
    v.as_u64()
        .or_else(|| v.as_f64().map(|f| f as u64))
        .unwrap_or(0)
}

impl<'a> Compiler<'a> {
    fn compile(
        schema: &'a Value,
        options: ValidatorOptions,
    ) -> Result<Compiled, Vec<SchemaViolation>> {
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
        let has_defaults = c.nodes.iter().any(|n| !n.defaults.is_empty());
        let defaulted_names = c
            .nodes
            .iter()
            .flat_map(|n| n.defaults.iter().map(|(name, _)| name.clone()))
            .collect();
        Ok(Compiled {
            schema: schema.clone(),
            options,
            nodes: c.nodes,
            root,
            has_defaults,
            defaulted_names,
        })
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
        let property_names: Vec<String> = obj
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        for (key, value) in obj {
            ptr.push(key.clone());
            if let Some(kw) = self.keyword(key, value, &property_names, ptr, &mut node) {
                if let Keyword::Ref(_) = kw {
                    self.ref_pointers
                        .insert((id, node.keywords.len()), ptr.clone());
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
                Keyword::Type(bits, statics)
            }
            "enum" => Keyword::Enum(value.as_array().cloned().unwrap_or_default()),
            "const" => Keyword::Const(value.clone()),
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
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str().map(String::from))
                            .collect()
                    })
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
                match regress::Regex::with_flags(source, "u") {
                    Ok(re) => Keyword::Pattern(Box::new(re), source.to_string()),
                    Err(e) => {
                        self.violations.push(SchemaViolation {
                            pointer: ptr.clone(),
                            kind: SchemaViolationKind::InvalidPattern {
                                pattern: source.to_string(),
                                error: e.text.clone(),
                            },
                            message: format!(
                                "\"pattern\" is not a valid ECMAScript regular expression in \
                                 Unicode mode (the `u` flag JSON Schema patterns use): {}",
                                e.text
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
            let pointer = self
                .ref_pointers
                .get(&(node, kw_index))
                .cloned()
                .unwrap_or_default();
            let reference = match &self.nodes[node].keywords[kw_index] {
                Keyword::Ref(target) => self
                    .defs
                    .iter()
                    .find(|(_, id)| *id == target)
                    .map(|(name, _)| name.clone())
                    .unwrap_or_default(),
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
    let mut out = String::new();
    for seg in path {
        out.push('/');
        match seg {
            Seg::Key(k) => out.push_str(&k.replace('~', "~0").replace('/', "~1")),
            Seg::Index(i) => out.push_str(&i.to_string()),
        }
    }
    out
}

fn issue(path: &[Seg<'_>], keyword: &str, message: String) -> ValidationIssue {
    ValidationIssue {
        path: pointer(path),
        keyword: keyword.to_string(),
        message,
    }
}

/// State of one validation run.
struct Run<'s> {
    /// Pointer segments from the instance root to the value being checked.
    path: Vec<Seg<'s>>,
    /// Node evaluations left (see [`Compiled::budget_for`]).
    budget: u64,
    /// Where the budget ran out, if it did.
    exhausted_at: Option<String>,
}

impl Run<'_> {
    /// Takes one unit of work; `false` once the budget is spent.
    fn spend(&mut self) -> bool {
        if self.budget == 0 {
            if self.exhausted_at.is_none() {
                self.exhausted_at = Some(pointer(&self.path));
            }
            return false;
        }
        self.budget -= 1;
        true
    }
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
    /// Work allowed for one run: generous for any sensible evaluation (each schema node applied
    /// to each instance value a few times), but it stops the exponential blow-up that nested
    /// `anyOf`s with several recursive alternatives could otherwise cause on hostile input.
    fn budget_for(&self, instance: &Value) -> u64 {
        let nodes = self.nodes.len().max(1) as u64;
        10_000u64.saturating_add(
            value_count(instance)
                .saturating_mul(nodes)
                .saturating_mul(4),
        )
    }

    /// Applies node `id` to `value`, appending issues to `out`.
    ///
    /// Order within a node: (1) the node's own property defaults are inserted into an object
    /// value; (2) `$ref` and `anyOf` run (they may insert further defaults); (3) every other
    /// keyword runs, so `required` sees all defaults. Issues are nevertheless emitted in the
    /// keywords' document order.
    fn eval<'s>(
        &'s self,
        id: NodeId,
        value: &mut Value,
        run: &mut Run<'s>,
        out: &mut Vec<ValidationIssue>,
    ) {
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

    /// Leaf assertions (no recursion).
    #[inline(never)]
    fn assert(
        &self,
        kw: &Keyword,
        value: &Value,
        path: &[Seg<'_>],
        out: &mut Vec<ValidationIssue>,
    ) {
        match kw {
            Keyword::Type(bits, names) => {
                if !has_type(value, *bits) {
                    out.push(issue(
                        path,
                        "type",
                        format!("must be {}", type_phrase(names)),
                    ));
                }
            }
            Keyword::Enum(values) => {
                if !values.iter().any(|v| json_equal(v, value)) {
                    let listed = values
                        .iter()
                        .map(canonical_json)
                        .collect::<Vec<_>>()
                        .join(", ");
                    let message = if listed.chars().count() <= 200 {
                        format!("must be one of: {listed}")
                    } else {
                        "must be one of the allowed values".to_string()
                    };
                    out.push(issue(path, "enum", message));
                }
            }
            Keyword::Const(c) => {
                if !json_equal(c, value) {
                    let text = canonical_json(c);
                    let message = if text.chars().count() <= 200 {
                        format!("must be {text}")
                    } else {
                        "must be the value the schema specifies".to_string()
                    };
                    out.push(issue(path, "const", message));
                }
            }
            Keyword::Required(names) => {
                if let Value::Object(map) = value {
                    for name in names {
                        if !map.contains_key(name) {
                            out.push(issue(
                                path,
                                "required",
                                format!("must have the required property {}", quote(name)),
                            ));
                        }
                    }
                }
            }
            Keyword::NoAdditionalProperties(allowed) => {
                if let Value::Object(map) = value {
                    for key in map.keys() {
                        if !allowed.iter().any(|a| a == key) {
                            out.push(issue(
                                path,
                                "additionalProperties",
                                format!(
                                    "must not have the property {} (unknown property)",
                                    quote(key)
                                ),
                            ));
                        }
                    }
                }
            }
            Keyword::MinItems(n) => {
                if let Value::Array(items) = value {
                    if (items.len() as u64) < *n {
                        out.push(issue(
                            path,
                            "minItems",
                            format!("must have at least {}", count(*n, "item")),
                        ));
                    }
                }
            }
            Keyword::MaxItems(n) => {
                if let Value::Array(items) = value {
                    if items.len() as u64 > *n {
                        out.push(issue(
                            path,
                            "maxItems",
                            format!("must have at most {}", count(*n, "item")),
                        ));
                    }
                }
            }
            Keyword::UniqueItems => {
                if let Value::Array(items) = value {
                    if let Some((a, b)) = first_duplicate(items) {
                        out.push(issue(
                            path,
                            "uniqueItems",
                            format!(
                                "must not contain duplicate items (items {a} and {b} are equal)"
                            ),
                        ));
                    }
                }
            }
            Keyword::MinLength(n) => {
                if let Value::String(s) = value {
                    if (s.chars().count() as u64) < *n {
                        out.push(issue(
                            path,
                            "minLength",
                            format!("must be at least {}", count(*n, "character")),
                        ));
                    }
                }
            }
            Keyword::MaxLength(n) => {
                if let Value::String(s) = value {
                    if s.chars().count() as u64 > *n {
                        out.push(issue(
                            path,
                            "maxLength",
                            format!("must be at most {}", count(*n, "character")),
                        ));
                    }
                }
            }
            Keyword::Pattern(re, source) => {
                if let Value::String(s) = value {
                    if re.find(s).is_none() {
                        out.push(issue(
                            path,
                            "pattern",
                            format!("must match the pattern {}", quote(source)),
                        ));
                    }
                }
            }
            Keyword::Format(f) => {
                if let (true, Value::String(s)) = (self.options.assert_formats, value) {
                    if !check_format(*f, s) {
                        out.push(issue(path, "format", format_message(*f).to_string()));
                    }
                }
            }
            Keyword::Minimum(m) => self.bound(
                value,
                m,
                path,
                out,
                "minimum",
                |o| o != Ordering::Less,
                "greater than or equal to",
            ),
            Keyword::Maximum(m) => self.bound(
                value,
                m,
                path,
                out,
                "maximum",
                |o| o != Ordering::Greater,
                "less than or equal to",
            ),
            Keyword::ExclusiveMinimum(m) => self.bound(
                value,
                m,
                path,
                out,
                "exclusiveMinimum",
                |o| o == Ordering::Greater,
                "greater than",
            ),
            Keyword::ExclusiveMaximum(m) => self.bound(
                value,
                m,
                path,
                out,
                "exclusiveMaximum",
                |o| o == Ordering::Less,
                "less than",
            ),
            Keyword::MultipleOf(n, d) => {
                if let Value::Number(x) = value {
                    if !Decimal::of(x).is_multiple_of(d) {
                        out.push(issue(
                            path,
                            "multipleOf",
                            format!("must be a multiple of {}", number_text(n)),
                        ));
                    }
                }
            }
            Keyword::Properties(_) | Keyword::Items(_) | Keyword::AnyOf(_) | Keyword::Ref(_) => {}
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn bound(
        &self,
        value: &Value,
        limit: &Number,
        path: &[Seg<'_>],
        out: &mut Vec<ValidationIssue>,
        keyword: &str,
        ok: impl Fn(Ordering) -> bool,
        relation: &str,
    ) {
        if let Value::Number(x) = value {
            if !ok(cmp_numbers(x, limit)) {
                out.push(issue(
                    path,
                    keyword,
                    format!("must be {relation} {}", number_text(limit)),
                ));
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
        if candidates.is_empty() {
            let fewest = rejected.iter().map(Vec::len).min().unwrap_or(0);
            out.extend(rejected.into_iter().filter(|r| r.len() == fewest).flatten());
        } else {
            out.extend(failed);
        }
        out.push(issue(
            &run.path,
            "anyOf",
            "must match at least one of the allowed alternatives (anyOf)".into(),
        ));
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
                                out.push(issue(
                                    &run.path,
                                    "required",
                                    format!("must have the required property {}", quote(name)),
                                ));
                            }
                        }
                    }
                }
                Keyword::Enum(_) | Keyword::Const(_) | Keyword::UniqueItems
                    if self.has_defaults && (value.is_object() || value.is_array()) => {}
                _ => self.assert(kw, value, &run.path, out),
            }
        }
    }
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
    n.is_i64()
        || n.is_u64()
        || n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
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
    const MAX: usize = 64;
    if s.chars().count() <= MAX {
        canonical_json(&Value::String(s.to_string()))
    } else {
        let short: String = s.chars().take(MAX).collect();
        let text = canonical_json(&Value::String(short));
        format!("{}…\"", &text[..text.len() - 1])
    }
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
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
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
        Num::Float(
            n.as_f64()
                .or_else(|| n.to_string().parse().ok())
                .unwrap_or(f64::NAN),
        )
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
    match (num(a), num(b)) {
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
            return Decimal {
                mantissa: 0,
                exponent: 0,
            };
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

// ---------------------------------------------------------------------------------------------
// Formats
// ---------------------------------------------------------------------------------------------

fn format_message(f: Format) -> &'static str {
    match f {
        Format::DateTime => {
            "must be a date-time (RFC 3339, e.g. \"2024-01-31T09:30:00Z\" or \"2024-01-31T09:30:00+01:00\")"
        }
        Format::Date => "must be a date (RFC 3339 full-date YYYY-MM-DD, e.g. \"2024-01-31\")",
        Format::Uuid => "must be a UUID (8-4-4-4-12 hexadecimal digits)",
        Format::Email => "must be an email address",
        Format::Uri => "must be an absolute URI with a scheme (e.g. \"https://example.com/a\")",
    }
}

fn check_format(f: Format, s: &str) -> bool {
    match f {
        Format::DateTime => is_date_time(s),
        Format::Date => is_date(s),
        Format::Uuid => is_uuid(s),
        Format::Email => is_email(s),
        Format::Uri => is_uri(s),
    }
}

fn ascii_number(b: &[u8]) -> Option<u32> {
    if b.is_empty() || b.len() > 9 || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(b.iter().fold(0, |acc, d| acc * 10 + u32::from(d - b'0')))
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

/// RFC 3339 `full-date`: `YYYY-MM-DD` with real month and day ranges (proleptic Gregorian).
fn parse_date(b: &[u8]) -> bool {
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (
        ascii_number(&b[0..4]),
        ascii_number(&b[5..7]),
        ascii_number(&b[8..10]),
    ) else {
        return false;
    };
    (1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m)
}

/// `date` format: RFC 3339 `full-date`.
pub fn is_date(s: &str) -> bool {
    parse_date(s.as_bytes())
}

/// `date-time` format: RFC 3339 `date-time` (`T`/`Z` case-insensitive, fraction optional,
/// offset `Z` or `±HH:MM`). A leap second (`:60`) is accepted only at 23:59 UTC.
pub fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 20 || !parse_date(&b[..10]) || !matches!(b[10], b'T' | b't') {
        return false;
    }
    let t = &b[11..];
    if t[2] != b':' || t[5] != b':' {
        return false;
    }
    let (Some(hh), Some(mm), Some(ss)) = (
        ascii_number(&t[0..2]),
        ascii_number(&t[3..5]),
        ascii_number(&t[6..8]),
    ) else {
        return false;
    };
    if hh > 23 || mm > 59 || ss > 60 {
        return false;
    }
    let mut rest = &t[8..];
    if rest.first() == Some(&b'.') {
        let digits = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return false;
        }
        rest = &rest[1 + digits..];
    }
    // Offset in minutes east of UTC.
    let offset: i64 = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let (Some(oh), Some(om)) = (ascii_number(&[*h1, *h2]), ascii_number(&[*m1, *m2]))
            else {
                return false;
            };
            if oh > 23 || om > 59 {
                return false;
            }
            let minutes = i64::from(oh * 60 + om);
            if *sign == b'+' {
                minutes
            } else {
                -minutes
            }
        }
        _ => return false,
    };
    if ss == 60 {
        let utc = (i64::from(hh * 60 + mm) - offset).rem_euclid(24 * 60);
        if utc != 23 * 60 + 59 {
            return false;
        }
    }
    true
}

/// `uuid` format: `8-4-4-4-12` hexadecimal digits, any case, any version or variant.
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// RFC 3986 `dec-octet` dotted quad (no leading zeros).
fn is_ipv4(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|c| c.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
                && p.parse::<u16>().is_ok_and(|v| v <= 255)
        })
}

/// RFC 3986 `IPv6address` (an embedded IPv4 part must be a strict dotted quad).
fn is_ipv6(s: &str) -> bool {
    fn groups(part: &str, ipv4_last: bool) -> Option<usize> {
        if part.is_empty() {
            return Some(0);
        }
        let pieces: Vec<&str> = part.split(':').collect();
        let mut n = 0;
        for (i, p) in pieces.iter().enumerate() {
            if i + 1 == pieces.len() && ipv4_last && p.contains('.') {
                if !is_ipv4(p) {
                    return None;
                }
                n += 2;
            } else if (1..=4).contains(&p.len()) && p.bytes().all(|c| c.is_ascii_hexdigit()) {
                n += 1;
            } else {
                return None;
            }
        }
        Some(n)
    }
    match s.find("::") {
        Some(i) => {
            let (head, tail) = (&s[..i], &s[i + 2..]);
            if tail.contains("::") {
                return false;
            }
            matches!((groups(head, false), groups(tail, true)), (Some(h), Some(t)) if h + t <= 7)
        }
        None => groups(s, true) == Some(8),
    }
}

fn is_unreserved(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~')
}

fn is_sub_delim(c: u8) -> bool {
    matches!(
        c,
        b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
    )
}

/// Every byte is `allowed` or part of a `%HH` escape.
fn all_uri_chars(s: &[u8], allowed: impl Fn(u8) -> bool) -> bool {
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' {
            if i + 2 >= s.len() || !(s[i + 1].is_ascii_hexdigit() && s[i + 2].is_ascii_hexdigit()) {
                return false;
            }
            i += 3;
        } else if allowed(s[i]) {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

fn is_pchar(c: u8) -> bool {
    is_unreserved(c) || is_sub_delim(c) || c == b':' || c == b'@'
}

/// `uri` format: an absolute URI per RFC 3986 (`scheme ":" hier-part ["?" query] ["#"
/// fragment]`); ASCII only (an IRI needs `iri`, which the subset does not support).
pub fn is_uri(s: &str) -> bool {
    if !s.is_ascii() {
        return false;
    }
    let b = s.as_bytes();
    let Some(colon) = b.iter().position(|&c| c == b':') else {
        return false;
    };
    let scheme = &b[..colon];
    if scheme.is_empty()
        || !scheme[0].is_ascii_alphabetic()
        || !scheme
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
    {
        return false;
    }
    let mut rest = &b[colon + 1..];
    if let Some(hash) = rest.iter().position(|&c| c == b'#') {
        if !all_uri_chars(&rest[hash + 1..], |c| is_pchar(c) || c == b'/' || c == b'?') {
            return false;
        }
        rest = &rest[..hash];
    }
    if let Some(q) = rest.iter().position(|&c| c == b'?') {
        if !all_uri_chars(&rest[q + 1..], |c| is_pchar(c) || c == b'/' || c == b'?') {
            return false;
        }
        rest = &rest[..q];
    }
    let path = if let Some(after) = rest.strip_prefix(b"//") {
        let end = after.iter().position(|&c| c == b'/').unwrap_or(after.len());
        if !is_authority(&after[..end]) {
            return false;
        }
        &after[end..]
    } else {
        rest
    };
    all_uri_chars(path, |c| is_pchar(c) || c == b'/')
}

/// RFC 3986 `authority = [ userinfo "@" ] host [ ":" port ]`.
fn is_authority(a: &[u8]) -> bool {
    let (userinfo, hostport) = match a.iter().position(|&c| c == b'@') {
        Some(at) => (Some(&a[..at]), &a[at + 1..]),
        None => (None, a),
    };
    if let Some(u) = userinfo {
        if !all_uri_chars(u, |c| is_unreserved(c) || is_sub_delim(c) || c == b':') {
            return false;
        }
    }
    let (host_ok, port) = if hostport.first() == Some(&b'[') {
        let Some(close) = hostport.iter().position(|&c| c == b']') else {
            return false;
        };
        let literal = std::str::from_utf8(&hostport[1..close]).unwrap_or("");
        let after = &hostport[close + 1..];
        let port = match after {
            [] => &[][..],
            [b':', port @ ..] => port,
            _ => return false,
        };
        (is_ipv6(literal) || is_ipv_future(literal), port)
    } else {
        let (host, port) = match hostport.iter().position(|&c| c == b':') {
            Some(c) => (&hostport[..c], &hostport[c + 1..]),
            None => (hostport, &[][..]),
        };
        (
            all_uri_chars(host, |c| is_unreserved(c) || is_sub_delim(c)),
            port,
        )
    };
    host_ok && port.iter().all(u8::is_ascii_digit)
}

/// RFC 3986 `IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )`.
fn is_ipv_future(s: &str) -> bool {
    let b = s.as_bytes();
    if !matches!(b.first(), Some(b'v' | b'V')) {
        return false;
    }
    let Some(dot) = b.iter().position(|&c| c == b'.') else {
        return false;
    };
    let hex = &b[1..dot];
    let tail = &b[dot + 1..];
    !hex.is_empty()
        && hex.iter().all(u8::is_ascii_hexdigit)
        && !tail.is_empty()
        && tail
            .iter()
            .all(|&c| is_unreserved(c) || is_sub_delim(c) || c == b':')
}

/// RFC 5322 `atext`.
fn is_atext(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~".contains(&c)
}

/// `email` format: RFC 5321 `Mailbox`. The local part is a dot-atom (no leading, trailing or
/// doubled dot) or a quoted string; the domain is a hostname (labels of letters, digits and
/// inner hyphens) or an address literal `[IPv4]` / `[IPv6:...]`. ASCII only (`idn-email` is
/// not in the subset).
pub fn is_email(s: &str) -> bool {
    let b = s.as_bytes();
    if !s.is_ascii() || b.is_empty() {
        return false;
    }
    // Local part.
    let domain_start = if b[0] == b'"' {
        let mut i = 1;
        loop {
            match b.get(i) {
                None => return false,
                Some(b'"') => break,
                Some(b'\\') => {
                    if !b.get(i + 1).is_some_and(|c| (32..=126).contains(c)) {
                        return false;
                    }
                    i += 2;
                }
                Some(c) if (32..=126).contains(c) => i += 1,
                Some(_) => return false,
            }
        }
        // b[i] is the closing quote.
        if b.get(i + 1) != Some(&b'@') || i + 1 > 64 {
            return false;
        }
        i + 2
    } else {
        let Some(at) = b.iter().position(|&c| c == b'@') else {
            return false;
        };
        let local = &b[..at];
        if local.is_empty()
            || local.len() > 64
            || !local
                .split(|&c| c == b'.')
                .all(|atom| !atom.is_empty() && atom.iter().all(|&c| is_atext(c)))
        {
            return false;
        }
        at + 1
    };
    let domain = &s[domain_start..];
    if let Some(literal) = domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        return match literal.strip_prefix("IPv6:") {
            Some(v6) => is_ipv6(v6),
            None => is_email_ipv4(literal),
        };
    }
    is_hostname(domain)
}

/// RFC 5321 `IPv4-address-literal` (`Snum` is 1 to 3 digits up to 255).
fn is_email_ipv4(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            (1..=3).contains(&p.len())
                && p.bytes().all(|c| c.is_ascii_digit())
                && p.parse::<u16>().is_ok_and(|v| v <= 255)
        })
}

/// Dot-separated labels of 1 to 63 letters, digits and hyphens, not starting or ending with a
/// hyphen; at most 253 characters.
fn is_hostname(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|label| {
            let l = label.as_bytes();
            (1..=63).contains(&l.len())
                && l.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'-')
                && l[0] != b'-'
                && l[l.len() - 1] != b'-'
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn compile(schema: Value) -> Validator {
        Validator::new(&schema, &AgentSurfaceLimits::default())
            .unwrap_or_else(|e| panic!("schema refused: {e:#?}"))
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
        issues(schema, instance)
            .into_iter()
            .map(|(p, k, _)| (p, k))
            .collect()
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
        let e =
            Validator::new(&json!({"oneOf": [{}]}), &AgentSurfaceLimits::default()).unwrap_err();
        assert_eq!(
            e[0].kind,
            SchemaViolationKind::UnsupportedKeyword {
                keyword: "oneOf".into()
            }
        );
        let limits = AgentSurfaceLimits {
            max_schema_depth: 1,
            ..Default::default()
        };
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
        assert_eq!(
            out,
            json!({"name": "given", "mode": "replace", "tags": ["a", {"b": 1}]})
        );
        // Present values are never overridden, the input is never modified, and each result
        // gets its own deep copy of the default.
        assert_eq!(input, json!({"name": "given"}));
        let mut again = v.validate(&json!({})).unwrap();
        again["tags"][1]["b"] = json!(2);
        assert_eq!(v.validate(&json!({})).unwrap()["tags"][1]["b"], json!(1));
        // A present null is a value, not a missing property.
        assert_eq!(
            v.validate(&json!({"mode": null})).unwrap_err()[0].path,
            "/mode"
        );
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
        assert_eq!(
            v.validate(&json!({})).unwrap(),
            json!({"page": {"size": 20}})
        );
        assert_eq!(
            v.validate(&json!({"page": {"sort": {}}, "items": [{}, {"qty": 5}]}))
                .unwrap(),
            json!({"page": {"size": 20, "sort": {"dir": "asc"}}, "items": [{"qty": 1}, {"qty": 5}]})
        );
        // Without a default, required still fails.
        let v = compile(json!({"properties": {"a": {}}, "required": ["a"]}));
        assert_eq!(
            issues(
                json!({"properties": {"a": {}}, "required": ["a"]}),
                json!({})
            ),
            vec![(
                "".to_string(),
                "required".to_string(),
                "must have the required property \"a\"".to_string()
            )]
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
        assert_eq!(
            v.validate(&json!({"kind": "rect", "h": 9})).unwrap(),
            json!({"kind": "rect", "w": 2, "h": 9})
        );
        assert_eq!(
            v.validate(&json!({"kind": "circle"})).unwrap(),
            json!({"kind": "circle", "r": 1})
        );
        // No branch matches: every branch's issues, then the anyOf issue; no defaults leak.
        let got = v.validate(&json!({"kind": "hexagon"})).unwrap_err();
        let got: Vec<(&str, &str)> = got
            .iter()
            .map(|i| (i.path.as_str(), i.keyword.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![("/kind", "const"), ("/kind", "const"), ("", "anyOf")]
        );
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
        let got = paths_and_keywords(
            schema,
            json!({"a": "ABC", "list": [1, -1, 2.5], "x": 1, "y": 2}),
        );
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
        assert_eq!(
            paths_and_keywords(schema, json!({"a/b": {"c~d": ["ok", 1]}})),
            vec![pk("/a~1b/c~0d/1", "type")]
        );
        assert_eq!(
            paths_and_keywords(json!({"type": "null"}), json!(0)),
            vec![pk("", "type")]
        );
        let issue = compile(json!({"minimum": 1}))
            .validate(&json!(0))
            .unwrap_err();
        assert_eq!(
            serde_json::to_value(&issue).unwrap(),
            json!([{"path": "", "keyword": "minimum", "message": "must be greater than or equal to 1"}])
        );
    }

    #[test]
    fn messages_are_agent_safe() {
        let secret = "s3cr3t-value-from-the-agent";
        let cases = [
            (
                json!({"maxLength": 10}),
                json!(format!("{secret}!!")),
                "must be at most 10 characters",
            ),
            (
                json!({"minLength": 1}),
                json!(""),
                "must be at least 1 character",
            ),
            (
                json!({"type": ["string", "null"]}),
                json!(1),
                "must be a string or null",
            ),
            (json!({"type": "integer"}), json!(1.5), "must be an integer"),
            (
                json!({"enum": ["a", 1, null]}),
                json!(secret),
                "must be one of: \"a\", 1, null",
            ),
            (
                json!({"const": {"k": [1]}}),
                json!(secret),
                "must be {\"k\":[1]}",
            ),
            (
                json!({"pattern": "^a"}),
                json!(secret),
                "must match the pattern \"^a\"",
            ),
            (
                json!({"format": "uuid"}),
                json!(secret),
                "must be a UUID (8-4-4-4-12 hexadecimal digits)",
            ),
            (
                json!({"exclusiveMaximum": 1e21}),
                json!(1e22),
                "must be less than 1e+21",
            ),
            (
                json!({"multipleOf": 0.5}),
                json!(0.3),
                "must be a multiple of 0.5",
            ),
            (
                json!({"minItems": 2}),
                json!([secret]),
                "must have at least 2 items",
            ),
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
        let got = compile(json!({"additionalProperties": false}))
            .validate(&json!({ long.clone(): 1 }))
            .unwrap_err();
        assert!(got[0].message.len() < 150, "{}", got[0].message);
        // Long enums are not spelled out.
        let many: Vec<String> = (0..100).map(|i| format!("value-{i}")).collect();
        let got = compile(json!({"enum": many}))
            .validate(&json!("x"))
            .unwrap_err();
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
            vec![
                ("/children/0/children/0/name", "type"),
                ("/children/0", "required")
            ]
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
        assert!(
            got.iter().any(|i| i.message.contains("nested too deeply")),
            "{got:?}"
        );
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
        let got: Vec<(String, String)> = v
            .validate(&x)
            .unwrap_err()
            .into_iter()
            .map(|i| (i.path, i.keyword))
            .collect();
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
        let got: Vec<(String, String)> = v
            .validate(&json!({"op": "xor"}))
            .unwrap_err()
            .into_iter()
            .map(|i| (i.path, i.keyword))
            .collect();
        assert_eq!(got.last(), Some(&pk("", "anyOf")));
        assert_eq!(got.iter().filter(|(_, k)| k == "const").count(), 3);
        let got = issues(
            json!({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer"}]}),
            json!("abcdef"),
        );
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
        let v = compile(
            json!({"$defs": {"n": {"anyOf": [{"type": "null"}, alt, alt]}},
            "$ref": "#/$defs/n"}),
        );
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
            defs.insert(
                format!("d{i}"),
                json!({"$ref": format!("#/$defs/d{}", i + 1)}),
            );
        }
        defs.insert("d400".into(), json!({"type": "integer"}));
        let v = compile(json!({"$defs": defs, "$ref": "#/$defs/d0"}));
        assert!(v.is_valid(&json!(3)));
        assert!(!v.is_valid(&json!("3")));
    }

    #[test]
    fn refuses_ref_cycles_that_never_descend() {
        let limits = AgentSurfaceLimits::default();
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
        assert!(check_schema(&schema, &AgentSurfaceLimits::default()).is_empty());
        let v = compile(schema);
        assert_eq!(
            v.validate(&json!({"a": [{"b": [{"c": [{}]}]}]})).unwrap(),
            json!({"a": [{"b": [{"c": [{"d": "deep"}]}]}]})
        );
        assert_eq!(
            v.validate(&json!({"a": [{"b": [{"c": [{"d": 1}]}]}]}))
                .unwrap_err()[0]
                .path,
            "/a/0/b/0/c/0/d"
        );
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
        let limits = AgentSurfaceLimits::default();
        for p in ["\\-", "a{", "\\_"] {
            let s = json!({"properties": {"x": {"pattern": p}}});
            assert!(!check_schema(&s, &limits).is_empty(), "{p}");
            let e = Validator::new(&s, &limits).unwrap_err();
            assert!(
                matches!(e[0].kind, SchemaViolationKind::InvalidPattern { .. }),
                "{p}"
            );
            assert_eq!(e[0].json_pointer(), "/properties/x/pattern");
        }
    }

    #[test]
    fn types_and_numbers() {
        let int = compile(json!({"type": "integer"}));
        for ok in [
            json!(1),
            json!(1.0),
            json!(-0.0),
            json!(u64::MAX),
            json!(1e300),
        ] {
            assert!(int.is_valid(&ok), "{ok}");
        }
        assert!(!int.is_valid(&json!(1.5)));
        assert!(!int.is_valid(&json!("1")));
        assert!(compile(json!({"type": "number"})).is_valid(&json!(3)));
        // Exact comparison across representations.
        assert!(
            !compile(json!({"maximum": 9007199254740992u64})).is_valid(&json!(9007199254740993u64))
        );
        assert!(
            compile(json!({"maximum": 9007199254740992.0})).is_valid(&json!(9007199254740992u64))
        );
        assert!(!compile(json!({"exclusiveMinimum": -1})).is_valid(&json!(-1.0)));
        assert_eq!(
            cmp_numbers(&Number::from(u64::MAX), &Number::from(-1)),
            Ordering::Greater
        );
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
            assert_eq!(
                compile(json!({"multipleOf": by})).is_valid(&x),
                want,
                "{x} multipleOf {by}"
            );
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
        assert!(json_equal(
            &json!({"a": 1, "b": [1.0]}),
            &json!({"b": [1], "a": 1.0})
        ));
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
        assert!(ok(
            "uri",
            "https://user:pw@example.com:8080/p/a%20th?q=1&r=/x?#frag/?"
        ));
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
            &AgentSurfaceLimits::default(),
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
        for x in [
            json!(1),
            json!("s"),
            json!({"a": 1}),
            json!([1, 1]),
            json!(null),
        ] {
            assert!(v.is_valid(&x), "{x}");
        }
    }
}
