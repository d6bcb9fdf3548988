//! The work budget of one pass over an instance, which stops the exponential blow-up nested
//! `anyOf`s could cause on hostile input, and the state of one validation run.

use super::message::{pointer, Seg};
use super::ValidationIssue;
use serde_json::Value;

/// The fixed part of the work budget (see [`total_budget`]).
const BASE_BUDGET: u64 = 10_000;

/// Work allowed for one pass over an instance of `values` JSON values with a schema of `nodes`
/// nodes: generous for any sensible evaluation (each schema node applied to each instance value
/// a few times), but it stops the exponential blow-up that nested `anyOf`s with several
/// recursive alternatives could otherwise cause on hostile input.
pub(super) fn total_budget(values: u64, nodes: u64) -> u64 {
    BASE_BUDGET.saturating_add(values.saturating_mul(nodes).saturating_mul(4))
}

/// The budget of one pass, in node evaluations. Its per-value part is computed only once the
/// fixed part is used up, so typical inputs are never counted; the total is the same.
pub(super) struct Budget<'i> {
    pub(super) left: u64,
    /// The instance whose values the per-value part counts, until it is counted.
    pub(super) pending: Option<&'i Value>,
    pub(super) nodes: u64,
}

impl<'i> Budget<'i> {
    pub(super) fn lazy(instance: &'i Value, nodes: u64) -> Self {
        Budget { left: BASE_BUDGET, pending: Some(instance), nodes }
    }

    pub(super) fn fixed(total: u64) -> Self {
        Budget { left: total, pending: None, nodes: 0 }
    }

    /// Takes `n` units; `false` (and nothing left) if fewer remain.
    #[inline]
    pub(super) fn spend(&mut self, n: u64) -> bool {
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
pub(super) struct Run<'s> {
    /// Pointer segments from the instance root to the value being checked.
    pub(super) path: Vec<Seg<'s>>,
    /// Node evaluations left (see [`total_budget`]).
    pub(super) budget: Budget<'s>,
    /// Where the budget ran out, if it did.
    pub(super) exhausted_at: Option<String>,
}

impl Run<'_> {
    /// Takes one unit of work; `false` once the budget is spent.
    pub(super) fn spend(&mut self) -> bool {
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
pub(super) fn finish(run: &mut Run<'_>, issues: &mut Vec<ValidationIssue>) {
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
pub(super) fn compound_depth(v: &Value) -> Option<usize> {
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
pub(super) fn value_count(v: &Value) -> u64 {
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
