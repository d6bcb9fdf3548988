//! `agent-surface serve --stdio` as a real child process: handshake, scan, transform with a
//! warm cache, notifications, bad requests, and a clean exit when stdin closes.

use crate::common::{copy_dir, example_app};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// `agent-surface serve --stdio --root <root>`: the child, its stdin, and its stdout's lines.
fn serve(root: &Path) -> (Child, ChildStdin, std::io::Lines<BufReader<ChildStdout>>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-surface"))
        .args(["serve", "--stdio", "--root"])
        .arg(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    (child, stdin, lines)
}

#[test]
fn a_session_over_stdio() {
    let tmp = tempfile::tempdir().unwrap();
    let app = tmp.path().join("app");
    copy_dir(&example_app(), &app);
    let app = std::fs::canonicalize(&app).unwrap();
    let (mut child, mut stdin, mut lines) = serve(&app);
    let mut next = || -> Value { serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap() };

    let hello = next();
    assert_eq!(hello["protocol"], "agent-surface-serve");
    assert_eq!(hello["protocolVersion"], 1);
    assert_eq!(hello["binaryVersion"], env!("CARGO_PKG_VERSION"));

    let send_line = |stdin: &mut std::process::ChildStdin, line: &str| {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    };
    macro_rules! send {
        ($v:expr) => {
            send_line(&mut stdin, &$v.to_string())
        };
    }
    send!(json!({"id": 1, "method": "scan"}));
    let scan = next();
    assert_eq!(scan["id"], 1);
    assert_eq!(scan["result"]["complete"], true, "{scan}");
    assert_eq!(scan["result"]["manifest"]["contracts"].as_array().unwrap().len(), 9);

    // A non-ASCII file: offsets are bytes; the edit lands right after the definition object.
    let file = app.join("src/external/reports.ts");
    let code =
        std::fs::read_to_string(&file).unwrap().replace("Export the devices report", "Exportér le rapport — 東京");
    send!(json!({"id": "t1", "method": "transform", "params": {"file": file, "code": code}}));
    let t = next();
    let edits = t["result"]["edits"].as_array().unwrap();
    assert_eq!(edits.len(), 1, "{t}");
    let offset = edits[0]["offset"].as_u64().unwrap() as usize;
    assert!(code.is_char_boundary(offset));
    assert!(code[..offset].trim_end().ends_with('}'), "edit at {offset}");
    assert!(edits[0]["text"].as_str().unwrap().starts_with(", {\"contractHash\":\"blake3:"));

    // The same text again: no parsing at all.
    send!(json!({"id": "t2", "method": "transform", "params": {"file": file, "code": code}}));
    let t2 = next();
    assert_eq!(t2["result"]["parsed"], 0, "{t2}");
    assert_eq!(t2["result"]["edits"], t["result"]["edits"]);

    // An invalid contract: diagnostics with file, position and byte offsets.
    let broken = code.replace("effect: \"external-side-effect\"", "effect: \"local-state\"");
    send!(json!({"id": "t3", "method": "transform", "params": {"file": file, "code": broken}}));
    let t3 = next();
    let d = &t3["result"]["diagnostics"][0];
    assert_eq!(d["code"], "AS0401", "{t3}");
    assert_eq!(d["file"], "src/external/reports.ts");
    assert!(d["offset"].as_u64().is_some() && d["absFile"].as_str().unwrap().ends_with("reports.ts"));
    assert!(t3["result"]["edits"].as_array().unwrap().is_empty(), "a failing contract gets no provenance");

    send!(json!({"id": 4, "method": "didChange", "params": {"files": [file]}}));
    assert_eq!(next()["result"], json!({}));
    send_line(&mut stdin, "this is not json");
    assert_eq!(next()["error"]["code"], "bad-request");
    send!(json!({"id": 5, "method": "frobnicate"}));
    assert_eq!(next()["error"]["code"], "unknown-method");

    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "exits cleanly when stdin closes");
}

/// A transform asked for while a scan of the whole project runs is answered first, with the text
/// it was given; a scan asked for after it sees that text; `didChange` waits for the scans asked
/// for before it, and the scan after it reads the disk again.
#[test]
fn a_transform_does_not_wait_for_a_running_scan() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    // Enough contract files that the scan takes far longer than one file's transform.
    for i in 0..400 {
        std::fs::write(
            root.join(format!("c{i}.ts")),
            format!("import {{ defineAgentComponentContract }} from '@agent-surface/core';\nexport const c = defineAgentComponentContract({{ type: 'many.c{i}', description: 'Contract {i}.' }});\n"),
        )
        .unwrap();
    }
    let probe = root.join("probe.ts");
    let on_disk = "import { defineAgentComponentContract } from '@agent-surface/core';\nexport const p = defineAgentComponentContract({ type: 'probe', description: 'On disk.' });\n";
    std::fs::write(&probe, on_disk).unwrap();
    let given = on_disk.replace("On disk.", "Given by the bundler.");

    let (mut child, mut stdin, mut lines) = serve(&root);
    let hello: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(hello["protocol"], "agent-surface-serve");

    // All at once, as a bundler does: the responses come as they are ready.
    for req in [
        json!({"id": "scan-1", "method": "scan"}),
        json!({"id": "transform", "method": "transform", "params": {"file": probe, "code": given}}),
        json!({"id": "scan-2", "method": "scan"}),
        json!({"id": "didChange", "method": "didChange", "params": {"files": [probe]}}),
        json!({"id": "scan-3", "method": "scan"}),
    ] {
        writeln!(stdin, "{req}").unwrap();
    }
    stdin.flush().unwrap();
    let responses: Vec<Value> =
        (0..5).map(|_| serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap()).collect();
    let order: Vec<&str> = responses.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let at = |id: &str| order.iter().position(|o| *o == id).unwrap_or_else(|| panic!("no response to {id}: {order:?}"));
    let get = |id: &str| &responses[at(id)]["result"];
    assert!(at("transform") < at("scan-1"), "the transform waited for the scan: {order:?}");
    assert!(
        at("scan-1") < at("scan-2") && at("scan-2") < at("didChange") && at("didChange") < at("scan-3"),
        "{order:?}"
    );

    let description = |scan: &Value| {
        let contracts = scan["manifest"]["contracts"].as_array().unwrap_or_else(|| panic!("{scan}"));
        assert_eq!(contracts.len(), 401, "{scan}");
        let probe = contracts.iter().find(|c| c["id"] == "view:probe").unwrap();
        (probe["description"].as_str().unwrap().to_string(), probe["contractHash"].clone())
    };
    let t = get("transform");
    assert_eq!(t["edits"].as_array().unwrap().len(), 1, "{t}");
    assert_eq!(t["contracts"][0]["id"], "view:probe");
    let (given_description, given_hash) = description(get("scan-2"));
    assert_eq!(given_description, "Given by the bundler.");
    assert_eq!(t["contracts"][0]["contractHash"], given_hash, "the transform compiled the text it was given");
    let (disk_description, disk_hash) = description(get("scan-3"));
    assert_eq!(disk_description, "On disk.");
    assert_ne!(disk_hash, given_hash);

    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// A scan runs on the serve's own thread: it must still parse on the workers' parser-sized stacks
/// (`compile` and `check` do), not crash on a deeply nested contract the CLI reports as AS0303.
#[test]
fn a_scan_of_deeply_nested_source_reports_it_and_lives() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    let core = "import { defineAgentComponentContract as d } from '@agent-surface/core';\n";
    for i in 0..4 {
        let nested = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let text =
            format!("{core}export const c = d({{ type: 'a{i}', description: 'x', meta: {{ v: {nested} }} }});\n");
        std::fs::write(root.join(format!("c{i}.ts")), text).unwrap();
    }
    let (mut child, mut stdin, mut lines) = serve(&root);
    let mut next = || -> Value { serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap() };
    assert_eq!(next()["protocol"], "agent-surface-serve");
    writeln!(stdin, "{}", json!({"id": 1, "method": "scan"})).unwrap();
    writeln!(stdin, "{}", json!({"id": 2, "method": "shutdown"})).unwrap();
    stdin.flush().unwrap();
    let scan = next();
    let codes: Vec<&str> =
        scan["result"]["diagnostics"].as_array().unwrap().iter().filter_map(|d| d["code"].as_str()).collect();
    assert_eq!(codes, ["AS0303"; 4], "{scan}");
    assert_eq!(next()["id"], 2);
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn threads_are_a_positive_number() {
    let out = Command::new(env!("CARGO_BIN_EXE_agent-surface"))
        .args(["serve", "--stdio", "--threads", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--threads"), "{}", String::from_utf8_lossy(&out.stderr));
}
