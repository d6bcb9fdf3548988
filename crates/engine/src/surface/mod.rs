//! The live surface, below the rooms that share it: the registry writes it, the pipeline
//! ([`crate::invoke`]) and the confirmations ([`crate::confirm`]) read and settle against it, so
//! none of them has to reach into another for it.
//!
//! - [`options`]: `RegistryOptions` and the hook types (re-exported as `registry::options`).
//! - `state`: registrations, availability, versions, events and the audit sink.

pub mod options;
pub(crate) mod state;
