//! The `initialize` handshake: what the server offers, what it reads from the client's
//! capabilities, and the workspace roots it is given.

use crate::uri::uri_to_path;
use crate::SOURCE;
use agent_surface_compiler::paths::normalize;
use lsp_types as lsp;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What the client can do, from `initialize`.
#[derive(Default)]
pub(crate) struct ClientCaps {
    /// The client pulls diagnostics (`textDocument/diagnostic`) of open files: publish only
    /// those of the others.
    pub(crate) pull: bool,
    /// The client handles `workspace/diagnostic/refresh`.
    pub(crate) refresh: bool,
    /// The client accepts `client/registerCapability` for file watching.
    pub(crate) watch_registration: bool,
}

pub(crate) fn capabilities() -> lsp::ServerCapabilities {
    lsp::ServerCapabilities {
        position_encoding: Some(lsp::PositionEncodingKind::UTF16),
        text_document_sync: Some(lsp::TextDocumentSyncCapability::Options(lsp::TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(lsp::TextDocumentSyncKind::FULL),
            will_save: None,
            will_save_wait_until: None,
            save: Some(lsp::TextDocumentSyncSaveOptions::SaveOptions(lsp::SaveOptions { include_text: Some(false) })),
        })),
        diagnostic_provider: Some(lsp::DiagnosticServerCapabilities::Options(lsp::DiagnosticOptions {
            identifier: Some(SOURCE.into()),
            inter_file_dependencies: true,
            workspace_diagnostics: false,
            work_done_progress_options: Default::default(),
        })),
        workspace: Some(lsp::WorkspaceServerCapabilities {
            workspace_folders: Some(lsp::WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: Some(lsp::OneOf::Left(true)),
            }),
            file_operations: None,
        }),
        ..Default::default()
    }
}

/// The workspace roots of `initialize` params: `workspaceFolders`, else `rootUri`, else `rootPath`.
pub(crate) fn roots(params: &Value) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if let Some(folders) = params.get("workspaceFolders").and_then(Value::as_array) {
        for f in folders {
            if let Some(p) = f
                .get("uri")
                .and_then(Value::as_str)
                .and_then(|u| u.parse::<lsp::Uri>().ok())
                .and_then(|u| uri_to_path(&u))
            {
                roots.push(p);
            }
        }
    }
    if roots.is_empty() {
        if let Some(p) = params
            .get("rootUri")
            .and_then(Value::as_str)
            .and_then(|u| u.parse::<lsp::Uri>().ok())
            .and_then(|u| uri_to_path(&u))
        {
            roots.push(p);
        } else if let Some(p) = params.get("rootPath").and_then(Value::as_str).filter(|p| !p.is_empty()) {
            roots.push(normalize(Path::new(p)));
        }
    }
    roots.dedup();
    roots
}

pub(crate) fn client_caps(params: &Value) -> ClientCaps {
    let caps = params.get("capabilities").unwrap_or(&Value::Null);
    let forced = params.pointer("/initializationOptions/diagnostics").and_then(Value::as_str);
    let pull = match forced {
        Some("push") => false,
        Some("pull") => true,
        _ => caps.pointer("/textDocument/diagnostic").is_some_and(Value::is_object),
    };
    ClientCaps {
        pull,
        refresh: caps.pointer("/workspace/diagnostics/refreshSupport").and_then(Value::as_bool).unwrap_or(false),
        watch_registration: caps
            .pointer("/workspace/didChangeWatchedFiles/dynamicRegistration")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    }
}
