// The suite's shared fixtures: the example app's `vite build` (examples/devices-app/dist, built
// by `npm run build-app`) served on loopback, and ONE headless Debian Chromium with WebMCP and
// its DevTools domain, reached over CDP by every agent of the suite (@playwright/mcp through
// `browser.cdpEndpoint`, puppeteer-core through `connect`, Lighthouse through `--port`).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
// The example's oRPC server (RPCHandler at /rpc): its registry forwards domain:devices.decommission
// there (examples/devices-app/src/registry.ts); @orpc/server from the app's own npm ci.
import { createDevicesRpc } from "../../../examples/devices-app/server/devices.js";

export const here = fileURLToPath(new URL("..", import.meta.url));
export const repo = path.resolve(here, "../..");
export const DIST = path.join(repo, "examples/devices-app/dist");
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Offline, headless, WebMCP on (document.modelContext) and its DevTools domain (page.webmcp). */
export const CHROMIUM_FLAGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--enable-features=WebMCP,DevToolsWebMCPSupport",
];

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".map": "application/json", ".svg": "image/svg+xml" };

/**
 * dist/ as a static site with the SPA fallback (every unknown path is index.html), and the app's
 * oRPC server at /rpc (a fresh one per call: `rpc.state` is what it did). `approvals`
 * is the host's approval policy, served in index.html's <meta name="agent-surface-approvals">
 * (the example's src/approvals.ts): the build's own ("allow") unless given.
 */
export async function serveApp({ approvals } = {}) {
  if (!existsSync(path.join(DIST, "index.html"))) throw new Error(`${DIST} is missing: run \`npm run build-app\` (vite build of examples/devices-app)`);
  const meta = /<meta name="agent-surface-approvals" content="[^"]*" \/>/;
  const rpc = createDevicesRpc();
  const server = createServer(async (req, res) => {
    if (await rpc.handle(req, res)) return;
    const rel = decodeURIComponent(new URL(req.url, "http://x").pathname).replace(/^\/+/, "");
    let file = path.resolve(DIST, rel || "index.html");
    if (!file.startsWith(DIST + path.sep)) file = path.join(DIST, "index.html");
    if (!existsSync(file) && path.extname(file)) {
      // A file that is not there (/llms.txt, /.well-known/…) is a 404, as on a static host.
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
      return;
    }
    if (!existsSync(file) || !path.extname(file)) file = path.join(DIST, "index.html");
    let body = readFileSync(file);
    if (approvals !== undefined && file.endsWith("index.html")) {
      const html = body.toString("utf8");
      if (!meta.test(html)) throw new Error("index.html has no <meta name=\"agent-surface-approvals\">");
      body = html.replace(meta, `<meta name="agent-surface-approvals" content="${approvals}" />`);
    }
    res.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, rpc, origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

/** Launches Chromium with a DevTools port on loopback; resolves with its endpoints. */
export async function launchChromium() {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium, or set CHROMIUM_PATH`);
  const userDataDir = mkdtempSync(path.join(tmpdir(), "browser-agents-chromium-"));
  const child = spawn(CHROMIUM, [...CHROMIUM_FLAGS, "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", `--user-data-dir=${userDataDir}`, "about:blank"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const wsEndpoint = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Chromium did not open its DevTools port in 30 s:\n${stderr}`)), 30_000);
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on("exit", (code) => reject(new Error(`Chromium exited (${code}) before opening its DevTools port:\n${stderr}`)));
  });
  const port = Number(new URL(wsEndpoint).port);
  return {
    wsEndpoint,
    port,
    httpEndpoint: `http://127.0.0.1:${port}`,
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(userDataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    },
  };
}
