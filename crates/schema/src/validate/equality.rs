//! JSON Schema equality (`enum`, `const`, `uniqueItems`).

use super::number::cmp_numbers;
use crate::canonical::canonical_json;
use serde_json::Value;
use std::cmp::Ordering;
use std::collections::HashMap;

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
pub(super) fn first_duplicate(items: &[Value]) -> Option<(usize, usize)> {
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
