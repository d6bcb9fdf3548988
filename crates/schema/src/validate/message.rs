//! Issue paths and messages: JSON Pointers into the instance and the agent-safe wording of
//! every failed keyword.

use super::compiled::Keyword;
use super::formats::format_message;
use super::ValidationIssue;
use crate::canonical::canonical_json;
use serde_json::{Number, Value};

/// One step of the instance path; keys borrow from the compiled schema or the instance.
#[derive(Clone, Copy)]
pub(super) enum Seg<'s> {
    Key(&'s str),
    Index(usize),
}

pub(super) fn pointer(path: &[Seg<'_>]) -> String {
    let len: usize = path
        .iter()
        .map(|seg| match seg {
            Seg::Key(k) => k.len() + 1,
            Seg::Index(_) => 4,
        })
        .sum();
    let mut out = String::with_capacity(len);
    for seg in path {
        out.push('/');
        match seg {
            Seg::Key(k) => {
                if k.contains(['~', '/']) {
                    for c in k.chars() {
                        match c {
                            '~' => out.push_str("~0"),
                            '/' => out.push_str("~1"),
                            c => out.push(c),
                        }
                    }
                } else {
                    out.push_str(k);
                }
            }
            Seg::Index(i) => push_decimal(&mut out, *i as u64),
        }
    }
    out
}

/// Appends `n` in decimal (what `n.to_string()` gives, without the formatting machinery).
pub(super) fn push_decimal(out: &mut String, mut n: u64) {
    if n < 10 {
        out.push(char::from(b'0' + n as u8));
        return;
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    while n > 0 {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

pub(super) fn issue(path: &[Seg<'_>], keyword: &str, message: String) -> ValidationIssue {
    ValidationIssue { path: pointer(path), keyword: keyword.to_string(), message }
}

impl Keyword {
    /// The message of a failed leaf keyword whose message depends on the schema only.
    pub(super) fn message(&self) -> String {
        match self {
            Keyword::Type(_, m) | Keyword::Const(_, m) => m.clone(),
            Keyword::Enum(set) => set.message.clone(),
            Keyword::Pattern(p) => p.message.clone(),
            Keyword::MinItems(n) => format!("must have at least {}", count(*n, "item")),
            Keyword::MaxItems(n) => format!("must have at most {}", count(*n, "item")),
            Keyword::MinLength(n) => format!("must be at least {}", count(*n, "character")),
            Keyword::MaxLength(n) => format!("must be at most {}", count(*n, "character")),
            Keyword::Format(f) => format_message(*f).to_string(),
            Keyword::Minimum(m) => format!("must be greater than or equal to {}", number_text(m)),
            Keyword::Maximum(m) => format!("must be less than or equal to {}", number_text(m)),
            Keyword::ExclusiveMinimum(m) => format!("must be greater than {}", number_text(m)),
            Keyword::ExclusiveMaximum(m) => format!("must be less than {}", number_text(m)),
            Keyword::MultipleOf(n, _) => format!("must be a multiple of {}", number_text(n)),
            _ => String::new(),
        }
    }
}

pub(super) fn type_phrase(names: &[&str]) -> String {
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

pub(super) fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A JSON string literal for messages, shortened to 64 characters (property names come from the
/// instance and may be long).
pub(super) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_quoted(&mut out, s);
    out
}

/// Appends what [`quote`] returns: `s` escaped as `JSON.stringify` (and [`canonical_json`])
/// write it, cut after 64 code points with `…` before the closing quote.
fn push_quoted(out: &mut String, s: &str) {
    const MAX: usize = 64;
    let (text, cut) = match s.char_indices().nth(MAX) {
        Some((i, _)) => (&s[..i], true),
        None => (s, false),
    };
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0C}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                use std::fmt::Write;
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    if cut {
        out.push('…');
    }
    out.push('"');
}

/// The `required` message for property `name`.
pub(super) fn required_message(name: &str) -> String {
    let mut m = String::with_capacity(name.len().min(256) + 36);
    m.push_str("must have the required property ");
    push_quoted(&mut m, name);
    m
}

/// The `additionalProperties` message for instance property `key`.
pub(super) fn unknown_property(key: &str) -> String {
    let mut m = String::with_capacity(key.len().min(256) + 48);
    m.push_str("must not have the property ");
    push_quoted(&mut m, key);
    m.push_str(" (unknown property)");
    m
}

/// ECMAScript number text (`1e+21`, `0.5`), as the schema shows it to a JavaScript agent.
fn number_text(n: &Number) -> String {
    canonical_json(&Value::Number(n.clone()))
}
