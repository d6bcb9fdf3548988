//! The reference evaluation: applies the schema to a value, inserting defaults, and collects
//! every issue; plus the leaf assertions and the `anyOf` pre-check every path shares.

use super::budget::{compound_depth, finish, total_budget, value_count, Budget, Run};
use super::compiled::{
    Compiled, DefaultCost, Keyword, NodeId, T_ARRAY, T_BOOLEAN, T_INTEGER, T_NULL, T_NUMBER, T_OBJECT, T_STRING,
};
use super::equality::{first_duplicate, json_equal};
use super::formats::check_format;
use super::message::{issue, push_decimal, required_message, unknown_property, Seg};
use super::number::{cmp_numbers, is_integer, Decimal};
use super::{ValidationIssue, MAX_INSTANCE_DEPTH};
use serde_json::Value;
use std::cmp::Ordering;
use std::collections::HashMap;

impl Compiled {
    /// The reference evaluation: applies the schema to `instance`, inserting defaults, and
    /// collects every issue. `original` is `instance` as given, when the caller still has it
    /// (the budget then counts its values only if needed).
    pub(super) fn apply(&self, mut instance: Value, original: Option<&Value>) -> Result<Value, Vec<ValidationIssue>> {
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
    pub(super) fn default_costs(&self, id: NodeId) -> Vec<DefaultCost> {
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
    pub(super) fn eval<'s>(&'s self, id: NodeId, value: &mut Value, run: &mut Run<'s>, out: &mut Vec<ValidationIssue>) {
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
    pub(super) fn keyword<'s>(
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
    pub(super) fn passes(&self, kw: &Keyword, value: &Value) -> bool {
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
    pub(super) fn assert(&self, kw: &Keyword, value: &Value, path: &[Seg<'_>], out: &mut Vec<ValidationIssue>) {
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
    pub(super) fn any_of<'s>(
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
    pub(super) fn pre_check_branches<'s>(
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
    pub(super) fn quick<'s>(
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

/// The issues of an `anyOf` no branch matched: those of the branches that got a full
/// evaluation, or, when the pre-check rejected every branch, those of the branches with the
/// fewest; then one `anyOf` issue.
pub(super) fn any_of_failed(
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

pub(super) fn has_type(value: &Value, bits: u8) -> bool {
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

/// `minLength`: at least `n` code points (a code point is 1 to 4 bytes, so the byte length
/// often decides without counting).
#[inline]
pub(super) fn length_at_least(s: &str, n: u64) -> bool {
    let bytes = s.len() as u64;
    bytes >= n && (bytes / 4 >= n || s.chars().count() as u64 >= n)
}

/// `maxLength`: at most `n` code points.
#[inline]
pub(super) fn length_at_most(s: &str, n: u64) -> bool {
    s.len() as u64 <= n || s.chars().count() as u64 <= n
}
