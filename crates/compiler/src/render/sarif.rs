//! `--format sarif`: SARIF 2.1.0 with one rule per diagnostic code (the whole registry), columns
//! in UTF-16 code units, file URIs relative to the project root (`%SRCROOT%`), and stable
//! fingerprints (code, file, message and the flagged text — not line numbers — so a result
//! keeps its identity when code above it moves).

use crate::diagnostics::{Diagnostic, Severity, CODES};
use crate::source::SourceDb;
use serde_json::{json, Value};

pub const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

fn location(db: &SourceDb, span: crate::source::Span, message: Option<&str>) -> Value {
    let f = db.get(span.file);
    let start = f.line_col(span.lo);
    let end = f.line_col(span.hi);
    let mut loc = json!({
        "physicalLocation": {
            "artifactLocation": { "uri": f.rel, "uriBaseId": "%SRCROOT%" },
            "region": { "startLine": start.line, "startColumn": start.column, "endLine": end.line, "endColumn": end.column }
        }
    });
    if let Some(m) = message.filter(|m| !m.is_empty()) {
        loc["message"] = json!({ "text": m });
    }
    loc
}

pub fn render(diags: &[Diagnostic], db: &SourceDb) -> String {
    let rules: Vec<Value> = CODES
        .iter()
        .map(|c| {
            json!({
                "id": c.id,
                "name": c.name,
                "shortDescription": { "text": c.title },
                "fullDescription": { "text": if c.help.is_empty() { c.title.to_string() } else { format!("{}: {}", c.title, c.help) } },
                "helpUri": c.docs_url(),
                "defaultConfiguration": { "level": level(c.severity) },
                "properties": { "category": c.category.title() }
            })
        })
        .collect();
    let results: Vec<Value> = diags
        .iter()
        .map(|d| {
            let f = db.get(d.primary.span.file);
            let snippet = f.text.get(d.primary.span.lo as usize..d.primary.span.hi as usize).unwrap_or("");
            let fingerprint =
                blake3::hash(format!("{}\u{0}{}\u{0}{}\u{0}{}", d.code.id(), f.rel, d.message, snippet).as_bytes())
                    .to_hex()[..32]
                    .to_string();
            let mut text = d.message.clone();
            if let Some(h) = &d.help {
                text.push_str(&format!("\nhelp: {h}"));
            }
            let mut r = json!({
                "ruleId": d.code.id(),
                "ruleIndex": d.code as usize,
                "level": level(d.severity),
                "message": { "text": text },
                "locations": [location(db, d.primary.span, None)],
                "partialFingerprints": { "agentSurface/v1": fingerprint }
            });
            if !d.related.is_empty() {
                r["relatedLocations"] = Value::Array(
                    d.related
                        .iter()
                        .enumerate()
                        .map(|(i, l)| {
                            let mut v = location(db, l.span, Some(&l.message));
                            v["id"] = json!(i);
                            v
                        })
                        .collect(),
                );
            }
            r
        })
        .collect();
    let log = json!({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "agent-surface",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/agent-surface/agent-surface",
                "rules": rules
            }},
            "columnKind": "utf16CodeUnits",
            "results": results
        }]
    });
    let mut s = serde_json::to_string_pretty(&log).expect("sarif serializes");
    s.push('\n');
    s
}
