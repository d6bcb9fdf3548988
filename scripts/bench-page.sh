#!/usr/bin/env bash
# What the page pays for @agent-surface/core (docs/performance.md, "What the page pays"):
# bundle size against @mcp-b/global + @mcp-b/react-webmcp and the AI SDK, the per-entry-point
# breakdown, a macros-only file (packages/core/bench/page/size.mjs), each module's weight in the
# macros-only file and the minimal React entry (modules.mjs); start-up in headless
# Chromium at CPU ×1 and ×4 against React DOM (startup.mjs); the invoke round trip against the
# native engine (scripts/bench-runtime.sh). Needs built packages (core, react, ai-sdk: npm run
# build in each) and Debian's chromium. Ratios only: every figure is from this one run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bench="$root/packages/core/bench/page"
(cd "$bench" && npm ci --no-audit --no-fund --loglevel=error)
echo "== size (esbuild --minify, gzip -9)"
node "$bench/size.mjs"
echo
echo "== where the bytes go (per module: minified, gzip weight, of which strings)"
node "$bench/modules.mjs"
echo
echo "== start-up (headless Chromium, medians of 7 loads)"
node "$bench/startup.mjs"
echo
echo "== invoke and snapshot (Node against the native engine)"
bash "$root/scripts/bench-runtime.sh"
