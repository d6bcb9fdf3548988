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
    /// Valid UTF-8 that mentions neither the core package nor `instanceId`: it cannot declare
    /// a contract or bind one, so it is not parsed (nor given a file entry).
    Skipped,
    /// It must be compiled: it mentions the core package (`declares`) or `instanceId`, or it
    /// cannot be read as text (which [`crate::project::Project::load`] reports).
    Candidate { declares: bool },
}

/// The byte prefilter: files that never mention the core package cannot declare a contract and
/// are not parsed (unless a contract imports from them).
pub fn mentions_core(text: impl AsRef<[u8]>) -> bool {
    memchr::memmem::find(text.as_ref(), CORE_PACKAGE.as_bytes()).is_some()
}

/// Files that bind a contract with a literal instance id may not import the core package; this
/// second, equally cheap prefilter lets the instance-id rule see them.
pub fn mentions_instance_id(text: impl AsRef<[u8]>) -> bool {
    memchr::memmem::find(text.as_ref(), b"instanceId").is_some()
}
