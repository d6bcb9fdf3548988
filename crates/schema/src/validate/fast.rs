//! The read-only fast path: a yes/no answer that stops at the first failure, builds no path, no
//! message and no copy. [`Validator::is_valid`] is this path; [`Validator::validate`] runs it
//! first and needs the reference evaluation ([`Compiled::apply`], which copies the instance to
//! insert defaults) only when a default must be inserted, and the issue collection
//! ([`Compiled::collect`]) only when the instance is invalid.
//!
//! # Why its answer is the reference evaluation's
//!
//! The reference evaluation modifies the value only by inserting defaults, at the entry of a
//! node into an object missing a defaulted property. The fast path never inserts:
//!
//! - When a `$ref` or `anyOf` is reachable, a default that would be inserted makes it answer
//!   [`Verdict::Unknown`] (the caller then runs the reference evaluation). So whenever it
//!   answers otherwise, every check it made saw what the reference evaluation sees up to that
//!   point: within a node it visits defaults, then `$ref`/`anyOf` in keyword order, as the
//!   reference does; the remaining keywords of a node (which it reorders: properties in the
//!   instance's order, cheap checks first) look at the node's own object, whose keys only node
//!   entries and applicators change, or at distinct children. `enum`, `const` and
//!   `uniqueItems` on objects and arrays, which see a whole subtree, answer `Unknown` when they
//!   fail and the schema has defaults.
//! - When no `$ref`/`anyOf` is reachable ([`Compiled::virtual_defaults`]), every value is
//!   checked by exactly one node, so a default inserted into an object is seen only by that
//!   node: its `required` (a defaulted name is never missing), its `additionalProperties` (the
//!   name is one of its `properties`) and its `properties` (the inserted value's own issues are
//!   dropped, so it only costs budget, known in advance: [`DefaultCost`]). `enum`, `const` and
//!   `uniqueItems` on objects and arrays answer `Unknown` (the subtree could hold defaults).
//!
//! **Budget.** It spends the same budget as the reference evaluation at the same points (node
//! entries and `anyOf` pre-checks), but skips work after a failure and the pre-checks of
//! alternatives after the one that matched: it spends a subset. So when it runs out, the
//! reference evaluation runs out too (both answer invalid); when the instance is valid in a
//! schema with defaults but no applicators, it spends exactly as much. When it answers
//! [`Verdict::Valid`], `validate` returns without running the reference evaluation at all, so
//! an instance whose reference evaluation alone would exceed the budget (failed alternatives
//! evaluated in full) is valid for both `is_valid` and `validate`.
//!
//! [`Validator::is_valid`]: super::Validator::is_valid
//! [`Validator::validate`]: super::Validator::validate
//! [`DefaultCost`]: super::compiled::DefaultCost

use super::budget::Budget;
use super::compiled::{App, ArrChecks, Compiled, Keyword, Node, NodeId, NumCheck, ObjChecks, StrCheck, ALL_TYPES};
use super::equality::{first_duplicate, json_equal};
use super::eval::{has_type, length_at_least, length_at_most};
use super::formats::check_format;
use super::number::{cmp_num, num};
use super::MAX_INSTANCE_DEPTH;
use serde_json::{Number, Value};
use std::cmp::Ordering;

/// The fast path's answer.
pub(super) enum Verdict {
    /// Valid, and no default applies: the instance is its own result.
    Valid,
    /// Valid once the defaults it lacks are inserted (only without `$ref`/`anyOf`).
    ValidWithDefaults,
    Invalid,
    /// A default would be inserted where the fast path cannot account for it: only the
    /// reference evaluation can tell.
    Unknown,
}

enum Stop {
    Invalid,
    /// Budget exhausted: the whole run is invalid (not just an `anyOf` alternative).
    Exhausted,
    Unknown,
}

struct FastRun<'i> {
    budget: Budget<'i>,
    /// A default was (virtually) inserted.
    inserted: bool,
}

fn is_compound(v: &Value) -> bool {
    matches!(v, Value::Object(_) | Value::Array(_))
}

impl Compiled {
    /// The fast path's verdict on `instance` (see the module documentation).
    pub(super) fn fast(&self, instance: &Value) -> Verdict {
        let mut run = FastRun { budget: Budget::lazy(instance, self.node_count()), inserted: false };
        match self.fast_node(self.root, instance, 0, &mut run) {
            Ok(()) if run.inserted => Verdict::ValidWithDefaults,
            Ok(()) => Verdict::Valid,
            Err(Stop::Invalid | Stop::Exhausted) => Verdict::Invalid,
            Err(Stop::Unknown) => Verdict::Unknown,
        }
    }

    /// Node `id` applied to `value`, `depth` levels below the instance root. Strings and
    /// numbers checked by a node with only their own keywords (the usual leaf) take the short
    /// way, inlined into the callers' loops.
    #[inline]
    fn fast_node(&self, id: NodeId, value: &Value, depth: usize, run: &mut FastRun<'_>) -> Result<(), Stop> {
        let node = &self.nodes[id];
        let f = &node.fast;
        if !run.budget.spend(1) {
            return Err(Stop::Exhausted);
        }
        if f.types != ALL_TYPES && !has_type(value, f.types) {
            return Err(Stop::Invalid);
        }
        if !f.leaf {
            return self.fast_general(node, value, depth, run);
        }
        match value {
            Value::String(s) => Self::fast_str(node, s),
            Value::Number(x) => self.fast_num(node, x, value),
            Value::Null | Value::Bool(_) => Ok(()),
            Value::Object(map) => self.fast_own_object(node, map, depth, run),
            Value::Array(items) => self.fast_own_array(node, items, depth, run),
        }
    }

    /// An object against a node's own object keywords (and its defaults, found missing by the
    /// pass).
    #[inline]
    fn fast_own_object(
        &self,
        node: &Node,
        map: &serde_json::Map<String, Value>,
        depth: usize,
        run: &mut FastRun<'_>,
    ) -> Result<(), Stop> {
        if depth > MAX_INSTANCE_DEPTH {
            return Err(Stop::Invalid);
        }
        if let Some(o) = &node.fast.obj {
            let seen = self.fast_object(o, map, depth, run)?;
            let missing = o.default_mask & !seen;
            if missing != 0 {
                self.fast_missing(node, o, missing, depth, run)?;
            }
        }
        Ok(())
    }

    #[inline]
    fn fast_own_array(&self, node: &Node, items: &[Value], depth: usize, run: &mut FastRun<'_>) -> Result<(), Stop> {
        if depth > MAX_INSTANCE_DEPTH {
            return Err(Stop::Invalid);
        }
        match &node.fast.arr {
            Some(a) => self.fast_array(a, items, depth, run),
            None => Ok(()),
        }
    }

    #[inline]
    fn fast_str(node: &Node, s: &str) -> Result<(), Stop> {
        for c in node.fast.strs.iter() {
            let pass = match c {
                StrCheck::MinLength(n) => length_at_least(s, *n),
                StrCheck::MaxLength(n) => length_at_most(s, *n),
                StrCheck::Format(fmt) => check_format(*fmt, s),
                StrCheck::Pattern(i) => match &node.keywords[*i as usize] {
                    Keyword::Pattern(p) => p.is_match(s),
                    _ => true,
                },
                StrCheck::Enum(i) => match &node.keywords[*i as usize] {
                    Keyword::Enum(set) => set.contains_str(s),
                    _ => true,
                },
            };
            if !pass {
                return Err(Stop::Invalid);
            }
        }
        Ok(())
    }

    #[inline]
    fn fast_num(&self, node: &Node, x: &Number, value: &Value) -> Result<(), Stop> {
        if node.fast.nums.is_empty() {
            return Ok(());
        }
        let x = num(x);
        for c in node.fast.nums.iter() {
            let pass = match c {
                NumCheck::Minimum(m) => cmp_num(x, *m) != Ordering::Less,
                NumCheck::Maximum(m) => cmp_num(x, *m) != Ordering::Greater,
                NumCheck::ExclusiveMinimum(m) => cmp_num(x, *m) == Ordering::Greater,
                NumCheck::ExclusiveMaximum(m) => cmp_num(x, *m) == Ordering::Less,
                NumCheck::MultipleOf(i) => self.passes(&node.keywords[*i as usize], value),
            };
            if !pass {
                return Err(Stop::Invalid);
            }
        }
        Ok(())
    }

    /// Everything else: objects, arrays, defaults, applicators, `enum`/`const`.
    #[inline(never)]
    fn fast_general(&self, node: &Node, value: &Value, depth: usize, run: &mut FastRun<'_>) -> Result<(), Stop> {
        let f = &node.fast;
        if depth > MAX_INSTANCE_DEPTH && is_compound(value) {
            return Err(Stop::Invalid);
        }
        if f.early_defaults {
            if let Value::Object(map) = value {
                self.fast_defaults(node, map, depth, run)?;
            }
        }
        for app in f.apps.iter() {
            match app {
                App::Ref(target) => self.fast_node(*target, value, depth, run)?,
                App::AnyOf(branches) => self.fast_any_of(branches, value, depth, run)?,
            }
        }
        for &i in f.any_kw.iter() {
            let pass = match &node.keywords[i as usize] {
                Keyword::Enum(set) => set.contains(value),
                Keyword::Const(c, _) => json_equal(c, value),
                _ => true,
            };
            if is_compound(value) && self.has_defaults {
                if self.virtual_defaults || !pass {
                    return Err(Stop::Unknown);
                }
            } else if !pass {
                return Err(Stop::Invalid);
            }
        }
        match value {
            Value::String(s) => Self::fast_str(node, s),
            Value::Number(x) => self.fast_num(node, x, value),
            Value::Object(map) => self.fast_own_object(node, map, depth, run),
            Value::Array(items) => self.fast_own_array(node, items, depth, run),
            Value::Null | Value::Bool(_) => Ok(()),
        }
    }

    /// A default the reference evaluation would insert: `Unknown`, or accounted for (see
    /// [`Compiled::virtual_defaults`]): its evaluation's cost is spent.
    #[inline]
    fn fast_insert(&self, node: &Node, default: usize, depth: usize, run: &mut FastRun<'_>) -> Result<(), Stop> {
        if !self.virtual_defaults {
            return Err(Stop::Unknown);
        }
        let cost = node.default_costs[default];
        if depth + cost.reach > MAX_INSTANCE_DEPTH {
            return Err(Stop::Unknown);
        }
        if !run.budget.spend(cost.spends) {
            return Err(Stop::Exhausted);
        }
        run.inserted = true;
        Ok(())
    }

    /// The defaults whose bits `missing` has (from the object pass).
    #[inline(never)]
    fn fast_missing(
        &self,
        node: &Node,
        o: &ObjChecks,
        missing: u64,
        depth: usize,
        run: &mut FastRun<'_>,
    ) -> Result<(), Stop> {
        for &(bit, i) in o.defaults.iter() {
            if missing & bit != 0 {
                self.fast_insert(node, i, depth, run)?;
            }
        }
        Ok(())
    }

    /// The node's defaults missing from `map`: `Unknown`, or accounted for virtually.
    #[inline(never)]
    fn fast_defaults(
        &self,
        node: &Node,
        map: &serde_json::Map<String, Value>,
        depth: usize,
        run: &mut FastRun<'_>,
    ) -> Result<(), Stop> {
        for (i, (name, _)) in node.defaults.iter().enumerate() {
            if !map.contains_key(name) {
                self.fast_insert(node, i, depth, run)?;
            }
        }
        Ok(())
    }

    /// The object pass; returns the bits of the properties present.
    fn fast_object(
        &self,
        o: &ObjChecks,
        map: &serde_json::Map<String, Value>,
        depth: usize,
        run: &mut FastRun<'_>,
    ) -> Result<u64, Stop> {
        let mut seen = 0u64;
        let bit = |i: usize| if i < 64 { 1u64 << i } else { 0 };
        if o.no_additional || map.len() <= 2 * o.props.len() + 4 {
            for (key, v) in map {
                match o.find(key) {
                    Some(i) => {
                        seen |= bit(i);
                        self.fast_node(o.props[i].1, v, depth + 1, run)?;
                    }
                    None if o.no_additional => return Err(Stop::Invalid),
                    None => {}
                }
            }
        } else {
            for (i, (name, child)) in o.props.iter().enumerate() {
                if let Some(v) = map.get(&**name) {
                    seen |= bit(i);
                    self.fast_node(*child, v, depth + 1, run)?;
                }
            }
        }
        if seen & o.required_mask != o.required_mask {
            return Err(Stop::Invalid);
        }
        if o.required_other.iter().any(|n| !map.contains_key(&**n)) {
            return Err(Stop::Invalid);
        }
        Ok(seen)
    }

    fn fast_array(&self, a: &ArrChecks, items: &[Value], depth: usize, run: &mut FastRun<'_>) -> Result<(), Stop> {
        let n = items.len() as u64;
        if n < a.min || n > a.max {
            return Err(Stop::Invalid);
        }
        if let Some(child) = a.items {
            for item in items {
                self.fast_node(child, item, depth + 1, run)?;
            }
        }
        if a.unique {
            let pass = first_duplicate(items).is_none();
            if self.has_defaults && items.iter().any(is_compound) {
                if self.virtual_defaults || !pass {
                    return Err(Stop::Unknown);
                }
            } else if !pass {
                return Err(Stop::Invalid);
            }
        }
        Ok(())
    }

    /// The first alternative that matches; the pre-check ([`Compiled::quick`]) first, as the
    /// reference evaluation does.
    fn fast_any_of(&self, branches: &[NodeId], value: &Value, depth: usize, run: &mut FastRun<'_>) -> Result<(), Stop> {
        for &branch in branches {
            if !self.fast_quick(branch, value, run, true)? {
                continue;
            }
            match self.fast_node(branch, value, depth, run) {
                Ok(()) => return Ok(()),
                Err(Stop::Invalid) => continue,
                Err(e) => return Err(e),
            }
        }
        Err(Stop::Invalid)
    }

    /// [`Compiled::quick`] as a yes/no answer that stops at the first issue.
    fn fast_quick(&self, id: NodeId, value: &Value, run: &mut FastRun<'_>, descend: bool) -> Result<bool, Stop> {
        if !run.budget.spend(1) {
            return Err(Stop::Exhausted);
        }
        for kw in &self.nodes[id].keywords {
            let pass = match kw {
                Keyword::Ref(target) => self.fast_quick(*target, value, run, descend)?,
                Keyword::AnyOf(branches) => {
                    let mut any = false;
                    for &branch in branches {
                        if self.fast_quick(branch, value, run, descend)? {
                            any = true;
                            break;
                        }
                    }
                    any
                }
                Keyword::Properties(props) => {
                    if let (true, Value::Object(map)) = (descend, value) {
                        for (name, child) in props {
                            if let Some(v) = map.get(name.as_str()) {
                                if !self.fast_quick(*child, v, run, false)? {
                                    return Ok(false);
                                }
                            }
                        }
                    }
                    true
                }
                Keyword::Items(_) => true,
                Keyword::Required(names) => match value {
                    Value::Object(map) => names.iter().all(|n| map.contains_key(n) || self.defaulted_names.contains(n)),
                    _ => true,
                },
                Keyword::Enum(_) | Keyword::Const(..) | Keyword::UniqueItems
                    if self.has_defaults && is_compound(value) =>
                {
                    true
                }
                _ => self.passes(kw, value),
            };
            if !pass {
                return Ok(false);
            }
        }
        Ok(true)
    }
}
