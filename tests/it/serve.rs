//! `agent-surface serve --stdio` as a real child process: handshake, scan, transform with a
//! warm cache, notifications, bad requests, and a clean exit when stdin closes.

use crate::common::{copy_dir, example_app};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

#[test]
fn a_session_over_stdio() {
    let tmp = tempfile::tempdir().unwrap();
    let app = tmp.path().join("app");
    copy_dir(&example_app(), &app);
    let app = std::fs::canonicalize(&app).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-surface"))
        .args(["serve", "--stdio", "--root"])
        .arg(&app)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
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
