//! `compile --watch` picks up an edit, a new file, a deletion and a renamed folder, one line per rebuild, and
//! rewrites the manifest only when it changed.

use crate::common::{copy_dir, example_app};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The next rebuild line (skipping diagnostics), within a generous timeout.
fn next_build(rx: &mpsc::Receiver<String>) -> String {
    loop {
        let line = rx.recv_timeout(Duration::from_secs(30)).expect("a rebuild line within 30 s");
        if line.starts_with('[') {
            return line;
        }
    }
}

#[test]
fn watch_picks_up_edits_new_files_and_deletions() {
    let tmp = tempfile::tempdir().unwrap();
    let app = std::fs::canonicalize(tmp.path()).unwrap().join("app");
    copy_dir(&example_app(), &app);
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-surface"))
        .args(["compile", "--watch"])
        .arg(&app)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let manifest = app.join("agent-surface.manifest.json");
    let first = next_build(&rx);
    assert!(first.contains("[initial build] 9 contracts") && first.contains("written"), "{first}");
    let v1 = std::fs::read_to_string(&manifest).unwrap();

    // An edit of a contract: rebuilt, only that file parsed, manifest rewritten.
    let file = app.join("src/external/reports.ts");
    std::fs::write(
        &file,
        std::fs::read_to_string(&file).unwrap().replace("Export the devices report", "Export the device report"),
    )
    .unwrap();
    let edit = next_build(&rx);
    assert!(
        edit.contains("src/external/reports.ts") && edit.contains("1 parsed") && edit.contains("written"),
        "{edit}"
    );
    assert_ne!(std::fs::read_to_string(&manifest).unwrap(), v1);

    // A new file with a contract.
    std::fs::write(app.join("src/extra.ts"), "import { defineAgentComponentContract } from '@agent-surface/core';\nexport const x = defineAgentComponentContract({ type: 'extra.panel', description: 'Extra' });\n").unwrap();
    let added = next_build(&rx);
    assert!(added.contains("10 contracts"), "{added}");
    assert!(std::fs::read_to_string(&manifest).unwrap().contains("view:extra.panel"));

    // Deleting it removes its contract.
    std::fs::remove_file(app.join("src/extra.ts")).unwrap();
    let removed = next_build(&rx);
    assert!(removed.contains("9 contracts"), "{removed}");
    assert!(!std::fs::read_to_string(&manifest).unwrap().contains("view:extra.panel"));

    // A folder renamed: no source file event names the files inside; the walk finds them.
    let before_move = std::fs::read_to_string(&manifest).unwrap();
    std::fs::rename(app.join("src/external"), app.join("src/outside")).unwrap();
    let renamed = next_build(&rx);
    assert!(renamed.contains("9 contracts"), "{renamed}");
    // Where a contract is written is in the locations sidecar, not in the manifest: moving
    // the file rewrote the sidecar and left the manifest's bytes alone.
    let text = std::fs::read_to_string(app.join("agent-surface.manifest.locations.json")).unwrap();
    assert!(
        text.contains("src/outside/reports.ts") && !text.contains("src/external/reports.ts"),
        "the contract moved with its folder: {text}"
    );
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), before_move);

    child.kill().unwrap();
    let _ = child.wait();
}
