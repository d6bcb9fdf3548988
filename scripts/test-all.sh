#!/usr/bin/env bash
# Every test. First the habits the tools enforce: rustfmt, clippy with warnings denied, no module
# import cycles, the compiler free of the engine. Then Rust
# (schema, model, engine, compiler, lsp, binary: unit, fixture, CLI, conformance, serve
# protocol), the zod
# differential test against real zod 4.6.7, the MCP example host end to end with the official MCP
# TypeScript SDK client, then the npm packages: @agent-surface/core and
# @agent-surface/vite (end to end with Vite 8, React 19 and headless Debian Chromium),
# @agent-surface/react (React 19 and 18, happy-dom), @agent-surface/ai-sdk (AI SDK 7 loops on
# its mock model; WebMCP runs in core's suite, in headless Chromium too), @agent-surface/orpc
# (real @orpc/server 1.16.1 and 2.0.0-beta on loopback), all
# driving the binary cargo just built, the launcher @agent-surface/cli, the VS Code extension
# (packaged as a .vsix), and the npm distribution end to end: the release build packed into its
# platform package, every package packed and installed into a fresh Vite + React + TS app that
# compiles, builds and gets its diagnostic in headless Neovim. Needs Node.js 20.19+ and npm;
# installs Debian's chromium and neovim when missing (CI runs as root on a clean machine).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"

command -v python3 >/dev/null || { echo "error: Python 3 is required (the module cycle check and the fuzz seed generator)" >&2; exit 1; }
command -v node >/dev/null || { echo "error: Node.js is required (the zod differential test and the npm packages' tests)" >&2; exit 1; }
echo "==> npm ci (test-tools/zod-oracle: pinned zod 4.6.7)"
(cd test-tools/zod-oracle && npm ci --no-audit --no-fund --loglevel=error)
echo "==> npm ci (test-tools/valibot-oracle: pinned valibot 1.5.0 + @valibot/to-json-schema 1.8.0)"
(cd test-tools/valibot-oracle && npm ci --no-audit --no-fund --loglevel=error)
echo "==> npm ci (test-tools/typebox-oracle: pinned typebox 1.4.3 + @sinclair/typebox 0.34.52)"
(cd test-tools/typebox-oracle && npm ci --no-audit --no-fund --loglevel=error)
echo "==> npm ci (test-tools/zod3-oracle: pinned zod 3.25.76 + zod-to-json-schema 3.25.2)"
(cd test-tools/zod3-oracle && npm ci --no-audit --no-fund --loglevel=error)
echo "==> npm ci (test-tools/arktype-oracle: pinned arktype 2.2.9)"
(cd test-tools/arktype-oracle && npm ci --no-audit --no-fund --loglevel=error)
echo "==> npm ci (test-tools/sarif: the official SARIF validator)"
(cd test-tools/sarif && npm ci --no-audit --no-fund --loglevel=error)

# Installs what a clean machine lacks (CI runs as root on one): Debian packages with apt-get.
apt_install() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "error: $* missing; install Debian's packages: sudo apt-get install $*" >&2
    exit 1
  fi
  local log
  log="$(mktemp)"
  if ! { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "$@"; } >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "error: apt-get install $* failed" >&2
    exit 1
  fi
  rm -f "$log"
}

echo "==> toolchain: rustfmt, clippy"
if command -v rustup >/dev/null; then
  rustup component add rustfmt clippy >/dev/null 2>&1 || true
fi

echo "==> cargo fmt --all --check"
cargo fmt --all --check

echo "==> module import cycles (scripts/check-module-cycles.py)"
python3 scripts/check-module-cycles.py

echo "==> the compiler depends on the model, never on the engine, tokio or futures"
if cargo tree --locked -p agent-surface-compiler -e normal --prefix none | grep -E '^(agent-surface-engine|tokio|futures) '; then
  echo "error: agent-surface-compiler depends on the crates above" >&2
  exit 1
fi

echo "==> cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "==> cargo test"
# --nocapture shows the conformance summaries (json-schema-suite, zod-oracle).
cargo test --workspace --locked -- --nocapture

echo "==> MCP end to end (examples/mcp-devices with the official MCP TypeScript SDK client)"
# `cargo test` builds the example's test harness, not necessarily its plain binary.
cargo build --workspace --locked
(cd examples/mcp-devices/e2e && npm ci --no-audit --no-fund --loglevel=error)
(cd examples/mcp-devices/e2e && MCP_DEVICES_BIN="$ROOT/target/debug/mcp-devices" \
  MANIFEST="$ROOT/examples/devices-app/agent-surface.manifest.json" npm test)

# The npm packages' tests drive the binary `cargo test` built above.
export AGENT_SURFACE_BINARY="$PWD/target/debug/agent-surface"
[ -x "$AGENT_SURFACE_BINARY" ] || { echo "error: $AGENT_SURFACE_BINARY was not built" >&2; exit 1; }

if [ ! -x /usr/bin/chromium ]; then
  echo "==> apt-get install chromium (headless browser tests)"
  apt_install chromium
fi

# packages/core is TypeScript: it is built (tsc -> packages/core/dist/) before either suite runs;
# its `npm test` builds again (idempotent) and the Vite plugin's tests import that build.
echo "==> npm ci && npm run build (packages/core)"
(cd packages/core && npm ci --no-audit --no-fund --loglevel=error && npm run build)
echo "==> npm test (packages/core)"
(cd packages/core && npm test)
# The plugin core of every bundler (unplugin 3): its own suite builds test/app with Rollup,
# Rolldown, webpack, Rspack and esbuild. Installed before packages/vite, which links it (file:)
# and resolves its dependencies from here.
echo "==> npm ci && npm test (packages/unplugin: Rollup, Rolldown, webpack, Rspack, esbuild)"
(cd packages/unplugin && npm ci --no-audit --no-fund --loglevel=error && npm test)
# The Vite plugin's tests (and the bridge suites below, through its test helpers) build copies of
# the one devices app, examples/devices-app, on the example's own install, which links
# packages/react, ai-sdk and orpc: built here (their suites run further down).
echo "==> npm ci && npm run build (packages/react, ai-sdk, orpc), npm ci (examples/devices-app)"
for pkg in react ai-sdk orpc; do
  (cd "packages/$pkg" && npm ci --no-audit --no-fund --loglevel=error && npm run build)
done
(cd examples/devices-app && npm ci --no-audit --no-fund --loglevel=error)
echo "==> npm ci && npm test (packages/vite)"
(cd packages/vite && npm ci --no-audit --no-fund --loglevel=error && npm test)
echo "==> npm ci && npm test (packages/ai-sdk: the AI SDK adapter, loops on ai 7's mock model)"
(cd packages/ai-sdk && npm ci --no-audit --no-fund --loglevel=error && npm test)
echo "==> npm ci && npm test (packages/orpc: the oRPC executor and contract generator, real @orpc/server 1.16.1 and 2.0.0-beta on loopback)"
(cd packages/orpc && npm ci --no-audit --no-fund --loglevel=error && npm test)

# The MCP bridge end to end: the official MCP TypeScript SDK client (pinned 1.32.2 in
# crates/bridge/e2e) drives the example app in headless Chromium through `agent-surface bridge`,
# once over stdio and once over Streamable HTTP (`--http`);
# Vite, React and playwright-core come from packages/vite (installed just above).
echo "==> MCP bridge end to end (crates/bridge/e2e: MCP TypeScript SDK client, headless Chromium)"
(cd crates/bridge/e2e && npm ci --no-audit --no-fund --loglevel=error && npm test)

# The official MCP conformance suite (@modelcontextprotocol/conformance pinned 0.2.0-alpha.12 in
# crates/bridge/conformance) against `agent-surface bridge --http` with the example app open in
# headless Chromium: --requirements 2025-11-25 and 2026-07-28, each against its expected-failures
# file (absent features only), wire-schema-valid asserted. The suite needs Node >= 22.19; it reuses
# crates/bridge/e2e's and packages/vite's node_modules (installed above).
echo "==> MCP conformance suite (crates/bridge/conformance: both revisions over Streamable HTTP, Node 22)"
(cd crates/bridge/conformance && ../../../scripts/with-node.sh 22 npm ci --no-audit --no-fund --loglevel=error \
  && ../../../scripts/with-node.sh 22 npm test)

# The launcher has no dependencies to install (its optional ones are the platform packages).
echo "==> npm test (packages/cli: the launcher and the binary lookup)"
(cd packages/cli && npm test)

echo "==> npm ci && npm test && vsce package (packages/vscode: the VS Code extension)"
VSIX_DIR="$(mktemp -d)"
(cd packages/vscode && npm ci --no-audit --no-fund --loglevel=error && npm test \
  && npx --no-install vsce package --out "$VSIX_DIR/agent-surface.vsix")
python3 - "$VSIX_DIR/agent-surface.vsix" <<'PY'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
for want in ["extension/package.json", "extension/out/extension.js", "extension/LICENSE.txt", "extension.vsixmanifest"]:
    assert want in names, f"{sys.argv[1]} lacks {want}: {sorted(names)}"
print(f"  {sys.argv[1]}: {len(names)} files")
PY
rm -rf "$VSIX_DIR"

# Headless Neovim for the editor test of the install test below (Debian 12: Neovim 0.7.2).
command -v nvim >/dev/null || apt_install neovim
echo "==> npm distribution: pack, install into a fresh Vite app, compile, build, Neovim (scripts/test-npm-install.sh)"
bash scripts/test-npm-install.sh
# packages/react links ../core (built above) and ../vite (whose dependencies npm ci just
# installed); React 18 for its second run is a separate install (test/react18).
echo "==> npm ci && npm test (packages/react: React 19 and React 18)"
(cd packages/react && npm ci --no-audit --no-fund --loglevel=error \
  && (cd test/react18 && npm ci --no-audit --no-fund --loglevel=error) && npm test)

# What the page pays (docs/performance.md): the size bench once, so it cannot rot (the figures
# are printed, not asserted; start-up and speed are measured by scripts/bench-page.sh).
echo "==> the page's size bench (packages/core/bench/page/size.mjs, modules.mjs)"
(cd packages/core/bench/page && npm ci --no-audit --no-fund --loglevel=error && node size.mjs && node modules.mjs)

# The example app end to end: examples/devices-app links the packages above (file:), builds with
# Vite and runs its headless Chromium suite (the AI SDK assistant, the dialog, WebMCP).
echo "==> npm ci && npm test (examples/devices-app: the example app in headless Chromium)"
(cd examples/devices-app && npm ci --no-audit --no-fund --loglevel=error && npm test)

# Browser agents no one here wrote, against the example app's `vite build` (its npm ci above)
# served on loopback, on one headless Chromium with WebMCP: @playwright/mcp driven by the
# official MCP TypeScript SDK client (governance counted from the page's side, self-approval
# refused under the host's policy), puppeteer-core's page.webmcp, Lighthouse's Agentic Browsing
# category, web-platform-tests webmcp/ (vendored unmodified in its wpt/). puppeteer-core 25 and
# lighthouse 13.5 need Node >= 22.19, so the suite runs on the pinned Node 22 (scripts/with-node.sh).
echo "==> npm ci && npm test (test-tools/browser-agents: third-party browser agents through WebMCP)"
(cd test-tools/browser-agents && npm ci --no-audit --no-fund --loglevel=error && "$ROOT/scripts/with-node.sh" 22 npm test)

# Node.js LTS: the packages declare Node >= 22 (engines); their unit suites run on Node 22 and on
# the newest LTS, 26 (pinned binaries from the npm `node` package: scripts/with-node.sh). The
# heavy browser suites run once each (the Next.js example below on 22); the unit suites of core,
# the plugin core, the Vite plugin's plugin/child/offsets/build tests, react and ai-sdk run on both.
# Uses the node_modules the blocks above installed.
for NODE_MAJOR in 22 26; do
  echo "==> Node.js $NODE_MAJOR: unit suites of core, unplugin, vite, react, ai-sdk (scripts/with-node.sh)"
  (cd packages/core && bash ../../scripts/with-node.sh "$NODE_MAJOR" npx --no-install vitest run)
  (cd packages/unplugin && bash ../../scripts/with-node.sh "$NODE_MAJOR" npm test)
  (cd packages/vite && bash ../../scripts/with-node.sh "$NODE_MAJOR" npx --no-install vitest run test/plugin.test.js test/child.test.js test/offsets.test.js test/build.test.js)
  (cd packages/react && bash ../../scripts/with-node.sh "$NODE_MAJOR" npx --no-install vitest run)
  (cd packages/ai-sdk && bash ../../scripts/with-node.sh "$NODE_MAJOR" npx --no-install vitest run)
done

# Next.js 16 (examples/next-app, through @agent-surface/next): next build + next start and
# next dev, each with webpack and with Turbopack, in headless Chromium (WebMCP: register,
# invoke, confirm), on Node 22. Links packages/core and packages/react (built above).
echo "==> npm ci && npm test (examples/next-app: Next.js 16, webpack and Turbopack, dev and production)"
(cd packages/next && npm ci --no-audit --no-fund --loglevel=error && bash ../../scripts/with-node.sh 22 npm test)
(cd examples/next-app && npm ci --no-audit --no-fund --loglevel=error && bash ../../scripts/with-node.sh 22 npm test)

# Rsbuild 2 (examples/rsbuild-app, through @agent-surface/unplugin/rsbuild): rsbuild build, in
# headless Chromium (WebMCP: register, invoke, confirm), on Node 22.
echo "==> npm ci && npm test (examples/rsbuild-app: Rsbuild 2 on Rspack)"
(cd examples/rsbuild-app && npm ci --no-audit --no-fund --loglevel=error && bash ../../scripts/with-node.sh 22 npm test)
