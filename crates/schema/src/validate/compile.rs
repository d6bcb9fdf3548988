//! Schema to compiled nodes: every keyword of the subset becomes a [`Keyword`], every
//! definition one node (compiled from a worklist, so recursion and long chains cost no stack),
//! patterns are compiled and `$ref` loops that never descend are refused.

use super::compiled::{
    App, ArrChecks, Compiled, DefaultCost, EnumSet, FastNode, Keyword, Node, NodeId, NumCheck, ObjChecks, StrCheck,
    Tag, T_ARRAY, T_BOOLEAN, T_INTEGER, T_NULL, T_NUMBER, T_OBJECT, T_STRING,
};
use super::formats::Format;
use super::message::{quote, type_phrase};
use super::number::{num, Decimal};
use super::pattern::Pattern;
use super::ValidatorOptions;
use crate::canonical::canonical_json;
use crate::pattern::compile_pattern;
use crate::subset::{SchemaViolation, SchemaViolationKind, LOCAL_REF_PREFIX};
use serde_json::Value;
use std::collections::HashMap;

pub(super) struct Compiler<'a> {
    pub(super) root: &'a Value,
    pub(super) nodes: Vec<Node>,
    pub(super) defs: HashMap<String, NodeId>,
    /// Pointer of each `$ref` keyword, by (node, keyword index), for cycle reports.
    ref_pointers: HashMap<(NodeId, usize), Vec<String>>,
    /// Definitions whose id is reserved but whose body is not compiled yet.
    pub(super) pending: Vec<(NodeId, String)>,
    pub(super) violations: Vec<SchemaViolation>,
}

/// The `$defs` name a `#/$defs/<name>` reference designates, decoded exactly as
/// [`check_schema`](crate::subset::check_schema) decodes it (`~1` then `~0`), so both agree on
/// what resolves.
fn ref_name(reference: &str) -> Option<String> {
    reference
        .strip_prefix(LOCAL_REF_PREFIX)
        .filter(|n| !n.is_empty() && !n.contains('/'))
        .map(|n| n.replace("~1", "/").replace("~0", "~"))
}

/// The nodes reachable from `root` through any keyword.
pub(super) fn reachable(nodes: &[Node], root: NodeId) -> Vec<NodeId> {
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
    pub(super) fn compile(schema: &'a Value, options: ValidatorOptions) -> Result<Compiled, Vec<SchemaViolation>> {
        let (c, root) = Self::build_nodes(schema)?;
        c.finish(root, options)
    }

    /// The nodes of every definition and of the root, and what only building them finds
    /// (patterns regress refuses, `$ref` loops that never descend).
    pub(super) fn build_nodes(schema: &'a Value) -> Result<(Self, NodeId), Vec<SchemaViolation>> {
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
    pub(super) fn finish(self, root: NodeId, options: ValidatorOptions) -> Result<Compiled, Vec<SchemaViolation>> {
        let schema = self.root;
        let c = self;
        let has_defaults = c.nodes.iter().any(|n| !n.defaults.is_empty());
        let defaulted_names = c.nodes.iter().flat_map(|n| n.defaults.iter().map(|(name, _)| name.clone())).collect();
        let mut nodes = c.nodes;
        for node in &mut nodes {
            node.fast = FastNode::of(&node.keywords, &node.defaults, options);
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

    pub(super) fn node(&mut self, schema: &Value, ptr: &mut Vec<String>) -> NodeId {
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        let node = self.build(id, schema, ptr);
        self.nodes[id] = node;
        id
    }

    pub(super) fn child(&mut self, schema: &Value, ptr: &mut Vec<String>, seg: &str) -> NodeId {
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

    pub(super) fn keyword(
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
                    Ok(compiled) => Keyword::Pattern(Box::new(Pattern::new(
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

impl FastNode {
    pub(super) fn of(keywords: &[Keyword], defaults: &[(String, Value)], options: ValidatorOptions) -> FastNode {
        let mut f = FastNode::default();
        let mut apps = Vec::new();
        let (mut strs, mut nums, mut any_kw) = (Vec::new(), Vec::new(), Vec::new());
        let mut props: Vec<(Box<str>, NodeId)> = Vec::new();
        let mut no_additional = false;
        let mut required: Vec<&str> = Vec::new();
        let mut arr = ArrChecks { items: None, min: 0, max: u64::MAX, unique: false };
        let mut has_arr = false;
        for (i, kw) in keywords.iter().enumerate() {
            let i = i as u8; // a schema object has at most a few dozen keywords
            match kw {
                Keyword::Type(bits, _) => f.types &= *bits,
                Keyword::Ref(t) => apps.push(App::Ref(*t)),
                Keyword::AnyOf(bs) => apps.push(App::AnyOf(bs.clone().into_boxed_slice())),
                Keyword::Enum(set) if set.only_strings => {
                    f.types &= T_STRING;
                    strs.push(StrCheck::Enum(i));
                }
                Keyword::Enum(_) | Keyword::Const(..) => any_kw.push(i),
                Keyword::Properties(ps) => {
                    props = ps.iter().map(|(n, c)| (n.as_str().into(), *c)).collect();
                }
                Keyword::NoAdditionalProperties(_) => no_additional = true,
                Keyword::Required(names) => required.extend(names.iter().map(String::as_str)),
                Keyword::Items(c) => {
                    arr.items = Some(*c);
                    has_arr = true;
                }
                Keyword::MinItems(n) => {
                    arr.min = *n;
                    has_arr = true;
                }
                Keyword::MaxItems(n) => {
                    arr.max = *n;
                    has_arr = true;
                }
                Keyword::UniqueItems => {
                    arr.unique = true;
                    has_arr = true;
                }
                Keyword::MinLength(n) => strs.push(StrCheck::MinLength(*n)),
                Keyword::MaxLength(n) => strs.push(StrCheck::MaxLength(*n)),
                Keyword::Pattern(_) => strs.push(StrCheck::Pattern(i)),
                Keyword::Format(fmt) => {
                    if options.assert_formats {
                        strs.push(StrCheck::Format(*fmt));
                    }
                }
                Keyword::Minimum(n) => nums.push(NumCheck::Minimum(num(n))),
                Keyword::Maximum(n) => nums.push(NumCheck::Maximum(num(n))),
                Keyword::ExclusiveMinimum(n) => nums.push(NumCheck::ExclusiveMinimum(num(n))),
                Keyword::ExclusiveMaximum(n) => nums.push(NumCheck::ExclusiveMaximum(num(n))),
                Keyword::MultipleOf(..) => nums.push(NumCheck::MultipleOf(i)),
            }
        }
        // Cheap checks first: lengths before patterns and formats.
        strs.sort_by_key(|c| match c {
            StrCheck::MinLength(_) | StrCheck::MaxLength(_) => 0,
            StrCheck::Enum(_) => 1,
            StrCheck::Format(_) => 2,
            StrCheck::Pattern(_) => 3,
        });
        props.sort_by(|a, b| a.0.cmp(&b.0));
        let bit = |name: &str| props.iter().position(|(n, _)| **n == *name).filter(|&i| i < 64).map(|i| 1u64 << i);
        f.early_defaults = !defaults.is_empty() && (!apps.is_empty() || defaults.iter().any(|(n, _)| bit(n).is_none()));
        if !props.is_empty() || no_additional || !required.is_empty() {
            let mut required_mask = 0u64;
            let mut required_other = Vec::new();
            for name in required {
                if defaults.iter().any(|(d, _)| d == name) {
                    continue;
                }
                match bit(name) {
                    Some(b) => required_mask |= b,
                    None => required_other.push(name.into()),
                }
            }
            let pass_defaults: Vec<(u64, usize)> = if f.early_defaults {
                Vec::new()
            } else {
                defaults.iter().enumerate().filter_map(|(i, (n, _))| bit(n).map(|b| (b, i))).collect()
            };
            f.obj = Some(Box::new(ObjChecks {
                tags: props.iter().map(|(n, _)| Tag::of(n)).collect(),
                props: props.into_boxed_slice(),
                no_additional,
                required_mask,
                required_other: required_other.into_boxed_slice(),
                default_mask: pass_defaults.iter().fold(0, |m, (b, _)| m | b),
                defaults: pass_defaults.into_boxed_slice(),
            }));
        }
        if has_arr {
            f.arr = Some(Box::new(arr));
        }
        f.leaf = !f.early_defaults && apps.is_empty() && any_kw.is_empty();
        f.apps = apps.into_boxed_slice();
        f.strs = strs.into_boxed_slice();
        f.nums = nums.into_boxed_slice();
        f.any_kw = any_kw.into_boxed_slice();
        f
    }
}
