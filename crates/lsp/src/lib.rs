//! `agent-surface lsp`: the language server (LSP over stdio, docs/editors.md).
//!
//! One long-lived [`Project`] per workspace folder, each with its own configuration. Open
//! buffers are overlays on every project; a change recompiles the projects the file belongs to
//! (or that read it: an imported constant), debounced after the last keystroke, immediately on
//! open and save. The server watches every folder itself (a client's file events are taken too,
//! but clients differ in what they report), so each project hears of every change
//! ([`ChangeTracking::Reported`]): a compile reads only the files that changed and compiles
//! again only the contract files that read one. Diagnostics are published for
//! every file of the project whose diagnostics changed (an empty list clears a file), and always
//! for open files. Clients that pull (`textDocument/diagnostic`) get the diagnostics of open
//! files on request instead (with a `workspace/diagnostic/refresh` when another open file's
//! changed) and pushed ones for the files they do not have open, so nothing is shown twice.
//!
//! The diagnostics are the CLI's (`agent_surface_compiler::diagnostics::Diagnostic`): same codes, messages,
//! related locations and help. Positions are UTF-16 code units, 0-based.
//!
//! Nothing a client sends stops the server: malformed frames are skipped, handlers run under
//! `catch_unwind`, unknown requests get `MethodNotFound`.
//!
//! The crate's parts: [`transport`] (frames over stdio), [`uri`] (`file:` URIs and paths),
//! [`convert`] (positions, edits and diagnostics between the compiler and the protocol),
//! [`capabilities`] (the `initialize` handshake) and [`server`] (the session itself).
//!
//! [`Project`]: agent_surface_compiler::project::Project
//! [`ChangeTracking::Reported`]: agent_surface_compiler::project::ChangeTracking::Reported

pub mod capabilities;
pub mod convert;
pub mod server;
pub mod transport;
pub mod uri;

pub use convert::{apply_change, offset_of, to_lsp};
pub use server::{run, DEBOUNCE};
pub use transport::{read_messages, stdio, IoThreads};
pub use uri::{path_to_uri, uri_to_path};

/// `source` of every diagnostic.
pub const SOURCE: &str = "agent-surface";

/// `agent-surface lsp`: the server on stdin/stdout. Returns the exit code.
pub fn run_stdio() -> u8 {
    let (connection, io) = stdio();
    let clean = run(connection);
    // The connection is gone (moved into `run`): the writer drains and ends.
    if let Err(e) = io.join() {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("agent-surface lsp: {e}");
        }
    }
    if clean {
        0
    } else {
        1
    }
}
