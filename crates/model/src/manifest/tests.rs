//! The manifest's tests: assembly and hashing, the serialized shape, parsing, and agreement with
//! `docs/manifest.schema.json`.

use super::samples::*;
use super::*;
use crate::canonical::canonical_json;
use crate::effects::{default_governance, CapabilityKind, Confirmation, Effect};
use serde_json::{json, Value};

#[test]
fn assemble_sorts_hashes_and_counts() {
    let m = sample_manifest();
    let ids: Vec<&str> = m.contracts.iter().map(|c| c.id()).collect();
    assert_eq!(ids, ["domain:devices.delete", "external:crm.export", "view:devices.table"]);
    assert_eq!(m.format_version, FORMAT_VERSION);
    assert_eq!(m.completeness, Completeness { status: CompletenessStatus::Complete, contracts: 3, failed: 0 });
    for c in &m.contracts {
        assert!(c.contract_hash().starts_with("blake3:") && c.contract_hash().len() == 71);
        assert_eq!(c.contract_hash(), c.compute_contract_hash());
    }
    assert_eq!(m.manifest_hash, manifest_hash(&m.to_value()));
    m.verify_hashes().unwrap();
    verify_hashes(&m.to_value()).unwrap();

    let inc = CapabilityContractManifest::assemble(generator(), vec![], 2);
    assert_eq!(inc.completeness, Completeness { status: CompletenessStatus::Incomplete, contracts: 0, failed: 2 });
    assert_eq!(inc.to_value()["completeness"]["status"], json!("incomplete"));
}

#[test]
fn assemble_is_independent_of_input_order() {
    let a = sample_manifest();
    let b = CapabilityContractManifest::assemble(
        generator(),
        vec![
            ManifestContract::ExternalTool(sample_external()),
            ManifestContract::Component(sample_component()),
            ManifestContract::Procedure(sample_procedure()),
        ],
        0,
    );
    assert_eq!(a.to_pretty_json(), b.to_pretty_json());
    // Duplicated ids (a single file's partial compile) are ordered by their canonical text.
    let mut p2 = sample_procedure();
    p2.description = "A delete".into();
    let x = CapabilityContractManifest::assemble(
        generator(),
        vec![ManifestContract::Procedure(sample_procedure()), ManifestContract::Procedure(p2.clone())],
        0,
    );
    let y = CapabilityContractManifest::assemble(
        generator(),
        vec![ManifestContract::Procedure(p2), ManifestContract::Procedure(sample_procedure())],
        0,
    );
    assert_eq!(x.contracts.len(), 2);
    assert_eq!(x.to_pretty_json(), y.to_pretty_json());
}

#[test]
fn serialized_shape_is_explicit() {
    let v = sample_manifest().to_value();
    let p = &v["contracts"][0];
    assert_eq!(p["kind"], json!("procedure"));
    assert_eq!(p["outputSchema"], Value::Null);
    assert!(p.as_object().unwrap().contains_key("outputSchema"));
    assert_eq!(p["confirmation"], json!("required"));
    assert_eq!(p["effect"], json!("destructive"));
    assert_eq!(v["contracts"][1]["kind"], json!("external-tool"));
    let c = &v["contracts"][2];
    assert_eq!(c["kind"], json!("component"));
    assert_eq!(c["type"], json!("devices.table"));
    assert_eq!(c["id"], json!("view:devices.table"));
    assert_eq!(c["origin"], json!("first-party"));
    assert_eq!(c["priority"], json!(0));
    assert_eq!(c["actions"]["open"]["outputSchema"], Value::Null);
    assert_eq!(c["actions"]["select"]["effect"], json!("local-state"));
    // Format 2: where a contract is written is not in the manifest (see `locations`).
    assert!(!c.as_object().unwrap().contains_key("source"));
    assert_eq!(v["formatVersion"], json!(2));
    assert_eq!(v["generator"], json!({"name": "agent-surface", "version": "0.1.0"}));
}

#[test]
fn contract_hash_covers_everything_but_itself() {
    let a = ManifestContract::Procedure(sample_procedure());
    let mut changed = sample_procedure();
    changed.confirmation = Confirmation::Optional;
    assert_ne!(a.compute_contract_hash(), ManifestContract::Procedure(changed).compute_contract_hash());
    // The stored hash itself is not hashed.
    let mut v = a.to_value();
    let h = contract_hash(&v);
    v["contractHash"] = json!("blake3:whatever");
    assert_eq!(contract_hash(&v), h);
    // The kind is part of the semantics.
    let as_tool = ManifestContract::ExternalTool(sample_procedure());
    assert_ne!(a.compute_contract_hash(), as_tool.compute_contract_hash());
}

#[test]
fn the_spliced_manifest_hash_is_the_hash_of_the_whole_document() {
    for m in [
        sample_manifest(),
        CapabilityContractManifest::assemble(generator(), vec![], 0),
        CapabilityContractManifest::assemble(generator(), vec![ManifestContract::Component(sample_component())], 3),
    ] {
        assert_eq!(m.manifest_hash, manifest_hash(&m.to_value()));
        assert!(verify_hashes(&m.to_value()).is_ok());
    }
}

#[test]
fn an_assembled_manifest_writes_the_same_bytes_as_its_value() {
    let mut unusual = sample_procedure();
    unusual.description = "quotes \" braces {}[] commas, colons: \u{1F600} \u{E000}".into();
    unusual.meta.insert("\u{1F600}".into(), json!({"": [], "n": 1e21, "m": -0.5, "o": {}}));
    for contracts in [
        vec![],
        vec![ManifestContract::Component(sample_component())],
        sample_manifest().contracts,
        vec![ManifestContract::Procedure(unusual), ManifestContract::Component(sample_component())],
    ] {
        for failed in [0, 2] {
            let hashed: Vec<HashedContract> = contracts.iter().cloned().map(HashedContract::new).collect();
            let assembled = AssembledManifest::new(generator(), hashed, failed);
            let m = assembled.manifest();
            assert_eq!(*m, CapabilityContractManifest::assemble(generator(), contracts.clone(), failed));
            assert_eq!(assembled.canonical_json(), canonical_json(&m.to_value()));
            assert_eq!(assembled.to_pretty_json(), m.to_pretty_json());
            for c in &m.contracts {
                assert_eq!(c.contract_hash(), contract_hash(&c.to_value()));
            }
        }
    }
}

#[test]
fn manifest_hash_ignores_only_itself() {
    let m = sample_manifest();
    let mut v = m.to_value();
    v["manifestHash"] = json!("x");
    assert_eq!(manifest_hash(&v), m.manifest_hash);
    v["generator"]["version"] = json!("0.2.0");
    assert_ne!(manifest_hash(&v), m.manifest_hash);
}

#[test]
fn verify_hashes_finds_tampering() {
    let m = sample_manifest();
    let mut v = m.to_value();
    v["contracts"][1]["description"] = json!("Export everything");
    let e = verify_hashes(&v).unwrap_err();
    assert_eq!(e.pointer, vec!["contracts", "1", "contractHash"]);
    assert_eq!(e.id.as_deref(), Some("external:crm.export"));
    assert!(e.to_string().contains("external:crm.export"));

    let mut v = m.to_value();
    v["completeness"]["failed"] = json!(1);
    let e = verify_hashes(&v).unwrap_err();
    assert_eq!((e.pointer, e.id), (vec!["manifestHash".to_string()], None));

    let mut v = m.to_value();
    v.as_object_mut().unwrap().remove("manifestHash");
    assert_eq!(verify_hashes(&v).unwrap_err().found, None);
}

#[test]
fn a_format_1_contract_hash_is_the_format_2_one() {
    // Format 1 hashed a contract without its `source`; format 2 has none: the same hash, so
    // provenance compiled into bundles against format 1 still names the same contracts.
    let c = ManifestContract::Procedure(sample_procedure());
    let mut v1 = c.to_value();
    v1["source"] = json!({"file": "src/procedures.ts", "line": 3, "column": 1});
    let mut without = v1.clone();
    without.as_object_mut().unwrap().remove("source");
    assert_eq!(contract_hash(&without), c.compute_contract_hash());
    // A format 2 contract carrying a `source` is refused (an unknown field), not hashed.
    let mut m = sample_manifest().to_value();
    m["contracts"][0]["source"] = v1["source"].clone();
    assert!(CapabilityContractManifest::from_json_str(&m.to_string()).is_err());
}

#[test]
fn pretty_json_roundtrips() {
    let m = sample_manifest();
    let text = m.to_pretty_json();
    assert!(text.ends_with("}\n"));
    assert!(text.starts_with("{\n  \"completeness\": {\n"));
    let back = CapabilityContractManifest::from_json_str(&text).unwrap();
    assert_eq!(back, m);
    assert_eq!(back.to_pretty_json(), text);
    back.verify_hashes().unwrap();
    verify_hashes(&serde_json::from_str(&text).unwrap()).unwrap();
}

#[test]
fn unknown_fields_are_refused() {
    let base = sample_manifest().to_value();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![], "extra"),
        (vec!["generator"], "extra"),
        (vec!["completeness"], "extra"),
        (vec!["contracts", "0"], "extra"),
        (vec!["contracts", "1"], "extra"),
        (vec!["contracts", "2"], "extra"),
        (vec!["contracts", "2", "actions", "select"], "extra"),
        (vec!["contracts", "2", "observations", "readState"], "extra"),
        (vec!["contracts", "0"], "source"),
        (vec!["contracts", "2"], "source"),
    ];
    for (path, field) in cases {
        let mut v = base.clone();
        let mut target = &mut v;
        for seg in &path {
            target = match target {
                Value::Array(a) => &mut a[seg.parse::<usize>().unwrap()],
                other => &mut other[*seg],
            };
        }
        target.as_object_mut().unwrap().insert(field.into(), json!(1));
        let err = CapabilityContractManifest::from_json_str(&v.to_string()).unwrap_err();
        assert!(err.to_string().contains("unknown field"), "{path:?}: {err}");
    }
}

#[test]
fn malformed_manifests_are_refused() {
    let base = sample_manifest().to_value();
    let mut v = base.clone();
    v["contracts"][0]["kind"] = json!("widget");
    assert!(CapabilityContractManifest::from_json_str(&v.to_string()).is_err());
    let mut v = base.clone();
    v["contracts"][0]["effect"] = json!("explode");
    assert!(CapabilityContractManifest::from_json_str(&v.to_string()).is_err());
    let mut v = base.clone();
    v["contracts"][2].as_object_mut().unwrap().remove("origin");
    let e = CapabilityContractManifest::from_json_str(&v.to_string()).unwrap_err();
    assert!(e.to_string().contains("missing field `origin`"), "{e}");
    assert!(CapabilityContractManifest::from_json_str("not json").is_err());

    let mut v = base.clone();
    v["formatVersion"] = json!(3);
    let e = CapabilityContractManifest::from_json_str(&v.to_string()).unwrap_err();
    assert!(matches!(e, ManifestError::UnsupportedFormatVersion { found: 3 }));
    v["newField"] = json!(true);
    let e = CapabilityContractManifest::from_json_str(&v.to_string()).unwrap_err();
    assert!(matches!(e, ManifestError::UnsupportedFormatVersion { found: 3 }), "{e}");
    // A format 1 manifest (with its contracts' `source`) is refused for its version.
    let mut v1 = base.clone();
    v1["formatVersion"] = json!(1);
    v1["contracts"][0]["source"] = json!({"file": "src/a.ts", "line": 1, "column": 1});
    let e = CapabilityContractManifest::from_json_str(&v1.to_string()).unwrap_err();
    assert!(matches!(e, ManifestError::UnsupportedFormatVersion { found: 1 }), "{e}");
}

#[test]
fn accessors() {
    let c = ManifestContract::Component(sample_component());
    assert_eq!((c.id(), c.kind_str(), c.description()), ("view:devices.table", "component", "The devices table"));
    assert_eq!(c.contract_hash(), "");
    let t = ManifestContract::ExternalTool(sample_external());
    assert_eq!(t.kind_str(), "external-tool");
    assert_eq!(ManifestContract::Procedure(sample_procedure()).kind_str(), "procedure");
    let p = sample_procedure();
    assert_eq!(p.governance(), default_governance(CapabilityKind::DomainProcedure, Effect::Destructive));
}

// ---- docs/manifest.schema.json agrees with the serialized form ----

fn load_manifest_schema() -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/manifest.schema.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn resolve<'a>(root: &'a Value, mut s: &'a Value) -> &'a Value {
    while let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let name = r.strip_prefix("#/$defs/").unwrap_or_else(|| panic!("unexpected $ref {r}"));
        s = &root["$defs"][name];
        assert!(!s.is_null(), "unresolved $ref {r}");
    }
    s
}

/// Walks value and schema together; every object whose schema lists `required` must have
/// exactly those keys, and they must match `properties`.
fn check_shape(root: &Value, schema: &Value, value: &Value, path: &str, checked: &mut usize) {
    let schema = resolve(root, schema);
    if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
        // Contract unions are picked by their `kind` const; other unions (a schema or
        // null) hold agent schemas, whose content the manifest schema does not constrain.
        let Some(kind) = value.get("kind").cloned() else {
            return;
        };
        let branch = branches
            .iter()
            .map(|b| resolve(root, b))
            .find(|b| b["properties"]["kind"]["const"] == kind)
            .unwrap_or_else(|| panic!("{path}: no anyOf branch for kind {kind}"));
        return check_shape(root, branch, value, path, checked);
    }
    match value {
        Value::Object(obj) => {
            if let Some(required) = schema.get("required").and_then(Value::as_array) {
                let mut want: Vec<&str> = required.iter().map(|r| r.as_str().unwrap()).collect();
                let mut got: Vec<&str> = obj.keys().map(String::as_str).collect();
                want.sort();
                got.sort();
                assert_eq!(got, want, "{path}: serialized keys vs schema required");
                let mut props: Vec<&str> =
                    schema["properties"].as_object().unwrap().keys().map(String::as_str).collect();
                props.sort();
                assert_eq!(props, want, "{path}: schema properties vs required");
                assert_eq!(schema["additionalProperties"], json!(false), "{path}");
                *checked += 1;
            }
            for (k, v) in obj {
                if let Some(sub) = schema.get("properties").and_then(|p| p.get(k)) {
                    check_shape(root, sub, v, &format!("{path}/{k}"), checked);
                } else if let Some(sub) = schema.get("additionalProperties").filter(|a| a.is_object()) {
                    check_shape(root, sub, v, &format!("{path}/{k}"), checked);
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = schema.get("items") {
                for (i, v) in items.iter().enumerate() {
                    check_shape(root, sub, v, &format!("{path}/{i}"), checked);
                }
            }
        }
        _ => {}
    }
}

#[test]
fn manifest_json_schema_lists_exactly_the_serialized_fields() {
    let schema = load_manifest_schema();
    assert_eq!(schema["$schema"], json!("https://json-schema.org/draft/2020-12/schema"));
    let v = sample_manifest().to_value();
    let mut checked = 0;
    check_shape(&schema, &schema, &v, "", &mut checked);
    // manifest, generator, completeness, 3 contracts, 1 observation, 2 actions
    assert_eq!(checked, 9, "objects checked against required lists");
    // Enumerations in the schema agree with the Rust enums.
    let effects: Vec<Value> = Effect::ALL.iter().map(|e| json!(e.as_str())).collect();
    assert_eq!(schema["$defs"]["effect"]["enum"], Value::Array(effects));
    assert_eq!(schema["properties"]["formatVersion"]["const"], json!(FORMAT_VERSION));
}
