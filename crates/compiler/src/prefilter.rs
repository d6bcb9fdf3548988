//! The byte prefilter: which files can declare or bind a contract, decided on their bytes
//! before anything is parsed. Files that never mention the core package (nor `instanceId`) are
//! not parsed, unless a contract imports from them.

/// The package whose exports are the macros.
pub const CORE_PACKAGE: &str = "@agent-surface/core";

/// What the byte prefilter found in a file's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prefiltered {
    /// The file does not exist (any more).
    Missing,
    /// Valid UTF-8 that mentions neither the core package, a near miss of it, nor
    /// `instanceId`: it cannot declare a contract or bind one, so it is not parsed (nor given a
    /// file entry).
    Skipped,
    /// It must be compiled: it mentions the core package (`declares`), a near miss of it or
    /// `instanceId`, or it
    /// cannot be read as text (which [`crate::project::Project::load`] reports).
    Candidate { declares: bool },
}

/// The byte prefilter: files that never mention the core package cannot declare a contract and
/// are not parsed (unless a contract imports from them).
pub fn mentions_core(text: impl AsRef<[u8]>) -> bool {
    memchr::memmem::find(text.as_ref(), CORE_PACKAGE.as_bytes()).is_some()
}

/// Files that may import a misspelling of the core package (`@agent-surfce/core`, within two
/// edits), so that the warning about it (AS0016) can be given without parsing every file. A
/// string within two edits of `@agent-surface/core` keeps at least one of three disjoint pieces
/// of it intact (two edits touch at most two pieces), so looking for the pieces misses none.
/// Called only on files [`mentions_core`] rejected: up to three more `memmem` scans of bytes
/// already in memory, and the rare file with a piece but no near miss is parsed for nothing.
pub fn mentions_core_near_miss(text: impl AsRef<[u8]>) -> bool {
    let text = text.as_ref();
    NEAR_MISS_PIECES.iter().any(|piece| memchr::memmem::find(text, piece).is_some())
}

/// `@agent-surface/core` cut into three disjoint pieces.
const NEAR_MISS_PIECES: [&[u8]; 3] = [b"@agent", b"-surfa", b"ce/core"];

/// Files that bind a contract with a literal instance id may not import the core package; this
/// second, equally cheap prefilter lets the instance-id rule see them.
pub fn mentions_instance_id(text: impl AsRef<[u8]>) -> bool {
    memchr::memmem::find(text.as_ref(), b"instanceId").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pieces_cover_the_core_package() {
        let joined: Vec<u8> = NEAR_MISS_PIECES.concat();
        assert_eq!(joined, CORE_PACKAGE.as_bytes());
    }

    #[test]
    fn near_misses_within_two_edits_pass_the_prefilter() {
        for near in [
            "@agent-surfce/core",
            "@agent-surface/cor",
            "@agnet-surface/core",
            "@agent-sruface/core",
            "agent-surface/core",
            "@agent-surface-core",
        ] {
            assert!(strsim::levenshtein(near, CORE_PACKAGE) <= 2, "{near}");
            assert!(mentions_core_near_miss(format!("import {{ x }} from '{near}';")), "{near}");
        }
        assert!(!mentions_core_near_miss("import { useState } from 'react';\nexport const a = 1;\n"));
    }
}
