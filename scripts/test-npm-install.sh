#!/usr/bin/env bash
# The npm distribution end to end, as a new user meets it:
#  1. the release build goes into @agent-surface/cli-linux-x64-gnu, and every package is packed
#     (scripts/npm-pack.sh); `npm publish --dry-run` must be clean for each (the platform
#     packages without a binary here are checked to refuse packing, and their metadata with a
#     stand-in file);
#  2. a fresh Vite + React + TypeScript app in create-vite's exact layout (tsconfig.json
#     referencing tsconfig.app.json and tsconfig.node.json, the `@/*` alias in
#     tsconfig.app.json) installs @agent-surface/core, /cli, /vite, /react, /ai-sdk and /orpc by name
#     and version from a local registry serving the tarballs (scripts/local-registry.mjs; the
#     rest, `ai` among them, from the npm registry): no `file:` link, no AGENT_SURFACE_BINARY;
#     each locked with the packed tarball's integrity, not a link (`npm ls` shows the tree);
#  3. `npx agent-surface compile`, `npm run build` (tsc -b && vite build) of an app that uses
#     them: `AgentSurfaceProvider` in main.tsx, `useAgentComponent` in the component, the
#     registry's toolset through `aiSdkTools` typed as the AI SDK's `ToolSet`;
#  4. Turborepo 2.11 from npm runs the compile task (through `--cache-dir`) with docs/ci.md's
#     inputs and outputs: the second run is a cache hit that restores the manifest, an edit is a
#     miss;
#  5. a bad id fails check and build, and Neovim shows it (scripts/test-neovim.sh);
#  6. a fresh Next.js app in create-next-app's layout (App Router, TypeScript, next.config.ts)
#     installs core, react, ai-sdk, /next and the CLI by name from the local registry: compile,
#     `next build` (Turbopack) carrying the manifest and the provenance, a bad id failing it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
unset AGENT_SURFACE_BINARY
WORK="$(mktemp -d)"
REGISTRY_PID=""
cleanup() {
  [ -n "$REGISTRY_PID" ] && kill "$REGISTRY_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "error: $*" >&2; exit 1; }

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) PLATFORM=linux-x64-gnu ;;
  *) fail "this test packs the binary built here into a platform package; it runs on Linux x64 (glibc)" ;;
esac

echo "--> cargo build --release (the binary of @agent-surface/cli-$PLATFORM)"
cargo build --release --locked --bin agent-surface
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
case "$TARGET_DIR" in /*) ;; *) TARGET_DIR="$ROOT/$TARGET_DIR" ;; esac
TGZ="$WORK/tarballs"
bash scripts/npm-pack.sh "$TGZ" --binary "$PLATFORM=$TARGET_DIR/release/agent-surface" >/dev/null
ls "$TGZ"

echo "--> npm publish --dry-run, every package"
dry_run() { # dry_run WHAT ARG: `npm publish --dry-run ARG` with nothing to warn about but the login
  local out
  out="$(npm publish --dry-run "$2" 2>&1)" || { echo "$out" >&2; fail "npm publish --dry-run $1 failed"; }
  if echo "$out" | grep -i 'warn' | grep -v 'requires you to be logged in' >&2; then
    fail "npm publish --dry-run $1 warns (above)"
  fi
  echo "$out" | grep -q "^+ @agent-surface/" || { echo "$out" >&2; fail "npm publish --dry-run $1 published nothing"; }
  echo "  $1: clean"
}
for t in "$TGZ"/*.tgz; do dry_run "$(basename "$t")" "$t"; done
for p in linux-x64-gnu linux-arm64-gnu darwin-x64 darwin-arm64 win32-x64-msvc; do
  [ "$p" = "$PLATFORM" ] && continue
  src="packages/cli/platforms/$p"
  if out="$(cd "$src" && npm pack --dry-run 2>&1)"; then
    fail "$src packs without its binary"
  fi
  echo "$out" | grep -q "is missing: build it for" || { echo "$out" >&2; fail "$src: no reason given"; }
  exe=agent-surface; [ "${p#win32}" != "$p" ] && exe=agent-surface.exe
  cp -R "$src" "$WORK/stand-in-$p"
  cp LICENSE-MIT LICENSE-APACHE "$WORK/stand-in-$p/"
  mkdir -p "$WORK/stand-in-$p/bin" && echo "stand-in" >"$WORK/stand-in-$p/bin/$exe"
  dry_run "cli-$p (refuses to pack without the binary; metadata checked with a stand-in)" "$WORK/stand-in-$p"
done

echo "--> a local registry for @agent-surface/*"
node scripts/local-registry.mjs "$TGZ" >"$WORK/port" &
REGISTRY_PID=$!
for _ in $(seq 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
PORT="$(cat "$WORK/port")"
[ -n "$PORT" ] || fail "the local registry did not start"

echo "--> a fresh Vite + React + TypeScript app (create-vite's react-ts layout)"
APP="$WORK/vite-project"
mkdir -p "$APP/src/components" "$APP/src/agent" "$APP/public"
cd "$APP"
echo "@agent-surface:registry=http://127.0.0.1:$PORT/" >.npmrc
cat >package.json <<'JSON'
{
  "name": "vite-project",
  "private": true,
  "version": "0.0.0",
  "type": "module",
  "scripts": {
    "dev": "vite",
    "build": "tsc -b && vite build",
    "preview": "vite preview",
    "agent-surface": "agent-surface compile --cache-dir node_modules/.cache/agent-surface"
  },
  "dependencies": {
    "@agent-surface/ai-sdk": "^0.1.0",
    "@agent-surface/core": "^0.1.0",
    "@agent-surface/orpc": "^0.1.0",
    "@agent-surface/react": "^0.1.0",
    "ai": "7.0.173",
    "react": "19.3.1",
    "react-dom": "19.3.1",
    "zod": "4.6.7"
  },
  "devDependencies": {
    "@agent-surface/cli": "^0.1.0",
    "@agent-surface/vite": "^0.1.0",
    "@types/node": "22.20.7",
    "@types/react": "19.3.3",
    "@types/react-dom": "19.3.0",
    "@vitejs/plugin-react": "6.3.0",
    "turbo": "2.11.11",
    "typescript": "5.9.3",
    "vite": "8.3.8"
  }
}
JSON
# Turborepo requires the package manager to be named (docs/ci.md's turbo.json follows).
node -e 'const f="package.json",p=JSON.parse(require("fs").readFileSync(f,"utf8"));p.packageManager="npm@"+process.argv[1];require("fs").writeFileSync(f,JSON.stringify(p,null,2)+"\n")' "$(npm --version)"
cat >turbo.json <<'JSON'
{
  "$schema": "https://turborepo.com/schema.json",
  "tasks": {
    "agent-surface": {
      "inputs": ["src/**", "tsconfig*.json", "agent-surface.config.json", "package.json", "package-lock.json"],
      "outputs": ["agent-surface.manifest.json"]
    }
  }
}
JSON
cat >tsconfig.json <<'JSON'
{
  "files": [],
  "references": [
    { "path": "./tsconfig.app.json" },
    { "path": "./tsconfig.node.json" }
  ]
}
JSON
cat >tsconfig.app.json <<'JSON'
{
  "compilerOptions": {
    "tsBuildInfoFile": "./node_modules/.tmp/tsconfig.app.tsbuildinfo",
    "target": "ES2022",
    "useDefineForClassFields": true,
    "lib": ["ES2022", "DOM", "DOM.Iterable"],
    "module": "ESNext",
    "types": ["vite/client", "@agent-surface/vite/client"],
    "skipLibCheck": true,

    /* Bundler mode */
    "moduleResolution": "bundler",
    "allowImportingTsExtensions": true,
    "verbatimModuleSyntax": true,
    "moduleDetection": "force",
    "noEmit": true,
    "jsx": "react-jsx",

    /* Linting */
    "strict": true,
    "noUnusedLocals": true,
    "noUnusedParameters": true,
    "erasableSyntaxOnly": true,
    "noFallthroughCasesInSwitch": true,
    "noUncheckedSideEffectImports": true,

    "baseUrl": ".",
    "paths": {
      "@/*": ["./src/*"]
    }
  },
  "include": ["src"]
}
JSON
cat >tsconfig.node.json <<'JSON'
{
  "compilerOptions": {
    "tsBuildInfoFile": "./node_modules/.tmp/tsconfig.node.tsbuildinfo",
    "target": "ES2023",
    "lib": ["ES2023"],
    "module": "ESNext",
    "types": ["node"],
    "skipLibCheck": true,

    /* Bundler mode */
    "moduleResolution": "bundler",
    "allowImportingTsExtensions": true,
    "verbatimModuleSyntax": true,
    "moduleDetection": "force",
    "noEmit": true,

    /* Linting */
    "strict": true,
    "noUnusedLocals": true,
    "noUnusedParameters": true,
    "erasableSyntaxOnly": true,
    "noFallthroughCasesInSwitch": true,
    "noUncheckedSideEffectImports": true
  },
  "include": ["vite.config.ts"]
}
JSON
cat >vite.config.ts <<'TS'
import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'
import agentSurface from '@agent-surface/vite'

// https://vite.dev/config/
export default defineConfig({
  plugins: [react(), agentSurface()],
  resolve: { tsconfigPaths: true },
})
TS
cat >index.html <<'HTML'
<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <title>vite-project</title>
  </head>
  <body>
    <div id="root"></div>
    <script type="module" src="/src/main.tsx"></script>
  </body>
</html>
HTML
cat >src/main.tsx <<'TSX'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { AgentSurfaceProvider } from '@agent-surface/react'
import { registry } from '@/agent/registry'
import App from './App.tsx'

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <AgentSurfaceProvider registry={registry}>
      <App />
    </AgentSurfaceProvider>
  </StrictMode>,
)
TSX
cat >src/App.tsx <<'TSX'
import authority from 'virtual:agent-surface/authority'
import { assistantTools } from '@/agent/assistant'
import { registry } from '@/agent/registry'
import { DevicesPanel } from '@/components/DevicesPanel'

function App() {
  return (
    <>
      <p id="manifest-hash">{authority.manifest.manifestHash}</p>
      <p id="assistant-tools">{Object.keys(assistantTools(registry)).length}</p>
      <DevicesPanel />
    </>
  )
}

export default App
TSX
cat >src/agent/ids.ts <<'TS'
export const DEVICES_PANEL = 'devices.panel'
TS
cat >src/agent/registry.ts <<'TS'
import { createAgentSurfaceRegistry } from '@agent-surface/core'
import { createORPCProcedureExecutor } from '@agent-surface/orpc'
import authority from 'virtual:agent-surface/authority'

export const registry = createAgentSurfaceRegistry({ authority })
// Domain procedures go to the app's oRPC server (RPCHandler at /rpc).
registry.setProcedureExecutor(createORPCProcedureExecutor({ url: new URL('/rpc', location.origin) }))
TS
cat >src/agent/assistant.ts <<'TS'
import { createAgentToolset, type AgentSurfaceRegistry } from '@agent-surface/core'
import { aiSdkTools } from '@agent-surface/ai-sdk'
import type { ToolSet } from 'ai'

// The registry's toolset as the AI SDK's tools record, for generateText/streamText.
export function assistantTools(registry: AgentSurfaceRegistry): ToolSet {
  const toolset = createAgentToolset(registry, {
    consumer: { kind: 'embedded', id: 'assistant' },
    topology: 'embedded',
  })
  return aiSdkTools(toolset)
}
TS
cat >src/components/DevicesPanel.tsx <<'TSX'
import { defineAgentComponentContract } from '@agent-surface/core'
import { useAgentComponent } from '@agent-surface/react'
import { DEVICES_PANEL } from '@/agent/ids'

export const devicesPanelContract = defineAgentComponentContract({
  type: DEVICES_PANEL,
  description: 'The devices of the account, one row each.',
})

export function DevicesPanel() {
  const { status } = useAgentComponent(devicesPanelContract, {})
  return <section data-agent-id={devicesPanelContract.id} data-status={status}>Devices</section>
}
TSX

echo "--> npm install (@agent-surface/* from the local registry)"
npm install --no-audit --no-fund --loglevel=error
for p in core cli vite react ai-sdk orpc "cli-$PLATFORM"; do
  d="node_modules/@agent-surface/$p"
  [ -d "$d" ] && [ ! -L "$d" ] || fail "$d is not an installed package folder"
done
# Each is the packed tarball itself: its version, the lock's integrity is the tarball's sha512, no
# link, and resolved (when npm records it: omit-lockfile-registry-resolved) is the local registry.
node -e '
  const { createHash } = require("node:crypto");
  const { readFileSync } = require("node:fs");
  const [registry, tgz, version, ...names] = process.argv.slice(1);
  const lock = require("./package-lock.json").packages;
  for (const name of names) {
    const e = lock["node_modules/" + name] ?? {};
    const file = tgz + "/" + name.replace("@", "").replace("/", "-") + "-" + version + ".tgz";
    const integrity = "sha512-" + createHash("sha512").update(readFileSync(file)).digest("base64");
    if (e.link || e.version !== version || e.integrity !== integrity || (e.resolved && !e.resolved.startsWith(registry)))
      throw new Error(name + " is not " + file + " from " + registry + ": " + JSON.stringify(e));
  }' "http://127.0.0.1:$PORT/" "$TGZ" "$(node -p 'require("'"$ROOT"'/packages/core/package.json").version')" \
  @agent-surface/core @agent-surface/cli @agent-surface/unplugin @agent-surface/vite @agent-surface/react @agent-surface/ai-sdk \
  @agent-surface/orpc "@agent-surface/cli-$PLATFORM"
npm ls --all @agent-surface/core @agent-surface/react @agent-surface/ai-sdk @agent-surface/orpc ai >"$WORK/npm-ls" \
  || { cat "$WORK/npm-ls" >&2; fail "npm ls: the tree is invalid"; }
cat "$WORK/npm-ls"
grep -q -- '-> ' "$WORK/npm-ls" && fail "npm ls shows a link"
for p in core react ai-sdk orpc; do
  grep -q "@agent-surface/$p@0\.1\.0" "$WORK/npm-ls" || fail "npm ls does not show @agent-surface/$p@0.1.0"
done
for p in linux-x64-gnu linux-arm64-gnu darwin-x64 darwin-arm64 win32-x64-msvc; do
  [ "$p" = "$PLATFORM" ] && continue
  [ ! -e "node_modules/@agent-surface/cli-$p" ] || fail "npm installed cli-$p on $PLATFORM"
done
grep -q '"@agent-surface/cli-'"$PLATFORM"'"' package-lock.json || fail "the lock file has no platform package"
if grep -q '"file:' package.json package-lock.json; then fail "a file: dependency in the app"; fi

echo "--> npx agent-surface compile"
[ "$(npx agent-surface --version)" = "agent-surface $(cd "$ROOT" && cargo pkgid -p agent-surface | sed 's/.*[#@]//')" ] \
  || fail "npx agent-surface --version: $(npx agent-surface --version)"
npx agent-surface compile
grep -q '"view:devices.panel"' agent-surface.manifest.json || fail "the manifest lacks view:devices.panel"
HASH="$(node -e 'console.log(JSON.parse(require("fs").readFileSync("agent-surface.manifest.json","utf8")).manifestHash)')"

echo "--> npm run build (tsc -b && vite build)"
npm run build
grep -rqF "$HASH" dist/assets/ || fail "the built bundle does not carry the manifest ($HASH)"

echo "--> Turborepo (docs/ci.md): a second run is a cache hit that restores the manifest"
export TURBO_TELEMETRY_DISABLED=1 TURBO_NO_UPDATE_NOTIFIER=1 DO_NOT_TRACK=1
turbo_run() { # turbo_run EXPECTED_CACHED: `turbo run agent-surface` into $TURBO_OUT, which must report that many cached tasks
  TURBO_OUT="$(npx turbo run agent-surface 2>&1)" || { echo "$TURBO_OUT" >&2; fail "turbo run agent-surface failed"; }
  echo "$TURBO_OUT" | grep -q "Cached: *$1 cached, 1 total" || { echo "$TURBO_OUT" >&2; fail "turbo run agent-surface: expected $1 cached"; }
}
turbo_run 0
echo "$TURBO_OUT" | grep -q "0 of 3 contract files from the cache" \
  || { echo "$TURBO_OUT" >&2; fail "the first turbo run did not compile through --cache-dir"; }
cp agent-surface.manifest.json "$WORK/manifest.before-turbo"
rm agent-surface.manifest.json
turbo_run 1
echo "$TURBO_OUT" | grep -q "FULL TURBO" || { echo "$TURBO_OUT" >&2; fail "the second turbo run was not a full cache hit"; }
cmp agent-surface.manifest.json "$WORK/manifest.before-turbo" || fail "turbo restored a different manifest"
# An input changed: turbo runs the compiler again, which recompiles only that file.
sed -i "s/one row each/one row per device/" src/components/DevicesPanel.tsx
turbo_run 0
grep -q "one row per device" agent-surface.manifest.json || fail "the manifest after the edit lacks the new description"
sed -i "s/one row per device/one row each/" src/components/DevicesPanel.tsx
turbo_run 1
cmp agent-surface.manifest.json "$WORK/manifest.before-turbo" || fail "turbo restored a different manifest after the edit was undone"

echo "--> a bad id fails check and build, with its location"
sed -i "s/'devices.panel'/'Devices.Panel'/" src/agent/ids.ts
set +e
out="$(npx agent-surface check 2>&1)"; code=$?
set -e
[ "$code" = 1 ] || { echo "$out"; fail "check exited $code, expected 1"; }
echo "$out" | grep -q "AS0101" || { echo "$out"; fail "check did not report AS0101"; }
set +e
out="$(npx vite build 2>&1)"; code=$?
set -e
[ "$code" != 0 ] || fail "vite build passed with a bad id"
echo "$out" | grep -q "src/agent/ids.ts:1:.*AS0101" || { echo "$out"; fail "vite build did not report AS0101 at src/agent/ids.ts"; }

echo "--> Neovim shows the diagnostic (docs/editors.md's configuration)"
PATH="$APP/node_modules/.bin:$PATH" bash "$ROOT/scripts/test-neovim.sh" "$APP" src/agent/ids.ts AS0101

echo "--> a fresh Next.js app (create-next-app's App Router + TypeScript layout)"
NEXT_APP="$WORK/next-project"
mkdir -p "$NEXT_APP/app" "$NEXT_APP/public"
cd "$NEXT_APP"
echo "@agent-surface:registry=http://127.0.0.1:$PORT/" >.npmrc
cat >package.json <<'JSON'
{
  "name": "next-project",
  "version": "0.1.0",
  "private": true,
  "scripts": {
    "dev": "next dev",
    "build": "next build",
    "start": "next start"
  },
  "dependencies": {
    "@agent-surface/ai-sdk": "^0.1.0",
    "@agent-surface/core": "^0.1.0",
    "@agent-surface/react": "^0.1.0",
    "ai": "7.0.173",
    "next": "16.4.6",
    "react": "19.3.1",
    "react-dom": "19.3.1"
  },
  "devDependencies": {
    "@agent-surface/cli": "^0.1.0",
    "@agent-surface/next": "^0.1.0",
    "@types/node": "22.20.7",
    "@types/react": "19.3.3",
    "@types/react-dom": "19.3.0",
    "typescript": "5.9.3"
  }
}
JSON
cat >tsconfig.json <<'JSON'
{
  "compilerOptions": {
    "target": "ES2017",
    "lib": ["dom", "dom.iterable", "esnext"],
    "allowJs": true,
    "skipLibCheck": true,
    "strict": true,
    "noEmit": true,
    "esModuleInterop": true,
    "module": "esnext",
    "moduleResolution": "bundler",
    "resolveJsonModule": true,
    "isolatedModules": true,
    "jsx": "react-jsx",
    "incremental": true,
    "plugins": [{ "name": "next" }],
    "paths": { "@/*": ["./*"] }
  },
  "include": ["next-env.d.ts", "**/*.ts", "**/*.tsx", ".next/types/**/*.ts", ".next/dev/types/**/*.ts"],
  "exclude": ["node_modules"]
}
JSON
cat >next.config.ts <<'TS'
import type { NextConfig } from "next";
import { withAgentSurface } from "@agent-surface/next";

const nextConfig: NextConfig = {
  /* config options here */
};

export default withAgentSurface(nextConfig);
TS
printf '%s\n' '{ "include": ["app/**/*.ts", "app/**/*.tsx"] }' >agent-surface.config.json
cat >app/layout.tsx <<'TSX'
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Create Next App" };

export default function RootLayout({ children }: Readonly<{ children: React.ReactNode }>) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
TSX
cat >app/page.tsx <<'TSX'
import { DevicesPanel } from "./devices-panel";

export default function Home() {
  return <DevicesPanel />;
}
TSX
cat >app/ids.ts <<'TS'
export const DEVICES_PANEL = "devices.panel";
TS
cat >app/devices-panel.tsx <<'TSX'
"use client";
import { createAgentSurfaceRegistry, createAgentToolset, defineAgentComponentContract } from "@agent-surface/core";
import { aiSdkTools } from "@agent-surface/ai-sdk";
import { AgentSurfaceProvider, useAgentComponent } from "@agent-surface/react";
import authority from "@agent-surface/next/authority";
import type { ToolSet } from "ai";
import { DEVICES_PANEL } from "./ids";

export const devicesPanelContract = defineAgentComponentContract({
  type: DEVICES_PANEL,
  description: "The devices of the account, one row each.",
});

const registry = createAgentSurfaceRegistry({ authority });
const tools: ToolSet = aiSdkTools(createAgentToolset(registry, { consumer: { kind: "embedded", id: "assistant" }, topology: "embedded" }));

function Panel() {
  const { status } = useAgentComponent(devicesPanelContract, {});
  return <section data-agent-id={devicesPanelContract.id} data-status={status} data-tools={Object.keys(tools).length}>{authority.manifest.manifestHash}</section>;
}

export function DevicesPanel() {
  return (
    <AgentSurfaceProvider registry={registry}>
      <Panel />
    </AgentSurfaceProvider>
  );
}
TSX

echo "--> npm install (@agent-surface/* from the local registry)"
npm install --no-audit --no-fund --loglevel=error
node -e '
  const { createHash } = require("node:crypto");
  const { readFileSync } = require("node:fs");
  const [registry, tgz, version, ...names] = process.argv.slice(1);
  const lock = require("./package-lock.json").packages;
  for (const name of names) {
    const e = lock["node_modules/" + name] ?? {};
    const file = tgz + "/" + name.replace("@", "").replace("/", "-") + "-" + version + ".tgz";
    const integrity = "sha512-" + createHash("sha512").update(readFileSync(file)).digest("base64");
    if (e.link || e.version !== version || e.integrity !== integrity || (e.resolved && !e.resolved.startsWith(registry)))
      throw new Error(name + " is not " + file + " from " + registry + ": " + JSON.stringify(e));
  }' "http://127.0.0.1:$PORT/" "$TGZ" "$(node -p 'require("'"$ROOT"'/packages/core/package.json").version')" \
  @agent-surface/core @agent-surface/cli @agent-surface/unplugin @agent-surface/next @agent-surface/react @agent-surface/ai-sdk \
  "@agent-surface/cli-$PLATFORM"
if grep -q '"file:' package.json package-lock.json; then fail "a file: dependency in the Next.js app"; fi

echo "--> npx agent-surface compile; next build (Turbopack, the default)"
npx agent-surface compile
grep -q '"view:devices.panel"' agent-surface.manifest.json || fail "the Next.js app's manifest lacks view:devices.panel"
NEXT_HASH="$(node -e 'console.log(JSON.parse(require("fs").readFileSync("agent-surface.manifest.json","utf8")).manifestHash)')"
NEXT_TELEMETRY_DISABLED=1 npx next build
grep -rqF "$NEXT_HASH" .next/static/ || fail "the Next.js client bundle does not carry the manifest ($NEXT_HASH)"
grep -rqE '"?contractHash"?:"blake3:[0-9a-f]{64}","?id"?:"view:devices.panel"' .next/static/ \
  || fail "the Next.js client bundle lacks the panel's provenance"

echo "--> a bad id fails next build, with its location"
sed -i 's/"devices.panel"/"Devices.Panel"/' app/ids.ts
set +e
out="$(NEXT_TELEMETRY_DISABLED=1 npx next build 2>&1)"; code=$?
set -e
[ "$code" != 0 ] || fail "next build passed with a bad id"
echo "$out" | grep -q "app/ids.ts:1:.*AS0101" || { echo "$out"; fail "next build did not report AS0101 at app/ids.ts"; }
sed -i 's/"Devices.Panel"/"devices.panel"/' app/ids.ts

echo "npm distribution: ok"
