//! The agent-surface model: the one implementation of every rule the compiler (`agent-surface`)
//! and the runtime must agree on.
//!
//! - [`canonical`]: RFC 8785 canonical JSON and blake3 hashes (`blake3:<hex>`).
//! - [`ids`], [`effects`], [`schema`], [`limits`]: the id grammar, planes/effects with their
//!   governance defaults, the supported JSON Schema subset, and the limits.
//! - [`manifest`]: the `CapabilityContractManifest` types and their hashing.
//! - [`definition`]: whole-contract validation composed from the modules above.
//!
//! The compiler maps each violation (a pointer into the contract's JSON) back to a source span;
//! the runtime (a later `CapabilityAuthority`) uses the same code to verify manifests.

pub mod audit;
pub mod authority;
pub mod binding;
pub mod canonical;
pub mod clock;
pub mod confirm;
pub mod definition;
pub mod effects;
pub mod errors;
pub mod events;
pub mod exec;
pub mod gateway;
pub mod explain;
pub mod ids;
pub mod invoke;
pub mod limits;
pub mod manifest;
pub mod policy;
pub mod providers;
pub mod registry;
pub mod schema;
pub mod signal;
pub mod snapshot;
pub mod toolset;
pub mod validate;
