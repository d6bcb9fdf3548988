#!/usr/bin/env bash
# What the plugin adds per bundler (docs/performance.md, "What the plugin adds to a build"): the
# cold build of packages/unplugin/test/app with and without it for Rollup, Rolldown, webpack,
# Rspack and esbuild, and next dev's save -> new authority time. A report, not a test.
#   bash scripts/bench-bundlers.sh [--builds 5] [--saves 10]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${AGENT_SURFACE_BINARY:-}" ] || { cargo build --release --locked --bin agent-surface >&2; export AGENT_SURFACE_BINARY="$PWD/target/release/agent-surface"; }
[ -d packages/core/node_modules ] || (cd packages/core && npm ci --no-audit --no-fund --loglevel=error)
[ -f packages/core/dist/index.js ] || (cd packages/core && npm run build)
[ -d packages/unplugin/node_modules ] || (cd packages/unplugin && npm ci --no-audit --no-fund --loglevel=error)
[ -d packages/next/node_modules ] || (cd packages/next && npm ci --no-audit --no-fund --loglevel=error)
cd packages/unplugin && exec bash ../../scripts/with-node.sh 22 node bench/bench.mjs "$@"
