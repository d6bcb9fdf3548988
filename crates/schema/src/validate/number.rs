//! JSON numbers: exact comparison across `u64`/`i64`/`f64`, integers in the JSON Schema sense
//! and exact `multipleOf`.

use serde_json::Number;
use std::cmp::Ordering;

/// An integer in the JSON Schema sense: a number with a zero fractional part (`1.0` counts).
pub fn is_integer(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

#[derive(Clone, Copy, Debug)]
pub(super) enum Num {
    Int(i128),
    Float(f64),
}

pub(super) fn num(n: &Number) -> Num {
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
pub(super) fn cmp_num(a: Num, b: Num) -> Ordering {
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
pub(super) struct Decimal {
    mantissa: u128,
    exponent: i32,
}

impl Decimal {
    pub(super) fn of(n: &Number) -> Decimal {
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
    pub(super) fn is_multiple_of(&self, by: &Decimal) -> bool {
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
