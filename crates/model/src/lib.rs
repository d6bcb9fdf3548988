//! The agent-surface model: the one implementation of every rule the compiler and the runtime
//! must agree on, so a contract the compiler accepts is one the runtime registers, and a manifest
//! the compiler hashes is one the runtime verifies.
//!
//! - [`canonical`]: RFC 8785 canonical JSON and blake3 hashes (`blake3:<hex>`).
//! - [`ids`], [`effects`], [`limits`]: the id grammar, planes/effects with their governance
//!   defaults, and the limits. The JSON Schema subset is the `agent-surface-schema` crate
//!   (re-exported as [`schema`]).
//! - [`manifest`]: the `CapabilityContractManifest` types, their assembly and their hashing.
//! - [`rules`]: the definition rules, one per file (id grammar, sizes, planes, schema subset,
//!   uniqueness), each with its tests.
//! - [`definition`]: whole-contract validation: walks a contract and applies every rule, in a
//!   fixed order.
//! - [`errors`]: the agent-facing error payload.
//! - [`authored`]: whether a definition as authored (in the page) still says what its compiled
//!   contract says.
//! - [`verify`]: manifest verification (strict parse, format version, completeness, hashes,
//!   order, definition rules) — what `CapabilityAuthority` runs before it trusts a manifest.
//!
//! The compiler maps each violation (a pointer into the contract's JSON) back to a source span;
//! the engine runs the same validation when it registers contracts. Ids minted at run time
//! (invocation ids) are the engine's: this crate only checks ids.
//!
//! The spec's nouns are re-exported at the root (`agent_surface_model::ManifestContract`); their
//! modules stay the paths the other crates use.

pub mod authored;
pub mod canonical;
pub mod definition;
pub mod effects;
pub mod errors;
pub mod ids;
pub mod limits;
pub mod manifest;
pub mod rules;
pub mod verify;

/// The JSON Schema subset (checker and validator), re-exported so a crate that depends on the
/// model alone (the compiler) names the same types.
pub use agent_surface_schema as schema;

pub use definition::{validate_contract, DefinitionViolation, DefinitionViolationKind};
pub use effects::{Audit, CapabilityKind, Confirmation, Effect, Governance, Plane};
pub use errors::{AgentCapabilityError, ErrorCode, Retry};
pub use limits::AgentSurfaceLimits;
pub use manifest::{
    ActionContract, CapabilityContractManifest, ComponentContract, Generator, ManifestContract, ObservationContract,
    OperationContract, SourceLocation,
};
