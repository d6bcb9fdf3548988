#!/usr/bin/env bash
# Every test: Rust (compiler + runtime: unit, fixture, CLI, conformance) and the zod
# differential test against real zod 4.6.7 (needs Node.js and npm).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"

command -v node >/dev/null || { echo "error: Node.js is required (the zod differential test runs real zod)" >&2; exit 1; }
echo "==> npm ci (test-tools/zod-oracle: pinned zod 4.6.7)"
(cd test-tools/zod-oracle && npm ci --no-audit --no-fund --loglevel=error)
echo "==> npm ci (test-tools/sarif: the official SARIF validator)"
(cd test-tools/sarif && npm ci --no-audit --no-fund --loglevel=error)

echo "==> cargo test"
# --nocapture shows the conformance summaries (json-schema-suite, zod-oracle).
cargo test --workspace --locked -- --nocapture
