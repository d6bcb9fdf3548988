//! `agent-surface lsp` as a real child process, driven by a scripted client over stdio
//! (Content-Length framed JSON-RPC): diagnostics appear on open, update on change, clear when
//! fixed, follow changes across files, answer pulls, follow watched-file deletions; folders have
//! their own configuration; disk changes no client reports are seen; bad input never stops the
//! server; shutdown + exit ends it with 0.
//! Latencies from a change to its diagnostics are printed (`--nocapture`), not asserted.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(20);

struct Client {
    child: Child,
    stdin: ChildStdin,
    rx: mpsc::Receiver<Value>,
    /// Messages received and not consumed yet, in arrival order.
    seen: Vec<Value>,
    /// Every message received (for "never published" checks).
    all: Vec<Value>,
    next_id: i64,
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_agent-surface"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        length = Some(v.parse::<usize>().unwrap());
                    }
                }
                let mut body = vec![0; length.expect("Content-Length")];
                r.read_exact(&mut body).unwrap();
                let v: Value = serde_json::from_slice(&body).expect("the server writes JSON");
                assert_eq!(v["jsonrpc"], "2.0");
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        Client { child, stdin, rx, seen: Vec::new(), all: Vec::new(), next_id: 0 }
    }

    fn send_raw(&mut self, body: &[u8]) {
        write!(self.stdin, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
        self.stdin.write_all(body).unwrap();
        self.stdin.flush().unwrap();
    }

    fn send(&mut self, v: Value) {
        self.send_raw(v.to_string().as_bytes());
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait(&format!("the response to {method}"), |m| m["id"] == id && m.get("method").is_none())
    }

    /// The first message (already seen or arriving within the timeout) that satisfies `pred`;
    /// server requests are answered with a null result on the way.
    fn wait(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(i) = self.seen.iter().position(&pred) {
                return self.seen.remove(i);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let m = self
                .rx
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("timed out waiting for {what}; unconsumed: {:#?}", self.seen));
            if m.get("method").is_some() && m.get("id").is_some() {
                let reply = json!({"jsonrpc": "2.0", "id": m["id"], "result": null});
                self.send(reply);
            }
            self.all.push(m.clone());
            self.seen.push(m);
        }
    }

    /// The next publishDiagnostics for `path` whose diagnostics satisfy `pred`.
    fn published(&mut self, path: &Path, pred: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let u = uri(path);
        let m = self.wait(&format!("diagnostics for {}", path.display()), |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == u.as_str()
                && pred(m["params"]["diagnostics"].as_array().unwrap())
        });
        m["params"]["diagnostics"].as_array().unwrap().clone()
    }

    /// Drains what arrived so far (after a round trip, everything sent before it).
    fn settle(&mut self) {
        self.request("agent-surface/unknown-ping", json!({}));
        while let Ok(m) = self.rx.try_recv() {
            self.all.push(m.clone());
            self.seen.push(m);
        }
    }

    /// Settles, then forgets what was not consumed: the next waits see only what follows.
    fn fresh(&mut self) {
        self.settle();
        self.seen.clear();
    }

    fn exit_code(mut self) -> i32 {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().unwrap_or(-1);
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the server did not exit");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn initialize(c: &mut Client, folders: &[&Path], capabilities: Value) -> Value {
    let workspace_folders: Vec<Value> =
        folders.iter().map(|f| json!({"uri": uri(f), "name": f.file_name().unwrap().to_string_lossy()})).collect();
    let r = c.request("initialize", json!({"processId": null, "rootUri": uri(folders[0]), "workspaceFolders": workspace_folders, "capabilities": capabilities}));
    c.notify("initialized", json!({}));
    r
}

fn codes(diags: &[Value]) -> Vec<String> {
    diags.iter().map(|d| d["code"].as_str().unwrap().to_string()).collect()
}

fn workspace() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap().join("app");
    std::fs::create_dir_all(&root).unwrap();
    (tmp, root)
}

const DESCRIPTIONS: &str = "export const DEVICES = 'Zeigt die Geräte — 東京';\n";
const CONTRACT: &str = "import { defineAgentComponentContract } from '@agent-surface/core';\nimport { DEVICES } from './descriptions';\n/* Gerät 😀 東京 */ export const devices = defineAgentComponentContract({ type: 'devices.table', description: DEVICES });\n";

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

#[test]
fn diagnostics_follow_edits_across_files() {
    let (_tmp, root) = workspace();
    let contract = root.join("contract.ts");
    let descriptions = root.join("descriptions.ts");
    let other = root.join("other.ts");
    std::fs::write(&descriptions, DESCRIPTIONS).unwrap();
    std::fs::write(&contract, CONTRACT).unwrap();

    let mut c = Client::start();
    let caps = json!({"general": {"positionEncodings": ["utf-16"]}, "textDocument": {"publishDiagnostics": {"relatedInformation": true}}});
    let init = initialize(&mut c, &[&root], caps);
    let server = &init["result"]["capabilities"];
    assert_eq!(server["positionEncoding"], "utf-16", "{init}");
    assert_eq!(server["textDocumentSync"]["change"], 1, "full sync");
    assert_eq!(server["diagnosticProvider"]["interFileDependencies"], true);
    assert_eq!(init["result"]["serverInfo"]["name"], "agent-surface");

    // Open a broken buffer: the error is after non-ASCII text (é, an astral emoji, CJK) on its line.
    let broken = CONTRACT.replace("type: 'devices.table'", "type: 'Devices.Table'");
    let t0 = Instant::now();
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&contract), "languageId": "typescript", "version": 1, "text": broken}}),
    );
    let diags = c.published(&contract, |d| !d.is_empty());
    let open_latency = t0.elapsed();
    assert_eq!(codes(&diags), ["AS0101"], "{diags:#?}");
    let d = &diags[0];
    let line = broken.lines().nth(2).unwrap();
    let prefix = &line[..line.find("Devices.Table").unwrap()];
    let character = prefix.encode_utf16().count() as u64;
    assert_ne!(character, prefix.chars().count() as u64, "the line must tell UTF-16 from chars");
    assert_eq!(d["range"]["start"], json!({"line": 2, "character": character}), "{d:#}");
    assert_eq!(d["range"]["end"], json!({"line": 2, "character": character + 1}));
    assert_eq!(d["severity"], 1);
    assert_eq!(d["source"], "agent-surface");
    assert!(
        d["codeDescription"]["href"].as_str().unwrap().ends_with("/docs/diagnostics.md#as0101-invalid-component-type"),
        "{d:#}"
    );
    let message = d["message"].as_str().unwrap();
    assert!(message.starts_with("invalid component type \"Devices.Table\""), "{message}");
    assert!(message.contains("\nhelp: a component type is 1 to 8 dot-separated segments"), "{message}");

    // Fix it: the file's diagnostics clear (an empty list), with the buffer's version.
    let t0 = Instant::now();
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&contract), "version": 2}, "contentChanges": [{"text": CONTRACT}]}),
    );
    let m = c.wait("the cleared diagnostics", |m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri(&contract).as_str()
    });
    let change_latency = t0.elapsed();
    assert_eq!(m["params"]["diagnostics"], json!([]), "{m:#}");
    assert_eq!(m["params"]["version"], 2);

    // A new file on disk declaring the same component type: both files get diagnostics.
    // other.ts does not use the imported constant.
    std::fs::write(
        &other,
        CONTRACT
            .replace("export const devices", "export const again")
            .replace("description: DEVICES", "description: 'again'"),
    )
    .unwrap();
    c.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": uri(&other), "type": 1}]}));
    let second = c.published(&other, |d| !d.is_empty());
    assert_eq!(codes(&second), ["AS0501"], "{second:#?}");
    assert_eq!(second[0]["severity"], 1);
    let related = &second[0]["relatedInformation"][0];
    assert_eq!(related["location"]["uri"], uri(&contract).as_str(), "{second:#?}");
    assert_eq!(related["location"]["range"]["start"]["line"], 2);
    assert_eq!(related["message"], "first declared here");
    let first = c.published(&contract, |d| !d.is_empty());
    assert_eq!(codes(&first), ["AS0501"], "{first:#?}");
    assert_eq!(first[0]["severity"], 4, "a hint at the first declaration");
    assert_eq!(first[0]["relatedInformation"][0]["location"]["uri"], uri(&other).as_str());

    // Renaming the imported constant in the other (open, unsaved) buffer breaks the contract
    // file's import; its contract now fails, so other.ts's declaration (which does not import
    // it) is no longer a duplicate.
    c.notify("textDocument/didOpen", json!({"textDocument": {"uri": uri(&descriptions), "languageId": "typescript", "version": 1, "text": DESCRIPTIONS}}));
    c.published(&descriptions, |d| d.is_empty());
    c.fresh();
    let t0 = Instant::now();
    c.notify("textDocument/didChange", json!({"textDocument": {"uri": uri(&descriptions), "version": 2}, "contentChanges": [{"text": DESCRIPTIONS.replace("DEVICES", "DEVICE_LIST")}]}));
    let broken_import = c.published(&contract, |d| codes(d).contains(&"AS0011".to_string()));
    let cross_latency = t0.elapsed();
    assert_eq!(codes(&broken_import), ["AS0011"], "{broken_import:#?}");
    assert!(broken_import[0]["message"].as_str().unwrap().contains("has no export named `DEVICES`"));
    c.published(&other, |d| d.is_empty());

    // A client that pulls gets the same diagnostics.
    let pulled = c.request("textDocument/diagnostic", json!({"textDocument": {"uri": uri(&contract)}}));
    assert_eq!(pulled["result"]["kind"], "full", "{pulled:#}");
    assert_eq!(pulled["result"]["items"], json!(broken_import));
    let pulled_other = c.request("textDocument/diagnostic", json!({"textDocument": {"uri": uri(&other)}}));
    assert_eq!(pulled_other["result"]["items"], json!([]));

    // Undo the rename and save: the duplicate is back.
    c.fresh();
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&descriptions), "version": 3}, "contentChanges": [{"text": DESCRIPTIONS}]}),
    );
    let t0 = Instant::now();
    c.notify("textDocument/didSave", json!({"textDocument": {"uri": uri(&descriptions)}}));
    c.published(&descriptions, |d| d.is_empty());
    let save_latency = t0.elapsed();
    c.published(&other, |d| codes(d) == ["AS0501"]);
    c.published(&contract, |d| codes(d) == ["AS0501"]);

    // Deleting other.ts removes its contract: its diagnostics and the hint clear.
    c.fresh();
    std::fs::remove_file(&other).unwrap();
    c.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": uri(&other), "type": 3}]}));
    c.published(&other, |d| d.is_empty());
    c.published(&contract, |d| d.is_empty());
    let pulled = c.request("textDocument/diagnostic", json!({"textDocument": {"uri": uri(&other)}}));
    assert_eq!(pulled["result"]["items"], json!([]));

    // Latency on a warm cache, averaged: a change (debounced) and a save (immediate).
    let mut changes = Vec::new();
    let mut saves = Vec::new();
    c.fresh();
    for v in 0..10 {
        let text = CONTRACT.replace("'devices.table'", if v % 2 == 0 { "'Devices.table'" } else { "'devices.table'" });
        let t0 = Instant::now();
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(&contract), "version": 10 + v}, "contentChanges": [{"text": text}]}),
        );
        c.wait("a publish", |m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"] == 10 + v);
        changes.push(t0.elapsed());
        // A save right after the change compiles at once (no debounce): what an editor's
        // save-on-format sends.
        let text = CONTRACT.replace("'devices.table'", if v % 2 == 0 { "'devices.table'" } else { "'Devices.table'" });
        let t0 = Instant::now();
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(&contract), "version": 100 + v}, "contentChanges": [{"text": text}]}),
        );
        c.notify("textDocument/didSave", json!({"textDocument": {"uri": uri(&contract)}}));
        c.wait("a publish", |m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"] == 100 + v);
        saves.push(t0.elapsed());
        c.fresh();
    }
    changes.sort();
    saves.sort();
    eprintln!(
        "lsp latency: didOpen→publish {}, didChange→publish {} (includes the {} ms debounce), cross-file didChange→publish {}, didSave→publish {}; warm median of 10: didChange {}, didChange+didSave {}",
        ms(open_latency),
        ms(change_latency),
        agent_surface_lsp::DEBOUNCE.as_millis(),
        ms(cross_latency),
        ms(save_latency),
        ms(changes[5]),
        ms(saves[5])
    );

    let r = c.request("shutdown", Value::Null);
    assert_eq!(r["result"], Value::Null);
    assert!(r.get("error").is_none(), "{r}");
    c.notify("exit", Value::Null);
    assert_eq!(c.exit_code(), 0);
}

#[test]
fn folders_have_their_own_config_and_bad_input_is_answered() {
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    let good = base.join("good");
    let bad = base.join("bad");
    let broken =
        CONTRACT.replace("type: 'devices.table'", "type: 'Bad'").replace("description: DEVICES", "description: 'd'");
    for dir in [&good, &bad] {
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("src/broken.ts"), &broken).unwrap();
        std::fs::write(dir.join("src/skipped.ts"), &broken).unwrap();
    }
    // Each folder's own config: good excludes a file; bad's config is invalid.
    std::fs::write(good.join("agent-surface.config.json"), r#"{ "exclude": ["src/skipped.ts"] }"#).unwrap();
    std::fs::write(bad.join("agent-surface.config.json"), r#"{ "inclde": ["src/**"] }"#).unwrap();

    let mut c = Client::start();
    // Requests before initialize are refused.
    c.send(json!({"jsonrpc": "2.0", "id": 100, "method": "textDocument/diagnostic", "params": {}}));
    let early = c.wait("the early refusal", |m| m["id"] == 100);
    assert_eq!(early["error"]["code"], -32002);

    initialize(&mut c, &[&good, &bad], json!({}));
    let shown = c.wait("the config error", |m| m["method"] == "window/showMessage");
    assert_eq!(shown["params"]["type"], 1);
    let text = shown["params"]["message"].as_str().unwrap();
    assert!(text.contains("agent-surface.config.json") && text.contains("unknown field `inclde`"), "{text}");
    // Project-wide diagnostics without opening anything, honouring the folder's exclude.
    let d = c.published(&good.join("src/broken.ts"), |d| !d.is_empty());
    assert_eq!(codes(&d), ["AS0101"]);

    // Bad input: not JSON, not a message, unknown method, invalid params, a notification with
    // invalid params, a non-file URI. The server answers what it can and stays up.
    c.send_raw(b"{ not json");
    c.send_raw(b"{}");
    c.send_raw(b"[1,2,3]");
    let r = c.request("workspace/symbol", json!({"query": "x"}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    let r = c.request("textDocument/diagnostic", json!({"textDocument": 42}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    c.notify("textDocument/didOpen", json!({"textDocument": "nope"}));
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": "untitled:1", "version": 1}, "contentChanges": [{"text": "x"}]}),
    );
    c.notify("textDocument/didChange", json!({"textDocument": {"uri": uri(&good.join("src/never-opened.ts")), "version": 1}, "contentChanges": [{"range": {"start": {"line": 99, "character": 99}, "end": {"line": 0, "character": 0}}, "text": "x"}]}));
    let r = c.request("textDocument/diagnostic", json!({"textDocument": {"uri": "untitled:Untitled-1"}}));
    assert_eq!(r["result"]["items"], json!([]));

    // The folder with an invalid config reports nothing, even when asked.
    let r = c.request("textDocument/diagnostic", json!({"textDocument": {"uri": uri(&bad.join("src/broken.ts"))}}));
    assert_eq!(r["result"]["items"], json!([]), "{r}");
    c.settle();
    let bad_prefix = uri(&bad);
    let good_skipped = uri(&good.join("src/skipped.ts"));
    for m in &c.all {
        if m["method"] == "textDocument/publishDiagnostics" {
            let u = m["params"]["uri"].as_str().unwrap();
            assert!(!u.starts_with(&bad_prefix) && u != good_skipped, "published {u}");
        }
    }

    // Fixing the config (a watched-file change) brings its diagnostics.
    std::fs::write(bad.join("agent-surface.config.json"), r#"{ "include": ["src/**"] }"#).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&bad.join("agent-surface.config.json")), "type": 2}]}),
    );
    let d = c.published(&bad.join("src/broken.ts"), |d| !d.is_empty());
    assert_eq!(codes(&d), ["AS0101"]);
    c.published(&bad.join("src/skipped.ts"), |d| !d.is_empty());

    // exit without shutdown: exit code 1, as the protocol says.
    c.notify("exit", Value::Null);
    assert_eq!(c.exit_code(), 1);
}

#[test]
fn a_pulling_client_pulls_open_files_and_is_pushed_the_others() {
    let (_tmp, root) = workspace();
    let contract = root.join("contract.ts");
    let descriptions = root.join("descriptions.ts");
    std::fs::write(&descriptions, DESCRIPTIONS).unwrap();
    std::fs::write(&contract, CONTRACT).unwrap();
    let mut c = Client::start();
    let caps = json!({
        "textDocument": {"diagnostic": {"dynamicRegistration": false, "relatedDocumentSupport": false}},
        "workspace": {"diagnostics": {"refreshSupport": true}, "didChangeWatchedFiles": {"dynamicRegistration": true}}
    });
    initialize(&mut c, &[&root], caps);
    // File watching is registered dynamically.
    let reg = c.wait("the watcher registration", |m| m["method"] == "client/registerCapability");
    assert_eq!(reg["params"]["registrations"][0]["method"], "workspace/didChangeWatchedFiles");

    // Breaking the import from an open file: the closed contract file is pushed its diagnostics.
    c.notify("textDocument/didOpen", json!({"textDocument": {"uri": uri(&descriptions), "languageId": "typescript", "version": 1, "text": DESCRIPTIONS.replace("DEVICES", "RENAMED")}}));
    let pushed = c.published(&contract, |d| !d.is_empty());
    assert_eq!(codes(&pushed), ["AS0011"]);
    let pulled = c.request("textDocument/diagnostic", json!({"textDocument": {"uri": uri(&descriptions)}}));
    assert_eq!(pulled["result"]["items"], json!([]));

    // Opening it hands it over to pulling: the pushed diagnostics are cleared, the pull has them.
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&contract), "languageId": "typescript", "version": 1, "text": CONTRACT}}),
    );
    c.published(&contract, |d| d.is_empty());
    let pulled = c.request("textDocument/diagnostic", json!({"textDocument": {"uri": uri(&contract)}}));
    assert_eq!(codes(pulled["result"]["items"].as_array().unwrap()), ["AS0011"]);

    // Fixing the other file changes this open file's diagnostics: the client is asked to refresh.
    c.fresh();
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&descriptions), "version": 2}, "contentChanges": [{"text": DESCRIPTIONS}]}),
    );
    c.wait("a refresh", |m| m["method"] == "workspace/diagnostic/refresh");
    let pulled = c.request("textDocument/diagnostic", json!({"textDocument": {"uri": uri(&contract)}}));
    assert_eq!(pulled["result"]["items"], json!([]));
    c.settle();
    let pushed_open = c
        .all
        .iter()
        .filter(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri(&descriptions).as_str()
        })
        .count();
    assert_eq!(pushed_open, 0, "an open file of a pulling client is never pushed");
    c.request("shutdown", Value::Null);
    c.notify("exit", Value::Null);
    assert_eq!(c.exit_code(), 0);
}

#[test]
fn the_server_sees_disk_changes_no_client_reports() {
    // A client that sends no didChangeWatchedFiles: the server's own watcher keeps the project
    // current (and lets a compile read only what changed).
    let (_tmp, root) = workspace();
    let contract = root.join("src/contract.ts");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/descriptions.ts"), DESCRIPTIONS).unwrap();
    std::fs::write(&contract, CONTRACT).unwrap();
    let mut c = Client::start();
    initialize(&mut c, &[&root], json!({}));
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&contract), "languageId": "typescript", "version": 1, "text": CONTRACT}}),
    );
    c.published(&contract, |d| d.is_empty());

    // The imported module changes on disk, unopened: the open contract's import breaks.
    std::fs::write(root.join("src/descriptions.ts"), DESCRIPTIONS.replace("DEVICES", "DEVICE_LIST")).unwrap();
    let broken = c.published(&contract, |d| codes(d) == ["AS0011"]);
    assert!(broken[0]["message"].as_str().unwrap().contains("has no export named `DEVICES`"), "{broken:#?}");

    // A new module appears in a new folder and the contract (on disk) imports from it.
    std::fs::create_dir_all(root.join("src/text")).unwrap();
    std::fs::write(root.join("src/text/names.ts"), DESCRIPTIONS).unwrap();
    let moved = CONTRACT.replace("'./descriptions'", "'./text/names'");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&contract), "version": 2}, "contentChanges": [{"text": moved}]}),
    );
    c.published(&contract, |d| d.is_empty());

    // The folder is renamed: the import no longer resolves.
    std::fs::rename(root.join("src/text"), root.join("src/words")).unwrap();
    let unresolved = c.published(&contract, |d| codes(d) == ["AS0011"]);
    assert!(unresolved[0]["message"].as_str().unwrap().contains("cannot resolve `./text/names`"), "{unresolved:#?}");

    c.request("shutdown", Value::Null);
    c.notify("exit", Value::Null);
    assert_eq!(c.exit_code(), 0);
}

#[test]
fn a_save_publishes_nothing_new_and_nothing_twice() {
    // A save compiles at once, and the file watcher sees the write and compiles again: neither
    // may send the diagnostics the client already has for that version.
    let (_tmp, root) = workspace();
    let contract = root.join("contract.ts");
    std::fs::write(root.join("descriptions.ts"), DESCRIPTIONS).unwrap();
    let broken = CONTRACT.replace("type: 'devices.table'", "type: 'Devices.Table'");
    std::fs::write(&contract, &broken).unwrap();
    let mut c = Client::start();
    initialize(&mut c, &[&root], json!({}));
    // The whole project's diagnostics at start, then the opened file's for its version.
    c.published(&contract, |d| codes(d) == ["AS0101"]);
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&contract), "languageId": "typescript", "version": 1, "text": broken}}),
    );
    c.published(&contract, |d| codes(d) == ["AS0101"]);
    let publishes = |c: &mut Client| -> Vec<Value> {
        // Past the debounce of the watcher's event, then everything that arrived.
        std::thread::sleep(agent_surface_lsp::DEBOUNCE * 4);
        c.settle();
        c.all
            .iter()
            .filter(|m| {
                m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri(&contract).as_str()
            })
            .map(|m| m["params"]["version"].clone())
            .collect()
    };
    assert_eq!(publishes(&mut c), [json!(null), json!(1)]);

    // Saved as an editor saves: the file is written, then didSave.
    std::fs::write(&contract, &broken).unwrap();
    c.notify("textDocument/didSave", json!({"textDocument": {"uri": uri(&contract)}}));
    assert_eq!(publishes(&mut c), [json!(null), json!(1)], "the save changed nothing the client has");

    // A new version is published once (the client learns its diagnostics are for it), even
    // when they are the same, and its save and the watcher's event add nothing.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&contract), "version": 2}, "contentChanges": [{"text": broken}]}),
    );
    std::fs::write(&contract, &broken).unwrap();
    c.notify("textDocument/didSave", json!({"textDocument": {"uri": uri(&contract)}}));
    assert_eq!(publishes(&mut c), [json!(null), json!(1), json!(2)]);
    c.request("shutdown", Value::Null);
    c.notify("exit", Value::Null);
    assert_eq!(c.exit_code(), 0);
}

#[test]
fn one_problem_in_a_module_two_contracts_import_is_one_diagnostic() {
    // The compiler reports it once per contract (each fails); the file shows it once, with
    // both contracts as related locations, and each contract gets its hint.
    let (_tmp, root) = workspace();
    let shared = root.join("shared.ts");
    std::fs::write(&shared, "export const D = 'x';\nexport const T = 'Bad.Type';\n").unwrap();
    for n in ["a", "b"] {
        std::fs::write(
            root.join(format!("{n}.ts")),
            format!("import {{ defineAgentComponentContract }} from '@agent-surface/core';\nimport {{ D, T }} from './shared';\nexport const {n} = defineAgentComponentContract({{ type: T, description: D }});\n"),
        )
        .unwrap();
    }
    let mut c = Client::start();
    initialize(&mut c, &[&root], json!({}));
    let d = c.published(&shared, |d| !d.is_empty());
    assert_eq!(codes(&d), ["AS0101"], "{d:#?}");
    let related: Vec<&str> =
        d[0]["relatedInformation"].as_array().unwrap().iter().map(|r| r["location"]["uri"].as_str().unwrap()).collect();
    assert_eq!(related, [uri(&root.join("a.ts")), uri(&root.join("b.ts"))]);
    for n in ["a", "b"] {
        let hint = c.published(&root.join(format!("{n}.ts")), |d| !d.is_empty());
        assert_eq!(hint.len(), 1, "{hint:#?}");
        assert_eq!(hint[0]["severity"], 4);
    }
    c.request("shutdown", Value::Null);
    c.notify("exit", Value::Null);
    assert_eq!(c.exit_code(), 0);
}
