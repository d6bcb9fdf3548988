//! The `agent-surface` binary's library half: the command line ([`cli`]), `compile --watch`
//! ([`watch`]) and the long-lived `serve` protocol the Vite plugin drives ([`serve`]). The
//! work itself lives in the crates below: `agent-surface-compiler` (discover → parse → extract →
//! evaluate → check → emit), `agent-surface-lsp` (the language server) and
//! `agent-surface-engine` (manifest inspection commands verify through its authority).

pub mod cli;
#[doc(hidden)]
pub mod fuzz_support;
pub mod serve;
pub mod watch;
