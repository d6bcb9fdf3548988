#!/usr/bin/env bash
# Every test: Rust (compiler + runtime: unit, fixture, CLI, conformance, serve protocol), the zod
# differential test against real zod 4.6.7, the MCP example host end to end with the official MCP
# TypeScript SDK client, then the npm packages: @agent-surface/core and
# @agent-surface/vite (end to end with Vite 8, React 19 and headless Debian Chromium), both
# driving the binary cargo just built. Needs Node.js 20.19+ and npm; installs Debian's chromium
# when /usr/bin/chromium is missing (CI runs as root on a clean machine).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"

command -v node >/dev/null || { echo "error: Node.js is required (the zod differential test and the npm packages' tests)" >&2; exit 1; }
echo "==> npm ci (test-tools/zod-oracle: pinned zod 4.6.7)"
(cd test-tools/zod-oracle && npm ci --no-audit --no-fund --loglevel=error)
echo "==> npm ci (test-tools/sarif: the official SARIF validator)"
(cd test-tools/sarif && npm ci --no-audit --no-fund --loglevel=error)

echo "==> cargo test"
# --nocapture shows the conformance summaries (json-schema-suite, zod-oracle).
cargo test --workspace --locked -- --nocapture

echo "==> MCP end to end (examples/mcp-devices with the official MCP TypeScript SDK client)"
# `cargo test` builds the example's test harness, not necessarily its plain binary.
cargo build --workspace --locked
(cd examples/mcp-devices/e2e && npm ci --no-audit --no-fund --loglevel=error)
(cd examples/mcp-devices/e2e && MCP_DEVICES_BIN="$ROOT/target/debug/mcp-devices" \
  MANIFEST="$ROOT/crates/engine/tests/fixtures/devices-app.manifest.json" npm test)

# The npm packages' tests drive the binary `cargo test` built above.
export AGENT_SURFACE_BINARY="$PWD/target/debug/agent-surface"
[ -x "$AGENT_SURFACE_BINARY" ] || { echo "error: $AGENT_SURFACE_BINARY was not built" >&2; exit 1; }

if [ ! -x /usr/bin/chromium ]; then
  echo "==> apt-get install chromium (headless browser test of @agent-surface/vite)"
  if [ "$(id -u)" -ne 0 ]; then
    echo "error: /usr/bin/chromium is missing; install Debian's chromium (sudo apt-get install chromium)" >&2
    exit 1
  fi
  log="$(mktemp)"
  if ! { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; } >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "error: apt-get install chromium failed" >&2
    exit 1
  fi
  rm -f "$log"
fi

for pkg in packages/core packages/vite; do
  echo "==> npm ci && npm test ($pkg)"
  (cd "$pkg" && npm ci --no-audit --no-fund --loglevel=error && npm test)
done
