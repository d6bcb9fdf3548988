//! The agent-surface model: the one implementation of every rule the compiler and the runtime
//! must agree on.
//!
//! - [`canonical`]: RFC 8785 canonical JSON and blake3 hashes (`blake3:<hex>`).
//! - [`ids`], [`effects`], [`limits`]: the id grammar, planes/effects with their governance
//!   defaults, and the limits. The JSON Schema subset is the `agent-surface-schema` crate.
//! - [`manifest`]: the `CapabilityContractManifest` types and their hashing.
//! - [`definition`]: whole-contract validation composed from the modules above.
//! - [`errors`]: the agent-facing error payload.
//!
//! The compiler maps each violation (a pointer into the contract's JSON) back to a source span;
//! the engine uses the same code to verify manifests.

pub mod canonical;
pub mod definition;
pub mod effects;
pub mod errors;
pub mod ids;
pub mod limits;
pub mod manifest;
pub mod verify;

/// The JSON Schema subset (checker and validator), re-exported so a crate that depends on the
/// model alone (the compiler) names the same types.
pub use agent_surface_schema as schema;
