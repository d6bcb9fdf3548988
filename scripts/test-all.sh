#!/usr/bin/env bash
# Every test: Rust (compiler + runtime, unit + fixture + CLI tests).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"
cargo test --workspace --locked
