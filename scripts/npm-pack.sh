#!/usr/bin/env bash
# Packs every npm package into OUT_DIR, as `npm publish` would publish it:
#   @agent-surface/core, /unplugin, /vite, /react, /ai-sdk  (each from its folder through its own
#                                                package.json scripts: prepack copies the
#                                                licence files and builds dist/, git-ignored;
#                                                postpack removes the licence files)
#   @agent-surface/cli                           (the launcher)
#   @agent-surface/cli-<platform>                (one per --binary PLATFORM=PATH given)
# From a fresh clone too: a package whose prepack builds with its devDependencies (tsc) and
# has no node_modules gets `npm ci` first.
# A platform package is staged in a temporary copy with the binary in bin/ and the licence
# files, so the source tree gets no binaries. Platforms: linux-x64-gnu, linux-arm64-gnu,
# darwin-x64, darwin-arm64, win32-x64-msvc (docs/releasing.md: how each binary is built).
#
#   scripts/npm-pack.sh dist/npm --binary linux-x64-gnu=target/release/agent-surface
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

usage() { echo "usage: $0 OUT_DIR [--binary PLATFORM=PATH]..." >&2; exit 2; }
[ $# -ge 1 ] || usage
OUT="$1"
shift
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
BINARIES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) [ $# -ge 2 ] || usage; BINARIES+=("$2"); shift 2 ;;
    *) usage ;;
  esac
done

STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT

pack() { # pack DIR: npm pack (its prepack script runs) into OUT, printing the tarball's name
  (cd "$1" && npm pack --pack-destination "$OUT" --loglevel=error | tail -n 1)
}

stage() { # stage SRC NAME: a copy of a package folder with the licence files
  rm -rf "$STAGE/$2"
  cp -R "$1" "$STAGE/$2"
  rm -rf "$STAGE/$2/node_modules" "$STAGE/$2/test" "$STAGE/$2/platforms"
  cp "$ROOT/LICENSE-MIT" "$ROOT/LICENSE-APACHE" "$STAGE/$2/"
  echo "$STAGE/$2"
}

deps() { # deps DIR: a fresh clone has no node_modules, and prepack's build needs tsc
  [ -d "$1/node_modules" ] || (cd "$1" && npm ci --no-audit --no-fund --loglevel=error >&2)
}

# core first: react and ai-sdk link ../core (file:) and build against its dist/.
deps packages/core
pack packages/core
pack packages/unplugin
pack packages/vite
deps packages/react
pack packages/react
deps packages/ai-sdk
pack packages/ai-sdk
pack "$(stage packages/cli cli)"
for spec in ${BINARIES[@]+"${BINARIES[@]}"}; do
  platform="${spec%%=*}"
  binary="${spec#*=}"
  src="packages/cli/platforms/$platform"
  [ -d "$src" ] || { echo "error: no platform package $platform (packages/cli/platforms/)" >&2; exit 2; }
  [ -f "$binary" ] || { echo "error: $binary is not a file" >&2; exit 2; }
  dir="$(stage "$src" "cli-$platform")"
  mkdir -p "$dir/bin"
  case "$platform" in
    win32-*) cp "$binary" "$dir/bin/agent-surface.exe" ;;
    *) cp "$binary" "$dir/bin/agent-surface"; chmod 755 "$dir/bin/agent-surface" ;;
  esac
  pack "$dir"
done
