//! `CapabilityContractManifest` (DECISIONS §4): the typed model of the compiler's output and its
//! hashing. Every governance default is materialized, so the hashes pin the semantics.
//!
//! - `types`: the contracts and the manifest document, and their JSON form.
//! - `hashing`: `contractHash`, `manifestHash`, assembling a manifest from
//!   (already hashed) contracts, and verifying stored hashes.
//! - `samples` (doc-hidden): small valid contracts for tests here and in dependent crates.
//!
//! `contractHash` covers a contract without `source` (moving code does not change it);
//! `manifestHash` covers the whole document except itself.

mod hashing;
mod types;

#[doc(hidden)]
pub mod samples;

pub use hashing::{contract_hash, manifest_hash, verify_hashes, AssembledManifest, HashMismatch, HashedContract};
pub use types::{
    ActionContract, CapabilityContractManifest, Completeness, CompletenessStatus, ComponentContract, Generator,
    ManifestContract, ManifestError, ObservationContract, OperationContract, SourceLocation, DEFAULT_ORIGIN,
    FORMAT_VERSION,
};

#[cfg(test)]
mod tests;
