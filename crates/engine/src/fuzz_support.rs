//! Entry points of the runtime's fuzz targets (`fuzz/fuzz_targets/`), here so that a stable
//! test (`tests/fuzz_replay.rs` at the workspace root) replays every seed and crash reproducer
//! through exactly the code libFuzzer runs. The schema target needs the `fuzzing` feature (it
//! derives schemas with `arbitrary`). Each function panics when an invariant breaks. Not a
//! public API.
#![doc(hidden)]

use crate::authority::{parse_strict, AuthorityError, CapabilityAuthority};
use agent_surface_model::canonical::{canonical_json, canonical_json_pretty};
use agent_surface_model::limits::AgentSurfaceLimits;
use agent_surface_model::manifest::{contract_hash, manifest_hash, ManifestContract};
use agent_surface_schema::subset::{check_schema, SchemaViolationKind};
use agent_surface_schema::validate::Validator;
#[cfg(feature = "fuzzing")]
use arbitrary::{Result as ArbResult, Unstructured};
use serde_json::Value;
#[cfg(feature = "fuzzing")]
use serde_json::{json, Map, Number};

// ---------------------------------------------------------------------------------------------
// Target `authority_manifest`: arbitrary bytes as a manifest.
// ---------------------------------------------------------------------------------------------

/// The bytes as manifest text through `CapabilityAuthority::from_json_str`; then, when they are
/// a JSON object with a `contracts` array, the same document with every hash and the count
/// recomputed (a forger who recomputes hashes), so the definition rules and the schema subset
/// checker see fuzzed contracts too.
///
/// Invariants: no panic; whatever is accepted passes [`check_accepted`].
pub fn authority_manifest(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(a) = CapabilityAuthority::from_json_str(text) {
        check_accepted(&a);
    }
    let Ok(mut value) = parse_strict(text) else { return };
    if rehash(&mut value) {
        match CapabilityAuthority::new(value) {
            Ok(a) => check_accepted(&a),
            Err(e) => {
                assert!(
                    !matches!(
                        e,
                        AuthorityError::ContractHashMismatch { .. }
                            | AuthorityError::ManifestHashMismatch { .. }
                            | AuthorityError::CountMismatch { .. }
                    ),
                    "re-hashed manifest refused for its hashes: {e}"
                );
                let _ = (e.to_string(), e.kind(), e.contract());
            }
        }
    }
}

/// Recomputes every `contractHash`, `completeness.contracts` and the `manifestHash`, as the
/// compiler would. `false` if the value has no `contracts` array to hash.
pub fn rehash(m: &mut Value) -> bool {
    let Some(contracts) = m.get_mut("contracts").and_then(Value::as_array_mut) else { return false };
    for c in contracts.iter_mut() {
        if c.is_object() {
            let h = contract_hash(c);
            c["contractHash"] = Value::String(h);
        }
    }
    let n = contracts.len();
    if let Some(c) = m.get_mut("completeness").filter(|c| c.is_object()) {
        c["contracts"] = n.into();
    }
    let h = manifest_hash(m);
    m["manifestHash"] = Value::String(h);
    true
}

/// What an accepted manifest guarantees:
/// - the typed model the runtime acts on is exactly what was hashed (canonical JSON of the
///   typed manifest equals that of the verified value, up to an absent `outputSchema`, which
///   the model writes as `null`);
/// - the same meaning in another layout (canonical compact and pretty text) is accepted;
/// - every contract can be looked up by its kind and carries provenance the authority
///   recognizes;
/// - every schema compiles to a [`Validator`] (registration and invocation need it).
pub fn check_accepted(a: &CapabilityAuthority) {
    let raw = a.manifest_value();
    let mut normalized = raw.clone();
    if let Some(cs) = normalized.get_mut("contracts").and_then(Value::as_array_mut) {
        for c in cs {
            let component = c.get("kind").and_then(Value::as_str) == Some("component");
            if component {
                if let Some(actions) = c.get_mut("actions").and_then(Value::as_object_mut) {
                    for action in actions.values_mut().filter_map(Value::as_object_mut) {
                        action.entry("outputSchema").or_insert(Value::Null);
                    }
                }
            } else if let Some(o) = c.as_object_mut() {
                o.entry("outputSchema").or_insert(Value::Null);
            }
        }
    }
    assert_eq!(
        canonical_json(&a.manifest().to_value()),
        canonical_json(&normalized),
        "the typed manifest differs from the verified JSON"
    );
    for text in [canonical_json(raw), canonical_json_pretty(raw)] {
        if let Err(e) = CapabilityAuthority::from_json_str(&text) {
            panic!("an accepted manifest is refused in canonical layout: {e}");
        }
    }
    let limits = a.limits().clone();
    let compiles = |what: &str, schema: &Value| {
        if let Err(v) = Validator::new(schema, &limits) {
            panic!(
                "accepted contract has a schema the validator refuses ({what}): {:?}",
                v.iter().map(|v| v.message.clone()).collect::<Vec<_>>()
            );
        }
    };
    for c in &a.manifest().contracts {
        match c {
            ManifestContract::Component(cc) => {
                let r = a.component(&cc.r#type).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(r.id(), cc.id);
                assert!(a.recognizes(&r.provenance()));
                for (name, o) in &cc.observations {
                    compiles(&format!("{}.{name} output", cc.id), &o.output_schema);
                }
                for (name, act) in &cc.actions {
                    compiles(&format!("{}.{name} input", cc.id), &act.input_schema);
                    if let Some(s) = &act.output_schema {
                        compiles(&format!("{}.{name} output", cc.id), s);
                    }
                }
            }
            ManifestContract::Procedure(o) | ManifestContract::ExternalTool(o) => {
                let r = match c {
                    ManifestContract::Procedure(_) => a.procedure(&o.id),
                    _ => a.external_tool(&o.id),
                }
                .unwrap_or_else(|e| panic!("{e}"));
                assert!(a.recognizes(&r.provenance()));
                compiles(&format!("{} input", o.id), &o.input_schema);
                if let Some(s) = &o.output_schema {
                    compiles(&format!("{} output", o.id), s);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Target `schema_validate`: JSON values against in-subset schemas.
// ---------------------------------------------------------------------------------------------

/// Two input forms:
/// - JSON text `{"schema": S, "instances": [I, ...]}` (the seed corpus: JSON-Schema-Test-Suite
///   groups and the example app's schemas);
/// - anything else: a schema and instances derived from the bytes with `arbitrary` (a generator
///   of the subset's keywords, with values that are sometimes wrong, and instances that are
///   sometimes built from the schema so that validation gets past the first keyword).
///
/// Schemas `Validator::new` refuses are dropped; every instance is validated: see
/// [`validate_pair`].
#[cfg(feature = "fuzzing")]
pub fn schema_validate(data: &[u8]) {
    if let Ok(Value::Object(m)) = serde_json::from_slice::<Value>(data) {
        if let (Some(schema), Some(Value::Array(instances))) = (m.get("schema"), m.get("instances")) {
            for i in instances {
                validate_pair(schema, i);
            }
            return;
        }
    }
    let mut u = Unstructured::new(data);
    let Ok(schema) = Gen::root_schema(&mut u) else { return };
    let mut n = 0;
    while n < 4 && !u.is_empty() {
        let Ok(instance) = Gen::instance(&mut u, &schema, &schema, 0) else { break };
        validate_pair(&schema, &instance);
        n += 1;
    }
    if n == 0 {
        validate_pair(&schema, &Value::Null);
    }
}

/// Counters of [`validate_pair`] outcomes, for the record in docs/fuzzing.md: pairs seen,
/// schemas compiled, instances valid, idempotence checked (valid and every default valid).
pub static SCHEMA_STATS: [std::sync::atomic::AtomicUsize; 4] = [const { std::sync::atomic::AtomicUsize::new(0) }; 4];

fn count(i: usize) {
    SCHEMA_STATS[i].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// Invariants for one (schema, instance): no panic; `Validator::check` reports exactly what
/// `Validator::new` refuses; `check_schema`'s verdict and `Validator::new`'s agree except for what only compiling can find (patterns, `$ref` loops);
/// `validate` and `is_valid` agree and are deterministic; a success's output (defaults
/// applied) validates again to itself (defaults are idempotent).
pub fn validate_pair(schema: &Value, instance: &Value) {
    count(0);
    let limits = AgentSurfaceLimits::default();
    let checked = check_schema(schema, &limits);
    let compiled = Validator::new(schema, &limits);
    assert_eq!(
        Validator::check(schema, &limits),
        compiled.as_ref().map(|_| ()).map_err(Clone::clone),
        "Validator::check and Validator::new disagree"
    );
    let v = match compiled {
        Ok(v) => v,
        Err(violations) => {
            if checked.is_empty() {
                for x in &violations {
                    let compile_only = matches!(&x.kind, SchemaViolationKind::InvalidPattern { .. })
                        || matches!(&x.kind, SchemaViolationKind::InvalidKeywordValue { keyword, .. } if keyword == "$ref");
                    assert!(compile_only, "check_schema accepted what Validator::new refuses: {}", x.message);
                }
            }
            return;
        }
    };
    assert!(checked.is_empty(), "Validator::new accepted what check_schema refuses");
    count(1);
    let first = v.validate(instance);
    assert_eq!(first.is_ok(), v.is_valid(instance), "validate and is_valid disagree");
    assert_eq!(first, v.validate(instance), "validation is not deterministic");
    match first {
        Ok(out) => {
            count(2);
            // Inserted defaults are trusted (docs/validator.md "Defaults"): one that does not
            // satisfy its own subschema may leave an invalid output; idempotence is promised
            // only when every default is valid.
            if defaults_are_valid(schema) {
                count(3);
                match v.validate(&out) {
                    Ok(again) => assert!(again == out, "defaults are not idempotent:\n schema {schema}\n instance {instance}\n first {out}\n second {again}"),
                    Err(issues) => panic!("the validated output is invalid:\n schema {schema}\n instance {instance}\n output {out}\n issues {issues:?}"),
                }
            } else {
                let _ = v.validate(&out);
            }
        }
        Err(issues) => {
            assert!(!issues.is_empty());
            for i in &issues {
                assert!(i.path.is_empty() || i.path.starts_with('/'), "not a JSON pointer: {:?}", i.path);
                let _ = i.to_string();
            }
        }
    }
}

/// Whether every `default` the validator may insert (those of subschemas under `properties`,
/// anywhere in the schema) validates against its own subschema (with the root's `$defs`).
pub fn defaults_are_valid(schema: &Value) -> bool {
    fn walk(s: &Value, defs: Option<&Value>, ok: &mut bool) {
        let Value::Object(m) = s else { return };
        if let Some(Value::Object(props)) = m.get("properties") {
            for sub in props.values() {
                if let (Some(d), Value::Object(sm)) = (sub.get("default"), sub) {
                    let mut own = sm.clone();
                    if let Some(defs) = defs {
                        own.insert("$defs".into(), defs.clone());
                    }
                    let valid = Validator::new(&Value::Object(own), &AgentSurfaceLimits::default())
                        .is_ok_and(|v| v.is_valid(d));
                    *ok &= valid;
                }
                walk(sub, defs, ok);
            }
        }
        for key in ["items", "$defs"] {
            match (key, m.get(key)) {
                ("items", Some(x)) => walk(x, defs, ok),
                ("$defs", Some(Value::Object(ds))) => ds.values().for_each(|x| walk(x, defs, ok)),
                _ => {}
            }
        }
        if let Some(Value::Array(branches)) = m.get("anyOf") {
            branches.iter().for_each(|x| walk(x, defs, ok));
        }
    }
    let mut ok = true;
    walk(schema, schema.get("$defs"), &mut ok);
    ok
}

/// The schema and instance generator (no state: the bytes decide everything).
#[cfg(feature = "fuzzing")]
struct Gen;

#[cfg(feature = "fuzzing")]
const NAMES: &[&str] = &["a", "b", "id", "name", "n", "tags", "mode", "", "a/b", "~0"];
#[cfg(feature = "fuzzing")]
const DEF_NAMES: &[&str] = &["node", "x", "a b", "ü"];
#[cfg(feature = "fuzzing")]
const PATTERNS: &[&str] = &[
    "^a",
    "[0-9]+",
    "^\\p{L}+$",
    "a{2,}",
    "^$",
    "(a|b)*c",
    "\\d",
    ".",
    "^[a-z]{1,3}$",
    "é",
    "^\\w+@\\w+$",
    "(",
    "\\",
    "a{2,1}",
    "[^]",
    "(?<n>x)\\k<n>",
    "\\u{1F600}",
    "^(?:a|ab)+$",
];
#[cfg(feature = "fuzzing")]
const STRINGS: &[&str] = &[
    "",
    "a",
    "ab",
    "abc",
    "é",
    "😀",
    "0",
    "1.5",
    "2026-01-01",
    "2026-01-01T00:00:00Z",
    "2026-02-30",
    "123e4567-e89b-12d3-a456-426614174000",
    "a@b.c",
    "https://x.y/z?q#f",
    "not a uri",
    "aa",
    "c",
    "x\u{0}y",
];
#[cfg(feature = "fuzzing")]
const TYPES: &[&str] = &["object", "array", "string", "number", "integer", "boolean", "null"];
#[cfg(feature = "fuzzing")]
const FORMATS: &[&str] = &["date-time", "date", "uuid", "email", "uri"];

#[cfg(feature = "fuzzing")]
impl Gen {
    fn pick<'a>(u: &mut Unstructured, from: &'a [&'a str]) -> ArbResult<&'a str> {
        Ok(from[u.choose_index(from.len())?])
    }

    fn number(u: &mut Unstructured) -> ArbResult<Value> {
        Ok(match u.int_in_range(0..=9u8)? {
            0..=3 => Value::from(u.int_in_range(-3i64..=12)?),
            4 => Value::from(u.arbitrary::<i64>()?),
            5 => Value::from(u.arbitrary::<u64>()?),
            6 => Number::from_f64(u.arbitrary::<f64>()?).map_or(Value::Null, Value::Number),
            7 => [
                json!(0.5),
                json!(0.1),
                json!(1.5),
                json!(-2.5),
                json!(1e-7),
                json!(1e21),
                json!(0.30000000000000004),
                json!(9007199254740993u64),
            ][u.choose_index(8)?]
            .clone(),
            _ => Value::from(f64::from(u.int_in_range(-40i32..=40)?) / 4.0),
        })
    }

    fn string(u: &mut Unstructured) -> ArbResult<String> {
        Ok(if u.ratio(3u8, 4)? { Self::pick(u, STRINGS)?.to_string() } else { u.arbitrary::<String>()? })
    }

    /// Any JSON value, small.
    fn value(u: &mut Unstructured, depth: usize) -> ArbResult<Value> {
        let top = if depth >= 3 { 4 } else { 6 };
        Ok(match u.int_in_range(0..=top)? {
            0 => Value::Null,
            1 => Value::Bool(u.arbitrary()?),
            2 => Self::number(u)?,
            3 | 4 => Value::String(Self::string(u)?),
            5 => {
                let n = u.int_in_range(0..=3)?;
                Value::Array((0..n).map(|_| Self::value(u, depth + 1)).collect::<ArbResult<_>>()?)
            }
            _ => {
                let n = u.int_in_range(0..=3)?;
                let mut m = Map::new();
                for _ in 0..n {
                    m.insert(Self::pick(u, NAMES)?.to_string(), Self::value(u, depth + 1)?);
                }
                Value::Object(m)
            }
        })
    }

    fn root_schema(u: &mut Unstructured) -> ArbResult<Value> {
        let ndefs = if u.ratio(1u8, 4)? { u.int_in_range(1..=2)? } else { 0 };
        let defs: Vec<&str> = (0..ndefs).map(|_| Self::pick(u, DEF_NAMES)).collect::<ArbResult<_>>()?;
        let mut root = Self::schema(u, 0, &defs)?;
        if !defs.is_empty() {
            let mut m = Map::new();
            for d in &defs {
                m.insert(d.to_string(), Self::schema(u, 1, &defs)?);
            }
            if let Value::Object(r) = &mut root {
                r.insert("$defs".into(), Value::Object(m));
            }
        }
        if u.ratio(1u8, 16)? {
            if let Value::Object(r) = &mut root {
                r.insert("$schema".into(), json!("https://json-schema.org/draft/2020-12/schema"));
            }
        }
        Ok(root)
    }

    fn schema(u: &mut Unstructured, depth: usize, defs: &[&str]) -> ArbResult<Value> {
        let mut m = Map::new();
        let n = if depth >= 4 { u.int_in_range(0..=2)? } else { u.int_in_range(0..=5)? };
        for _ in 0..n {
            let (k, v) = match u.int_in_range(0..=22u8)? {
                0 | 1 => {
                    if u.ratio(3u8, 4)? {
                        ("type", json!(Self::pick(u, TYPES)?))
                    } else {
                        let k = u.int_in_range(1..=3)?;
                        (
                            "type",
                            Value::Array(
                                (0..k).map(|_| Self::pick(u, TYPES).map(|t| json!(t))).collect::<ArbResult<_>>()?,
                            ),
                        )
                    }
                }
                2 => {
                    let k = u.int_in_range(1..=4)?;
                    ("enum", Value::Array((0..k).map(|_| Self::value(u, 1)).collect::<ArbResult<_>>()?))
                }
                3 => ("const", Self::value(u, 1)?),
                4 | 5 if depth < 5 => {
                    let k = u.int_in_range(0..=3)?;
                    let mut p = Map::new();
                    for _ in 0..k {
                        p.insert(Self::pick(u, NAMES)?.to_string(), Self::schema(u, depth + 1, defs)?);
                    }
                    ("properties", Value::Object(p))
                }
                6 => {
                    let k = u.int_in_range(0..=3)?;
                    (
                        "required",
                        Value::Array((0..k).map(|_| Self::pick(u, NAMES).map(|t| json!(t))).collect::<ArbResult<_>>()?),
                    )
                }
                7 => ("additionalProperties", Value::Bool(u.arbitrary()?)),
                8 if depth < 5 => ("items", Self::schema(u, depth + 1, defs)?),
                9 => (
                    Self::pick(u, &["minItems", "maxItems", "minLength", "maxLength"])?,
                    Value::from(u.int_in_range(0..=4u8)?),
                ),
                10 => ("uniqueItems", Value::Bool(u.arbitrary()?)),
                11 => ("pattern", json!(Self::pick(u, PATTERNS)?)),
                12 => ("format", json!(Self::pick(u, FORMATS)?)),
                13 | 14 => {
                    (Self::pick(u, &["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"])?, Self::number(u)?)
                }
                15 => (
                    "multipleOf",
                    [json!(0.5), json!(2), json!(0.1), json!(0.01), json!(3), json!(1e-3), json!(1.5), json!(7)]
                        [u.choose_index(8)?]
                    .clone(),
                ),
                16 | 17 if depth < 5 => {
                    let k = u.int_in_range(1..=3)?;
                    ("anyOf", Value::Array((0..k).map(|_| Self::schema(u, depth + 1, defs)).collect::<ArbResult<_>>()?))
                }
                18 if !defs.is_empty() => ("$ref", json!(format!("#/$defs/{}", defs[u.choose_index(defs.len())?]))),
                19 | 20 => ("default", Self::value(u, 1)?),
                21 => (Self::pick(u, &["description", "title"])?, json!("text")),
                22 => {
                    (Self::pick(u, &["examples", "deprecated"])?, if u.arbitrary()? { json!([1]) } else { json!(true) })
                }
                // A rare wrong value, so refusals are exercised too.
                _ => (Self::pick(u, &["minLength", "items", "required", "enum", "oneOf"])?, Self::value(u, 1)?),
            };
            m.insert(k.to_string(), v);
        }
        Ok(Value::Object(m))
    }

    /// An instance: arbitrary, or shaped by `schema` (following `$ref`, picking an `anyOf`
    /// branch, an `enum` member, the `const`, properties of an object, items of an array).
    fn instance(u: &mut Unstructured, root: &Value, schema: &Value, depth: usize) -> ArbResult<Value> {
        if depth > 6 || u.ratio(1u8, 5)? {
            return Self::value(u, 1);
        }
        let Value::Object(s) = schema else { return Self::value(u, 1) };
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            if let Some(target) = r.strip_prefix("#/$defs/").and_then(|d| root.get("$defs")?.get(d)) {
                return Self::instance(u, root, target, depth + 1);
            }
        }
        if let Some(Value::Array(branches)) = s.get("anyOf") {
            if !branches.is_empty() && u.arbitrary()? {
                let i = u.choose_index(branches.len())?;
                return Self::instance(u, root, &branches[i], depth + 1);
            }
        }
        if let Some(c) = s.get("const") {
            if u.ratio(3u8, 4)? {
                return Ok(c.clone());
            }
        }
        if let Some(Value::Array(e)) = s.get("enum") {
            if !e.is_empty() && u.ratio(3u8, 4)? {
                return Ok(e[u.choose_index(e.len())?].clone());
            }
        }
        let ty = match s.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(Value::Array(ts)) if !ts.is_empty() => ts[u.choose_index(ts.len())?].as_str().unwrap_or("null"),
            _ if s.contains_key("properties") || s.contains_key("required") => "object",
            _ if s.contains_key("items") => "array",
            _ => return Self::value(u, 1),
        };
        Ok(match ty {
            "object" => {
                let mut m = Map::new();
                if let Some(Value::Object(props)) = s.get("properties") {
                    for (name, sub) in props {
                        if u.ratio(2u8, 3)? {
                            m.insert(name.clone(), Self::instance(u, root, sub, depth + 1)?);
                        }
                    }
                }
                if let Some(Value::Array(req)) = s.get("required") {
                    for r in req.iter().filter_map(Value::as_str) {
                        if !m.contains_key(r) && u.ratio(1u8, 2)? {
                            m.insert(r.to_string(), Self::value(u, 2)?);
                        }
                    }
                }
                if u.ratio(1u8, 8)? {
                    m.insert(Self::pick(u, NAMES)?.to_string(), Self::value(u, 2)?);
                }
                Value::Object(m)
            }
            "array" => {
                let n = u.int_in_range(0..=3)?;
                let items = s.get("items").cloned().unwrap_or(json!({}));
                Value::Array((0..n).map(|_| Self::instance(u, root, &items, depth + 1)).collect::<ArbResult<_>>()?)
            }
            "string" => Value::String(Self::string(u)?),
            "integer" => Value::from(u.int_in_range(-5i64..=20)?),
            "number" => Self::number(u)?,
            "boolean" => Value::Bool(u.arbitrary()?),
            "null" => Value::Null,
            _ => Self::value(u, 1)?,
        })
    }
}
