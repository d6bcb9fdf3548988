#!/usr/bin/env bash
# Runs a command with a pinned Node.js LTS first on PATH: `scripts/with-node.sh 22 npm test`.
# The binary comes from the npm `node` package, installed once under .cache/node/<major> in the
# clone, so no system install, no root and no download on a second run. npm itself is the
# machine's, run by the chosen node. Majors are pinned to exact versions here (tests pin their
# third-party tools).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
major="${1:?usage: scripts/with-node.sh <22|26> <command...>}"
shift
case "$major" in
  22) version=22.23.3 ;;
  26) version=26.10.0 ;;
  *) echo "error: scripts/with-node.sh: no pinned Node.js $major (22 or 26)" >&2; exit 2 ;;
esac
dir="$ROOT/.cache/node/$version"
if [ ! -x "$dir/node_modules/.bin/node" ]; then
  mkdir -p "$dir"
  if ! npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error "node@$version" >&2; then
    echo "error: scripts/with-node.sh: npm install node@$version failed" >&2
    exit 1
  fi
fi
export PATH="$dir/node_modules/.bin:$PATH"
[ "$#" -gt 0 ] || { node --version; exit 0; }
exec "$@"
