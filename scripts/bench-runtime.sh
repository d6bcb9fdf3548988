#!/usr/bin/env bash
# The page's workload natively (the Rust engine, crates/engine/benches/page_workload.rs) and
# through the TypeScript runtime in Node (packages/core/bench/runtime.mjs), one right after the
# other on the same machine (docs/performance.md, "What the page pays"): a trivial action invoked
# end to end, and snapshot() of 100 components. Prints both and their ratio (target for invoke:
# TypeScript ≤ 3× native). Needs a built packages/core (npm run build).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
native="$(cargo bench -p agent-surface-engine --bench page_workload --locked 2>/dev/null)"
node_out="$(node packages/core/bench/runtime.mjs)"
echo "$native"
echo "$node_out"
# divan prints "├─ name  fastest │ slowest │ median │ mean ..." rows; take the median column.
median() { echo "$native" | awk -v n="$1" '$0 ~ n { split($0, f, "│"); print f[3]; exit }'; }
to_us() { awk '{ v = $1; u = $2; if (u == "ns") v /= 1000; else if (u == "ms") v *= 1000; else if (u == "s") v *= 1000000; printf "%.3f", v }'; }
for name in invoke_trivial_action snapshot_100_components; do
  n="$(median "$name" | xargs)"
  j="$(echo "$node_out" | awk -v n="$name" '$1 == n { print $2, $3 }')"
  ratio="$(awk -v a="$(echo "$j" | to_us)" -v b="$(echo "$n" | to_us)" 'BEGIN { printf "%.2f", a / b }')"
  echo "$name: native median $n | TypeScript in Node $j | ratio ${ratio}×"
done
