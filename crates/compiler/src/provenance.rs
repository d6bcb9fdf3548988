//! Provenance (DECISIONS §5): for one file, the insertion edits that append
//! `{ id, contractHash }` as an extra last argument to each compiled root macro call. Edits are
//! byte offsets into the file's text plus the text to insert; the Vite plugin applies them with
//! a source-map-producing editor. A contract that failed to compile gets no provenance and so
//! stays inert at run time.

use crate::compile::Compilation;
use serde::Serialize;
use std::path::Path;

/// Insert `text` at byte `offset`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Edit {
    pub offset: usize,
    pub text: String,
}

/// The provenance literal for a contract.
pub fn provenance_literal(id: &str, contract_hash: &str) -> String {
    let v = serde_json::json!({ "id": id, "contractHash": contract_hash });
    agent_surface_model::canonical::canonical_json(&v)
}

/// Edits for the file at `path` (absolute), sorted by offset.
pub fn provenance_edits(c: &Compilation, path: &Path) -> Vec<Edit> {
    let path = crate::paths::normalize(path);
    let Some(file) = c.project.db.lookup(&path) else { return Vec::new() };
    let mut edits: Vec<Edit> = c
        .contracts
        .iter()
        .filter(|cc| cc.file == file.id)
        .map(|cc| {
            let id = cc.contract().id();
            let hash = cc.hashed.contract().contract_hash();
            // A compiled contract always has its one definition argument: append after it.
            Edit { offset: cc.call.insert_at as usize, text: format!(", {}", provenance_literal(id, hash)) }
        })
        .collect();
    edits.sort_by_key(|e| e.offset);
    edits
}

/// Applies edits to a text (for tests and for callers without a source-map editor).
pub fn apply_edits(text: &str, edits: &[Edit]) -> String {
    let mut out = String::with_capacity(text.len() + edits.iter().map(|e| e.text.len()).sum::<usize>());
    let mut last = 0;
    for e in edits {
        out.push_str(&text[last..e.offset]);
        out.push_str(&e.text);
        last = e.offset;
    }
    out.push_str(&text[last..]);
    out
}
