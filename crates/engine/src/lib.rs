//! The agent-surface engine: the runtime half of agent-surface. It verifies a manifest the
//! compiler wrote (a `CapabilityContractManifest`) into a [`CapabilityAuthority`], binds live
//! handlers to the contracts it hands out, and runs them for agents through one fixed
//! invocation pipeline, with confirmations, policies, events and audit. It also renders what a
//! model sees ([`toolset`], [`providers`]) and executes provider tools ([`gateway`]).
//!
//! Every rule the compiler and the engine must agree on (ids, effects, limits, hashing, the
//! manifest types) lives in `agent-surface-model`, re-exported as [`model`]. The engine needs
//! no particular executor or platform: what it needs from its host (a clock, a timer, a
//! spawner, entropy) comes through [`host`], so the same core runs natively and on wasm32.
//!
//! # The runtime in four steps
//!
//! 1. **Authority** — [`authority::CapabilityAuthority::new`] (the spec's
//!    `createCapabilityAuthority`) verifies a compiled manifest (format version, completeness,
//!    every `contractHash`, unique ids, `manifestHash`) and becomes the immutable, shareable
//!    source of truth. Contracts are handed out only by it (`authority.component(..)`,
//!    `.procedure(..)`, `.external_tool(..)`) and carry a private provenance.
//! 2. **Bind** — [`binding`]: a contract is bound to live handlers (`read` for every
//!    observation, `execute` for every action; missing or extra names are errors). A binding
//!    may add `when`, `enabled`, policies and procedure references, never identity or
//!    governance.
//! 3. **Registry** — [`registry::AgentSurfaceRegistry`] (the spec's
//!    `createAgentSurfaceRegistry`, the authority mandatory) registers bound components only
//!    from its own authority, keeps the surface version, tombstones and events, and computes
//!    availability.
//! 4. **Snapshot and invoke** — [`registry::AgentSurfaceRegistry::snapshot`] is the synchronous
//!    catalog a consumer may call (no handler runs); [`registry::AgentSurfaceRegistry::invoke`]
//!    runs the fixed invocation pipeline ([`invoke`]) and always answers with a result envelope.
//!    The core needs no particular executor: handlers are `futures`, timers come through
//!    [`host::Timer`].
//!
//! ```rust
//! use agent_surface_engine::authority::CapabilityAuthority;
//! use agent_surface_engine::binding::{execute_fn, read_sync};
//! use agent_surface_model::effects::{default_governance, CapabilityKind, Effect};
//! use agent_surface_engine::invoke::{AgentInvocation, InvokeOptions};
//! use agent_surface_model::manifest::{
//!     ActionContract, CapabilityContractManifest, ComponentContract, Generator, ManifestContract,
//!     ObservationContract,
//! };
//! use agent_surface_engine::registry::{AgentSurfaceRegistry, RegistryOptions};
//! use agent_surface_engine::snapshot::SnapshotContext;
//! use serde_json::json;
//! use std::sync::atomic::{AtomicI64, Ordering};
//! use std::sync::Arc;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // What the compiler writes (assembled by hand here): one component contract.
//! let mut counter = ComponentContract::new("demo.counter", "A counter on the page");
//! counter.observations.insert(
//!     "value".into(),
//!     ObservationContract::new("The current value", json!({
//!         "type": "object",
//!         "properties": { "value": { "type": "integer" } },
//!         "required": ["value"]
//!     })),
//! );
//! counter.actions.insert(
//!     "increment".into(),
//!     ActionContract::new(
//!         "Adds one to the counter",
//!         json!({ "type": "object", "properties": {}, "additionalProperties": false }),
//!         default_governance(CapabilityKind::ViewAction, Effect::LocalState),
//!     ),
//! );
//! let generator = Generator { name: "example".into(), version: "1.0.0".into() };
//! let manifest =
//!     CapabilityContractManifest::assemble(generator, vec![ManifestContract::Component(counter)], 0);
//!
//! // 1. The authority verifies the manifest.
//! let authority = CapabilityAuthority::new(manifest.to_value())?;
//!
//! // 2. Bind live handlers to the contract it hands out.
//! let value = Arc::new(AtomicI64::new(41));
//! let (reader, writer) = (value.clone(), value.clone());
//! let bound = authority
//!     .component("demo.counter")?
//!     .bind()
//!     .observation("value", read_sync(move |_ctx| json!({ "value": reader.load(Ordering::SeqCst) })))
//!     .action("increment", execute_fn(move |_input, _ctx| {
//!         writer.fetch_add(1, Ordering::SeqCst);
//!         async { Ok(json!(null)) }
//!     }))
//!     .build()?;
//!
//! // 3. Register it.
//! let registry = AgentSurfaceRegistry::new(RegistryOptions::new(authority.clone()));
//! let handle = registry.register(bound)?;
//!
//! // 4. Snapshot (synchronous, no handler runs) and invoke.
//! let snapshot = registry.snapshot(&SnapshotContext::default());
//! assert_eq!(snapshot.surface_version, "1");
//! assert_eq!(snapshot.components[0].actions[0].capability_id, "view:demo.counter.increment");
//! assert_eq!(value.load(Ordering::SeqCst), 41);
//!
//! futures::executor::block_on(async {
//!     let inc = AgentInvocation::new("view:demo.counter.increment").input(json!({}));
//!     assert!(registry.invoke(inc, InvokeOptions::default()).await?.is_ok());
//!     let read = AgentInvocation::new("view:demo.counter.value")
//!         .registration(handle.registration_id());
//!     let result = registry.invoke(read, InvokeOptions::default()).await?;
//!     assert_eq!(result.output, Some(json!({ "value": 42 })));
//!     Ok::<_, Box<dyn std::error::Error>>(())
//! })?;
//!
//! handle.unregister();
//! assert!(registry.snapshot(&SnapshotContext::default()).components.is_empty());
//! # Ok(())
//! # }
//! ```

// One code path with `Arc` everywhere: on wasm32 what it shares is not `Send` by design (host/).
#![cfg_attr(target_arch = "wasm32", allow(clippy::arc_with_non_send_sync))]

pub mod audit;
pub mod authority;
pub mod binding;
pub mod confirm;
pub mod consumer;
pub mod events;
pub mod explain;
pub mod expose;
#[doc(hidden)]
pub mod fuzz_support;
pub mod host;
pub mod invoke;
pub mod policy;
pub mod procedure;
pub mod registry;
pub mod request;
pub mod signal;
pub mod snapshot;
pub mod surface;

pub use expose::{gateway, providers, toolset};

// The spec's nouns, at the root.
pub use authority::CapabilityAuthority;
pub use binding::{BoundComponent, HandlerError};
pub use consumer::{AgentConsumer, ConsumerKind};
pub use events::AgentSurfaceEvent;
pub use invoke::{AgentInvocation, AgentInvocationResult, InvocationStatus, InvokeOptions};
pub use registry::{AgentSurfaceRegistry, RegistrationHandle, RegistryOptions};
pub use snapshot::{AgentSurfaceSnapshot, SnapshotContext};
pub use toolset::{create_agent_toolset, AgentTool, AgentToolset, AgentToolsetOptions};

/// The model crate (manifest types, ids, effects, limits, canonical JSON) the engine speaks.
pub use agent_surface_model as model;
