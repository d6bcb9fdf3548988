//! Every issue of an invalid instance without copying it (see [`Compiled::collect`]).

use super::budget::{finish, Budget, Run};
use super::compiled::{Compiled, Keyword, Node, NodeId};
use super::eval::any_of_failed;
use super::message::{issue, required_message, Seg};
use super::{ValidationIssue, MAX_INSTANCE_DEPTH};
use serde_json::Value;

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
    pub(super) fn collect(&self, instance: &Value) -> Option<Vec<ValidationIssue>> {
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
