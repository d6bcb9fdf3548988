//! man/ holds the pages generated from the clap definitions; this test fails when they are
//! stale. Regenerate with `UPDATE_MAN=1 cargo test --test man`.

use std::path::Path;

#[test]
fn man_pages_are_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    let pages = agent_surface::cli::man_pages();
    if std::env::var_os("UPDATE_MAN").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in &pages {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    }
    let mut stale = Vec::new();
    for (name, bytes) in &pages {
        if std::fs::read(dir.join(name)).ok().as_deref() != Some(bytes.as_slice()) {
            stale.push(name.clone());
        }
    }
    assert!(stale.is_empty(), "stale man pages {stale:?}: run UPDATE_MAN=1 cargo test --test man");
    assert!(pages.iter().any(|(n, _)| n == "agent-surface-compile.1"));
}

#[test]
fn completions_for_every_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_agent-surface"))
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("compile") && text.contains("verify"), "{shell}");
    }
}
