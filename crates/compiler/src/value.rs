//! Values produced by static evaluation. Every node keeps the span of the expression it came
//! from (possibly in another file), so a rule that finds a problem deep inside a schema can
//! point at the exact literal.

use crate::numbers::json_number;
use crate::source::Span;
use crate::zod::model::{Check, Regex, ThunkId, ZodId};
use std::path::PathBuf;

#[derive(Clone, Debug)]
pub struct Node {
    /// Where the value is written (a literal, possibly in another file).
    pub span: Span,
    pub val: Val,
    /// Where the definition refers to it, when that is elsewhere: the name of a constant, an
    /// import, a member access. Diagnostics about the value's use point here and show `span`
    /// as "defined here".
    pub via: Option<Span>,
}

#[derive(Clone, Debug)]
pub struct Prop {
    pub key: String,
    pub key_span: Span,
    pub value: Node,
}

#[derive(Clone, Debug)]
pub enum Val {
    Undefined,
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Array(Vec<Node>),
    /// Properties in insertion order (JS semantics: a repeated key keeps its first position).
    Object(Vec<Prop>),
    /// An `AgentSchema`: the JSON Schema the agent sees (shared: contracts use it as is).
    Schema(std::sync::Arc<Node>),
    /// A value shared by reference, standing for `.0` itself (where a contract holds an
    /// `AgentSchema`'s JSON Schema): made only by the build step, never by evaluation.
    Inline(std::sync::Arc<Node>),
    /// A JSON value as one leaf: a `z.toJSONSchema(...)` written directly as the `jsonSchema`
    /// of `fromStandardSchema` (every part of it is at the conversion's span, so a tree of
    /// nodes would say nothing more). Only the build step reads inside it.
    Json(std::sync::Arc<serde_json::Value>),
    /// `observationContract({...})`: the definition object.
    Observation(Box<Node>),
    /// `actionContract({...})`: the definition object.
    Action(Box<Node>),
    /// An export of `@agent-surface/core` used as a value (a macro not yet called).
    CoreExport(String),
    /// `import * as core from "@agent-surface/core"`.
    CoreNamespace,
    /// `import * as ns from "./module"`.
    Namespace(PathBuf),
    /// The zod namespace (`z`) or one of its sub-namespaces (`z.iso`, `z.coerce`, `z.regexes`).
    ZodNs(&'static str),
    /// A zod function not yet called (`z.string`, `z.iso.datetime`).
    ZodFn(String),
    /// A zod schema (a node of the evaluator's zod arena).
    Zod(ZodId),
    /// A method of a zod schema not yet called (`schema.min`).
    ZodMethod(ZodId, String),
    /// A standalone zod check (`z.minLength(2)`), for `.check(...)`.
    ZodCheck(Check),
    /// A regular expression object (`/^a$/`, `new RegExp("a")`, `z.regexes.email`).
    Regex(Regex),
    /// A function: its single returned expression when it has one and takes no parameters
    /// (`() => []`), evaluated only where a value is needed (zod defaults).
    Function(Option<Box<swc_ecma_ast::Expr>>, Option<std::sync::Arc<crate::extract::ModuleInfo>>),
    /// A getter of an object literal (zod shapes use them for recursion): a deferred schema.
    Getter(ThunkId),
    /// A Valibot namespace, function, schema or action ([`crate::valibot`]).
    Valibot(crate::valibot::VbVal),
    /// A TypeBox namespace or builder ([`crate::typebox`]).
    TypeBox(crate::typebox::TbVal),
    /// An expression not evaluated yet (an element of constant data a projection reads
    /// field by field, [`crate::evaluate`]'s projections); never outlives the projection.
    Lazy(Box<swc_ecma_ast::Expr>, std::sync::Arc<crate::extract::ModuleInfo>),
    /// `Type.Optional(x)` of TypeBox: the JSON of `x`, not required in a `Type.Object`.
    TypeBoxOptional(Box<Node>),
    /// ArkType's `type` (or `type.enumerated`, ...) not yet called (`crate::arktype`).
    ArkFn(String),
    /// An ArkType type.
    Ark(std::sync::Arc<crate::arktype::ArkType>),
    /// A method of an ArkType type not yet called (`T.describe`).
    ArkMethod(std::sync::Arc<crate::arktype::ArkType>, String),
}

impl Val {
    /// See [`Node::same_as`].
    pub fn same_as(&self, other: &Val) -> bool {
        use Val::*;
        match (self, other) {
            (Undefined, Undefined) | (Null, Null) | (CoreNamespace, CoreNamespace) => true,
            (Bool(a), Bool(b)) => a == b,
            (Num(a), Num(b)) => a.to_bits() == b.to_bits(),
            (Str(a), Str(b)) | (CoreExport(a), CoreExport(b)) | (ZodFn(a), ZodFn(b)) => a == b,
            (Array(a), Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_with_via(y)),
            (Object(a), Object(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|(x, y)| x.key == y.key && x.key_span == y.key_span && x.value.same_with_via(&y.value))
            }
            (Schema(a), Schema(b)) | (Inline(a), Inline(b)) => a.same_with_via(b),
            (Observation(a), Observation(b)) | (Action(a), Action(b)) => a.same_with_via(b),
            (Namespace(a), Namespace(b)) => a == b,
            (ZodNs(a), ZodNs(b)) => a == b,
            (Zod(a), Zod(b)) => a == b,
            (ZodMethod(a, m), ZodMethod(b, n)) => a == b && m == n,
            (ZodCheck(a), ZodCheck(b)) => a == b,
            (Regex(a), Regex(b)) => a == b,
            (Function(a, m), Function(b, n)) => {
                let module = match (m, n) {
                    (Some(m), Some(n)) => std::sync::Arc::ptr_eq(m, n),
                    (None, None) => true,
                    _ => false,
                };
                let expr = match (a, b) {
                    (Some(a), Some(b)) => {
                        use swc_common::Spanned;
                        a.span() == b.span()
                    }
                    (None, None) => true,
                    _ => false,
                };
                module && expr
            }
            (Getter(a), Getter(b)) => a == b,
            (ArkFn(a), ArkFn(b)) => a == b,
            (Ark(a), Ark(b)) => std::sync::Arc::ptr_eq(a, b),
            (ArkMethod(a, m), ArkMethod(b, n)) => std::sync::Arc::ptr_eq(a, b) && m == n,
            (Json(a), Json(b)) => std::sync::Arc::ptr_eq(a, b) || a == b,
            (Valibot(a), Valibot(b)) => a == b,
            (TypeBox(a), TypeBox(b)) => a == b,
            (Lazy(a, m), Lazy(b, n)) => {
                use swc_common::Spanned;
                std::sync::Arc::ptr_eq(m, n) && a.span() == b.span()
            }
            (TypeBoxOptional(a), TypeBoxOptional(b)) => a.same_with_via(b),
            _ => false,
        }
    }

    /// What the value is, in words for diagnostics.
    pub fn describe(&self) -> &'static str {
        match self {
            Val::Undefined => "undefined",
            Val::Null => "null",
            Val::Bool(_) => "a boolean",
            Val::Num(_) => "a number",
            Val::Str(_) => "a string",
            Val::Array(_) => "an array",
            Val::Object(_) => "an object",
            Val::Schema(_) => "a schema",
            Val::Observation(_) => "an observation contract",
            Val::Action(_) => "an action contract",
            Val::CoreExport(_) => "a function of @agent-surface/core",
            Val::CoreNamespace => "the @agent-surface/core namespace",
            Val::Namespace(_) => "a module namespace",
            Val::ZodNs(_) => "the zod namespace",
            Val::ZodFn(_) | Val::ZodMethod(..) => "a zod function",
            Val::Zod(_) => "a zod schema",
            Val::ZodCheck(_) => "a zod check",
            Val::Regex(_) => "a regular expression",
            Val::Function(..) => "a function",
            Val::Getter(_) => "a getter",
            Val::Valibot(v) => v.describe(),
            Val::TypeBox(t) => t.describe(),
            Val::Lazy(..) => "a value",
            Val::TypeBoxOptional(inner) => inner.val.describe(),
            Val::ArkFn(_) | Val::ArkMethod(..) => "an ArkType function",
            Val::Ark(_) => "an ArkType type",
            Val::Inline(inner) => inner.val.describe(),
            Val::Json(j) => match &**j {
                serde_json::Value::Null => "null",
                serde_json::Value::Bool(_) => "a boolean",
                serde_json::Value::Number(_) => "a number",
                serde_json::Value::String(_) => "a string",
                serde_json::Value::Array(_) => "an array",
                serde_json::Value::Object(_) => "an object",
            },
        }
    }
}

impl Node {
    pub fn new(span: Span, val: Val) -> Node {
        Node { span, val, via: None }
    }

    /// Where a diagnostic about this value points: its use site if it has one.
    pub fn val_span(&self) -> Span {
        self.via.unwrap_or(self.span)
    }

    /// The same value, reached through a reference at `use_span`.
    pub fn via(mut self, use_span: Span) -> Node {
        if use_span != self.span {
            self.via = Some(use_span);
        }
        self
    }

    /// The outermost reference on the way to `pointer` (where the definition names the value).
    pub fn use_site(&self, pointer: &[String]) -> Option<Span> {
        if let Some(v) = self.via {
            return Some(v);
        }
        let (first, rest) = pointer.split_first()?;
        let child = match &self.val {
            Val::Object(props) => props.iter().find(|p| &p.key == first).map(|p| &p.value),
            Val::Array(items) => first.parse::<usize>().ok().and_then(|i| items.get(i)),
            Val::Schema(inner) | Val::Inline(inner) => return inner.use_site(pointer),
            Val::Observation(inner) | Val::Action(inner) | Val::TypeBoxOptional(inner) => {
                return inner.use_site(pointer)
            }
            _ => None,
        }?;
        child.use_site(rest)
    }

    /// The zod nodes and thunks this value holds (for the memo's collection of dead thunks).
    pub fn zod_refs(&self, nodes: &mut Vec<ZodId>, thunks: &mut Vec<ThunkId>) {
        match &self.val {
            Val::Zod(z) | Val::ZodMethod(z, _) => nodes.push(z.clone()),
            Val::Getter(t) => thunks.push(t.clone()),
            Val::Array(items) => items.iter().for_each(|n| n.zod_refs(nodes, thunks)),
            Val::Object(props) => props.iter().for_each(|p| p.value.zod_refs(nodes, thunks)),
            Val::Schema(inner) | Val::Inline(inner) => inner.zod_refs(nodes, thunks),
            Val::Observation(inner) | Val::Action(inner) => inner.zod_refs(nodes, thunks),
            _ => {}
        }
    }

    /// Whether two values are the same, as a later evaluation would see them: the same spans,
    /// the same schema and regular-expression objects, the same functions; the top-level `via`
    /// is not compared (every use sets its own).
    pub fn same_as(&self, other: &Node) -> bool {
        self.span == other.span && self.val.same_as(&other.val)
    }

    fn same_with_via(&self, other: &Node) -> bool {
        self.via == other.via && self.same_as(other)
    }

    pub fn get(&self, key: &str) -> Option<&Prop> {
        match &self.val {
            Val::Object(props) => props.iter().find(|p| p.key == key),
            _ => None,
        }
    }

    /// Sets a property (replacing in place, as JS does for a repeated key).
    /// JS own-key order: array-index keys ascending, then the rest in insertion order.
    pub fn set(props: &mut Vec<Prop>, prop: Prop) {
        if let Some(existing) = props.iter_mut().find(|p| p.key == prop.key) {
            existing.value = prop.value;
            existing.key_span = prop.key_span;
        } else if let Some(n) = array_index(&prop.key) {
            let pos = props.iter().position(|p| array_index(&p.key).is_none_or(|m| m > n)).unwrap_or(props.len());
            props.insert(pos, prop);
        } else {
            props.push(prop);
        }
    }

    /// Converts to plain JSON. `Err` carries the first node that is not JSON. Properties whose
    /// value is `undefined` are dropped, as JSON.stringify does.
    pub fn to_json(&self) -> Result<serde_json::Value, &Node> {
        use serde_json::Value;
        Ok(match &self.val {
            Val::Null => Value::Null,
            Val::Bool(b) => Value::Bool(*b),
            Val::Num(n) => json_number(*n).ok_or(self)?,
            Val::Str(s) => Value::String(s.clone()),
            Val::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|n| if matches!(n.val, Val::Undefined) { Ok(Value::Null) } else { n.to_json() })
                    .collect::<Result<_, _>>()?,
            ),
            Val::Object(props) => {
                let mut map = serde_json::Map::new();
                for p in props {
                    if matches!(p.value.val, Val::Undefined) {
                        continue;
                    }
                    map.insert(p.key.clone(), p.value.to_json()?);
                }
                Value::Object(map)
            }
            Val::Inline(inner) => return inner.to_json(),
            Val::TypeBoxOptional(inner) => return inner.to_json(),
            Val::Json(j) => (**j).clone(),
            _ => return Err(self),
        })
    }

    /// The node a JSON pointer (as segments) designates, or the deepest one on the way.
    /// Returns the node and whether the pointer was followed to the end.
    pub fn at_pointer(&self, pointer: &[String]) -> (&Node, bool) {
        let Some((first, rest)) = pointer.split_first() else { return (self, true) };
        let child = match &self.val {
            Val::Object(props) => props.iter().find(|p| &p.key == first).map(|p| &p.value),
            Val::Array(items) => first.parse::<usize>().ok().and_then(|i| items.get(i)),
            Val::Schema(inner) | Val::Inline(inner) => return inner.at_pointer(pointer),
            Val::Observation(inner) | Val::Action(inner) | Val::TypeBoxOptional(inner) => {
                return inner.at_pointer(pointer)
            }
            _ => None,
        };
        match child {
            Some(c) => c.at_pointer(rest),
            None => (self, false),
        }
    }

    /// The span of the key that a pointer's last segment names, if it is an object key.
    pub fn key_span_at(&self, pointer: &[String]) -> Option<Span> {
        let (last, parent) = pointer.split_last()?;
        let (node, complete) = self.at_pointer(parent);
        if !complete {
            return None;
        }
        let node: &Node = match &node.val {
            Val::Schema(inner) | Val::Inline(inner) => inner,
            Val::Observation(inner) | Val::Action(inner) | Val::TypeBoxOptional(inner) => inner,
            _ => node,
        };
        node.get(last).map(|p| p.key_span)
    }
}

/// The array index a property key stands for in JS ordering (`"2"`, not `"02"`).
pub fn array_index(k: &str) -> Option<u32> {
    if k.is_empty() || k.len() > 10 || !k.bytes().all(|b| b.is_ascii_digit()) || (k.len() > 1 && k.starts_with('0')) {
        return None;
    }
    k.parse::<u64>().ok().filter(|n| *n < u32::MAX as u64).map(|n| n as u32)
}
