//! `agent-surface verify`: the example app's compiled manifest verifies, and every tampering in a
//! table-driven matrix is refused (exit 1) with the expected error kind. Re-indenting or
//! reordering keys — which change bytes but not canonical meaning — still verifies.

use crate::common::{copy_dir, example_app, run, Run};
use agent_surface_model::manifest::{contract_hash, manifest_hash};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn snapshot(name: &str, run: &Run) {
    let text = format!("exit: {}\n---- stdout ----\n{}---- stderr ----\n{}", run.code, run.stdout, run.stderr);
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots/cli"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name.to_string(), text));
}

const MANIFEST: &str = "agent-surface.manifest.json";

/// A scratch copy of the example app with a freshly compiled manifest; returns (tempdir, app, text).
fn compiled_example_app() -> (tempfile::TempDir, PathBuf, String) {
    let tmp = tempfile::tempdir().unwrap();
    let app = tmp.path().join("app");
    copy_dir(&example_app(), &app);
    let r = run(&app, &["compile"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(app.join(MANIFEST)).unwrap();
    (tmp, app, text)
}

/// The contract with `id`.
fn contract<'a>(m: &'a mut Value, id: &str) -> &'a mut Value {
    m["contracts"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no contract {id}"))
}

fn contracts(m: &mut Value) -> &mut Vec<Value> {
    m["contracts"].as_array_mut().unwrap()
}

/// Inserts `c` right after the contract `id` (where a copy of it, or an id just above it, sorts).
fn insert_after(m: &mut Value, id: &str, c: Value) {
    let at = contracts(m).iter().position(|x| x["id"] == id).unwrap_or_else(|| panic!("no contract {id}")) + 1;
    contracts(m).insert(at, c);
}

/// Sets `completeness.contracts` to the number of contracts, as a tamperer would.
fn fix_count(m: &mut Value) {
    let n = contracts(m).len();
    m["completeness"]["contracts"] = n.into();
}

/// Recomputes every `contractHash` and the `manifestHash`, as a tamperer who knows the scheme would.
fn rehash(m: &mut Value) {
    for c in contracts(m) {
        let h = contract_hash(c);
        c["contractHash"] = h.into();
    }
    let h = manifest_hash(m);
    m["manifestHash"] = h.into();
}

/// `value` as JSON with every object's keys in reverse order (serde_json's map is sorted).
fn keys_reversed(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let fields: Vec<String> = map
                .iter()
                .rev()
                .map(|(k, v)| format!("{}:{}", serde_json::to_string(k).unwrap(), keys_reversed(v)))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(keys_reversed).collect::<Vec<_>>().join(",")),
        other => serde_json::to_string(other).unwrap(),
    }
}

enum Edit {
    /// Edit the parsed manifest; it is written back pretty-printed.
    Json(fn(&mut Value)),
    /// Edit the raw bytes.
    Bytes(fn(&[u8]) -> Vec<u8>),
}

struct Tamper {
    what: &'static str,
    kind: &'static str,
    edit: Edit,
}

const TABLE: &str = "view:devices.table";
const NAV: &str = "view:app.nav";
const REBOOT: &str = "domain:devices.reboot";
const DECOMMISSION: &str = "domain:devices.decommission";
const EXPORT: &str = "external:reports.export";

fn tampers() -> Vec<Tamper> {
    use Edit::{Bytes, Json};
    let t = |what, kind, edit| Tamper { what, kind, edit };
    vec![
        // Descriptions.
        t(
            "component description",
            "contract-hash-mismatch",
            Json(|m| contract(m, TABLE)["description"] = "The devices.".into()),
        ),
        t(
            "observation description",
            "contract-hash-mismatch",
            Json(|m| contract(m, TABLE)["observations"]["readState"]["description"] = "All rows.".into()),
        ),
        t(
            "action description",
            "contract-hash-mismatch",
            Json(|m| contract(m, TABLE)["actions"]["filter"]["description"] = "Filter.".into()),
        ),
        t(
            "procedure description",
            "contract-hash-mismatch",
            Json(|m| contract(m, REBOOT)["description"] = "Reboot devices now.".into()),
        ),
        t(
            "external tool description",
            "contract-hash-mismatch",
            Json(|m| contract(m, EXPORT)["description"] = "Export the report.".into()),
        ),
        // Schemas.
        t(
            "schema: property added",
            "contract-hash-mismatch",
            Json(|m| contract(m, REBOOT)["inputSchema"]["properties"]["force"] = json!({"type": "boolean"})),
        ),
        t(
            "schema: property removed",
            "contract-hash-mismatch",
            Json(|m| {
                contract(m, REBOOT)["inputSchema"]["properties"].as_object_mut().unwrap().remove("reason");
            }),
        ),
        t(
            "schema: property changed (maxLength)",
            "contract-hash-mismatch",
            Json(|m| contract(m, REBOOT)["inputSchema"]["properties"]["reason"]["maxLength"] = 20000.into()),
        ),
        t(
            "schema: required emptied",
            "contract-hash-mismatch",
            Json(|m| contract(m, DECOMMISSION)["inputSchema"]["required"] = json!([])),
        ),
        t(
            "schema: pattern loosened",
            "contract-hash-mismatch",
            Json(|m| {
                contract(m, TABLE)["actions"]["selectRows"]["inputSchema"]["properties"]["ids"]["items"]["pattern"] =
                    "^.*$".into()
            }),
        ),
        t(
            "schema: additionalProperties opened",
            "contract-hash-mismatch",
            Json(|m| {
                contract(m, TABLE)["observations"]["readSelection"]["outputSchema"]["additionalProperties"] =
                    true.into()
            }),
        ),
        t(
            "schema: outputSchema null → {}",
            "contract-hash-mismatch",
            Json(|m| contract(m, DECOMMISSION)["outputSchema"] = json!({})),
        ),
        // Effects and governance defaults (materialized, so each is part of the contract).
        t("procedure effect", "contract-hash-mismatch", Json(|m| contract(m, DECOMMISSION)["effect"] = "read".into())),
        t(
            "action effect",
            "contract-hash-mismatch",
            Json(|m| contract(m, TABLE)["actions"]["filter"]["effect"] = "mutation".into()),
        ),
        t("idempotent", "contract-hash-mismatch", Json(|m| contract(m, REBOOT)["idempotent"] = true.into())),
        t("reversible", "contract-hash-mismatch", Json(|m| contract(m, DECOMMISSION)["reversible"] = true.into())),
        t(
            "confirmation",
            "contract-hash-mismatch",
            Json(|m| contract(m, DECOMMISSION)["confirmation"] = "never".into()),
        ),
        t("audit", "contract-hash-mismatch", Json(|m| contract(m, DECOMMISSION)["audit"] = "none".into())),
        t(
            "action audit default",
            "contract-hash-mismatch",
            Json(|m| contract(m, TABLE)["actions"]["clearSelection"]["audit"] = "none".into()),
        ),
        // Other contract fields.
        t(
            "meta",
            "contract-hash-mismatch",
            Json(|m| contract(m, TABLE)["meta"]["columns"].as_array_mut().unwrap().push("owner".into())),
        ),
        t("tags", "contract-hash-mismatch", Json(|m| contract(m, REBOOT)["tags"] = json!([]))),
        t(
            "policies (admin role dropped)",
            "contract-hash-mismatch",
            Json(|m| contract(m, DECOMMISSION)["policies"] = json!([])),
        ),
        t("origin", "contract-hash-mismatch", Json(|m| contract(m, NAV)["origin"] = "third-party".into())),
        t("priority", "contract-hash-mismatch", Json(|m| contract(m, TABLE)["priority"] = 1000.into())),
        t(
            "kind procedure → external-tool",
            "contract-hash-mismatch",
            Json(|m| contract(m, REBOOT)["kind"] = "external-tool".into()),
        ),
        // Contracts removed, added, reordered.
        t(
            "contract removed",
            "count-mismatch",
            Json(|m| {
                contracts(m).retain(|c| c["id"] != DECOMMISSION);
            }),
        ),
        t(
            "contract removed, count fixed",
            "manifest-hash-mismatch",
            Json(|m| {
                contracts(m).retain(|c| c["id"] != DECOMMISSION);
                fix_count(m);
            }),
        ),
        t(
            "contract added (copy, new id)",
            "count-mismatch",
            Json(|m| {
                let mut c = contract(m, EXPORT).clone();
                c["id"] = "external:reports.purge".into();
                insert_after(m, EXPORT, c);
            }),
        ),
        t(
            "contract added, count fixed",
            "contract-hash-mismatch",
            Json(|m| {
                let mut c = contract(m, EXPORT).clone();
                c["id"] = "external:reports.purge".into();
                insert_after(m, EXPORT, c);
                fix_count(m);
            }),
        ),
        t(
            "contract added, count and its contractHash fixed",
            "manifest-hash-mismatch",
            Json(|m| {
                let mut c = contract(m, EXPORT).clone();
                c["id"] = "external:reports.purge".into();
                c["contractHash"] = contract_hash(&c).into();
                insert_after(m, EXPORT, c);
                fix_count(m);
            }),
        ),
        t(
            "contract duplicated (same id), count fixed",
            "duplicate-id",
            Json(|m| {
                let c = contract(m, EXPORT).clone();
                insert_after(m, EXPORT, c);
                fix_count(m);
            }),
        ),
        t("two contracts swapped", "not-sorted", Json(|m| contracts(m).swap(0, 1))),
        // Hashes.
        t(
            "contractHash edited",
            "contract-hash-mismatch",
            Json(|m| {
                let c = contract(m, NAV);
                let h = c["contractHash"].as_str().unwrap().to_string();
                c["contractHash"] = flip_last_hex(&h).into();
            }),
        ),
        t(
            "contractHash removed",
            "malformed",
            Json(|m| {
                contract(m, NAV).as_object_mut().unwrap().remove("contractHash");
            }),
        ),
        t(
            "manifestHash edited",
            "manifest-hash-mismatch",
            Json(|m| {
                let h = m["manifestHash"].as_str().unwrap().to_string();
                m["manifestHash"] = flip_last_hex(&h).into();
            }),
        ),
        t(
            "manifestHash removed",
            "malformed",
            Json(|m| {
                m.as_object_mut().unwrap().remove("manifestHash");
            }),
        ),
        // Completeness, format, generator.
        t(
            "completeness.status → incomplete",
            "incomplete",
            Json(|m| m["completeness"]["status"] = "incomplete".into()),
        ),
        t("completeness.failed → 1", "incomplete", Json(|m| m["completeness"]["failed"] = 1.into())),
        t("completeness.contracts → 10", "count-mismatch", Json(|m| m["completeness"]["contracts"] = 10.into())),
        t("formatVersion → 1", "unsupported-format-version", Json(|m| m["formatVersion"] = 1.into())),
        t("formatVersion → 3", "unsupported-format-version", Json(|m| m["formatVersion"] = 3.into())),
        t("formatVersion → \"2\"", "unsupported-format-version", Json(|m| m["formatVersion"] = "2".into())),
        t(
            "formatVersion removed",
            "unsupported-format-version",
            Json(|m| {
                m.as_object_mut().unwrap().remove("formatVersion");
            }),
        ),
        t("generator.version", "manifest-hash-mismatch", Json(|m| m["generator"]["version"] = "9.9.9".into())),
        t("generator.name", "manifest-hash-mismatch", Json(|m| m["generator"]["name"] = "someone-else".into())),
        // Format 2 has no source locations (they are in the sidecar): one is an unknown field.
        t(
            "a format 1 source in a contract",
            "malformed",
            Json(|m| contract(m, REBOOT)["source"] = serde_json::json!({"file": "src/a.ts", "line": 1, "column": 1})),
        ),
        // Unknown fields.
        t("unknown top-level field", "malformed", Json(|m| m["signedBy"] = "me".into())),
        t("unknown contract field", "malformed", Json(|m| contract(m, REBOOT)["dangerous"] = true.into())),
        t(
            "unknown action field",
            "malformed",
            Json(|m| contract(m, TABLE)["actions"]["filter"]["hidden"] = true.into()),
        ),
        // A tamperer who recomputes every hash gets past the hashes but not the definition rules.
        t(
            "invalid definition, rehashed",
            "invalid-contract",
            Json(|m| {
                contract(m, REBOOT)["inputSchema"]["properties"]["reason"]["$ref"] = "#/x".into();
                rehash(m);
            }),
        ),
        // Bytes.
        t("truncated bytes", "not-json", Bytes(|b| b[..b.len() / 2].to_vec())),
        t("last byte dropped", "not-json", Bytes(|b| b.trim_ascii_end()[..b.trim_ascii_end().len() - 1].to_vec())),
        t("not JSON", "not-json", Bytes(|_| b"formatVersion: 1\ncontracts: []\n".to_vec())),
        t("empty file", "not-json", Bytes(|_| Vec::new())),
        t("trailing garbage", "not-json", Bytes(|b| [b, &b"x"[..]].concat())),
        t("a second document appended", "not-json", Bytes(|b| [b, b].concat())),
        t(
            "invalid UTF-8",
            "not-json",
            Bytes(|b| {
                let mut v = b.to_vec();
                let i = v.windows(6).position(|w| w == b"Reboot").unwrap();
                v[i] = 0xff;
                v
            }),
        ),
        t("JSON but not an object", "malformed", Bytes(|_| b"[1]".to_vec())),
        // A duplicate key placed before the real one would be invisible to a last-wins parser.
        t(
            "duplicate key hiding the real effect",
            "not-json",
            Bytes(|b| {
                let s = String::from_utf8(b.to_vec()).unwrap();
                s.replacen("\"effect\": \"destructive\"", "\"effect\": \"read\",\n      \"effect\": \"destructive\"", 1)
                    .into_bytes()
            }),
        ),
    ]
}

fn flip_last_hex(h: &str) -> String {
    let (head, last) = h.split_at(h.len() - 1);
    format!("{head}{}", if last == "0" { "1" } else { "0" })
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap() + "\n"
}

#[test]
fn verify_refuses_every_tampering() {
    let (_tmp, app, text) = compiled_example_app();
    let original: Value = serde_json::from_str(&text).unwrap();
    let matrix = tampers();
    assert!(matrix.len() >= 25);
    let mut failures = Vec::new();
    for (i, tamper) in matrix.iter().enumerate() {
        let bytes = match &tamper.edit {
            Edit::Json(f) => {
                let mut m = original.clone();
                f(&mut m);
                assert_ne!(m, original, "{}: the edit changed nothing", tamper.what);
                pretty(&m).into_bytes()
            }
            Edit::Bytes(f) => f(text.as_bytes()),
        };
        let file = format!("tampered-{i}.json");
        std::fs::write(app.join(&file), &bytes).unwrap();
        let pretty_run = run(&app, &["verify", &file]);
        let json_run = run(&app, &["verify", &file, "--format", "json"]);
        let doc: Value = match serde_json::from_str(&json_run.stdout) {
            Ok(d) => d,
            Err(e) => {
                failures.push(format!(
                    "{}: --format json printed no single JSON document ({e}): {:?}",
                    tamper.what, json_run.stdout
                ));
                continue;
            }
        };
        let kind = doc["error"]["kind"].as_str().unwrap_or("<none>");
        if pretty_run.code != 1 || json_run.code != 1 || doc["ok"] != false || kind != tamper.kind {
            failures.push(format!(
                "{}: expected exit 1 and {}, got exit {}/{} kind {kind}: {}",
                tamper.what,
                tamper.kind,
                pretty_run.code,
                json_run.code,
                pretty_run.stderr.trim_end()
            ));
            continue;
        }
        // Pretty: one line on stderr naming the file, nothing on stdout.
        let expected_prefix = format!("error: {file}: ");
        if !pretty_run.stdout.is_empty()
            || !pretty_run.stderr.starts_with(&expected_prefix)
            || pretty_run.stderr.lines().count() != 1
        {
            failures.push(format!("{}: pretty output {:?} / {:?}", tamper.what, pretty_run.stdout, pretty_run.stderr));
        }
        // JSON: the message is the pretty message; `contract` is a string or null.
        if pretty_run.stderr.strip_prefix(&expected_prefix).map(str::trim_end) != doc["error"]["message"].as_str() {
            failures.push(format!("{}: JSON message differs from pretty: {doc}", tamper.what));
        }
        if !(doc["error"]["contract"].is_string() || doc["error"]["contract"].is_null()) || !json_run.stderr.is_empty()
        {
            failures.push(format!("{}: bad JSON document {doc} / stderr {:?}", tamper.what, json_run.stderr));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} tamperings misbehaved:\n{}",
        failures.len(),
        matrix.len(),
        failures.join("\n")
    );
}

#[test]
fn refusals_name_the_contract_involved() {
    let (_tmp, app, text) = compiled_example_app();
    let original: Value = serde_json::from_str(&text).unwrap();
    type Case = (fn(&mut Value), Value);
    let cases: [Case; 4] = [
        (|m| contract(m, EXPORT)["effect"] = "read".into(), json!(EXPORT)),
        (|m| contracts(m).swap(0, 1), json!(DECOMMISSION)),
        (|m| m["generator"]["version"] = "0.0.0".into(), Value::Null),
        (
            |m| {
                let c = contract(m, EXPORT).clone();
                insert_after(m, EXPORT, c);
                fix_count(m);
            },
            json!(EXPORT),
        ),
    ];
    for (i, (edit, expected)) in cases.into_iter().enumerate() {
        let mut m = original.clone();
        edit(&mut m);
        std::fs::write(app.join("t.json"), pretty(&m)).unwrap();
        let r = run(&app, &["verify", "t.json", "--format", "json"]);
        let doc: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(doc["error"]["contract"], expected, "case {i}: {doc}");
    }
}

#[test]
fn verify_accepts_the_example_app_and_any_layout_of_the_same_meaning() {
    let (_tmp, app, text) = compiled_example_app();
    let ok = run(&app, &["verify", MANIFEST]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert!(ok.stderr.is_empty());
    snapshot("verify-example-app", &ok);
    let json_ok = run(&app, &["verify", MANIFEST, "--format", "json"]);
    assert_eq!(json_ok.code, 0);
    snapshot("verify-example-app-json", &json_ok);
    let doc: Value = serde_json::from_str(&json_ok.stdout).unwrap();
    let original: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc, json!({"ok": true, "contracts": 9, "manifestHash": original["manifestHash"]}));

    // Only canonical meaning is hashed: whitespace, key order and escapes are free.
    let layouts: Vec<(&str, String)> = vec![
        ("compact", serde_json::to_string(&original).unwrap()),
        ("keys reversed", keys_reversed(&original)),
        ("CRLF, tabs, no final newline", text.trim_end().replace('\n', "\r\n").replace("  ", "\t")),
        ("blank space around tokens", text.replace(": ", "   :   ").replace(",\n", "\n ,\n")),
        ("a schema number spelled 2e2", text.replacen("\"maxLength\": 200", "\"maxLength\": 2e2", 1)),
        (
            "unicode escapes in strings",
            text.replace("Reboot devices", "\\u0052eboot devices").replace("\"procedure\"", "\"proc\\u0065dure\""),
        ),
    ];
    for (what, layout) in layouts {
        assert_ne!(layout, text, "{what}: the layout is the original");
        std::fs::write(app.join("layout.json"), &layout).unwrap();
        let r = run(&app, &["verify", "layout.json"]);
        assert_eq!(r.code, 0, "{what} was refused: {}", r.stderr);
        assert!(r.stdout.starts_with("verified layout.json: 9 contracts"), "{what}: {}", r.stdout);
    }
}

#[test]
fn a_tamperer_who_recomputes_every_hash_is_not_detected() {
    // The hashes are integrity checks, not signatures: this documents the limit of `verify`.
    let (_tmp, app, text) = compiled_example_app();
    let mut m: Value = serde_json::from_str(&text).unwrap();
    // (Definition rules still hold: a destructive effect without confirmation is refused.)
    contract(&mut m, DECOMMISSION)["confirmation"] = "never".into();
    rehash(&mut m);
    std::fs::write(app.join("rehashed.json"), pretty(&m)).unwrap();
    let r = run(&app, &["verify", "rehashed.json", "--format", "json"]);
    assert_eq!(r.code, 1);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["error"]["kind"], "invalid-contract", "{doc}");
    // A rehashed edit that keeps every definition rule passes.
    let mut m: Value = serde_json::from_str(&text).unwrap();
    contract(&mut m, DECOMMISSION)["description"] = "Tidy up the device list.".into();
    contract(&mut m, DECOMMISSION)["policies"] = json!([]);
    rehash(&mut m);
    std::fs::write(app.join("rehashed.json"), pretty(&m)).unwrap();
    assert_eq!(run(&app, &["verify", "rehashed.json"]).code, 0);
}

#[test]
fn verify_refusal_output_in_both_formats() {
    let (_tmp, app, text) = compiled_example_app();
    let mut m: Value = serde_json::from_str(&text).unwrap();
    contract(&mut m, DECOMMISSION)["confirmation"] = "never".into();
    std::fs::write(app.join("tampered.json"), pretty(&m)).unwrap();
    let r = run(&app, &["verify", "tampered.json"]);
    assert_eq!(r.code, 1);
    snapshot("verify-tampered", &r);
    let j = run(&app, &["verify", "tampered.json", "--format", "json"]);
    assert_eq!(j.code, 1);
    snapshot("verify-tampered-json", &j);
}

#[test]
fn unreadable_manifests_and_bad_usage_exit_2() {
    let (_tmp, app, _) = compiled_example_app();
    for args in [&["verify", "missing.json"][..], &["verify", "missing.json", "--format", "json"]] {
        let r = run(&app, args);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stdout.is_empty());
        assert!(r.stderr.contains("missing.json") && r.stderr.contains("No such file"), "{}", r.stderr);
    }
    let dir = run(&app, &["verify", "src"]);
    assert_eq!(dir.code, 2);
    assert!(dir.stderr.contains("cannot read the manifest src"), "{}", dir.stderr);
    assert_eq!(run(&app, &["verify"]).code, 2);
    assert_eq!(run(&app, &["verify", MANIFEST, "--format", "yaml"]).code, 2);
    assert_eq!(run(&app, &["verify", MANIFEST, "--threads", "2"]).code, 2, "verify takes no --threads");
}
