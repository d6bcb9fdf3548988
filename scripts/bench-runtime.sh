#!/usr/bin/env bash
# The page's workload natively and through the JavaScript API on wasm in Node, one after the
# other on the same machine (docs/performance.md, "The runtime in the page"): a trivial action
# invoked end to end, and snapshot() of 100 components. Prints both and their ratio.
# Needs the release build of crates/wasm's bench and a built packages/core (npm run build).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
native="$(cargo bench -p agent-surface-wasm --bench page_workload --locked 2>/dev/null)"
node_out="$(node packages/core/bench/runtime.mjs)"
echo "$native"
echo "$node_out"
# divan prints "├─ name  fastest │ slowest │ median │ mean ..." rows; take the median column.
median() { echo "$native" | awk -v n="$1" '$0 ~ n { for (i = 1; i <= NF; i++) if ($i == "│") c++; split($0, f, "│"); print f[3]; exit }'; }
for name in invoke_trivial_action snapshot_100_components; do
  echo "$name: native median $(median "$name") | node $(echo "$node_out" | awk -v n="$name" '$1 == n { print $2, $3 }')"
done
