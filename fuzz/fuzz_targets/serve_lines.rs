//! Serve-protocol request lines through `Server::handle_line`.
//! The harness and its invariants: `agent_surface::fuzz_support::serve_lines`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| agent_surface::fuzz_support::serve_lines(data));
