//! The definition rules, one per file: each checks one family of what a contract definition
//! must satisfy, documents it, and carries its own pass/fail tests. A rule checks one field or
//! one capability at a time and pushes [`DefinitionViolation`]s; [`crate::definition`] walks
//! the contract and calls them, which fixes the order violations are reported in.
//!
//! The files match the compiler's diagnostic mappers (`crates/compiler/src/rules/`), which
//! turn each rule's violations into diagnostics.

pub mod id_grammar;
pub mod planes;
pub mod schema_subset;
pub mod sizes;
pub mod uniqueness;
pub mod violation;

#[cfg(test)]
pub(crate) mod testing;

pub use violation::{DefinitionViolation, DefinitionViolationKind};
