//! Issue 10 "Tamper matrix": a property test. Verified manifests (the example app's, and the
//! pipeline tests' manifest with several more contracts) get random *semantic* mutations — any
//! scalar of any contract, schema properties and `required` entries added or removed, reorders
//! of arrays whose order carries meaning (`required`, `enum`, `anyOf`, `type`, `tags`,
//! `contracts`, ...), contracts and capabilities added or removed, defaults and governance
//! changed, hashes and completeness edited — without recomputing any hash, and
//! `CapabilityAuthority::new` must refuse every one. Pure layout changes of the file text
//! (whitespace, key order, string escapes) must be accepted by `from_json_str`.
//!
//! Every mutation is an RFC 6902 patch, so the same cases can be replayed elsewhere: a fixed-seed
//! selection of them is committed as `packages/core/test/fixtures/tampered-manifests.json`,
//! which the JavaScript verifier's vitest suite must refuse too (same refusal kind). That file is
//! checked current by this test; regenerate it with
//! `AGENT_SURFACE_REGENERATE_TAMPER_CORPUS=1 cargo test -p agent-surface-engine --test tamper_property`.

use agent_surface_engine::authority::CapabilityAuthority;
use agent_surface_model::canonical::{blake3_hex, canonical_json, cmp_utf16};
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

const CASES: u32 = 10_000;
const CORPUS_CASES: usize = 600;
const CORPUS_SEED: u64 = 0x7a3e_2026;
const CORPUS_PATH: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../packages/core/test/fixtures/tampered-manifests.json");

// ---------------------------------------------------------------------------------------------
// Bases: verified manifests and the places in them a mutation can reach (precomputed once).
// ---------------------------------------------------------------------------------------------

struct Base {
    name: &'static str,
    value: Value,
    canonical: String,
    /// Pointers to every scalar (string, number, bool, null) of the manifest.
    scalars: Vec<String>,
    /// Pointers to every schema object (input/output schemas and their subschemas).
    schemas: Vec<String>,
    /// Pointers to arrays whose order carries meaning and that hold two different elements.
    ordered: Vec<String>,
    /// Pointers to the `observations` / `actions` maps of components.
    capability_maps: Vec<String>,
    /// Pointers to every object (a place for an unknown field).
    objects: Vec<String>,
    /// Every string at each key name, for plausible replacements (`effect` → another effect).
    strings_by_key: std::collections::HashMap<String, Vec<String>>,
}

fn escape(seg: &str) -> String {
    seg.replace('~', "~0").replace('/', "~1")
}

fn unescape(seg: &str) -> String {
    seg.replace("~1", "/").replace("~0", "~")
}

const ORDERED_KEYS: &[&str] = &["required", "enum", "anyOf", "type", "tags", "policies", "examples", "contracts"];

impl Base {
    fn new(name: &'static str, value: Value) -> Base {
        CapabilityAuthority::new(value.clone()).unwrap_or_else(|e| panic!("base {name} is not verified: {e}"));
        let mut b = Base {
            name,
            canonical: canonical_json(&value),
            value: Value::Null,
            scalars: Vec::new(),
            schemas: Vec::new(),
            ordered: Vec::new(),
            capability_maps: Vec::new(),
            objects: Vec::new(),
            strings_by_key: Default::default(),
        };
        b.walk(&value, String::new(), None, Ctx::Data);
        b.value = value;
        for v in b.strings_by_key.values_mut() {
            v.sort();
            v.dedup();
        }
        b
    }

    fn walk(&mut self, v: &Value, ptr: String, key: Option<&str>, ctx: Ctx) {
        match v {
            Value::Object(m) => {
                self.objects.push(ptr.clone());
                let ctx = if ctx == Ctx::Data && matches!(key, Some("inputSchema" | "outputSchema")) {
                    Ctx::Schema
                } else {
                    ctx
                };
                if ctx == Ctx::Schema {
                    self.schemas.push(ptr.clone());
                }
                if ctx == Ctx::Data && matches!(key, Some("observations" | "actions")) {
                    self.capability_maps.push(ptr.clone());
                }
                for (k, child) in m {
                    let child_ctx = match (ctx, k.as_str()) {
                        (Ctx::Schema, "items") | (Ctx::SchemaMap, _) => Ctx::Schema,
                        (Ctx::Schema, "properties" | "$defs") => Ctx::SchemaMap,
                        (Ctx::Schema, "anyOf") => Ctx::SchemaList,
                        _ => Ctx::Data,
                    };
                    self.walk(child, format!("{ptr}/{}", escape(k)), Some(k), child_ctx);
                }
            }
            Value::Array(a) => {
                let distinct = a.iter().any(|x| x != &a[0]);
                if key.is_some_and(|k| ORDERED_KEYS.contains(&k)) && distinct {
                    self.ordered.push(ptr.clone());
                }
                let child_ctx = if ctx == Ctx::SchemaList { Ctx::Schema } else { Ctx::Data };
                for (i, child) in a.iter().enumerate() {
                    self.walk(child, format!("{ptr}/{i}"), None, child_ctx);
                }
            }
            other => {
                if let (Some(k), Value::String(s)) = (key, other) {
                    self.strings_by_key.entry(k.to_string()).or_default().push(s.clone());
                }
                self.scalars.push(ptr);
            }
        }
    }
}

/// Where a value sits: plain data, a schema, a map of schemas (`properties`, `$defs`), a list
/// of schemas (`anyOf`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Data,
    Schema,
    SchemaMap,
    SchemaList,
}

fn bases() -> &'static [Base] {
    static BASES: OnceLock<Vec<Base>> = OnceLock::new();
    BASES.get_or_init(|| {
        let fixture: Value = serde_json::from_str(&crate::common::fixture_text()).unwrap();
        vec![Base::new("devices-app", fixture), Base::new("pipeline-tests", crate::common::test_manifest())]
    })
}

// ---------------------------------------------------------------------------------------------
// Patches (RFC 6902 `add` / `remove` / `replace`).
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Op {
    Add(String, Value),
    Remove(String),
    Replace(String, Value),
}

impl Op {
    fn to_json(&self) -> Value {
        match self {
            Op::Add(p, v) => json!({"op": "add", "path": p, "value": v}),
            Op::Remove(p) => json!({"op": "remove", "path": p}),
            Op::Replace(p, v) => json!({"op": "replace", "path": p, "value": v}),
        }
    }
}

fn split(ptr: &str) -> (String, String) {
    let i = ptr.rfind('/').expect("not the root");
    (ptr[..i].to_string(), unescape(&ptr[i + 1..]))
}

fn apply(doc: &mut Value, ops: &[Op]) {
    for op in ops {
        let (path, value) = match op {
            Op::Add(p, v) | Op::Replace(p, v) => (p, Some(v.clone())),
            Op::Remove(p) => (p, None),
        };
        let (parent, last) = split(path);
        let target = doc.pointer_mut(&parent).unwrap_or_else(|| panic!("no {parent}"));
        match (target, op) {
            (Value::Object(m), Op::Remove(_)) => {
                m.remove(&last).expect("remove: no such key");
            }
            (Value::Object(m), Op::Replace(..)) => {
                assert!(m.contains_key(&last), "replace: no such key {path}");
                m.insert(last, value.unwrap());
            }
            (Value::Object(m), Op::Add(..)) => {
                m.insert(last, value.unwrap());
            }
            (Value::Array(a), Op::Remove(_)) => {
                a.remove(last.parse().unwrap());
            }
            (Value::Array(a), Op::Replace(..)) => {
                a[last.parse::<usize>().unwrap()] = value.unwrap();
            }
            (Value::Array(a), Op::Add(..)) => {
                let i = if last == "-" { a.len() } else { last.parse().unwrap() };
                a.insert(i, value.unwrap());
            }
            (other, _) => panic!("{path}: parent is {other}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Mutations.
// ---------------------------------------------------------------------------------------------

/// The random numbers a mutation is drawn from (proptest generates them; the corpus generator
/// draws them from a seeded rng).
#[derive(Clone, Copy, Debug)]
struct Plan {
    base: usize,
    kind: u8,
    a: u64,
    b: u64,
    c: u64,
}

const KINDS: u8 = 18;

struct Mutation {
    what: &'static str,
    ops: Vec<Op>,
}

fn pick<T: Clone>(items: &[T], r: u64) -> Option<T> {
    (!items.is_empty()).then(|| items[(r % items.len() as u64) as usize].clone())
}

fn contracts(v: &Value) -> &Vec<Value> {
    v["contracts"].as_array().unwrap()
}

/// A different value for the scalar at `ptr`: a plausible alternative (another value seen at
/// the same key, a neighbouring number) or an edited one.
fn changed_scalar(base: &Base, ptr: &str, r: u64) -> Value {
    let current = base.value.pointer(ptr).unwrap();
    let (_, key) = split(ptr);
    match current {
        Value::Bool(b) => Value::Bool(!b),
        Value::Null => [json!({"type": "object"}), json!("x"), json!(0)][(r % 3) as usize].clone(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                json!([i + 1, i - 1, i * 2 + 3, -i - 1][(r % 4) as usize])
            } else {
                json!(n.as_f64().unwrap() + 0.5)
            }
        }
        Value::String(s) => {
            let others: Vec<String> =
                base.strings_by_key.get(&key).into_iter().flatten().filter(|x| *x != s).cloned().collect();
            match r % 4 {
                0 | 1 if !others.is_empty() => Value::String(pick(&others, r / 4).unwrap()),
                2 => Value::String(format!("{s}x")),
                _ if s.is_empty() => Value::String("x".into()),
                _ => {
                    // Change one character (hashes: a hex digit).
                    let mut chars: Vec<char> = s.chars().collect();
                    let i = (r / 4) as usize % chars.len();
                    chars[i] = if chars[i] == '0' { '1' } else { '0' };
                    Value::String(chars.into_iter().collect())
                }
            }
        }
        _ => unreachable!("scalars only"),
    }
}

fn fresh_name(existing: &Map<String, Value>, r: u64) -> String {
    let mut n = r % 1000;
    loop {
        let name = format!("zz{n}");
        if !existing.contains_key(&name) {
            return name;
        }
        n += 1;
    }
}

fn mutate(base: &Base, p: Plan) -> Mutation {
    let v = &base.value;
    let cs = contracts(v);
    let ci = (p.a % cs.len() as u64) as usize;
    let contract = &cs[ci];
    let cptr = format!("/contracts/{ci}");
    let scalar = |r: u64| {
        let ptr = pick(&base.scalars, r).unwrap();
        let value = changed_scalar(base, &ptr, r >> 8);
        Mutation { what: "scalar", ops: vec![Op::Replace(ptr, value)] }
    };
    let schema_with_properties: Vec<String> = base
        .schemas
        .iter()
        .filter(|s| {
            v.pointer(s).and_then(|x| x.get("properties")).and_then(Value::as_object).is_some_and(|m| !m.is_empty())
        })
        .cloned()
        .collect();
    let m = match p.kind % KINDS {
        0 | 1 => scalar(p.b),
        2 => {
            // Add a property to a schema.
            let s = pick(&base.schemas, p.b).unwrap();
            match v.pointer(&s).unwrap().get("properties").and_then(Value::as_object) {
                Some(props) => Mutation {
                    what: "add-property",
                    ops: vec![Op::Add(format!("{s}/properties/{}", fresh_name(props, p.c)), json!({"type": "string"}))],
                },
                None => Mutation {
                    what: "add-property",
                    ops: vec![Op::Add(format!("{s}/properties"), json!({"zz": {"type": "string"}}))],
                },
            }
        }
        3 => match pick(&schema_with_properties, p.b) {
            Some(s) => {
                let props = v.pointer(&s).unwrap()["properties"].as_object().unwrap();
                let name = pick(&props.keys().cloned().collect::<Vec<_>>(), p.c).unwrap();
                Mutation { what: "remove-property", ops: vec![Op::Remove(format!("{s}/properties/{}", escape(&name)))] }
            }
            None => scalar(p.b),
        },
        4 => match pick(&schema_with_properties, p.b) {
            Some(s) => {
                let schema = v.pointer(&s).unwrap();
                let required: Vec<&str> = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let candidates: Vec<String> = schema["properties"]
                    .as_object()
                    .unwrap()
                    .keys()
                    .filter(|k| !required.contains(&k.as_str()))
                    .cloned()
                    .collect();
                let name = pick(&candidates, p.c).unwrap_or_else(|| "zz".into());
                if schema.get("required").is_some() {
                    Mutation { what: "add-required", ops: vec![Op::Add(format!("{s}/required/-"), json!(name))] }
                } else {
                    Mutation { what: "add-required", ops: vec![Op::Add(format!("{s}/required"), json!([name]))] }
                }
            }
            None => scalar(p.b),
        },
        5 => {
            let with_required: Vec<String> = base
                .schemas
                .iter()
                .filter(|s| {
                    v.pointer(s)
                        .and_then(|x| x.get("required"))
                        .and_then(Value::as_array)
                        .is_some_and(|r| !r.is_empty())
                })
                .cloned()
                .collect();
            match pick(&with_required, p.b) {
                Some(s) => {
                    let n = v.pointer(&s).unwrap()["required"].as_array().unwrap().len() as u64;
                    Mutation { what: "remove-required", ops: vec![Op::Remove(format!("{s}/required/{}", p.c % n))] }
                }
                None => scalar(p.b),
            }
        }
        6 | 7 => match pick(&base.ordered, p.b) {
            Some(arr) => {
                let a = v.pointer(&arr).unwrap().as_array().unwrap();
                let i = (p.c % a.len() as u64) as usize;
                let others: Vec<usize> = (0..a.len()).filter(|j| a[*j] != a[i]).collect();
                let j = pick(&others, p.c >> 16).unwrap();
                if p.kind % 2 == 0 || a.len() == 2 {
                    Mutation {
                        what: "reorder-swap",
                        ops: vec![
                            Op::Replace(format!("{arr}/{i}"), a[j].clone()),
                            Op::Replace(format!("{arr}/{j}"), a[i].clone()),
                        ],
                    }
                } else {
                    // Move an element to the end, past some element that differs from it.
                    let movable: Vec<usize> =
                        (0..a.len() - 1).filter(|k| a[k + 1..].iter().any(|x| x != &a[*k])).collect();
                    let from = pick(&movable, p.c).unwrap();
                    Mutation {
                        what: "reorder-move",
                        ops: vec![
                            Op::Remove(format!("{arr}/{from}")),
                            Op::Add(format!("{arr}/{}", a.len() - 1), a[from].clone()),
                        ],
                    }
                }
            }
            None => scalar(p.b),
        },
        8 => {
            // Add a contract: a copy under a new id (its copied hash is wrong), kept sorted, the
            // count kept consistent or not; or a verbatim duplicate.
            let mut copy = contract.clone();
            let mut ops = Vec::new();
            if p.c % 3 == 0 {
                ops.push(Op::Add(format!("/contracts/{ci}"), copy));
            } else {
                let suffix = format!("x{}", p.b % 100);
                if copy["kind"] == "component" {
                    let ty = format!("{}{suffix}", copy["type"].as_str().unwrap());
                    copy["id"] = json!(format!("view:{ty}"));
                    copy["type"] = json!(ty);
                } else {
                    copy["id"] = json!(format!("{}{suffix}", copy["id"].as_str().unwrap()));
                }
                let id = copy["id"].as_str().unwrap().to_string();
                let at = cs.iter().position(|c| cmp_utf16(c["id"].as_str().unwrap(), &id).is_gt()).unwrap_or(cs.len());
                ops.push(Op::Add(format!("/contracts/{at}"), copy));
            }
            if p.c % 2 == 0 {
                ops.push(Op::Replace("/completeness/contracts".into(), json!(cs.len() + 1)));
            }
            Mutation { what: "add-contract", ops }
        }
        9 => {
            let mut ops = vec![Op::Remove(cptr.clone())];
            if p.c % 2 == 0 {
                ops.push(Op::Replace("/completeness/contracts".into(), json!(cs.len() - 1)));
            }
            Mutation { what: "remove-contract", ops }
        }
        10 => match pick(&base.capability_maps, p.b) {
            // Add a capability (a copy of one under a new name) or remove one.
            Some(map_ptr) => {
                let map = v.pointer(&map_ptr).unwrap().as_object().unwrap();
                let other = if map_ptr.ends_with("/actions") { "observations" } else { "actions" };
                let sibling = v.pointer(&split(&map_ptr).0).unwrap()[other].as_object().cloned().unwrap_or_default();
                let names: Vec<String> = map.keys().cloned().collect();
                match pick(&names, p.c) {
                    Some(name) if p.c % 2 == 0 => Mutation {
                        what: "remove-capability",
                        ops: vec![Op::Remove(format!("{map_ptr}/{}", escape(&name)))],
                    },
                    Some(name) => {
                        let mut all = map.clone();
                        all.extend(sibling);
                        Mutation {
                            what: "add-capability",
                            ops: vec![Op::Add(format!("{map_ptr}/{}", fresh_name(&all, p.c >> 8)), map[&name].clone())],
                        }
                    }
                    None => Mutation {
                        what: "add-capability",
                        ops: vec![Op::Add(
                            format!("{map_ptr}/zz"),
                            json!({"description": "Added.", "meta": {}, "outputSchema": {"type": "string"}}),
                        )],
                    },
                }
            }
            None => scalar(p.b),
        },
        11 => {
            // Defaults: change one, or give a property one.
            let defaults: Vec<String> =
                base.scalars.iter().chain(&base.objects).filter(|s| s.ends_with("/default")).cloned().collect();
            let m = match pick(&defaults, p.b) {
                Some(d) if p.c % 3 != 0 => {
                    let cur = v.pointer(&d).unwrap();
                    let new = if cur.is_string() { changed_scalar(base, &d, p.c) } else { json!("changed") };
                    Mutation { what: "change-default", ops: vec![Op::Replace(d, new)] }
                }
                Some(d) => Mutation { what: "remove-default", ops: vec![Op::Remove(d)] },
                None => scalar(p.b),
            };
            m.or_else_add_default(base, &schema_with_properties, p)
        }
        12 => {
            // Hashes: edit one, swap two contracts' hashes, or copy another contract's hash.
            let other = (ci + 1 + (p.b % (cs.len() as u64 - 1).max(1)) as usize) % cs.len();
            let h = |i: usize| cs[i]["contractHash"].clone();
            match p.c % 4 {
                0 => Mutation {
                    what: "edit-contract-hash",
                    ops: vec![Op::Replace(
                        format!("{cptr}/contractHash"),
                        changed_scalar(base, &format!("{cptr}/contractHash"), p.b | 3),
                    )],
                },
                1 => Mutation {
                    what: "edit-manifest-hash",
                    ops: vec![Op::Replace("/manifestHash".into(), changed_scalar(base, "/manifestHash", p.b | 3))],
                },
                2 if other != ci => Mutation {
                    what: "swap-contract-hashes",
                    ops: vec![
                        Op::Replace(format!("{cptr}/contractHash"), h(other)),
                        Op::Replace(format!("/contracts/{other}/contractHash"), h(ci)),
                    ],
                },
                _ => Mutation {
                    what: "foreign-contract-hash",
                    ops: vec![Op::Replace(
                        format!("{cptr}/contractHash"),
                        json!(blake3_hex(&json!(base.canonical.len() as u64 + p.b))),
                    )],
                },
            }
        }
        13 => Mutation {
            what: "completeness",
            ops: vec![match p.c % 4 {
                0 => Op::Replace("/completeness/status".into(), json!("incomplete")),
                1 => Op::Replace("/completeness/failed".into(), json!(1 + p.b % 3)),
                2 => Op::Replace("/completeness/contracts".into(), json!(cs.len() + 1)),
                _ => Op::Replace("/completeness/contracts".into(), json!(cs.len() - 1)),
            }],
        },
        14 => {
            // Governance of an action or operation: another valid value.
            let fields = ["effect", "confirmation", "audit", "idempotent", "reversible"];
            let gov: Vec<String> =
                base.scalars.iter().filter(|s| fields.iter().any(|f| s.ends_with(&format!("/{f}")))).cloned().collect();
            let ptr = pick(&gov, p.b).unwrap();
            let value = changed_scalar(base, &ptr, p.c & !3);
            Mutation { what: "governance", ops: vec![Op::Replace(ptr, value)] }
        }
        15 => {
            let ops = match p.c % 4 {
                // A format 1 `source` in a contract: format 2 keeps locations in a sidecar, so
                // here it is an unknown field.
                0 => vec![Op::Add(
                    format!("{cptr}/source"),
                    json!({"file": "src/moved.ts", "line": p.b % 500 + 1, "column": 1}),
                )],
                i => {
                    let ptr = ["/generator/name", "/generator/version", "/formatVersion"][i as usize - 1];
                    vec![Op::Replace(ptr.to_string(), changed_scalar(base, ptr, p.b))]
                }
            };
            Mutation { what: "source-generator-format", ops }
        }
        16 => {
            let obj = pick(&base.objects, p.b).unwrap();
            let existing = v.pointer(&obj).unwrap().as_object().unwrap();
            Mutation {
                what: "unknown-field",
                ops: vec![Op::Add(format!("{obj}/{}", fresh_name(existing, p.c)), json!(true))],
            }
        }
        _ => match p.c % 3 {
            // Tags, meta, policies.
            0 => Mutation {
                what: "add-tag",
                ops: vec![Op::Add(format!("{cptr}/tags/-"), json!(format!("t{}", p.b % 10)))],
            },
            1 => {
                let meta = contract["meta"].as_object().unwrap();
                Mutation {
                    what: "add-meta",
                    ops: vec![Op::Add(format!("{cptr}/meta/{}", fresh_name(meta, p.b)), json!(p.b % 7))],
                }
            }
            _ => {
                Mutation { what: "add-policy", ops: vec![Op::Add(format!("{cptr}/policies/-"), json!({"name": "p"}))] }
            }
        },
    };
    m
}

trait OrAddDefault {
    fn or_else_add_default(self, base: &Base, schemas: &[String], p: Plan) -> Mutation;
}

impl OrAddDefault for Mutation {
    /// Every fourth default mutation gives a property without one a default instead.
    fn or_else_add_default(self, base: &Base, schemas: &[String], p: Plan) -> Mutation {
        if p.a % 4 != 0 {
            return self;
        }
        let Some(s) = pick(schemas, p.a >> 2) else { return self };
        let props = base.value.pointer(&s).unwrap()["properties"].as_object().unwrap();
        let without: Vec<&String> =
            props.iter().filter(|(_, x)| x.get("default").is_none() && x.is_object()).map(|(k, _)| k).collect();
        match pick(&without, p.b >> 3) {
            Some(name) => Mutation {
                what: "add-default",
                ops: vec![Op::Add(format!("{s}/properties/{}/default", escape(name)), json!("d"))],
            },
            None => self,
        }
    }
}

/// The mutated manifest, with the mutation's name and its patch.
fn tampered(p: Plan) -> (&'static Base, Mutation, Value) {
    let base = &bases()[p.base % bases().len()];
    let m = mutate(base, p);
    let mut doc = base.value.clone();
    apply(&mut doc, &m.ops);
    // Value equality is canonical equality here: no mutation trades an integer for an equal float.
    assert!(doc != base.value, "{} on {} changed nothing: {:?}", m.what, base.name, m.ops);
    (base, m, doc)
}

fn plans() -> impl Strategy<Value = Plan> {
    (0..2usize, 0..KINDS, any::<u64>(), any::<u64>(), any::<u64>()).prop_map(|(base, kind, a, b, c)| Plan {
        base,
        kind,
        a,
        b,
        c,
    })
}

/// Zero accepted forgeries: every semantic mutation without re-hashing is refused.
#[test]
fn every_semantic_mutation_is_refused() {
    bases();
    let started = std::time::Instant::now();
    let refused = AtomicUsize::new(0);
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::with_cases(CASES)
    });
    let outcome = runner.run(&plans(), |p| {
        let (base, m, doc) = tampered(p);
        let r = CapabilityAuthority::new(doc);
        prop_assert!(r.is_err(), "accepted a forgery: {} on {}: {:?}", m.what, base.name, m.ops);
        refused.fetch_add(1, Ordering::Relaxed);
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
    let n = refused.load(Ordering::Relaxed);
    assert!(n >= CASES as usize, "only {n} cases ran");
    eprintln!("tamper property: {n} semantic mutations, all refused, in {:?}", started.elapsed());
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(256) })]

    /// The same meaning in any layout — whitespace, key order, string escapes — is accepted.
    #[test]
    fn layout_changes_are_accepted(seed in any::<u64>(), which in 0..2usize) {
        let base = &bases()[which];
        let text = relayout(&base.value, seed);
        let a = CapabilityAuthority::from_json_str(&text).unwrap_or_else(|e| panic!("layout change refused: {e}\n{text}"));
        prop_assert_eq!(a.manifest_value(), &base.value);
    }
}

/// `value` as JSON text with random whitespace, key order and `\u` escapes (same meaning).
fn relayout(value: &Value, seed: u64) -> String {
    fn ws(rng: &mut fastrand::Rng, out: &mut String) {
        for _ in 0..rng.usize(0..3) {
            out.push([' ', '\n', '\t', '\r'][rng.usize(0..4)]);
        }
    }
    fn string(rng: &mut fastrand::Rng, s: &str, out: &mut String) {
        out.push('"');
        for ch in s.chars() {
            match ch {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                '/' if rng.bool() => out.push_str("\\/"),
                c if rng.u8(..8) == 0 => {
                    let mut buf = [0u16; 2];
                    for unit in c.encode_utf16(&mut buf) {
                        out.push_str(&if rng.bool() { format!("\\u{unit:04x}") } else { format!("\\u{unit:04X}") });
                    }
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }
    fn write(rng: &mut fastrand::Rng, v: &Value, out: &mut String) {
        ws(rng, out);
        match v {
            Value::Object(m) => {
                let mut entries: Vec<(&String, &Value)> = m.iter().collect();
                rng.shuffle(&mut entries);
                out.push('{');
                for (i, (k, x)) in entries.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    ws(rng, out);
                    string(rng, k, out);
                    ws(rng, out);
                    out.push(':');
                    write(rng, x, out);
                }
                ws(rng, out);
                out.push('}');
            }
            Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(rng, x, out);
                }
                ws(rng, out);
                out.push(']');
            }
            Value::String(s) => string(rng, s, out),
            other => out.push_str(&other.to_string()),
        }
        ws(rng, out);
    }
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut out = String::new();
    write(&mut rng, value, &mut out);
    out
}

// ---------------------------------------------------------------------------------------------
// The JavaScript verifier's corpus.
// ---------------------------------------------------------------------------------------------

fn corpus() -> Value {
    let mut rng = fastrand::Rng::with_seed(CORPUS_SEED);
    let mut cases = Vec::new();
    for i in 0..CORPUS_CASES {
        // Every kind equally often, on both bases.
        let p = Plan {
            base: i % 2,
            kind: ((i / 2) % KINDS as usize) as u8,
            a: rng.u64(..),
            b: rng.u64(..),
            c: rng.u64(..),
        };
        let (base, m, doc) = tampered(p);
        assert_ne!(canonical_json(&doc), base.canonical, "{} changed nothing canonical", m.what);
        let e = CapabilityAuthority::new(doc.clone()).expect_err("a corpus case was accepted");
        cases.push(json!({
            "base": base.name,
            "mutation": m.what,
            "patch": m.ops.iter().map(Op::to_json).collect::<Vec<_>>(),
            "tamperedHash": blake3_hex(&doc),
            "rustKind": e.kind(),
        }));
    }
    json!({
        "description": "Semantic tamperings of verified manifests (RFC 6902 patches of `bases`), each refused by the Rust CapabilityAuthority::new with `rustKind`. Generated by crates/engine/tests/it/tamper_property.rs; do not edit.",
        "bases": bases().iter().map(|b| (b.name.to_string(), b.value.clone())).collect::<Map<String, Value>>(),
        "cases": cases,
    })
}

#[test]
fn the_javascript_tamper_corpus_is_current() {
    let text = agent_surface_model::canonical::canonical_json_pretty(&corpus());
    if std::env::var_os("AGENT_SURFACE_REGENERATE_TAMPER_CORPUS").is_some() {
        std::fs::create_dir_all(std::path::Path::new(CORPUS_PATH).parent().unwrap()).unwrap();
        std::fs::write(CORPUS_PATH, &text).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(CORPUS_PATH).unwrap_or_default();
    assert!(
        committed == text,
        "{CORPUS_PATH} is stale or missing: run AGENT_SURFACE_REGENERATE_TAMPER_CORPUS=1 cargo test -p agent-surface-engine --test it tamper_property"
    );
}

#[test]
fn the_mutation_generator_covers_every_kind_on_both_bases() {
    let mut seen = std::collections::BTreeSet::new();
    let mut rng = fastrand::Rng::with_seed(1);
    for i in 0..2000 {
        let (_, m, _) = tampered(Plan {
            base: i % 2,
            kind: (i % KINDS as usize) as u8,
            a: rng.u64(..),
            b: rng.u64(..),
            c: rng.u64(..),
        });
        seen.insert(m.what);
    }
    for what in [
        "scalar",
        "add-property",
        "remove-property",
        "add-required",
        "remove-required",
        "reorder-swap",
        "reorder-move",
        "add-contract",
        "remove-contract",
        "add-capability",
        "remove-capability",
        "change-default",
        "add-default",
        "edit-contract-hash",
        "edit-manifest-hash",
        "swap-contract-hashes",
        "completeness",
        "governance",
        "source-generator-format",
        "unknown-field",
        "add-tag",
        "add-meta",
        "add-policy",
        "foreign-contract-hash",
        "remove-default",
    ] {
        assert!(seen.contains(what), "never generated: {what} (seen {seen:?})");
    }
}

/// Found by this test's design: the canonical form writes every number as JavaScript reads it (a
/// double), so 2^53 and 2^53 + 1 hash the same, while serde_json (and so the Rust validator, the
/// typed model) keeps them apart. A number a double cannot hold exactly is therefore refused:
/// the hashes could not pin it. The compiler never writes one (it evaluates numbers as doubles).
#[test]
fn numbers_the_hash_cannot_pin_are_refused() {
    let mut m = crate::common::test_manifest();
    let contracts = m["contracts"].as_array_mut().unwrap();
    let touch = contracts.iter_mut().find(|c| c["id"] == "domain:test.touch").unwrap();
    touch["inputSchema"]["properties"]["x"]["maximum"] = json!(9007199254740992u64);
    agent_surface_engine::fuzz_support::rehash(&mut m);
    let text = agent_surface_model::canonical::canonical_json_pretty(&m);
    let a = CapabilityAuthority::from_json_str(&text).expect("2^53 is exact: accepted");
    // The meaning differs in Rust: 2^53 + 1 exceeds a maximum of 2^53 but not one of 2^53 + 1.
    let limits = agent_surface_model::limits::AgentSurfaceLimits::default();
    let validator =
        |max: u64| agent_surface_schema::validate::Validator::new(&json!({"maximum": max}), &limits).unwrap();
    assert!(!validator(9007199254740992).is_valid(&json!(9007199254740993u64)));
    assert!(validator(9007199254740993).is_valid(&json!(9007199254740993u64)));
    let forged = text.replace("9007199254740992", "9007199254740993");
    assert_ne!(forged, text);
    match CapabilityAuthority::from_json_str(&forged) {
        Err(e) => assert_eq!(e.kind(), "malformed", "{e}"),
        Ok(f) => {
            assert_eq!(f.manifest_hash(), a.manifest_hash(), "same hash");
            panic!("a manifest whose meaning differs in Rust was accepted with the original's hashes");
        }
    }
    for big in ["9007199254740993", "-9007199254740993", "18446744073709551615"] {
        let e = CapabilityAuthority::from_json_str(&text.replace("9007199254740992", big)).unwrap_err();
        assert!(e.to_string().contains(big), "{e}");
    }
}
