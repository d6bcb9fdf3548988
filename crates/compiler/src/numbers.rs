//! Numbers as JavaScript and JSON write them: what the evaluator concatenates into strings and
//! keys, and how values and emitted schemas become JSON numbers. Used by both the evaluator's
//! values and the zod emitter, so it sits below both.

/// A JSON number for a finite f64 (integers up to 2^53 stay integers).
pub fn json_number(n: f64) -> Option<serde_json::Value> {
    if !n.is_finite() {
        return None;
    }
    if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
        if n == 0.0 {
            return Some(serde_json::Value::from(0));
        }
        return Some(serde_json::Value::from(n as i64));
    }
    serde_json::Number::from_f64(n).map(serde_json::Value::Number)
}

/// JS `String(n)` for the numbers the evaluator concatenates (integers and simple decimals).
pub fn js_number_string(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e21 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}
