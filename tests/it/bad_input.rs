//! Hostile and broken inputs to the CLI, table-driven: each case has its expected exit code and
//! a fragment of the message. Nothing may panic (a panic is exit 101 and fails the test);
//! errors name the file and the reason; a failed or interrupted compile never leaves a partial
//! manifest and the previous one stays intact.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const CORE: &str = "import { defineAgentComponentContract as d } from '@agent-surface/core';\n";

struct Case {
    name: &'static str,
    setup: fn(&Path) -> Vec<String>,
    exit: i32,
    /// Must appear in stdout or stderr.
    says: &'static str,
}

fn write(root: &Path, rel: &str, text: impl AsRef<[u8]>) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn p(root: &Path) -> String {
    root.to_string_lossy().into_owned()
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "missing root",
            setup: |r| args(&["compile", &format!("{}/nope", p(r))]),
            exit: 2,
            says: "does not exist",
        },
        Case {
            name: "root is a file",
            setup: |r| {
                write(r, "f.ts", "");
                args(&["compile", &format!("{}/f.ts", p(r))])
            },
            exit: 2,
            says: "is not a folder",
        },
        Case {
            name: "unreadable file (read fails even for root)",
            setup: |r| {
                std::fs::create_dir_all(r.join("src")).unwrap();
                std::os::unix::fs::symlink("/proc/self/mem", r.join("src/mem.ts")).unwrap();
                args(&["check", "--root", &p(r)])
            },
            exit: 1,
            says: "cannot read src/mem.ts",
        },
        Case {
            name: "invalid UTF-8",
            setup: |r| {
                write(
                    r,
                    "c.ts",
                    [CORE.as_bytes(), b"export const c = d({ type: 'a', description: '\xff\xfe' });\n"].concat(),
                );
                args(&["check", "--root", &p(r)])
            },
            exit: 1,
            says: "not valid UTF-8 (line 2",
        },
        Case {
            name: "NUL byte in an id",
            setup: |r| {
                write(r, "c.ts", format!("{CORE}export const c = d({{ type: 'a\u{0}b', description: 'x' }});\n"));
                args(&["check", "--root", &p(r)])
            },
            exit: 1,
            says: "AS0101",
        },
        Case {
            name: "a 50 MB file",
            setup: |r| {
                let line = "export const filler = { a: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', b: [1, 2, 3, 4, 5, 6, 7, 8] };\n";
                let mut text = String::from(CORE);
                while text.len() < 50 * 1024 * 1024 {
                    text.push_str(line);
                }
                text.push_str("export const c = d({ type: 'big', description: 'x' });\n");
                write(r, "big.ts", text);
                args(&["check", "--root", &p(r), "--format", "json"])
            },
            exit: 0,
            says: "\"diagnostics\":[]",
        },
        Case {
            name: "10,000-deep nesting",
            setup: |r| {
                write(
                    r,
                    "c.ts",
                    format!(
                        "{CORE}export const c = d({{ type: 'a', description: 'x', meta: {{ v: {}{} }} }});\n",
                        "[".repeat(10_000),
                        "]".repeat(10_000)
                    ),
                );
                args(&["check", "--root", &p(r)])
            },
            exit: 1,
            says: "AS0303",
        },
        Case {
            name: "10,000-deep parentheses",
            setup: |r| {
                write(
                    r,
                    "c.ts",
                    format!(
                        "{CORE}export const c = d({{ type: {}'a'{}, description: 'x' }});\n",
                        "(".repeat(10_000),
                        ")".repeat(10_000)
                    ),
                );
                args(&["check", "--root", &p(r)])
            },
            exit: 0,
            says: "1 contract",
        },
        Case {
            name: "symlink loop",
            setup: |r| {
                std::fs::create_dir_all(r.join("src")).unwrap();
                std::os::unix::fs::symlink("..", r.join("src/loop")).unwrap();
                write(r, "src/c.ts", format!("{CORE}export const c = d({{ type: 'a', description: 'x' }});\n"));
                args(&["check", "--root", &p(r)])
            },
            exit: 0,
            says: "warning: skipped",
        },
        Case {
            name: "a contract importing itself in a cycle",
            setup: |r| {
                write(r, "a.ts", format!("{CORE}import {{ B }} from './b';\nexport const A = {{ ...B }};\nexport const c = d({{ type: 'a', description: 'x', meta: A }});\n"));
                write(r, "b.ts", "import { A } from './a';\nexport const B = { ...A };\n");
                args(&["check", "--root", &p(r)])
            },
            exit: 1,
            says: "AS0014",
        },
        Case {
            name: "100,000 contracts in one file",
            setup: |r| {
                let mut text = String::from(CORE);
                for i in 0..100_000 {
                    text.push_str(&format!("export const c{i} = d({{ type: 'c{i}', description: 'x' }});\n"));
                }
                write(r, "many.ts", text);
                args(&["compile", &p(r)])
            },
            exit: 0,
            says: "100000 contracts",
        },
        Case {
            name: "duplicate types across 1,000 files",
            setup: |r| {
                for i in 0..1000 {
                    write(
                        r,
                        &format!("src/f{i:04}.ts"),
                        format!("{CORE}export const c = d({{ type: 'same.type', description: 'x' }});\n"),
                    );
                }
                args(&["check", "--root", &p(r), "--format", "json"])
            },
            exit: 1,
            says: "already declared in src/f0000.ts",
        },
        Case {
            name: "output in a missing folder",
            setup: |r| {
                write(r, "c.ts", format!("{CORE}export const c = d({{ type: 'a', description: 'x' }});\n"));
                args(&["compile", &p(r), "--out", &format!("{}/missing/dir/m.json", p(r))])
            },
            exit: 2,
            says: "cannot write the manifest",
        },
        Case {
            name: "output on a read-only file system",
            setup: |r| {
                write(r, "c.ts", format!("{CORE}export const c = d({{ type: 'a', description: 'x' }});\n"));
                args(&["compile", &p(r), "--out", "/proc/agent-surface.manifest.json"])
            },
            exit: 2,
            says: "cannot write the manifest",
        },
        Case {
            name: "output where a folder should be is a file",
            setup: |r| {
                write(r, "c.ts", format!("{CORE}export const c = d({{ type: 'a', description: 'x' }});\n"));
                write(r, "file", "x");
                args(&["compile", &p(r), "--out", &format!("{}/file/m.json", p(r))])
            },
            exit: 2,
            says: "cannot write the manifest",
        },
        Case {
            name: "truncated manifest",
            setup: |r| {
                write(r, "m.json", "{\"formatVersion\":1,\"contracts\":[");
                args(&["verify", &format!("{}/m.json", p(r))])
            },
            exit: 1,
            says: "not JSON",
        },
        Case {
            name: "verify a missing manifest",
            setup: |r| args(&["verify", &format!("{}/none.json", p(r))]),
            exit: 2,
            says: "cannot read the manifest",
        },
        Case {
            name: "config with unknown keys",
            setup: |r| {
                write(r, "agent-surface.config.json", "{\"includes\": []}");
                args(&["check", "--root", &p(r)])
            },
            exit: 2,
            says: "unknown field `includes`",
        },
        Case {
            name: "config with wrong types",
            setup: |r| {
                write(r, "agent-surface.config.json", "{\"include\": \"src\"}");
                args(&["check", "--root", &p(r)])
            },
            exit: 2,
            says: "agent-surface.config.json",
        },
        Case {
            name: "config with an invalid glob",
            setup: |r| {
                write(r, "agent-surface.config.json", "{\"include\": [\"src/[\"]}");
                args(&["check", "--root", &p(r)])
            },
            exit: 2,
            says: "invalid glob",
        },
        Case {
            name: "package.json that is not JSON",
            setup: |r| {
                write(r, "package.json", "{ name: x");
                args(&["check", "--root", &p(r)])
            },
            exit: 2,
            says: "package.json",
        },
        Case {
            name: "tsconfig.json with a syntax error",
            setup: |r| {
                write(r, "tsconfig.json", "{ \"compilerOptions\": { \"paths\": [ }");
                args(&["check", "--root", &p(r)])
            },
            exit: 2,
            says: "tsconfig.json",
        },
        Case {
            name: "tsconfig.json extending a package that is not installed",
            setup: |r| {
                write(r, "tsconfig.json", "{ \"extends\": \"@tsconfig/strictest\" }");
                args(&["check", "--root", &p(r)])
            },
            exit: 2,
            says: "cannot find \"@tsconfig/strictest\"",
        },
        Case {
            name: "tsconfig.json referencing a project that does not exist",
            setup: |r| {
                write(r, "tsconfig.json", "{ \"files\": [], \"references\": [{ \"path\": \"./tsconfig.app.json\" }] }");
                args(&["check", "--root", &p(r)])
            },
            exit: 2,
            says: "tsconfig.app.json",
        },
        Case {
            name: "conflicting flags",
            setup: |r| args(&["compile", &p(r), "--check", "--watch"]),
            exit: 2,
            says: "cannot be used with",
        },
        Case { name: "unknown subcommand", setup: |_| args(&["frobnicate"]), exit: 2, says: "unrecognized subcommand" },
        Case {
            name: "bad number",
            setup: |r| args(&["check", "--root", &p(r), "--max-warnings", "-1"]),
            exit: 2,
            says: "unexpected argument '-1'",
        },
        Case {
            name: "empty files and a BOM",
            setup: |r| {
                write(r, "empty.ts", "");
                write(r, "bom.ts", format!("\u{feff}{CORE}export const c = d({{ type: 'a', description: 'x' }});\n"));
                args(&["compile", &p(r)])
            },
            exit: 0,
            says: "1 contract",
        },
        Case {
            name: "a syntax error is a located diagnostic",
            setup: |r| {
                write(r, "c.ts", format!("{CORE}export const c = d({{ type: 'a', description: 'x' );\n"));
                args(&["check", "--root", &p(r), "--format", "json"])
            },
            exit: 1,
            says: "\"line\":2",
        },
        Case {
            name: "stdin that is not UTF-8",
            setup: |r| args(&["check", "--root", &p(r), "--stdin-filepath", &format!("{}/x.ts", p(r))]),
            exit: 2,
            says: "stdin",
        },
    ]
}

fn run(args: &[String], stdin: &[u8]) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-surface"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut s = child.stdin.take().unwrap();
        let _ = s.write_all(stdin);
    }
    let out = child.wait_with_output().unwrap();
    let code = out.status.code().unwrap_or(-1);
    (code, format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn every_bad_input_fails_cleanly() {
    let cases = cases();
    assert!(cases.len() >= 25, "the table has {} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let tmp = tempfile::tempdir().unwrap();
        let root: PathBuf = std::fs::canonicalize(tmp.path()).unwrap();
        let args = (case.setup)(&root);
        let stdin: &[u8] = if case.name.starts_with("stdin") { b"\xff\xfe not utf-8" } else { b"" };
        let (code, text) = run(&args, stdin);
        if code == 101 || text.contains("panicked") {
            failures.push(format!("{}: PANIC\n{text}", case.name));
        } else if code != case.exit || !text.contains(case.says) {
            let shown: String = text.chars().take(600).collect();
            failures.push(format!(
                "{}: expected exit {} and {:?}, got exit {code}:\n{shown}",
                case.name, case.exit, case.says
            ));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n\n"));
}

/// Killing a compile at random moments never leaves a partial manifest: the file is either the
/// previous one or the new one, each complete.
#[test]
fn an_interrupted_compile_leaves_the_previous_manifest_intact() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    let mut text = String::from(CORE);
    for i in 0..3000 {
        text.push_str(&format!("export const c{i} = d({{ type: 'c{i}', description: 'version one' }});\n"));
    }
    write(&root, "many.ts", &text);
    let ok = Command::new(env!("CARGO_BIN_EXE_agent-surface")).arg("compile").arg(&root).output().unwrap();
    assert!(ok.status.success());
    let manifest = root.join("agent-surface.manifest.json");
    let v1 = std::fs::read_to_string(&manifest).unwrap();
    write(&root, "many.ts", text.replace("version one", "version two"));
    for i in 0..12u64 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_agent-surface"))
            .arg("compile")
            .arg(&root)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(5 + i * 15));
        let _ = child.kill();
        let _ = child.wait();
        let now = std::fs::read_to_string(&manifest).unwrap();
        assert!(
            now == v1 || agent_surface_engine::authority::CapabilityAuthority::from_json_str(&now).is_ok(),
            "a partial manifest after a kill at {} ms",
            5 + i * 15
        );
        let leftovers: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        // A killed process may leave its temp file behind; it is never the manifest itself.
        for l in leftovers {
            std::fs::remove_file(l.path()).unwrap();
        }
    }
}
