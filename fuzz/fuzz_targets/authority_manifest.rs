//! Arbitrary bytes as a manifest through `CapabilityAuthority::from_json_str` (and re-hashed).
//! The harness and its invariants: `agent_surface_engine::fuzz_support::authority_manifest`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| agent_surface_engine::fuzz_support::authority_manifest(data));
