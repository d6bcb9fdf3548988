// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in package.json)
// and the MCP Inspector CLI (below)
// against `agent-surface bridge --http`, with the example app open in headless Chromium and
// connected, so the bridge serves a real page's tools. Both requirement sets run:
// `--requirements 2025-11-25` and `--requirements 2026-07-28`, each with its expected-failures
// file (expected-failures-<revision>.yaml: only what the bridge does not offer, with reasons).
// The suite has no option to send a header, and the bridge requires its token on every /mcp
// request: a loopback relay (bearerRelay below) adds `Authorization: Bearer <token>` — what a
// configured client sends — and changes nothing else (a Host naming the relay is rewritten to
// name the bridge; any other Host, e.g. the suite's DNS-rebinding probe, passes unchanged).
//
//   AGENT_SURFACE_BINARY=.../agent-surface ../../../scripts/with-node.sh 22 npm test
//
// Needs Node >= 22.19 (the suite does not load on Node 20), crates/bridge/e2e's node_modules
// (the SDK) and packages/vite's (Vite, React, playwright-core), as the e2e suite does.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BIN, CHROMIUM, bridgeLine, buildApp, chromium } from "../../e2e/lib/suite.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgDir = path.resolve(here, "..");
const CONFORMANCE = path.join(pkgDir, "node_modules/@modelcontextprotocol/conformance/dist/index.js");

let app, child, bridge, browser, userDataDir, relay, relayUrl;
const stderrLines = [];

/** A loopback HTTP relay to the bridge that adds the bearer token (see the header comment). */
function bearerRelay(target, token) {
  const server = createServer((req, res) => {
    const own = `127.0.0.1:${server.address().port}`;
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    if (headers.host === own) headers.host = target.host;
    const up = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on("error", (e) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(e));
    });
    req.pipe(up);
    res.on("close", () => up.destroy());
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

before(async () => {
  // The fixture page: the example app plus the two tools the suite calls by fixed names
  // (fixture/conformance-tools.ts), connected with `names: "unprefixed"` so that
  // domain:test.simple_text is listed as test_simple_text (and every other tool without its plane).
  app = await buildApp({ extra: path.join(pkgDir, "fixture/conformance-tools.ts") });
  child = spawn(BIN, ["bridge", "--http", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
  bridge = await bridgeLine(child.stderr, stderrLines, true);
  userDataDir = mkdtempSync(path.join(tmpdir(), "agent-surface-conformance-chromium-"));
  browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = await browser.newPage();
  await page.addInitScript((cfg) => {
    window.__bridgeConfig = cfg;
  }, { url: bridge.url, token: bridge.token, names: "unprefixed" });
  await page.goto(app.origin + "/");
  await page.waitForFunction(() => window.__agent?.bridge?.status === "connected", null, { timeout: 15_000 });
  relay = await bearerRelay(new URL(bridge.mcpUrl), bridge.token);
  relayUrl = `http://127.0.0.1:${relay.address().port}/mcp`;
});

after(async () => {
  child?.kill("SIGTERM");
  await browser?.close();
  await new Promise((r) => (relay ? relay.close(r) : r()));
  await new Promise((r) => (app?.http ? app.http.close(r) : r()));
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  app?.cleanup();
});

/** Runs the suite for one revision; resolves with its exit code, output and checks. */
function runSuite(revision) {
  const out = mkdtempSync(path.join(tmpdir(), `agent-surface-conformance-${revision}-`));
  const args = [CONFORMANCE, "server", "--url", relayUrl, "--requirements", revision, "--expected-failures", path.join(pkgDir, `expected-failures-${revision}.yaml`), "-o", out];
  return new Promise((resolve) => {
    const p = spawn(process.execPath, args, { cwd: pkgDir, stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    p.stdout.on("data", (d) => (text += d));
    p.stderr.on("data", (d) => (text += d));
    p.on("close", (code) => {
      const checks = [];
      const walk = (dir) => {
        for (const e of readdirSync(dir, { withFileTypes: true })) {
          const f = path.join(dir, e.name);
          if (e.isDirectory()) walk(f);
          else if (e.name === "checks.json") checks.push(...JSON.parse(readFileSync(f, "utf8")).map((c) => ({ ...c, scenario: path.basename(dir) })));
        }
      };
      walk(out);
      rmSync(out, { recursive: true, force: true });
      resolve({ code, text, checks });
    });
  });
}

for (const revision of (process.env.CONFORMANCE_REVISIONS ?? "2025-11-25,2026-07-28").split(",")) {
  test(`conformance --requirements ${revision}: every scenario passes but the expected failures (absent features)`, async () => {
    const { code, text, checks } = await runSuite(revision);
    console.log(text);
    for (const c of checks.filter((c) => c.status !== "SUCCESS")) console.log(`${c.status} check ${c.scenario} ${c.id}: ${String(c.errorMessage ?? "").slice(0, 300)}`);
    const count = (s) => checks.filter((c) => c.status === s).length;
    console.log(`conformance ${revision}: checks SUCCESS ${count("SUCCESS")}, FAILURE ${count("FAILURE")}, WARNING ${count("WARNING")}, SKIPPED ${count("SKIPPED")}`);
    assert.equal(code, 0, "the suite's verdict against the baseline");
    const schema = checks.filter((c) => c.id === "wire-schema-valid");
    assert.ok(schema.length > 0, "wire-schema-valid was checked");
    assert.deepEqual(schema.filter((c) => c.status !== "SUCCESS").map((c) => c.scenario), [], "every message the bridge sent is valid against the revision's schema");
    // The token is printed once, in the banner; no other line (refusals included) holds it.
    assert.ok(!stderrLines.slice(1).some((l) => l.includes(bridge.token)), "the token never reaches the log");
  });
}

// The MCP Inspector CLI (@modelcontextprotocol/inspector, pinned in package.json, `--cli`) lists
// and calls the page's tools through the same bridge, over HTTP with the bearer header in both
// protocol eras (legacy: initialize and a session; modern: 2026-07-28, stateless), and over stdio
// (it starts its own bridge, which no page joins: the bridge's own tools answer).
const INSPECTOR = path.join(pkgDir, "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");

function inspector(args, env = {}) {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [INSPECTOR, "--cli", ...args], { cwd: pkgDir, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d) => (stdout += d));
    p.stderr.on("data", (d) => (stderr += d));
    p.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

for (const era of ["legacy", "modern"]) {
  test(`MCP Inspector CLI over HTTP (${era} era): lists the page's tools and calls one`, async () => {
    const common = [bridge.mcpUrl, "--transport", "http", "--header", `Authorization: Bearer ${bridge.token}`, "--protocol-era", era];
    const list = await inspector([...common, "--method", "tools/list"]);
    assert.equal(list.code, 0, list.stderr);
    const names = JSON.parse(list.stdout).tools.map((t) => t.name);
    assert.ok(names.includes("devices_table_readState") && names.includes("test_simple_text") && names.includes("surface_list"), names.join(", "));
    assert.ok(!names.some((n) => /^(view|domain)_/.test(n)), `the page's names carry no plane: ${names.join(", ")}`);
    const call = await inspector([...common, "--method", "tools/call", "--tool-name", "devices_table_readState"]);
    assert.equal(call.code, 0, call.stderr);
    const result = JSON.parse(call.stdout);
    assert.notEqual(result.isError, true, call.stdout);
    assert.deepEqual(result.structuredContent.rows.map((r) => r.id), ["dev_aaaaaa", "dev_bbbbbb", "dev_cccccc"]);
    // Without the token the Inspector is refused.
    const refused = await inspector([bridge.mcpUrl, "--transport", "http", "--protocol-era", era, "--method", "tools/list"]);
    assert.notEqual(refused.code, 0);
  });
}

test("MCP Inspector CLI over stdio: starts the bridge, lists and calls its tools", async () => {
  const list = await inspector([BIN, "bridge", "--method", "tools/list"]);
  assert.equal(list.code, 0, list.stderr);
  assert.deepEqual(JSON.parse(list.stdout).tools.map((t) => t.name), ["surface_list", "surface_select"]);
  const call = await inspector([BIN, "bridge", "--method", "tools/call", "--tool-name", "surface_list"]);
  assert.equal(call.code, 0, call.stderr);
  assert.deepEqual(JSON.parse(call.stdout).structuredContent, { pages: [] });
});
