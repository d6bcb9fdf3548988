//! What the model sees and how it calls: the provider-neutral tool catalog over a registry
//! ([`toolset`]), its rendering for each provider's API ([`providers`]), and the gateway that
//! executes provider tools (external tools) under the same authority model ([`gateway`]).
//! The crate root re-exports the three (`agent_surface_engine::toolset`, …).

mod catalog;
pub mod gateway;
pub mod providers;
pub mod toolset;
