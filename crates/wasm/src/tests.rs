//! Native tests of the functions the exports wrap (a `JsValue` needs a wasm host).

use super::*;
use std::path::PathBuf;

fn repo_file(rel: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn fixture() -> String {
    repo_file("crates/engine/tests/fixtures/devices-app.manifest.json")
}

fn thrown(text: &str) -> Value {
    match verify(text) {
        Ok(_) => panic!("the manifest was accepted"),
        Err(e) => serde_json::from_str(&authority_error_json(&e)).unwrap(),
    }
}

#[test]
fn the_example_manifest_verifies_and_round_trips() {
    let text = fixture();
    let authority = verify(&text).unwrap();
    let original: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(authority.manifest_hash(), original["manifestHash"].as_str().unwrap());
    let back: Value = serde_json::from_str(&authority.manifest_value().to_string()).unwrap();
    assert_eq!(back, original);
}

#[test]
fn refusals_carry_kind_message_contract_and_details() {
    let mut m: Value = serde_json::from_str(&fixture()).unwrap();
    let zero = format!("blake3:{}", "0".repeat(64));
    m["manifestHash"] = json!(zero);
    let e = thrown(&m.to_string());
    assert_eq!(e["kind"], "manifest-hash-mismatch");
    assert_eq!(e["contract"], Value::Null);
    assert_eq!(e["details"]["found"], json!(zero));
    assert!(e["message"].as_str().unwrap().contains(&zero));

    let mut m: Value = serde_json::from_str(&fixture()).unwrap();
    m["contracts"][0]["description"] = json!("Remove devices.");
    let e = thrown(&m.to_string());
    assert_eq!(e["kind"], "contract-hash-mismatch");
    assert_eq!(e["contract"], "domain:devices.decommission");
    assert!(e["details"]["expected"].as_str().unwrap().starts_with("blake3:"));

    let mut m: Value = serde_json::from_str(&fixture()).unwrap();
    m["formatVersion"] = json!(2);
    let e = thrown(&m.to_string());
    assert_eq!(e["kind"], "unsupported-format-version");
    assert_eq!(e["details"]["found"], 2);

    let mut m: Value = serde_json::from_str(&fixture()).unwrap();
    m["completeness"]["contracts"] = json!(4);
    let e = thrown(&m.to_string());
    assert_eq!((e["kind"].as_str(), &e["details"]), (Some("count-mismatch"), &json!({"declared": 4, "actual": 5})));
}

#[test]
fn text_level_refusals_the_js_object_api_cannot_produce() {
    // Duplicate keys (two readers could keep different ones) and text that is not JSON.
    let text = fixture().replacen("{", "{\"formatVersion\": 1,", 1);
    assert_eq!(thrown(&text)["kind"], "not-json");
    assert_eq!(thrown("{")["kind"], "not-json");
    assert_eq!(thrown("[]")["kind"], "malformed");
}

#[test]
fn the_tamper_corpus_is_refused_with_the_recorded_kinds() {
    let corpus: Value =
        serde_json::from_str(&repo_file("packages/core/test/fixtures/tampered-manifests.json")).unwrap();
    let cases = corpus["cases"].as_array().unwrap();
    assert!(cases.len() >= 500);
    for (i, c) in cases.iter().enumerate() {
        let mut doc = corpus["bases"][c["base"].as_str().unwrap()].clone();
        for op in c["patch"].as_array().unwrap() {
            apply(&mut doc, op);
        }
        assert_eq!(hash(&doc.to_string()).unwrap(), c["tamperedHash"].as_str().unwrap(), "case {i}");
        assert_eq!(thrown(&doc.to_string())["kind"], c["rustKind"], "case {i}: {}", c["mutation"]);
    }
}

/// RFC 6902 add/remove/replace, as much as the corpus uses.
fn apply(doc: &mut Value, op: &Value) {
    let path = op["path"].as_str().unwrap();
    let mut segs: Vec<String> = path.split('/').skip(1).map(|s| s.replace("~1", "/").replace("~0", "~")).collect();
    let last = segs.pop().unwrap();
    let mut parent = doc;
    for s in &segs {
        parent = match parent {
            Value::Array(a) => &mut a[s.parse::<usize>().unwrap()],
            other => &mut other[s.as_str()],
        };
    }
    let value = op.get("value").cloned().unwrap_or(Value::Null);
    match (op["op"].as_str().unwrap(), parent) {
        ("remove", Value::Array(a)) => {
            a.remove(last.parse().unwrap());
        }
        ("add", Value::Array(a)) => {
            let i = if last == "-" { a.len() } else { last.parse().unwrap() };
            a.insert(i, value);
        }
        (_, Value::Array(a)) => a[last.parse::<usize>().unwrap()] = value,
        ("remove", Value::Object(o)) => {
            o.remove(&last);
        }
        (_, Value::Object(o)) => {
            o.insert(last, value);
        }
        (op, other) => panic!("cannot {op} at {path} in {other}"),
    }
}

#[test]
fn canonical_and_hash_reproduce_the_conformance_vectors() {
    let doc: Value = serde_json::from_str(&repo_file("conformance/hashing-vectors.json")).unwrap();
    let vectors = doc["vectors"].as_array().unwrap();
    assert!(vectors.len() >= 6);
    for v in vectors {
        let text = v["value"].to_string();
        assert_eq!(canonical(&text).unwrap(), v["canonical"].as_str().unwrap(), "{}", v["name"]);
        assert_eq!(hash(&text).unwrap(), v["blake3"].as_str().unwrap(), "{}", v["name"]);
    }
    let e: Value = serde_json::from_str(&canonical("{").unwrap_err()).unwrap();
    assert_eq!(e["kind"], "not-json");
}

#[test]
fn schemas_compile_validate_and_apply_defaults() {
    let schema = r#"{"type":"object","additionalProperties":false,"required":["ids"],
        "properties":{"ids":{"type":"array","items":{"type":"string"},"minItems":1},
                      "mode":{"type":"string","enum":["replace","add"],"default":"replace"}}}"#;
    let v = compile_schema(schema).unwrap();
    let ok: Value = serde_json::from_str(&validate(&v, r#"{"ids":["a"]}"#)).unwrap();
    assert_eq!(ok, json!({"ok": true, "value": {"ids": ["a"], "mode": "replace"}}));
    // Valid as given: no copy comes back (the caller keeps its own).
    assert_eq!(validate(&v, r#"{"ids":["a"],"mode":"add"}"#), r#"{"ok":true}"#);
    let bad: Value = serde_json::from_str(&validate(&v, r#"{"ids":[],"extra":1}"#)).unwrap();
    assert_eq!(bad["ok"], false);
    let found: Vec<(&str, &str)> = bad["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["path"].as_str().unwrap(), i["keyword"].as_str().unwrap()))
        .collect();
    assert_eq!(found, [("", "additionalProperties"), ("/ids", "minItems")]);
    assert!(bad["issues"][0]["message"].is_string());
    let not_json: Value = serde_json::from_str(&validate(&v, "{")).unwrap();
    assert_eq!(not_json["issues"][0]["keyword"], "json");
}

#[test]
fn schemas_outside_the_subset_are_refused_with_every_violation() {
    let e: Value = serde_json::from_str(
        &compile_schema(r#"{"type":"object","oneOf":[],"properties":{"a":{"not":{}}}}"#).unwrap_err(),
    )
    .unwrap();
    assert_eq!(e["kind"], "schema");
    let pointers: Vec<&str> =
        e["violations"].as_array().unwrap().iter().map(|v| v["pointer"].as_str().unwrap()).collect();
    assert_eq!(pointers.len(), 2, "{e}");
    assert!(e["message"].as_str().unwrap().contains("outside the supported subset"));
    for bad in [
        r##"{"$ref":"#/$defs/missing"}"##,
        r#"{"$ref":"https://example.com/s.json"}"#,
        r##"{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}"##,
    ] {
        assert!(compile_schema(bad).is_err(), "{bad}");
    }
}

#[test]
fn ids_follow_the_model_grammar() {
    assert_eq!(check_id("component-type", "devices.table"), None);
    assert!(check_id("component-type", "Devices.table").is_some());
    assert_eq!(check_id("capability-name", "readState"), None);
    assert!(check_id("capability-name", "do-it").is_some());
    assert_eq!(check_id("procedure-id", "domain:devices.reboot"), None);
    assert!(check_id("procedure-id", "domain:devices").is_some());
    assert_eq!(check_id("external-tool-id", "external:crm"), None);
    assert!(check_id("external-tool-id", "domain:crm.export").is_some());
    assert_eq!(check_id("instance-id", "row-42"), None);
    assert!(check_id("instance-id", "-bad").unwrap().contains("instance id"));
    assert!(check_id("nope", "x").is_some());
}
