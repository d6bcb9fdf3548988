//! The transport: LSP frames (`Content-Length` headers, JSON-RPC bodies) over stdin/stdout,
//! forgiving of what a client may get wrong: a frame that is not a message is skipped, never
//! the end of the session.

use crossbeam_channel::Sender;
use lsp_server::{Connection, Message};
use std::io::{BufRead, Read, Write};

/// Files above this are not a message anyone meant to send: skipped unread.
const MAX_MESSAGE: usize = 256 << 20;

/// The reader and writer threads of [`stdio`].
pub struct IoThreads {
    writer: std::thread::JoinHandle<std::io::Result<()>>,
}

impl IoThreads {
    /// Waits until every message sent was written. Drop the [`Connection`] first (it holds the
    /// writer's channel), or this never returns. The reader is not joined: it may be blocked on
    /// stdin, and the process ends anyway.
    pub fn join(self) -> std::io::Result<()> {
        self.writer.join().unwrap_or_else(|_| Err(std::io::Error::other("the writer thread panicked")))
    }
}

/// LSP over stdin/stdout. Unlike `Connection::stdio`, a frame that is not a JSON-RPC message
/// is skipped (logged on stderr) instead of ending the session.
pub fn stdio() -> (Connection, IoThreads) {
    let (to_client, outgoing) = crossbeam_channel::unbounded::<Message>();
    let writer = std::thread::Builder::new()
        .name("lsp-writer".into())
        .spawn(move || {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            for m in outgoing {
                m.write(&mut out)?;
            }
            out.flush()
        })
        .expect("spawn the writer thread");
    let (incoming, from_client) = crossbeam_channel::unbounded::<Message>();
    std::thread::Builder::new()
        .name("lsp-reader".into())
        .spawn(move || {
            let stdin = std::io::stdin();
            let mut input = stdin.lock();
            read_messages(&mut input, &incoming);
        })
        .expect("spawn the reader thread");
    (Connection { sender: to_client, receiver: from_client }, IoThreads { writer })
}

/// Reads framed messages until end of input, `exit`, or a receiver that went away.
pub fn read_messages(input: &mut dyn BufRead, to: &Sender<Message>) {
    loop {
        let body = match read_frame(input) {
            Ok(Some(body)) => body,
            Ok(None) => return,
            Err(e) => {
                eprintln!("agent-surface lsp: cannot read from the client: {e}");
                return;
            }
        };
        let Some(body) = body else { continue };
        let msg: Message = match serde_json::from_slice(&body) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("agent-surface lsp: skipped a message that is not JSON-RPC: {e}");
                continue;
            }
        };
        let exit = matches!(&msg, Message::Notification(n) if n.method == "exit");
        if to.send(msg).is_err() || exit {
            return;
        }
    }
}

/// One frame: `Ok(None)` at end of input, `Ok(Some(None))` for a frame to skip.
#[allow(clippy::type_complexity)]
fn read_frame(input: &mut dyn BufRead) -> std::io::Result<Option<Option<Vec<u8>>>> {
    let mut length: Option<usize> = None;
    let mut saw_header = false;
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if saw_header {
                break;
            }
            continue;
        }
        saw_header = true;
        if let Some((name, value)) = text.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().ok();
            }
        }
    }
    let Some(length) = length else {
        eprintln!("agent-surface lsp: skipped a frame without a valid Content-Length");
        return Ok(Some(None));
    };
    if length > MAX_MESSAGE {
        std::io::copy(&mut input.take(length as u64), &mut std::io::sink())?;
        eprintln!("agent-surface lsp: skipped a {length}-byte message");
        return Ok(Some(None));
    }
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    Ok(Some(Some(body)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_frames_are_skipped() {
        let ok = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        let input = format!(
            "Content-Length: 3\r\n\r\n{{x]Content-Length: 2\r\n\r\n{{}}garbage\r\n\r\nContent-Length: {}\r\n\r\n{ok}Content-Length: 99999999999\r\n\r\n",
            ok.len()
        );
        let (tx, rx) = crossbeam_channel::unbounded();
        read_messages(&mut input.as_bytes(), &tx);
        let got: Vec<Message> = rx.try_iter().collect();
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(matches!(&got[0], Message::Notification(n) if n.method == "initialized"));
    }
}
