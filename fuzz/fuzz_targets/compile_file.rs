//! One file's bytes through prefilter → parse → extract → evaluate → build → rules.
//! The harness and its invariants: `agent_surface::fuzz_support::compile_file`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| agent_surface::fuzz_support::compile_file(data));
