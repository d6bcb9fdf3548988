//! JSON values against in-subset schemas (derived from the bytes with `arbitrary`).
//! The harness and its invariants: `agent_surface_engine::fuzz_support::schema_validate`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| agent_surface_engine::fuzz_support::schema_validate(data));
