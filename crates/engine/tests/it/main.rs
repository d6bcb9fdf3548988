//! The engine's integration tests, one binary (one link instead of twenty): each file is a
//! module named as its file was; `common`, `registry_support` and `toolset_support` are the
//! shared helpers of the `pipeline_*`, `registry_*` and `toolset_*` modules.

mod common;
mod registry_support;
mod toolset_support;

mod confirmation_expiry;
mod gateway_pipeline;
mod pipeline_concurrency;
mod pipeline_confirmation;
mod pipeline_identity;
mod pipeline_invocation;
mod pipeline_policies_events;
mod pipeline_smoke;
mod pipeline_stress;
mod pipeline_time;
mod procedure_executor;
mod registry_authority;
mod registry_availability;
mod registry_lifecycle;
mod registry_snapshot;
mod registry_snapshot_json;
mod scenarios;
mod tamper_property;
mod toolset_catalog;
mod toolset_execute;
mod toolset_gateway;
mod toolset_names;
mod toolset_providers;
mod validator_fast_paths;
