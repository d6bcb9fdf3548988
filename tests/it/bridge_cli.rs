//! `agent-surface bridge` as a process: the one stderr line (loopback URL, a 32-hex-digit token
//! new per start), stdout kept for MCP, exit when the client closes stdin, and a clear exit 2
//! when the port is taken. The protocol itself is tested in crates/bridge and its e2e.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

fn start(args: &[&str]) -> (std::process::Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-surface"))
        .arg("bridge")
        .args(args)
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
