#!/usr/bin/env bash
# What the plugin adds per bundler (docs/performance.md, "What the plugin adds to a build"): the
# cold build of packages/unplugin/test/app and of examples/devices-app with and without it for
# Vite (the example), Rollup, Rolldown, webpack, Rspack and esbuild, and the dev loop (vite dev,
# next dev) from saving a contract to the new authority. A report, not a test.
#   bash scripts/bench-bundlers.sh [--builds 5] [--saves 10] [--sections 1,2,3,4]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${AGENT_SURFACE_BINARY:-}" ] || { cargo build --release --locked --bin agent-surface >&2; export AGENT_SURFACE_BINARY="$PWD/target/release/agent-surface"; }
[ -d packages/core/node_modules ] || (cd packages/core && npm ci --no-audit --no-fund --loglevel=error)
[ -f packages/core/dist/index.js ] || (cd packages/core && npm run build)
[ -d packages/unplugin/node_modules ] || (cd packages/unplugin && npm ci --no-audit --no-fund --loglevel=error)
[ -d packages/next/node_modules ] || (cd packages/next && npm ci --no-audit --no-fund --loglevel=error)
# The example app links these packages (file:) and imports their builds.
for p in react ai-sdk orpc; do
  [ -d packages/$p/node_modules ] || (cd packages/$p && npm ci --no-audit --no-fund --loglevel=error)
  [ -f packages/$p/dist/index.js ] || (cd packages/$p && npm run build >/dev/null)
done
[ -d packages/vite/node_modules ] || (cd packages/vite && npm ci --no-audit --no-fund --loglevel=error)
[ -d examples/devices-app/node_modules ] || (cd examples/devices-app && npm ci --no-audit --no-fund --loglevel=error)
cd packages/unplugin && exec bash ../../scripts/with-node.sh 22 node --expose-gc bench/bench.mjs "$@"
