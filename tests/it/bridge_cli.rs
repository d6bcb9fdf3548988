//! `agent-surface bridge` as a process: the one stderr line (loopback URL, a 32-hex-digit token
//! new per start), stdout kept for MCP, exit when the client closes stdin, and a clear exit 2
//! when the port is taken. The protocol itself is tested in crates/bridge and its e2e.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

fn start(args: &[&str]) -> (std::process::Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-surface"))
        .arg("bridge")
        .args(args)
        .env_remove("AGENT_SURFACE_BRIDGE_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.as_mut().unwrap()).read_line(&mut line).unwrap();
    (child, line.trim_end().to_string())
}

fn parse(line: &str) -> (u16, String) {
    let rest = line.strip_prefix("bridge: ws://127.0.0.1:").unwrap_or_else(|| panic!("{line:?}"));
    let (port, token) = rest.split_once(" token=").unwrap_or_else(|| panic!("{line:?}"));
    assert_eq!(token.len(), 32, "{line:?}");
    assert!(token.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)), "{line:?}");
    (port.parse().unwrap(), token.to_string())
}

#[test]
fn prints_one_line_and_exits_when_stdin_closes() {
    let (mut a, line_a) = start(&["--port", "0", "--allow-origin", "https://app.example"]);
    let (mut b, line_b) = start(&[]);
    let (port_a, token_a) = parse(&line_a);
    let (_, token_b) = parse(&line_b);
    assert_ne!(token_a, token_b, "a new token per start");
    // The port is taken while `a` runs: a usage-level failure, exit 2.
    let taken = Command::new(env!("CARGO_BIN_EXE_agent-surface"))
        .args(["bridge", "--port", &port_a.to_string()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(taken.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&taken.stderr).contains("cannot listen on 127.0.0.1"));
    for child in [&mut a, &mut b] {
        drop(child.stdin.take());
        let out = child.wait_with_output_ref();
        assert!(out.is_empty(), "nothing on stdout but MCP: {out:?}");
    }
}

trait WaitRef {
    fn wait_with_output_ref(&mut self) -> Vec<u8>;
}

impl WaitRef for std::process::Child {
    fn wait_with_output_ref(&mut self) -> Vec<u8> {
        use std::io::Read;
        let mut out = Vec::new();
        self.stdout.take().unwrap().read_to_end(&mut out).unwrap();
        let status = self.wait().unwrap();
        assert!(status.code().is_some(), "exited by itself: {status:?}");
        out
    }
}

#[test]
fn http_prints_the_mcp_url_takes_the_token_from_the_environment_and_stops_on_sigterm() {
    let token = "t0ken-from-the-environment_0123456789";
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-surface"))
        .args(["bridge", "--http"])
        .env("AGENT_SURFACE_BRIDGE_TOKEN", token)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let (mut first, mut second) = (String::new(), String::new());
    err.read_line(&mut first).unwrap();
    err.read_line(&mut second).unwrap();
    let rest = first.trim_end().strip_prefix("bridge: ws://127.0.0.1:").unwrap_or_else(|| panic!("{first:?}"));
    let (port, shown) = rest.split_once(" token=").unwrap();
    assert_eq!(shown, token);
    assert_eq!(second.trim_end(), format!("bridge: mcp http://127.0.0.1:{port}/mcp"));
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let out = child.wait_with_output_ref();
    assert!(out.is_empty(), "nothing on stdout: {out:?}");
    // A token too weak to keep: exit 2, the message says why without repeating it.
    let weak = Command::new(env!("CARGO_BIN_EXE_agent-surface"))
        .args(["bridge", "--http"])
        .env("AGENT_SURFACE_BRIDGE_TOKEN", "hunter2")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(weak.status.code(), Some(2));
    let msg = String::from_utf8_lossy(&weak.stderr);
    assert!(msg.contains("AGENT_SURFACE_BRIDGE_TOKEN") && msg.contains("32 to 256 characters"), "{msg}");
    assert!(!msg.contains("hunter2"), "{msg}");
}
