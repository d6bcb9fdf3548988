// End to end: the official MCP TypeScript SDK client talks to `agent-surface bridge` over stdio
// (it starts the bridge) or over Streamable HTTP (`bridge --http`, the bearer token, the SDK's
// StreamableHTTPClientTransport); test/stdio.test.mjs and test/http.test.mjs run this suite once each;
// the example app (examples/devices-app's contracts, built with Vite and the agent-surface
// plugin exactly as packages/vite/test/runtime-browser.test.js builds it) runs in headless
// Chromium and connects with connectAgentBridge. The client lists the page's tools, reads the
// table, filters, gets CONFIRMATION_REQUIRED for decommission; the test approves in the page
// (registry.confirmations.resolve, as the page's dialog would) and the retry runs once. Then
// cancellation, two tabs, a reload (stale → list_changed), and the page killed mid-call.
// Last, the per-call overhead: client → bridge → page → result against a direct in-page call.
//
//   AGENT_SURFACE_BINARY=.../target/debug/agent-surface npm test
//
// Vite, the plugin, React and playwright-core come from packages/vite (npm ci there first).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { createServer, request as httpRequest } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoDir = path.resolve(here, "../../../..");
const viteDir = path.join(repoDir, "packages/vite");
const BIN = process.env.AGENT_SURFACE_BINARY;
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!BIN || !existsSync(BIN)) throw new Error("set AGENT_SURFACE_BINARY to the built agent-surface binary");
if (!existsSync(path.join(viteDir, "node_modules/vite"))) throw new Error("run npm ci in packages/vite first (Vite, React and playwright-core come from there)");
const fromVite = createRequire(path.join(viteDir, "package.json"));
const load = async (name) => import(pathToFileURL(fromVite.resolve(name)).href);
const { build } = await load("vite");
const playwright = await load("playwright-core");
const chromium = playwright.chromium ?? playwright.default.chromium;
const { copyApp, viteConfig } = await import(pathToFileURL(path.join(viteDir, "test/helpers.js")).href);
const { default: agentSurface } = await import(pathToFileURL(path.join(viteDir, "src/index.js")).href);

const HTML = `<!doctype html>
<html lang="en">
  <head><meta charset="UTF-8" /><link rel="icon" href="data:," /><title>devices</title></head>
  <body><pre id="ready"></pre><script type="module" src="/src/bridge-main.ts"></script></body>
</html>
`;

// The app's own code: one registry, the table and the navigation bound to live state, the
// domain procedures referenced by the table, and the bridge connection. The URL and token
// (and any other connectAgentBridge option) come from the host page's configuration (here an
// init script), never from the page's URL. With `extra` (a module exporting
// `procedures(registry)`, bound procedures, copied to src/domain/extra.ts) the navigation binding
// serves those too.
const main = (extra) => `import authority from "virtual:agent-surface/authority";
import * as core from "@agent-surface/core";
import { connectAgentBridge } from "@agent-surface/core/bridge";
import { devicesTableContract } from "./components/DevicesTable";
import { rebootDevices } from "./domain/devices";
import { decommissionDevices } from "./domain/procedures";
import { appNavContract } from "./routes/AppNav";
${extra ? 'import { procedures as extraProcedures } from "./domain/extra";' : ""}

type Row = { id: string; name: string; status: "online" | "offline" | "maintenance"; lastSeen: string | null };
const state = {
  rows: [
    { id: "dev_aaaaaa", name: "router", status: "online", lastSeen: null },
    { id: "dev_bbbbbb", name: "printer", status: "offline", lastSeen: "2026-11-30T10:00:00Z" },
    { id: "dev_cccccc", name: "camera", status: "online", lastSeen: null },
  ] as Row[],
  selection: [] as string[],
  sort: "name" as "name" | "status" | "lastSeen",
  filter: "",
  path: "/devices",
  decommissioned: [] as string[],
  rebootStarted: 0,
  rebooted: [] as string[],
  rebootDelayMs: 0,
  rebootAborted: 0,
};
const visible = () => state.rows.filter((r) => r.name.includes(state.filter));

const registry = core.createAgentSurfaceRegistry({ authority, environment: "development" });
const table = registry.register(
  devicesTableContract.bind({
    observations: {
      readState: { read: () => ({ rows: visible(), sort: state.sort, filter: state.filter }) },
      readSelection: { read: () => ({ ids: state.selection }) },
    },
    actions: {
      selectRows: { execute: ({ ids }) => { state.selection = ids; } },
      clearSelection: { execute: () => { state.selection = []; } },
      sortBy: { execute: ({ column }) => { state.sort = column; } },
      filter: { execute: ({ text }) => { state.filter = text ?? ""; } },
    },
    procedures: [
      decommissionDevices.bind({
        execute: async ({ ids }, ctx) => {
          if (ctx.confirmation === undefined) throw new Error("ran without confirmation evidence");
          state.decommissioned.push(...ids);
          state.rows = state.rows.filter((r) => !ids.includes(r.id));
        },
      }),
      rebootDevices.bind({
        execute: ({ ids }, ctx) =>
          new Promise((resolve, reject) => {
            state.rebootStarted += 1;
            const done = () => { state.rebooted.push(...ids); resolve({ scheduled: ids.length }); };
            if (state.rebootDelayMs === 0) return done();
            const t = setTimeout(done, state.rebootDelayMs);
            ctx.signal.addEventListener("abort", () => { clearTimeout(t); state.rebootAborted += 1; reject(new Error("aborted")); });
          }),
        timeoutMs: 60000,
      }),
    ],
  }),
);
registry.register(
  appNavContract.bind({
    observations: { currentRoute: { read: () => ({ path: state.path }) } },
    actions: { navigate: { execute: ({ to }) => { state.path = to; } } },
    ${extra ? "procedures: extraProcedures(registry)," : ""}
  }),
);
const config = (window as any).__bridgeConfig;
const bridge = config ? connectAgentBridge(registry, config) : undefined;
(window as any).__agent = { core, registry, state, bridge, table };
document.getElementById("ready")!.textContent = "ready";
`;

function serveDir(dir) {
  const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".map": "application/json" };
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    const rel = url.pathname === "/" ? "index.html" : decodeURIComponent(url.pathname).replace(/^\/+/, "");
    const file = path.resolve(dir, rel);
    if (!file.startsWith(dir + path.sep) || !existsSync(file)) return res.writeHead(404).end("not found");
    res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/**
 * The example app built and served on loopback: { root, http, origin, cleanup }. The page connects
 * with `window.__bridgeConfig` ({ url, token }) when an init script sets it; `window.__agent`
 * exposes the registry and the app's state to the tests. (The conformance harness reuses it.)
 */
export async function buildApp({ extra } = {}) {
  const app = copyApp({ entry: false });
  writeFileSync(path.join(app.root, "index.html"), HTML);
  writeFileSync(path.join(app.root, "src/bridge-main.ts"), main(extra));
  if (extra) copyFileSync(extra, path.join(app.root, "src/domain/extra.ts"));
  await build(await viteConfig(app.root, [agentSurface()]));
  const http = await serveDir(path.join(app.root, "dist"));
  return { root: app.root, http, origin: `http://127.0.0.1:${http.address().port}`, cleanup: app.cleanup };
}

export { BIN, CHROMIUM, chromium };

/**
 * Resolves with { url, token } once the bridge printed its line (and, with `http`, its
 * `bridge: mcp http://…/mcp` line as mcpUrl); collects every stderr line.
 */
export function bridgeLine(stderr, lines, http) {
  return new Promise((resolve, reject) => {
    let text = "";
    let found;
    const timer = setTimeout(() => reject(new Error(`no bridge line on stderr: ${lines.join("\n")}${text}`)), 20_000);
    stderr.setEncoding("utf8");
    stderr.on("data", (chunk) => {
      text += chunk;
      const all = text.split("\n");
      text = all.pop();
      for (const line of all) {
        lines.push(line);
        const m = line.match(/^bridge: (ws:\/\/127\.0\.0\.1:\d+) token=([0-9a-f]{32})$/);
        if (m) found = { url: m[1], token: m[2] };
        const h = line.match(/^bridge: mcp (http:\/\/127\.0\.0\.1:\d+\/mcp)$/);
        if (h && found) found.mcpUrl = h[1];
        if (found && (!http || found.mcpUrl)) {
          clearTimeout(timer);
          resolve(found);
        }
      }
    });
  });
}

async function waitFor(predicate, what, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Our payload of a failed call. */
function payload(result) {
  assert.equal(result.isError, true, JSON.stringify(result));
  const text = JSON.parse(result.content[0].text);
  assert.deepEqual(result._meta?.["agent-surface/result"], text);
  return text;
}

function output(result) {
  assert.notEqual(result.isError, true, JSON.stringify(result));
  return JSON.parse(result.content[0].text);
}

export function bridgeSuite(kind) {
let app, http, browser, page, userDataDir, client, transport, bridge, origin, child;
const stderrLines = [];
const listChanged = [];
const problems = [];
const call = (name, args = {}, options) => client.callTool({ name, arguments: args }, undefined, options);
const inPage = (fn, arg) => page.evaluate(fn, arg);

async function openPage(to = bridge) {
  const p = await browser.newPage();
  p.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  await p.addInitScript((cfg) => {
    window.__bridgeConfig = cfg;
    // A tap on the page's socket: every frame in and out, for the assertions below.
    const Native = window.WebSocket;
    window.__frames = [];
    window.WebSocket = class extends Native {
      constructor(url, protocols) {
        super(url, protocols);
        this.addEventListener("message", (e) => window.__frames.push(["in", JSON.parse(e.data)]));
      }
      send(data) {
        window.__frames.push(["out", JSON.parse(data)]);
        super.send(data);
      }
    };
  }, { url: to.url, token: to.token });
  await p.goto(origin + "/");
  await p.waitForFunction(() => window.__agent?.bridge?.status === "connected", null, { timeout: 15_000 });
  return p;
}

before(async () => {
  app = await buildApp();
  http = app.http;
  origin = app.origin;

  client = new Client({ name: "bridge-e2e", version: "0.0.0" });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    listChanged.push(Date.now());
  });
  if (kind === "stdio") {
    transport = new StdioClientTransport({ command: BIN, args: ["bridge", "--port", "0"], stderr: "pipe" });
    const line = bridgeLine(transport.stderr, stderrLines, false);
    await client.connect(transport);
    bridge = await line;
  } else {
    child = spawn(BIN, ["bridge", "--http", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (d) => problems.push(`stdout: ${d}`));
    bridge = await bridgeLine(child.stderr, stderrLines, true);
    transport = new StreamableHTTPClientTransport(new URL(bridge.mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${bridge.token}` } },
    });
    await client.connect(transport);
  }

  userDataDir = mkdtempSync(path.join(tmpdir(), "agent-surface-bridge-chromium-"));
  browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"],
  });
  page = await openPage();
});

after(async () => {
  await client?.close();
  child?.kill("SIGTERM");
  await browser?.close();
  await new Promise((r) => (http ? http.close(r) : r()));
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  app?.cleanup();
});

test("the bridge printed one line with a loopback URL and a 128-bit token; the page connected", async () => {
  assert.match(bridge.url, /^ws:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(bridge.token.length, 32);
  assert.equal(client.getServerCapabilities().tools?.listChanged, true);
  assert.equal(client.getServerVersion().name, "agent-surface-bridge");
  await waitFor(() => stderrLines.some((l) => /^bridge: page p1 connected \(http:\/\/127\.0\.0\.1:\d+, "devices"\)$/.test(l)), "the connected line");
  assert.ok(!stderrLines.some((l) => l.includes("refused")), stderrLines.join("\n"));
});

/** One raw POST to the bridge's /mcp (node:http, so the Host header can be anything). */
function rawPost(url, headers) {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode, text, auth: res.headers["www-authenticate"] }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

if (kind === "http") {
  test("HTTP: no token, a wrong one, another scheme, a foreign Origin, a rebinding Host: refused, one stderr line each, never the token", async () => {
    const port = new URL(bridge.mcpUrl).port;
    const bearer = { authorization: `Bearer ${bridge.token}` };
    const wrong = bridge.token.replace(/^./, (c) => (c === "0" ? "1" : "0"));
    const cases = [
      [{}, 401, /no Authorization header/],
      [{ authorization: `Bearer ${wrong}` }, 401, /wrong bearer token/],
      [{ authorization: `Basic ${bridge.token}` }, 401, /not a Bearer token/],
      [{ ...bearer, origin: "http://evil.example" }, 403, /origin "http:\/\/evil\.example" is not allowed/],
      [{ ...bearer, host: `rebind.evil.example:${port}` }, 403, /Host "rebind\.evil\.example:\d+" is not this bridge's loopback address/],
    ];
    for (const [headers, status, reason] of cases) {
      const before = stderrLines.length;
      const r = await rawPost(bridge.mcpUrl, headers);
      assert.equal(r.status, status, `${JSON.stringify(headers)}: ${r.text}`);
      assert.match(r.text, reason);
      if (status === 401) assert.match(r.auth, /^Bearer /);
      const line = await waitFor(() => stderrLines.slice(before).find((l) => l.startsWith("bridge: refused")), "the refusal line");
      assert.match(line, /^bridge: refused 127\.0\.0\.1:\d+ \(POST \/mcp\): /);
      assert.match(line, reason);
      assert.ok(!r.text.includes(bridge.token), r.text);
    }
    assert.ok(!stderrLines.filter((l) => l.startsWith("bridge: refused")).some((l) => l.includes(bridge.token)));
    // A page's origin with the token is an MCP client like any other (browsers send Origin).
    const ok = await rawPost(bridge.mcpUrl, { ...bearer, origin, "mcp-protocol-version": "2025-11-25" });
    assert.notEqual(ok.status, 401);
    assert.notEqual(ok.status, 403);
    // The SDK client with a wrong token: it fails to connect, it never reaches the tools.
    const intruder = new Client({ name: "intruder", version: "0.0.0" });
    await assert.rejects(intruder.connect(new StreamableHTTPClientTransport(new URL(bridge.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${wrong}` } } })));
  });
}

/** The JSON-RPC _meta of a 2026-07-28 request. */
const META_2026 = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };

/** A fresh `agent-surface bridge` on stdio, spoken to line by line: { ask(message), close() }. */
function rawStdioBridge() {
  const p = spawn(BIN, ["bridge", "--port", "0"], { stdio: ["pipe", "pipe", "pipe"] });
  p.stdout.setEncoding("utf8");
  let buffered = "";
  const waiting = [];
  const notifications = [];
  p.stdout.on("data", (chunk) => {
    buffered += chunk;
    const lines = buffered.split("\n");
    buffered = lines.pop();
    for (const line of lines) {
      const message = JSON.parse(line);
      if ("id" in message) waiting.shift()?.(message);
      else notifications.push(message); // notifications are not answers
    }
  });
  return {
    line: bridgeLine(p.stderr, [], false),
    notifications,
    ask: (message) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to ${JSON.stringify(message)}`)), 30_000);
        waiting.push((v) => (clearTimeout(timer), resolve(v)));
        p.stdin.write(JSON.stringify(message) + "\n");
      }),
    // Ends the bridge (stdin closed; killed if it has not exited after 5 s), so that no child
    // keeps the test process alive whatever failed before.
    close: () =>
      new Promise((resolve) => {
        if (p.exitCode !== null || p.signalCode !== null) return resolve();
        p.on("close", resolve);
        p.stdin.end();
        setTimeout(() => p.kill("SIGKILL"), 5_000).unref();
      }),
  };
}

test("ping: -32601 under 2026-07-28, even as the very first request; answered {} under 2025-11-25", async () => {
  if (kind === "stdio") {
    // Before any other request (no initialize, no server/discover): the request's _meta decides.
    const first = rawStdioBridge();
    try {
      assert.deepEqual(await first.ask({ jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: META_2026 } }), {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32601, message: "ping" },
      });
      // The 2026-07-28 client goes on, stateless; ping stays -32601.
      const listed = await first.ask({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: META_2026 } });
      assert.equal(listed.result.resultType, "complete", JSON.stringify(listed));
      assert.equal((await first.ask({ jsonrpc: "2.0", id: 3, method: "ping", params: { _meta: META_2026 } })).error.code, -32601);
    } finally {
      await first.close();
    }
    // A legacy client may ping before initialize: answered {}.
    const legacy = rawStdioBridge();
    try {
      assert.deepEqual(await legacy.ask({ jsonrpc: "2.0", id: 1, method: "ping" }), { jsonrpc: "2.0", id: 1, result: {} });
    } finally {
      await legacy.close();
    }
  } else {
    const post = (message, version) =>
      fetch(bridge.mcpUrl, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${bridge.token}`, "mcp-protocol-version": version, "mcp-method": message.method },
        body: JSON.stringify(message),
      });
    const r = await post({ jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: META_2026 } }, "2026-07-28");
    const text = await r.text();
    const answer = JSON.parse(text.startsWith("{") ? text : text.split("\n").find((l) => l.startsWith("data: {")).slice(6));
    assert.equal(answer.error?.code, -32601, text);
  }
  // The SDK client's own session (2025-11-25) keeps its ping, on both transports.
  assert.deepEqual(await client.ping(), {});
});

test("tools/list: the page's toolset with explicit MCP annotations and outputSchema, plus surface_list / surface_select", async () => {
  const tools = await waitFor(async () => {
    const { tools } = await client.listTools();
    return tools.some((t) => t.name === "view_devices_table_readState") && tools;
  }, "the page's tools");
  assert.deepEqual(
    tools.map((t) => t.name),
    [
      "domain_devices_decommission",
      "domain_devices_reboot",
      "surface_list",
      "surface_select",
      "view_app_nav_currentRoute",
      "view_app_nav_navigate",
      "view_devices_table_clearSelection",
      "view_devices_table_filter",
      "view_devices_table_readSelection",
      "view_devices_table_readState",
      "view_devices_table_selectRows",
      "view_devices_table_sortBy",
    ],
  );
  for (const t of tools) {
    assert.match(t.name, /^[A-Za-z0-9_-]{1,64}$/);
    for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
      assert.equal(typeof t.annotations?.[hint], "boolean", `${t.name}.${hint} is explicit`);
    }
  }
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.deepEqual(byName.domain_devices_decommission.annotations, { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
  assert.equal(byName.view_devices_table_readState.outputSchema.type, "object");
  assert.equal(byName.domain_devices_decommission.outputSchema, undefined);
  assert.match(byName.domain_devices_decommission.description, /^\[domain · destructive · required\] /);
});

test("reads the table, filters, reads again: the page's own state changed", async () => {
  const r = await call("view_devices_table_readState");
  const state = output(r);
  assert.deepEqual(r.structuredContent, state, "validated by the SDK against outputSchema");
  assert.deepEqual(state.rows.map((row) => row.id), ["dev_aaaaaa", "dev_bbbbbb", "dev_cccccc"]);
  const meta = r._meta["agent-surface/invocation"];
  assert.match(meta.invocationId, /^mcp_[0-9a-f]{16}_c\d+_n\d+$/, "derived from the bridge, the MCP connection and the JSON-RPC id");
  assert.equal(meta.page, "p1");
  // An action with no output: empty content, not the text "null".
  const filtered = await call("view_devices_table_filter", { text: "ter" });
  assert.notEqual(filtered.isError, true, JSON.stringify(filtered));
  assert.deepEqual(filtered.content, []);
  assert.equal(filtered.structuredContent, undefined);
  assert.deepEqual(output(await call("view_devices_table_readState")).rows.map((row) => row.name), ["router", "printer"]);
  assert.equal(await inPage(() => window.__agent.state.filter), "ter");
  const bad = payload(await call("view_devices_table_sortBy", { column: "color" }));
  assert.equal(bad.error.code, "INVALID_INPUT");
  // A tool the client was not listed: a JSON-RPC error (invalid params) naming it, as MCP requires.
  await assert.rejects(call("view_devices_table_nope"), (e) => e.code === -32602 && /Unknown tool: view_devices_table_nope/.test(e.message));
});

test("decommission: CONFIRMATION_REQUIRED; approved in the page; the retry runs once; the client cannot approve", async () => {
  const args = { ids: ["dev_bbbbbb"] };
  const first = payload(await call("domain_devices_decommission", args));
  assert.equal(first.error.code, "CONFIRMATION_REQUIRED");
  assert.equal(first.error.retry, "after-confirmation");
  const cid = first.error.details.confirmationId;
  const pending = await inPage(() => window.__agent.registry.confirmations.pending());
  assert.deepEqual(pending.map((p) => [p.confirmationId, p.capabilityId, p.consumerKey]), [[cid, "domain:devices.decommission", "mcp-bridge:mcp-bridge"]]);
  // Repeating before the user answered: the same confirmation, nothing ran.
  const early = payload(await call("domain_devices_decommission", args));
  assert.equal(early.error.code, "CONFIRMATION_REQUIRED");
  assert.equal(early.error.details.confirmationId, cid);
  assert.deepEqual(await inPage(() => window.__agent.state.decommissioned), []);
  // No tool approves: the bridge's own tools are surface_list and surface_select.
  const { tools } = await client.listTools();
  assert.ok(!tools.some((t) => /approve|confirm|resolve|pending/i.test(t.name)));
  // The user approves in the page.
  await inPage((id) => window.__agent.registry.confirmations.resolve(id, { approved: true }), cid);
  const done = await call("domain_devices_decommission", args);
  assert.equal(done.isError, false, JSON.stringify(done));
  assert.deepEqual(await inPage(() => window.__agent.state.decommissioned), ["dev_bbbbbb"]);
  // The evidence was single use: the next identical call asks again.
  const again = payload(await call("domain_devices_decommission", args));
  assert.equal(again.error.code, "CONFIRMATION_REQUIRED");
  assert.notEqual(again.error.details.confirmationId, cid);
  assert.deepEqual(await inPage(() => window.__agent.state.decommissioned), ["dev_bbbbbb"]);
});

/** The confirmation a progress message names, from the page's pending list. */
async function namedIn(message, where = page) {
  const pending = await where.evaluate(() => window.__agent.registry.confirmations.pending());
  const named = pending.find((c) => message.includes(c.confirmationId));
  assert.ok(named, `the progress message names a pending confirmation: ${message}`);
  assert.match(message, /^waiting for the user's confirmation in page p\d+: /);
  assert.ok(typeof named.summary === "string" && message.includes(named.summary), `${message} / ${named.summary}`);
  assert.ok(message.includes(named.expiresAt), message);
  return named;
}

test("2025-11-25: a call with a progressToken waits; progress names the pending confirmation and the page; approval completes it once, a denial answers CONFIRMATION_DENIED", async () => {
  const args = { ids: ["dev_bbbbbb"] };
  const ran = () => inPage(() => window.__agent.state.decommissioned.length);
  const before = await ran();
  const heard = [];
  const waiting = call("domain_devices_decommission", args, { onprogress: (p) => heard.push(p), timeout: 60_000 });
  await waitFor(() => heard.length > 0, "the progress notification");
  const named = await namedIn(heard[0].message);
  // A retry meanwhile (another request, no progressToken) is told the same confirmation is pending.
  const retry = payload(await call("domain_devices_decommission", args));
  assert.equal(retry.error.code, "CONFIRMATION_REQUIRED");
  assert.equal(retry.error.details.confirmationId, named.confirmationId);
  assert.equal(await ran(), before, "nothing ran before the user decided");
  await inPage((id) => window.__agent.registry.confirmations.resolve(id, { approved: true }), named.confirmationId);
  const done = await waiting;
  assert.equal(done.isError, false, JSON.stringify(done));
  assert.equal(await ran(), before + 1, "the call ran once");
  assert.equal(heard.length, 1);
  // Denied in the page: the same call ends with CONFIRMATION_DENIED, nothing ran.
  const denied = [];
  const refused = call("domain_devices_decommission", args, { onprogress: (p) => denied.push(p), timeout: 60_000 });
  await waitFor(() => denied.length > 0, "the second progress notification");
  const second = await namedIn(denied[0].message);
  assert.notEqual(second.confirmationId, named.confirmationId);
  await inPage((id) => window.__agent.registry.confirmations.resolve(id, { approved: false }), second.confirmationId);
  assert.equal(payload(await refused).error.code, "CONFIRMATION_DENIED");
  assert.equal(await ran(), before + 1);
  // Without a progressToken the two-phase answer stays.
  const twoPhase = payload(await call("domain_devices_decommission", args));
  assert.equal(twoPhase.error.code, "CONFIRMATION_REQUIRED");
  await inPage((id) => window.__agent.registry.confirmations.resolve(id, { approved: false }), twoPhase.error.details.confirmationId);
});

test("2026-07-28: a stateless tools/call with a progressToken waits the same way", async () => {
  const meta = { ...META_2026, "io.modelcontextprotocol/clientInfo": { name: "waiter-2026", version: "0" }, progressToken: "wait-26" };
  // Other arguments than the test above, whose denied confirmation the page's two-phase memory
  // would attach to the same call (answering CONFIRMATION_DENIED at once).
  const message = { jsonrpc: "2.0", id: 77, method: "tools/call", params: { name: "domain_devices_decommission", arguments: { ids: ["dev_cccccc"] }, _meta: meta } };
  let target = page;
  let raw;
  let tab;
  const frames = [];
  let answer;
  try {
    if (kind === "stdio") {
      // A fresh stdio bridge spoken to in 2026-07-28 (the SDK client speaks 2025-11-25), with its own tab.
      raw = rawStdioBridge();
      tab = target = await openPage(await raw.line);
      answer = raw.ask(message);
    } else {
      const r = await fetch(bridge.mcpUrl, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${bridge.token}`, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "domain_devices_decommission" },
        body: JSON.stringify(message),
      });
      assert.equal(r.status, 200);
      answer = (async () => {
        const decoder = new TextDecoder();
        let text = "";
        for await (const chunk of r.body) {
          text += decoder.decode(chunk, { stream: true });
          const events = text.split("\n\n");
          text = events.pop();
          for (const e of events) {
            const data = e.split("\n").find((l) => l.startsWith("data: {"));
            if (!data) continue;
            const m = JSON.parse(data.slice(6));
            if ("id" in m) return m;
            frames.push(m);
          }
        }
        throw new Error(`the stream ended without an answer: ${JSON.stringify(frames)}`);
      })();
    }
    const notes = () => (raw ? raw.notifications : frames).filter((m) => m.method === "notifications/progress");
    await waitFor(() => notes().length > 0, "the progress notification");
    const [note] = notes();
    assert.equal(note.params.progressToken, "wait-26");
    const named = await namedIn(note.params.message, target);
    const before = await target.evaluate(() => window.__agent.state.decommissioned.length);
    await target.evaluate((id) => window.__agent.registry.confirmations.resolve(id, { approved: true }), named.confirmationId);
    const done = await answer;
    assert.equal(done.result?.isError, false, JSON.stringify(done));
    assert.equal(done.result.resultType, "complete", JSON.stringify(done));
    assert.equal(await target.evaluate(() => window.__agent.state.decommissioned.length), before + 1);
  } finally {
    await tab?.close();
    await raw?.close();
  }
});

test("a tool's state: listed under _meta, announced when only the state changed, the definition unchanged", async () => {
  const find = async () => (await client.listTools()).tools.find((t) => t.name === "view_devices_table_sortBy");
  const before = await find();
  assert.deepEqual(before._meta?.["agent-surface/state"], { available: true });
  const settled = listChanged.length;
  await inPage(() => window.__agent.table.update({ availability: { sortBy: { available: false, reason: "the table is loading" } } }));
  await waitFor(() => listChanged.length > settled, "list_changed for a state-only change");
  const after = await find();
  assert.deepEqual(after._meta["agent-surface/state"], { available: false, unavailableReason: "the table is loading" });
  const { _meta: m1, ...def1 } = before;
  const { _meta: m2, ...def2 } = after;
  assert.deepEqual(def2, def1, "the definition never changes with state");
  const { pages } = output(await call("surface_list"));
  assert.deepEqual(pages[0].unavailable, [{ tool: "view_devices_table_sortBy", state: { available: false, unavailableReason: "the table is loading" } }]);
  assert.equal(payload(await call("view_devices_table_sortBy", { column: "status" })).error.code, "CAPABILITY_NOT_AVAILABLE");
  await inPage(() => window.__agent.table.update({ availability: { sortBy: { available: true } } }));
  await waitFor(async () => (await find())._meta["agent-surface/state"].available === true, "available again");
});

test("notifications/cancelled → CANCELLED in the page", async () => {
  await inPage(() => {
    window.__agent.state.rebootDelayMs = 30_000;
  });
  const before = await inPage(() => window.__agent.state.rebootStarted);
  const abort = new AbortController();
  const pending = call("domain_devices_reboot", { ids: ["dev_aaaaaa"] }, { signal: abort.signal });
  await waitFor(async () => (await inPage(() => window.__agent.state.rebootStarted)) === before + 1, "the reboot handler to start");
  abort.abort();
  await assert.rejects(pending);
  // The bridge told the page to cancel; the page's registry settled the call CANCELLED.
  const [cancel] = await waitFor(async () => {
    const frames = await inPage(() => window.__frames);
    const cancels = frames.filter(([dir, f]) => dir === "in" && f.type === "cancel").map(([, f]) => f);
    return cancels.length > 0 && cancels.slice(-1);
  }, "the cancel frame");
  const result = await waitFor(async () => {
    const frames = await inPage(() => window.__frames);
    return frames.find(([dir, f]) => dir === "out" && f.type === "result" && f.id === cancel.id)?.[1].result;
  }, "the page's result for the cancelled call");
  assert.equal(result.error.code, "CANCELLED");
  assert.equal(await inPage(() => window.__agent.state.rebootAborted), 1);
  assert.deepEqual(await inPage(() => window.__agent.state.rebooted), []);
  await inPage(() => {
    window.__agent.state.rebootDelayMs = 0;
  });
  assert.deepEqual(output(await call("domain_devices_reboot", { ids: ["dev_aaaaaa"] })), { scheduled: 1 });
});

test("two tabs: surface_list shows both, the newest is active, surface_select switches and announces", async () => {
  const settled = listChanged.length;
  const second = await openPage();
  await waitFor(() => listChanged.length > settled, "list_changed for the new tab");
  const pages = await waitFor(async () => {
    const { pages } = output(await call("surface_list"));
    return pages.every((p) => p.tools > 0) && pages;
  }, "both pages' tools");
  assert.deepEqual(pages.map((p) => [p.page, p.active, p.tools]), [["p1", false, 10], ["p2", true, 10]]);
  assert.notEqual(pages[0].surfaceId, pages[1].surfaceId);
  // Calls still go where the client last listed (p1) until it lists again.
  await call("view_app_nav_navigate", { to: "/reports" });
  assert.equal(await inPage(() => window.__agent.state.path), "/reports");
  await client.listTools();
  await call("view_app_nav_navigate", { to: "/settings" });
  assert.equal(await second.evaluate(() => window.__agent.state.path), "/settings");
  assert.equal(await inPage(() => window.__agent.state.path), "/reports");
  // Back to p1, explicitly.
  const before = listChanged.length;
  output(await call("surface_select", { page: "p1" }));
  await waitFor(() => listChanged.length > before, "list_changed after surface_select");
  await client.listTools();
  assert.equal(output(await call("view_app_nav_currentRoute")).path, "/reports");
  assert.equal(payload(await call("surface_select", { page: "p9" })).error.code, "PRECONDITION_FAILED");
  await second.close();
  await waitFor(() => stderrLines.some((l) => l === "bridge: page p2 disconnected (0 call(s) in flight)"), "p2 to go");
  await client.listTools();
});

test("the page reloads: the old tools are stale, list_changed, the new page serves after listing again", async () => {
  const oldSurface = await inPage(() => window.__agent.registry.surfaceId);
  const settled = listChanged.length;
  await page.reload();
  await page.waitForFunction(() => window.__agent?.bridge?.status === "connected", null, { timeout: 15_000 });
  await waitFor(() => listChanged.length > settled, "list_changed after the reload");
  const stale = payload(await call("view_devices_table_readState"));
  assert.equal(stale.error.code, "STALE_CAPABILITY");
  assert.equal(stale.error.retry, "with-changes");
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === "view_devices_table_readState"));
  const fresh = output(await call("view_devices_table_readState"));
  assert.equal(fresh.rows.length, 3, "the reloaded page's own state");
  assert.notEqual(await inPage(() => window.__agent.registry.surfaceId), oldSurface);
});

test("per-call overhead: client → bridge → page → result, against a direct in-page tool.execute", async () => {
  const N = 200;
  for (let i = 0; i < 20; i++) await call("view_devices_table_readState"); // warm up
  const viaBridge = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    output(await call("view_devices_table_readState"));
    viaBridge.push(performance.now() - t0);
  }
  const direct = await inPage(async (n) => {
    const { core, registry } = window.__agent;
    const toolset = core.createAgentToolset(registry, { consumer: { id: "bench", kind: "embedded" }, topology: "remote" });
    const tool = toolset.tools().find((t) => t.name === "view_devices_table_readState");
    for (let i = 0; i < 20; i++) await tool.execute({}, { toolCallId: `w${i}` });
    const out = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const r = await tool.execute({}, { toolCallId: `d${i}` });
      out.push(performance.now() - t0);
      if (r.status !== "ok") throw new Error(JSON.stringify(r));
    }
    return out;
  }, N);
  const stats = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
    return { median: +q(0.5).toFixed(3), p95: +q(0.95).toFixed(3), mean: +(s.reduce((a, b) => a + b, 0) / s.length).toFixed(3) };
  };
  const b = stats(viaBridge);
  const d = stats(direct);
  console.log(`bridge overhead (ms, ${N} calls of view_devices_table_readState): via bridge ${JSON.stringify(b)}; direct in page ${JSON.stringify(d)}; overhead median ${(b.median - d.median).toFixed(3)} ms`);
  assert.ok(b.median < 50, `a bridged call takes ${b.median} ms (median)`);
});

test("the page is killed mid-call: a clear error, never a hang; nothing runs twice when a page comes back", async () => {
  await inPage(() => {
    window.__agent.state.rebootDelayMs = 30_000;
  });
  await client.listTools();
  const started = await inPage(() => window.__agent.state.rebootStarted);
  const pending = call("domain_devices_reboot", { ids: ["dev_cccccc"] });
  await waitFor(async () => (await inPage(() => window.__agent.state.rebootStarted)) === started + 1, "the reboot handler to start");
  const t0 = Date.now();
  await page.close();
  const r = payload(await pending);
  assert.ok(Date.now() - t0 < 10_000, "answered promptly");
  assert.equal(r.error.code, "EXECUTION_FAILED");
  assert.equal(r.capabilityId, "domain:devices.reboot"); // named from the tools frame's capabilities, not the wire name
  assert.equal(r.error.retry, "never");
  assert.deepEqual(r.error.details, { reason: "page-disconnected", outcome: "unknown" });
  assert.match(r.error.message, /disconnected/);
  // No page: a clear refusal, not a hang.
  const none = payload(await call("view_devices_table_readState"));
  assert.equal(none.error.code, "STALE_CAPABILITY");
  await client.listTools();
  const nopage = payload(await call("view_devices_table_readState"));
  assert.equal(nopage.error.code, "CAPABILITY_NOT_AVAILABLE");
  // A page comes back: the lost call is not replayed into it.
  page = await openPage();
  await client.listTools();
  assert.equal(output(await call("view_devices_table_readState")).rows.length, 3);
  assert.equal(await inPage(() => window.__agent.state.rebootStarted), 0);
  assert.deepEqual(problems, []);
});
}
