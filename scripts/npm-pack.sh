#!/usr/bin/env bash
# Packs every npm package into OUT_DIR, as `npm publish` would publish it:
#   @agent-surface/core, /react, /ai-sdk, /orpc   (TypeScript: built to dist/ with tsc)
#   @agent-surface/unplugin, /vite, /next         (plain JavaScript)
#   @agent-surface/cli                            (the launcher)
#   @agent-surface/cli-<platform>                 (one per --binary PLATFORM=PATH given)
# Never writes into the source tree: each package is packed from a temporary copy (its files, the
# licence files, dist/ built there, `npm pack --ignore-scripts`), so no dist/, licence copy or
# binary lands in packages/. What a build needs it installs: a package whose build runs tsc and
# has no node_modules (a fresh clone) gets `npm ci` (node_modules is git-ignored); the copy uses
# those node_modules. Platforms: linux-x64-gnu, linux-arm64-gnu, darwin-x64, darwin-arm64,
# win32-x64-msvc (docs/releasing.md: how each binary is built).
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

pack() { # pack DIR: npm pack of a staged copy into OUT (no lifecycle scripts), printing the tarball's name
  (cd "$1" && npm pack --ignore-scripts --pack-destination "$OUT" --loglevel=error | tail -n 1)
}

stage() { # stage SRC NAME: a copy of a package folder with the licence files
  rm -rf "$STAGE/$2"
  mkdir -p "$STAGE/$2"
  (cd "$1" && tar --exclude=./node_modules --exclude=./dist --exclude=./test --exclude=./platforms --exclude=./bench \
    --exclude=./LICENSE-MIT --exclude=./LICENSE-APACHE -cf - .) | (cd "$STAGE/$2" && tar -xf -)
  cp "$ROOT/LICENSE-MIT" "$ROOT/LICENSE-APACHE" "$STAGE/$2/"
  echo "$STAGE/$2"
}

deps() { # deps DIR: a fresh clone has no node_modules, and the build needs tsc
  [ -d "$1/node_modules" ] || (cd "$1" && npm ci --no-audit --no-fund --loglevel=error >&2)
}

built() { # built SRC NAME: a staged copy with dist/ built by its own build script (tsc)
  local dir entry sub
  deps "$1"
  dir="$(stage "$1" "$2")"
  # The copy's node_modules: links to the source's entries, except @agent-surface/core, which is
  # the staged (built) core, so nothing is built into the source tree.
  mkdir -p "$dir/node_modules"
  for entry in "$ROOT/$1/node_modules"/* "$ROOT/$1/node_modules"/.bin; do
    [ -e "$entry" ] || continue
    case "$(basename "$entry")" in
      @*)
        mkdir -p "$dir/node_modules/$(basename "$entry")"
        for sub in "$entry"/*; do ln -s "$sub" "$dir/node_modules/$(basename "$entry")/$(basename "$sub")"; done ;;
      *) ln -s "$entry" "$dir/node_modules/$(basename "$entry")" ;;
    esac
  done
  if [ -e "$dir/node_modules/@agent-surface/core" ] && [ -d "$STAGE/core/dist" ]; then
    rm "$dir/node_modules/@agent-surface/core"
    ln -s "$STAGE/core" "$dir/node_modules/@agent-surface/core"
  fi
  (cd "$dir" && npm run build --silent >&2)
  rm -rf "$dir/node_modules"
  echo "$dir"
}

# core first: react, ai-sdk and orpc build against its staged build.
pack "$(built packages/core core)"
pack "$(stage packages/unplugin unplugin)"
pack "$(stage packages/vite vite)"
pack "$(stage packages/next next)"
pack "$(built packages/react react)"
pack "$(built packages/ai-sdk ai-sdk)"
pack "$(built packages/orpc orpc)"
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
