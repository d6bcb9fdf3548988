//! RFC 8785 JSON Canonicalization Scheme (JCS). Hashing over these bytes lives in the model
//! crate (`agent_surface_model::canonical`); the validator needs only the canonical text
//! (`enum`, `const` and `uniqueItems` compare JSON values by it).
//!
//! This is the one implementation of the canonical form: the compiler writes manifests with it
//! and the runtime verifies them with it, so both must agree byte for byte with the JavaScript
//! implementation (`JSON.stringify` semantics). `conformance/hashing-vectors.json` pins it.

use serde_json::{Map, Number, Value};

/// Canonical JSON (RFC 8785): keys sorted by UTF-16 code units, no whitespace, ECMAScript
/// number and string formatting. Hashes are computed over these bytes.
pub fn canonical_json(v: &Value) -> String {
    let mut out = String::new();
    write_compact(&mut out, v);
    out
}

/// The on-disk manifest format: canonical key order and scalar formatting, but indented by two
/// spaces so diffs stay readable. Deterministic, ends with a newline.
pub fn canonical_json_pretty(v: &Value) -> String {
    let mut out = String::new();
    write_pretty(&mut out, v, 0);
    out.push('\n');
    out
}

/// Orders strings the way JavaScript's default sort and RFC 8785 do: by UTF-16 code units.
/// Differs from byte order for characters above U+FFFF versus U+E000..U+FFFF.
pub fn cmp_utf16(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// The members of an object in canonical order, each as its canonical `"key":value` text. For
/// writing several canonical texts of one object that differ in a few members (a contract's
/// hash leaves out `source`, its text does not) while serializing each member once.
pub fn canonical_members(m: &Map<String, Value>) -> Vec<(&str, String)> {
    sorted_entries(m).into_iter().map(|(k, v)| (k.as_str(), canonical_member(k, v))).collect()
}

/// One member's canonical text, `"key":value`.
pub fn canonical_member(key: &str, v: &Value) -> String {
    let mut out = String::new();
    write_string(&mut out, key);
    out.push(':');
    write_compact(&mut out, v);
    out
}

/// `{` + the members' texts joined by `,` + `}`: the canonical object of [`canonical_members`].
pub fn join_members<'a>(members: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::from("{");
    for (i, text) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(text);
    }
    out.push('}');
    out
}

/// The pretty form ([`canonical_json_pretty`]) of canonical compact text, without parsing it:
/// the indentation goes between the tokens [`canonical_json`] wrote. Only for such text (no
/// whitespace between tokens); for it, `pretty_from_canonical(&canonical_json(v)) ==
/// canonical_json_pretty(v)`.
pub fn pretty_from_canonical(compact: &str) -> String {
    let mut out: Vec<u8> = Vec::with_capacity(compact.len() + compact.len() / 2);
    pretty_from_canonical_into(&mut out, compact, 0);
    out.push(b'\n');
    // Only ASCII was inserted, between tokens: still the UTF-8 it was.
    String::from_utf8(out).expect("indenting UTF-8 text between tokens keeps it UTF-8")
}

/// [`pretty_from_canonical`] of a value nested `level` deep in a pretty document, appended to
/// `out` without a final newline: a document can be written a member at a time.
pub fn pretty_from_canonical_into(out: &mut Vec<u8>, compact: &str, level: usize) {
    let b = compact.as_bytes();
    let mut level = level;
    let newline = |out: &mut Vec<u8>, level: usize| {
        out.push(b'\n');
        out.resize(out.len() + 2 * level, b' ');
    };
    // Bytes are copied in runs between the structural characters.
    let (mut i, mut run) = (0, 0);
    while i < b.len() {
        match b[i] {
            b'"' => {
                // To the first `"` not escaped by a `\\`.
                i += 1;
                loop {
                    match memchr::memchr2(b'"', b'\\', &b[i.min(b.len())..]) {
                        Some(at) if b[i + at] == b'\\' => i += at + 2,
                        Some(at) => {
                            i += at + 1;
                            break;
                        }
                        None => {
                            i = b.len();
                            break;
                        }
                    }
                }
            }
            open @ (b'{' | b'[') => {
                let close = if open == b'{' { b'}' } else { b']' };
                if b.get(i + 1) == Some(&close) {
                    // `{}` and `[]` stay as they are.
                    i += 2;
                    continue;
                }
                out.extend_from_slice(&b[run..=i]);
                level += 1;
                newline(out, level);
                i += 1;
                run = i;
            }
            b'}' | b']' => {
                out.extend_from_slice(&b[run..i]);
                level = level.saturating_sub(1);
                newline(out, level);
                out.push(b[i]);
                i += 1;
                run = i;
            }
            b',' => {
                out.extend_from_slice(&b[run..=i]);
                newline(out, level);
                i += 1;
                run = i;
            }
            b':' => {
                out.extend_from_slice(&b[run..=i]);
                out.push(b' ');
                i += 1;
                run = i;
            }
            _ => i += 1,
        }
    }
    out.extend_from_slice(&b[run.min(b.len())..]);
}

fn sorted_entries(m: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<(&String, &Value)> = m.iter().collect();
    // serde_json's map is usually ordered by bytes already, which is UTF-16 order for every key
    // without characters above U+D7FF: check before sorting (the manifest has many objects).
    let ordered = entries.windows(2).all(|w| {
        let (a, b) = (w[0].0, w[1].0);
        if a.is_ascii() && b.is_ascii() {
            a < b
        } else {
            cmp_utf16(a, b).is_lt()
        }
    });
    if !ordered {
        entries.sort_by(|a, b| cmp_utf16(a.0, b.0));
    }
    entries
}

fn write_compact(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_compact(out, item);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, val)) in sorted_entries(m).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write_compact(out, val);
            }
            out.push('}');
        }
    }
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn write_pretty(out: &mut String, v: &Value, level: usize) {
    match v {
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                indent(out, level + 1);
                write_pretty(out, item, level + 1);
            }
            out.push('\n');
            indent(out, level);
            out.push(']');
        }
        Value::Object(m) if !m.is_empty() => {
            out.push_str("{\n");
            for (i, (k, val)) in sorted_entries(m).into_iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                indent(out, level + 1);
                write_string(out, k);
                out.push_str(": ");
                write_pretty(out, val, level + 1);
            }
            out.push('\n');
            indent(out, level);
            out.push('}');
        }
        // Scalars, `[]` and `{}` look the same as in the compact form.
        _ => write_compact(out, v),
    }
}

/// ECMAScript `Number.prototype.toString`: every number is an IEEE double in JavaScript, so
/// integers serde_json keeps as i64/u64 are converted first (large ones lose precision exactly
/// as they would in JS).
fn write_number(out: &mut String, n: &Number) {
    let f = n.as_f64().or_else(|| n.to_string().parse::<f64>().ok()).unwrap_or(0.0);
    if !f.is_finite() {
        // JSON.stringify writes non-finite numbers as null; serde_json cannot hold them anyway.
        out.push_str("null");
        return;
    }
    let mut buf = ryu_js::Buffer::new();
    out.push_str(buf.format_finite(f));
}

/// `JSON.stringify` string escaping: only `"`, `\` and C0 controls are escaped; `/` and all
/// non-ASCII characters are written literally.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    // Most strings need no escaping; a branch-free scan (vectorized) finds that out.
    if !s.bytes().fold(false, |any, b| any | (b < 0x20) | (b == b'"') | (b == b'\\')) {
        out.push_str(s);
        out.push('"');
        return;
    }
    // Copied in runs between the bytes that need escaping (all ASCII, so runs end on char
    // boundaries).
    let mut run = 0;
    for (i, b) in s.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            0x0C => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1F => "",
            _ => continue,
        };
        out.push_str(&s[run..i]);
        if escape.is_empty() {
            out.push_str(&format!("\\u{b:04x}"));
        } else {
            out.push_str(escape);
        }
        run = i + 1;
    }
    out.push_str(&s[run..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_sort_by_utf16_not_bytes() {
        // U+1F600 (surrogates D83D..) sorts before U+FF61 in UTF-16, after it in UTF-8.
        let v = json!({"\u{FF61}": 1, "\u{1F600}": 2});
        assert_eq!(canonical_json(&v), "{\"\u{1F600}\":2,\"\u{FF61}\":1}");
        assert_eq!(cmp_utf16("\u{1F600}", "\u{FF61}"), std::cmp::Ordering::Less);
        assert_eq!("\u{1F600}".cmp("\u{FF61}"), std::cmp::Ordering::Greater);
    }

    #[test]
    fn numbers_follow_ecmascript() {
        let cases: &[(Value, &str)] = &[
            (json!(0), "0"),
            (json!(-0.0), "0"),
            (json!(1.0), "1"),
            (json!(-7), "-7"),
            (json!(1.5), "1.5"),
            (json!(1e21), "1e+21"),
            (json!(1e20), "100000000000000000000"),
            (json!(1e-7), "1e-7"),
            (json!(0.000001), "0.000001"),
            (json!(0.1 + 0.2), "0.30000000000000004"),
            (json!(u64::MAX), "18446744073709552000"),
            (json!(i64::MIN), "-9223372036854776000"),
            (json!(9007199254740993u64), "9007199254740992"),
            (json!(5e-324), "5e-324"),
            (json!(1.7976931348623157e308), "1.7976931348623157e+308"),
        ];
        for (v, want) in cases {
            assert_eq!(canonical_json(v), *want, "number {v:?}");
        }
    }

    #[test]
    fn parsed_numbers_are_correctly_rounded() {
        // Needs serde_json's float_roundtrip: the default parser lands on a neighbouring double
        // for some inputs, and the canonical text (and hash) would then differ from JS.
        for text in ["123456789012345680000", "0.1", "2.2250738585072014e-308", "9.007199254740993e15"] {
            let v: Value = serde_json::from_str(text).unwrap();
            let want = text.parse::<f64>().unwrap();
            assert_eq!(v.as_f64().unwrap().to_bits(), want.to_bits(), "{text}");
        }
        let v: Value = serde_json::from_str("123456789012345680000").unwrap();
        assert_eq!(canonical_json(&v), "123456789012345680000");
    }

    #[test]
    fn strings_escape_like_json_stringify() {
        let v = json!("a\"b\\c/d\u{08}\u{0C}\n\r\t\u{00}\u{1F}\u{7F}\u{2028}é😀");
        assert_eq!(canonical_json(&v), "\"a\\\"b\\\\c/d\\b\\f\\n\\r\\t\\u0000\\u001f\u{7F}\u{2028}é😀\"");
        // Lowercase hex in \u escapes.
        assert_eq!(canonical_json(&json!("\u{1B}")), "\"\\u001b\"");
    }

    #[test]
    fn compact_has_no_whitespace_and_keeps_array_order() {
        let v = json!({"b": [3, 1, 2], "a": {"y": null, "x": true}});
        assert_eq!(canonical_json(&v), r#"{"a":{"x":true,"y":null},"b":[3,1,2]}"#);
    }

    #[test]
    fn pretty_format() {
        let v = json!({"b": [1, {"d": 2, "c": []}], "a": {}, "e": "x"});
        let want = "{\n  \"a\": {},\n  \"b\": [\n    1,\n    {\n      \"c\": [],\n      \"d\": 2\n    }\n  ],\n  \"e\": \"x\"\n}\n";
        assert_eq!(canonical_json_pretty(&v), want);
        assert_eq!(canonical_json_pretty(&json!({})), "{}\n");
        assert_eq!(canonical_json_pretty(&json!([])), "[]\n");
        assert_eq!(canonical_json_pretty(&json!(1e21)), "1e+21\n");
        assert_eq!(pretty_from_canonical(&canonical_json(&v)), want);
        // Pretty output parses back to the same canonical value.
        let back: Value = serde_json::from_str(&canonical_json_pretty(&v)).unwrap();
        assert_eq!(canonical_json(&back), canonical_json(&v));
    }

    /// The hashing vectors' values (`conformance/hashing-vectors.json`); their hashes are checked
    /// in the model crate.
    fn vectors() -> Vec<Value> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/hashing-vectors.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let doc: Value = serde_json::from_str(&text).unwrap();
        doc["vectors"].as_array().unwrap().clone()
    }

    #[test]
    fn pretty_from_canonical_text_equals_pretty_from_the_value() {
        let mut values = vectors();
        values.extend([
            json!({}),
            json!([]),
            json!("a\"{b}[c],d:e\\"),
            json!({"k\"}": [{}, [], {"x": []}], "": {"": ""}, "\u{1F600}": 1e21, "\u{E000}": -0.5}),
            json!([[[1]], {"a": [{"b": {}}]}, null, true, "\n\t\u{0}"]),
        ]);
        for v in &values {
            assert_eq!(pretty_from_canonical(&canonical_json(v)), canonical_json_pretty(v), "{v}");
        }
    }

    #[test]
    fn members_join_to_the_canonical_object() {
        let v = json!({"b": [1, {"d": 2}], "a": {}, "\u{1F600}": 1, "\u{E000}": 2});
        let Value::Object(m) = &v else { unreachable!() };
        let joined = format!("{{{}}}", canonical_members(m).into_iter().map(|(_, t)| t).collect::<Vec<_>>().join(","));
        assert_eq!(joined, canonical_json(&v));
        assert_eq!(canonical_members(m)[0].0, "a");
    }
}
