//! `CapabilityContractManifest` (DECISIONS §4): the typed model of the compiler's output and its
//! hashing. Every governance default is materialized, so the hashes pin the semantics.
//!
//! - `types`: the contracts and the manifest document, and their JSON form.
//! - `hashing`: `contractHash`, `manifestHash`, assembling a manifest from
//!   (already hashed) contracts, and verifying stored hashes.
//! - `locations`: the sidecar that says where each contract is written (not hashed).
//! - `samples` (doc-hidden): small valid contracts for tests here and in dependent crates.
//!
//! `contractHash` covers a contract but itself; `manifestHash` covers the whole document except
//! itself. Source locations are not in the manifest (format 2): moving code changes neither.

mod hashing;
mod locations;
mod types;

#[doc(hidden)]
pub mod samples;

pub use hashing::{contract_hash, manifest_hash, verify_hashes, AssembledManifest, HashMismatch, HashedContract};
pub use locations::{ContractLocations, LocationsError, LOCATIONS_FORMAT_VERSION};
pub use types::{
    ActionContract, CapabilityContractManifest, Completeness, CompletenessStatus, ComponentContract, Generator,
    ManifestContract, ManifestError, ObservationContract, OperationContract, SourceLocation, DEFAULT_ORIGIN,
    FORMAT_VERSION,
};

#[cfg(test)]
mod tests;
