// Shared by the end-to-end tests: the compiler binary, a copy of the example app, builds.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { rm } from "node:fs/promises";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";

export const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const repoDir = path.resolve(packageDir, "../..");
export const coreDir = path.join(repoDir, "packages/core");
/** The one devices app (examples/devices-app): the tests build scratch copies of it. */
export const exampleDir = path.join(repoDir, "examples/devices-app");

/** The compiler under test: $AGENT_SURFACE_BINARY (checked by test/global-setup.js). */
export function binary() {
  const bin = process.env.AGENT_SURFACE_BINARY;
  if (!bin || !existsSync(bin)) throw new Error("AGENT_SURFACE_BINARY must name a built agent-surface binary (see test/global-setup.js)");
  return bin;
}

const ENTRY_HTML = `<!doctype html>
<html lang="en">
  <head><meta charset="UTF-8" /><link rel="icon" href="data:," /><title>devices-app</title></head>
  <body>
    <pre id="manifest-hash"></pre>
    <pre id="provenance"></pre>
    <pre id="verified"></pre>
    <pre id="error"></pre>
    <div id="root"></div>
    <script type="module" src="/src/main.tsx"></script>
  </body>
</html>
`;

// Renders <App/> and writes what the verified authority says into the DOM.
const ENTRY_MAIN = `import { createRoot } from "react-dom/client";
import authority from "virtual:agent-surface/authority";
import { App } from "./App";
import { devicesTableContract } from "./components/DevicesTable";
import { labelDevice, rebootDevices, tagDevices } from "./domain/devices";
import { pingDevices, renameDevice } from "./domain/maintenance";
import { decommissionDevices } from "./domain/procedures";
import { exportReport } from "./external/reports";
import { appNavContract } from "./routes/AppNav";

const contracts = [devicesTableContract, appNavContract, rebootDevices, tagDevices, labelDevice, decommissionDevices, pingDevices, renameDevice, exportReport];
const provenance = contracts.map((c) => c.provenance ?? null);
const verified =
  Object.isFrozen(authority) &&
  Object.isFrozen(authority.manifest) &&
  Object.isFrozen(authority.manifest.contracts[0]) &&
  provenance.every((p) => p !== null && authority.contract(p.id)?.contractHash === p.contractHash);
document.getElementById("manifest-hash")!.textContent = authority.manifest.manifestHash;
document.getElementById("provenance")!.textContent = JSON.stringify(provenance);
document.getElementById("verified")!.textContent = String(verified);
createRoot(document.getElementById("root")!).render(<App />);
`;

function link(target, at) {
  mkdirSync(path.dirname(at), { recursive: true });
  symlinkSync(target, at, "dir");
}

/**
 * Copies examples/devices-app (its sources, without its manifest, build output and test
 * artifacts) into a fresh temp dir whose node_modules is the example's own install (`npm ci` in
 * examples/devices-app, after the packages it links are built: test/global-setup.js checks).
 * With `entry`, replaces index.html and src/main.tsx with the tests' page.
 * @returns {{ root: string, cleanup: () => Promise<void> }}
 */
export function copyApp({ entry = true } = {}) {
  const tmp = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-surface-vite-")));
  const root = path.join(tmp, "app");
  cpSync(exampleDir, root, {
    recursive: true,
    filter: (src) => !/[\\/](node_modules|dist|test-artifacts)$/.test(src) && !/agent-surface\.manifest(\.locations)?\.json$/.test(src),
  });
  link(path.join(exampleDir, "node_modules"), path.join(root, "node_modules"));
  if (entry) {
    writeFileSync(path.join(root, "index.html"), ENTRY_HTML);
    writeFileSync(path.join(root, "src/main.tsx"), ENTRY_MAIN);
  }
  return { root, cleanup: () => removeTempDir(tmp) };
}

/**
 * Removes a test's temp dir. Asynchronously and retried: a closed Vite dev server's dependency
 * optimizer may still be writing its deps_temp_* dir when the test ends (cancelling it does not
 * wait for the bundler). rmSync's retries sleep on the event loop and so starve the very writes
 * they wait for, which turned that race into a 40 s ENOTEMPTY; promises' rm lets them finish.
 * @returns {Promise<void>}
 */
export function removeTempDir(dir) {
  return rm(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 200 });
}

/** `agent-surface compile` of the app: its manifest (written to a temp file). */
export function compileManifest(root) {
  const out = path.join(root, "compiled.manifest.json");
  execFileSync(binary(), ["compile", root, "--out", out], { stdio: "pipe" });
  return JSON.parse(readFileSync(out, "utf8"));
}

/** The inline Vite config of the tests (no config file). */
export async function viteConfig(root, plugins, extra = {}) {
  const { default: react } = await import("@vitejs/plugin-react");
  return {
    root,
    configFile: false,
    logLevel: "silent",
    plugins: [react(), ...plugins],
    // Each copy its own optimizer cache (node_modules is the example's, shared by every copy).
    cacheDir: path.join(root, ".vite"),
    // The linked packages (file:) keep dev installs of React and the AI SDK: one copy of each,
    // as the example's vite.config.ts says.
    resolve: { alias: { "@": path.join(root, "src") }, dedupe: ["react", "react-dom", "ai", "@agent-surface/core"] },
    ...extra,
  };
}

/**
 * The dev server options of the browser tests. The app's dependencies are pre-bundled up front
 * with discovery off: on a loaded machine a dependency found late makes Vite reload the page after
 * it has loaded, which a test that keeps the page's state across edits would take for its own.
 */
export const DEV_SERVER = {
  server: { host: "127.0.0.1", port: 0, strictPort: false, hmr: { host: "127.0.0.1" } },
  optimizeDeps: {
    include: ["react", "react/jsx-dev-runtime", "react-dom/client", "zod", "zod/v3", "zod-to-json-schema", "arktype", "valibot", "@valibot/to-json-schema", "typebox", "ai", "ai/test"],
    noDiscovery: true,
  },
};

// Headless Chromium for the browser tests: Debian's /usr/bin/chromium (or $CHROMIUM_PATH).
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".map": "application/json" };

/** A tiny static server for dist/ on 127.0.0.1 (an ephemeral port). */
export function serveDir(dir) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    const rel = url.pathname === "/" ? "index.html" : decodeURIComponent(url.pathname).replace(/^\/+/, "");
    const file = path.resolve(dir, rel);
    if (!file.startsWith(dir + path.sep) || !existsSync(file)) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

