//! Validator throughput on typical inputs, compared in the same run with the `jsonschema` crate
//! (draft 2020-12, formats asserted, as ours) on the same schemas and instances.
//!
//!     cargo bench -p agent-surface-schema --bench validator
//!
//! Pairs to compare: `ours_is_valid` vs `jsonschema_is_valid` (a yes/no answer);
//! `ours_validate*` (the value with defaults applied, or every issue) vs
//! `jsonschema_iter_errors` (every error collected). `ours_validate` returns an owned copy of a
//! valid instance (the pipeline's call today); `ours_validate_cow` borrows it back when no
//! default applies; `ours_validate_owned` consumes an instance the caller owns (its input copy
//! is made outside the timing). Under `cargo test` each bench runs once.

use agent_surface_schema::{SchemaLimits, Validator};
use divan::Bencher;
use serde_json::{json, Value};

fn main() {
    divan::main();
}

struct Case {
    name: &'static str,
    schema: Value,
    instance: Value,
    valid: bool,
}

const STATUSES: [&str; 3] = ["online", "offline", "maintenance"];

fn row(i: usize) -> Value {
    json!({
        "id": format!("dev_{:06x}", 0xabc000 + i),
        "name": format!("Printer {i} on floor {}", i % 7),
        "status": STATUSES[i % 3],
        "lastSeen": if i % 4 == 0 { Value::Null } else { json!(format!("2026-01-{:02}T10:{:02}:00Z", 1 + i % 28, i % 60)) },
        "owner": {"email": format!("user{i}@example.com"), "id": "6f1c1f6e-3c1e-4a57-9d0f-2b0c8a1e9f00"}
    })
}

fn row_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "id": {"type": "string", "pattern": "^dev_[a-z0-9]{6,}$"},
            "name": {"type": "string", "maxLength": 120},
            "status": {"enum": ["online", "offline", "maintenance"]},
            "lastSeen": {"type": ["string", "null"], "format": "date-time"},
            "owner": {
                "type": "object",
                "properties": {"email": {"type": "string", "format": "email"}, "id": {"type": "string", "format": "uuid"}},
                "required": ["email", "id"],
                "additionalProperties": false
            }
        },
        "required": ["id", "name", "status", "lastSeen"],
        "additionalProperties": false
    })
}

fn cases() -> Vec<Case> {
    let select = json!({
        "type": "object",
        "properties": {
            "ids": {"type": "array", "items": {"type": "string", "pattern": "^dev_[a-z0-9]{6,}$"}, "minItems": 1, "maxItems": 50, "uniqueItems": true},
            "reason": {"type": "string", "maxLength": 200},
            "notify": {"type": "boolean", "default": true}
        },
        "required": ["ids"],
        "additionalProperties": false
    });
    let filter = json!({
        "type": "object",
        "properties": {
            "text": {"type": "string", "maxLength": 80},
            "status": {"enum": ["online", "offline", "maintenance"]},
            "page": {"type": "integer", "minimum": 1, "maximum": 1000},
            "since": {"type": "string", "format": "date"}
        },
        "required": ["text"],
        "additionalProperties": false
    });
    let page = json!({
        "type": "object",
        "properties": {
            "rows": {"type": "array", "items": {"$ref": "#/$defs/Row"}, "maxItems": 200},
            "total": {"type": "integer", "minimum": 0},
            "next": {"anyOf": [{"type": "string"}, {"type": "null"}]}
        },
        "required": ["rows", "total", "next"],
        "additionalProperties": false,
        "$defs": {"Row": row_schema()}
    });
    let rows: Vec<Value> = (0..50).map(row).collect();
    vec![
        Case {
            name: "action_input_small",
            schema: select.clone(),
            instance: json!({"ids": ["dev_abc123", "dev_def456", "dev_0a1b2c"], "notify": false}),
            valid: true,
        },
        Case {
            name: "action_input_filter",
            schema: filter.clone(),
            instance: json!({"text": "printer", "status": "online", "page": 3, "since": "2026-01-31"}),
            valid: true,
        },
        Case {
            name: "observation_page_50_rows",
            schema: page.clone(),
            instance: json!({"rows": rows, "total": 50, "next": "cursor_2"}),
            valid: true,
        },
        Case {
            name: "invalid_action_input",
            schema: select,
            instance: json!({"ids": ["dev_abc123", "nope", "dev_abc123"], "extra": 1}),
            valid: false,
        },
    ]
}

fn ours(c: &Case) -> Validator {
    Validator::new(&c.schema, SchemaLimits::default()).expect("in the subset")
}

fn theirs(c: &Case) -> jsonschema::Validator {
    jsonschema::draft202012::options().should_validate_formats(true).build(&c.schema).expect("a valid schema")
}

fn case(name: &str) -> Case {
    let c = cases().into_iter().find(|c| c.name == name).expect("a case");
    // Both validators must agree, through every entry point timed, before their speed is
    // compared.
    let (o, t) = (ours(&c), theirs(&c));
    assert_eq!(o.is_valid(&c.instance), c.valid, "ours on {name}");
    assert_eq!(o.validate(&c.instance).is_ok(), c.valid, "ours validate on {name}");
    assert_eq!(o.validate_cow(&c.instance).is_ok(), c.valid, "ours validate_cow on {name}");
    assert_eq!(o.validate_owned(c.instance.clone()).is_ok(), c.valid, "ours validate_owned on {name}");
    assert_eq!(t.is_valid(&c.instance), c.valid, "jsonschema on {name}");
    assert_eq!(t.iter_errors(&c.instance).count() == 0, c.valid, "jsonschema iter_errors on {name}");
    if !c.valid {
        // Ours reports every issue, as jsonschema's iter_errors does.
        assert_eq!(
            o.validate(&c.instance).unwrap_err().len(),
            t.iter_errors(&c.instance).count(),
            "issue count on {name}"
        );
    }
    c
}

const CASES: &[&str] =
    &["action_input_small", "action_input_filter", "observation_page_50_rows", "invalid_action_input"];

#[divan::bench(args = CASES)]
fn ours_is_valid(bencher: Bencher, name: &str) {
    let c = case(name);
    let v = ours(&c);
    bencher.bench_local(|| v.is_valid(divan::black_box(&c.instance)));
}

#[divan::bench(args = CASES)]
fn jsonschema_is_valid(bencher: Bencher, name: &str) {
    let c = case(name);
    let v = theirs(&c);
    bencher.bench_local(|| v.is_valid(divan::black_box(&c.instance)));
}

/// What the pipeline runs: the value with defaults applied on success, every issue otherwise.
#[divan::bench(args = CASES)]
fn ours_validate(bencher: Bencher, name: &str) {
    let c = case(name);
    let v = ours(&c);
    // Dropped inside the timing, like jsonschema's errors in `count()`.
    bencher.bench_local(|| divan::black_box_drop(v.validate(divan::black_box(&c.instance))));
}

/// The same without copying a valid instance to which no default applies.
#[divan::bench(args = CASES)]
fn ours_validate_cow(bencher: Bencher, name: &str) {
    let c = case(name);
    let v = ours(&c);
    bencher.bench_local(|| divan::black_box_drop(v.validate_cow(divan::black_box(&c.instance))));
}

/// The same on an instance the caller owns (the copy given to it is made outside the timing).
#[divan::bench(args = CASES)]
fn ours_validate_owned(bencher: Bencher, name: &str) {
    let c = case(name);
    let v = ours(&c);
    bencher
        .with_inputs(|| c.instance.clone())
        // The value handed back is the caller's own: it is dropped outside the timing, the
        // issues inside.
        .bench_local_values(|x| v.validate_owned(x).map_err(divan::black_box_drop));
}

#[divan::bench(args = CASES)]
fn jsonschema_iter_errors(bencher: Bencher, name: &str) {
    let c = case(name);
    let v = theirs(&c);
    bencher.bench_local(|| v.iter_errors(divan::black_box(&c.instance)).count());
}

/// Compiling the schema once (per capability, when the authority is created).
#[divan::bench(args = CASES)]
fn ours_compile(bencher: Bencher, name: &str) {
    let c = case(name);
    bencher.bench_local(|| ours(&c));
}

#[divan::bench(args = CASES)]
fn jsonschema_compile(bencher: Bencher, name: &str) {
    let c = case(name);
    bencher.bench_local(|| theirs(&c));
}
