// @agent-surface/core/webmcp in headless Chromium (/usr/bin/chromium, or $CHROMIUM_PATH), the
// package served as it ships (dist/ as native ES modules, no bundler, no dependency):
//
// - without flags, Chromium has no modelContext: the page installs the fixture
//   (test/fixtures/webmcp-polyfill.js) and an in-page agent drives the devices page through it;
// - with --enable-features=WebMCP, Chromium's own document.modelContext is there: the same agent
//   flow runs against it (exposeToWebMCP finds it by feature detection), and the fixture is
//   compared with it case by case — they agree except where Chromium departs from the draft
//   (listed below, and in docs/webmcp.md); and the browser's own agent side, the DevTools
//   protocol's WebMCP domain (invokeTool), sees and calls the tools.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fixtureManifestPath, packageDir } from "./paths.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".json": "application/json", ".map": "application/json" };
const SERVED = ["dist", "test"];

const HTML = `<!doctype html>
<html lang="en">
  <head><meta charset="UTF-8" /><link rel="icon" href="data:," /><title>webmcp</title></head>
  <body>
    <pre id="ready"></pre>
    <script type="module">
      import * as core from "/dist/index.js";
      import { exposeToWebMCP } from "/dist/webmcp.js";
      import * as fixture from "/test/fixtures/webmcp-polyfill.js";
      import { createDevicesPage, settle } from "/test/webmcp-page.js";
      const manifest = await (await fetch("/manifest.json")).json();
      window.__t = { core, exposeToWebMCP, fixture, createDevicesPage, settle, manifest };
      document.getElementById("ready").textContent = "ready";
    </script>
  </body>
</html>
`;

function serve() {
  const manifest = readFileSync(fixtureManifestPath);
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    if (url.pathname === "/") return res.writeHead(200, { "content-type": "text/html" }).end(HTML);
    if (url.pathname === "/manifest.json") return res.writeHead(200, { "content-type": "application/json" }).end(manifest);
    const rel = decodeURIComponent(url.pathname).replace(/^\/+/, "");
    const file = path.resolve(packageDir, rel);
    if (!SERVED.some((d) => file.startsWith(path.join(packageDir, d) + path.sep)) || !existsSync(file)) {
      return res.writeHead(404).end("not found");
    }
    res.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

async function open(http, args) {
  const userDataDir = mkdtempSync(path.join(tmpdir(), "agent-surface-webmcp-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync", ...args],
  });
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  await page.goto(`http://127.0.0.1:${http.address().port}/`);
  await page.waitForFunction(() => document.getElementById("ready")?.textContent === "ready", null, { timeout: 15000 });
  const close = async () => {
    await context.close();
    rmSync(userDataDir, { recursive: true, force: true });
  };
  return { page, problems, close, version: context.browser()?.version() ?? (await page.evaluate(() => navigator.userAgent)) };
}

/** What the page's globals say about WebMCP (facts for docs/webmcp.md). */
function facts() {
  const kind = (v) => (v === undefined ? "undefined" : Object.prototype.toString.call(v));
  const mc = document.modelContext;
  const proto = mc ? Object.getPrototypeOf(mc) : undefined;
  return {
    userAgent: navigator.userAgent,
    isSecureContext,
    documentModelContext: kind(document.modelContext),
    navigatorModelContext: kind(navigator.modelContext),
    interfaces: ["ModelContext", "ToolActivatedEvent", "ToolCancelEvent"].filter((n) => n in window),
    members: proto ? Object.getOwnPropertyNames(proto).sort() : [],
    chain: proto ? (() => {
      const out = [];
      for (let p = proto; p; p = Object.getPrototypeOf(p)) out.push(p.constructor.name);
      return out;
    })() : [],
  };
}

/**
 * The in-page agent: publishes the devices page with exposeToWebMCP (the given modelContext, or
 * the page's own when `useFixture` is false) and drives it with getTools/executeTool.
 */
async function agentFlow({ useFixture }) {
  const { core, exposeToWebMCP, fixture, createDevicesPage, settle, manifest } = window.__t;
  const mc = useFixture ? fixture.createModelContext(window) : document.modelContext;
  const page = createDevicesPage(core, manifest);
  const exposure = exposeToWebMCP(page.registry, useFixture ? { modelContext: mc } : {});
  const until = async (predicate) => {
    for (let i = 0; i < 200; i++) {
      if (await predicate()) return;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error("timed out");
  };
  const tools = async () => await mc.getTools();
  const find = async (name) => (await tools()).find((t) => t.name === name);
  const run = async (name, input, options) => JSON.parse(await mc.executeTool(await find(name), input, options));
  const names = async () => (await tools()).map((t) => t.name);
  await until(async () => (await tools()).length === 10);
  const out = { supported: exposure.supported, names: await names() };
  out.decommission = await find("domain_devices_decommission");
  delete out.decommission.window;
  out.read = await run("view_devices_table_readState", {});
  out.select = await run("view_devices_table_selectRows", { ids: ["dev_bbbbbb"] });
  out.selection = page.state.selection;
  out.invalid = await run("view_devices_table_selectRows", { ids: ["nope"] });
  // The destructive procedure: the call waits for the page's dialog.
  let settled = false;
  const call = mc.executeTool(await find("domain_devices_decommission"), { ids: ["dev_bbbbbb"] }).then((text) => {
    settled = true;
    return JSON.parse(text);
  });
  await until(() => page.registry.confirmations.pending().length === 1);
  const [pending] = page.registry.confirmations.pending();
  out.pending = { consumerKey: pending.consumerKey, capabilityId: pending.capabilityId, input: pending.input };
  await settle();
  out.settledBeforeApproval = settled;
  out.callsBeforeApproval = page.state.decommissionCalls;
  page.registry.confirmations.resolve(pending.confirmationId, { approved: true });
  out.decommissioned = await call;
  out.calls = page.state.decommissionCalls;
  // Navigation away (the nav unmounts): its tools go, a stale call is refused.
  const stale = await find("view_app_nav_navigate");
  page.handles.nav.unregister();
  await until(async () => !(await names()).includes("view_app_nav_navigate"));
  out.afterUnmount = await names();
  try {
    await mc.executeTool(stale, { to: "/x" });
    out.staleCall = "resolved";
  } catch (e) {
    out.staleCall = e.name;
  }
  exposure.close();
  await until(async () => (await tools()).length === 0);
  out.afterClose = await names();
  page.registry.dispose();
  return out;
}

function expectAgentFlow(out) {
  expect(out.supported).toBe(true);
  expect(out.names).toEqual([
    "domain_devices_decommission",
    "domain_devices_reboot",
    "view_app_nav_currentRoute",
    "view_app_nav_navigate",
    "view_devices_table_clearSelection",
    "view_devices_table_filter",
    "view_devices_table_readSelection",
    "view_devices_table_readState",
    "view_devices_table_selectRows",
    "view_devices_table_sortBy",
  ]);
  expect(out.decommission).toMatchObject({
    title: "domain:devices.decommission",
    description: "[domain · destructive · required] Permanently remove devices from management. Cannot be undone.",
    annotations: { readOnlyHint: false, untrustedContentHint: false, consequentialHint: true, debugging: false },
    inputSchema: { type: "object", required: ["ids"] },
  });
  expect(out.read).toMatchObject({ status: "ok", capabilityId: "view:devices.table.readState" });
  expect(out.read.output.rows).toHaveLength(2);
  expect(out.select).toMatchObject({ status: "ok" });
  expect(out.selection).toEqual(["dev_bbbbbb"]);
  expect(out.invalid).toMatchObject({ status: "error", error: { code: "INVALID_INPUT" } });
  expect(out.pending).toEqual({ consumerKey: "webmcp:default", capabilityId: "domain:devices.decommission", input: { ids: ["dev_bbbbbb"] } });
  expect(out.settledBeforeApproval).toBe(false);
  expect(out.callsBeforeApproval).toBe(0);
  expect(out.decommissioned).toMatchObject({ status: "ok", capabilityId: "domain:devices.decommission" });
  expect(out.calls).toBe(1);
  expect(out.afterUnmount).not.toContain("view_app_nav_currentRoute");
  expect(out.afterUnmount).toContain("view_devices_table_readState");
  expect(out.staleCall).toBe("UnknownError");
  expect(out.afterClose).toEqual([]);
}

/** The same cases on a ModelContext (the fixture or Chromium's), as comparable outcomes. */
async function conformance({ useFixture }) {
  const { fixture } = window.__t;
  const mc = useFixture ? fixture.createModelContext(window) : document.modelContext;
  const noop = async () => null;
  const outcome = async (p) => {
    try {
      const v = await p;
      return { resolved: v };
    } catch (e) {
      return { rejected: e instanceof DOMException || e instanceof Error ? e.name : e };
    }
  };
  const registered = (tool, options) => outcome(mc.registerTool({ description: "d", execute: noop, ...tool }, options));
  const find = async (name) => (await mc.getTools()).find((t) => t.name === name);
  const r = {};
  const events = [];
  mc.addEventListener("toolchange", () => events.push("toolchange"));
  mc.addEventListener("toolactivated", (e) => events.push(`toolactivated:${e.toolName}`));
  mc.addEventListener("toolcancel", (e) => events.push(`toolcancel:${e.toolName}`));
  r.valid = await registered({ name: "c_valid", title: "Valid", inputSchema: { type: "object", properties: { x: { type: "integer" } }, required: ["x"] } });
  r.duplicate = await registered({ name: "c_valid" });
  r.emptyName = await registered({ name: "" });
  r.space = await registered({ name: "has space" });
  r.colon = await registered({ name: "view:devices" });
  r.tooLong = await registered({ name: "x".repeat(129) });
  r.longest = await registered({ name: "y".repeat(128) });
  r.emptyDescription = await registered({ name: "c_empty", description: "" });
  r.schemaNotObject = await registered({ name: "c_schema", inputSchema: "nope" });
  r.noName = await registered({ name: undefined });
  await registered({ name: "c_annotated", annotations: { readOnlyHint: true, destructiveHint: true, openWorldHint: true } });
  r.annotations = (await find("c_annotated")).annotations;
  await registered({ name: "c_plain" });
  const plain = await find("c_plain");
  r.plain = { ...plain, window: plain.window === window };
  const valid = await find("c_valid");
  r.validTool = { ...valid, window: valid.window === window };
  r.sorted = (await mc.getTools()).map((t) => t.name);
  const seen = [];
  await registered({ name: "c_echo", execute: async (input, options) => (seen.push({ input, signal: options?.signal instanceof AbortSignal }), { echo: input }) });
  r.object = await outcome(mc.executeTool(await find("c_echo"), { x: "not validated" }));
  r.noInput = await outcome(mc.executeTool(await find("c_echo")));
  r.seen = seen;
  await registered({ name: "c_string", execute: async () => '{"status":"ok"}' });
  r.stringResult = await outcome(mc.executeTool(await find("c_string")));
  await registered({ name: "c_number", execute: async () => 5 });
  r.numberResult = await outcome(mc.executeTool(await find("c_number")));
  await registered({ name: "c_undefined", execute: async () => undefined });
  r.undefinedResult = await outcome(mc.executeTool(await find("c_undefined")));
  await registered({ name: "c_throws", execute: async () => {
    throw new Error("boom");
  } });
  r.throws = await outcome(mc.executeTool(await find("c_throws")));
  const ac = new AbortController();
  await registered({ name: "c_abortable" }, { signal: ac.signal });
  const abortable = await find("c_abortable");
  ac.abort("gone");
  r.afterAbort = (await find("c_abortable")) === undefined;
  r.staleExecute = await outcome(mc.executeTool(abortable));
  r.preAborted = await registered({ name: "c_pre" }, { signal: ac.signal });
  r.reRegistered = await registered({ name: "c_abortable" });
  let executionAborted = false;
  await registered({
    name: "c_slow",
    execute: (_input, { signal }) =>
      new Promise((resolve) => {
        signal.addEventListener("abort", () => {
          executionAborted = true;
          resolve("late");
        });
      }),
  });
  const cancel = new AbortController();
  const slow = mc.executeTool(await find("c_slow"), {}, { signal: cancel.signal });
  // Cancel once the execution has started (the user agent runs it in a later task).
  for (let i = 0; i < 200 && !events.includes("toolactivated:c_slow"); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  cancel.abort("stop");
  r.cancelled = await outcome(slow);
  // The cancellation reaches the tool's side in a later task (in Chromium, through the browser process).
  for (let i = 0; i < 200 && !(executionAborted && events.includes("toolcancel:c_slow")); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  r.executionAborted = executionAborted;
  r.events = {
    toolchange: events.filter((e) => e === "toolchange").length > 0,
    activated: events.filter((e) => e.startsWith("toolactivated:")).sort(),
    cancelled: events.filter((e) => e.startsWith("toolcancel:")),
  };
  return r;
}

/** Where Chromium departs from the draft's serialization step (Infra: JSON.stringify, undefined is an error). */
const CHROMIUM_DEPARTS = {
  stringResult: { draft: { resolved: '"{\\"status\\":\\"ok\\"}"' }, chromium: { resolved: '{"status":"ok"}' } },
  undefinedResult: { draft: { rejected: "UnknownError" }, chromium: { resolved: "undefined" } },
};

let http;
beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium), or set CHROMIUM_PATH`);
  }
  http = await serve();
});
afterAll(async () => {
  await new Promise((r) => (http ? http.close(r) : r()));
});

describe("Chromium without flags", () => {
  let b;
  beforeAll(async () => {
    b = await open(http, []);
  }, 60_000);
  afterAll(async () => b?.close());

  test("has no modelContext on document or navigator", async () => {
    const f = await b.page.evaluate(facts);
    console.info(`webmcp: ${b.version}, no flags: ${JSON.stringify(f)}`);
    expect(f.isSecureContext).toBe(true);
    expect(f.documentModelContext).toBe("undefined");
    expect(f.navigatorModelContext).toBe("undefined");
    expect(await b.page.evaluate(() => window.__t.exposeToWebMCP(window.__t.createDevicesPage(window.__t.core, window.__t.manifest).registry).supported)).toBe(false);
  });

  test("an in-page agent operates the devices page through the fixture", async () => {
    expectAgentFlow(await b.page.evaluate(agentFlow, { useFixture: true }));
    expect(b.problems).toEqual([]);
  });
});

describe("Chromium with --enable-features=WebMCP", () => {
  let b;
  let native;
  beforeAll(async () => {
    b = await open(http, ["--enable-features=WebMCP"]);
    native = await b.page.evaluate(facts);
    console.info(`webmcp: ${b.version}, --enable-features=WebMCP: ${JSON.stringify(native)}`);
  }, 60_000);
  afterAll(async () => b?.close());

  test("exposes the draft's document.modelContext (and nothing on navigator)", async (ctx) => {
    if (native.documentModelContext === "undefined") ctx.skip("this Chromium has no WebMCP behind --enable-features=WebMCP");
    expect(native.documentModelContext).toBe("[object ModelContext]");
    expect(native.navigatorModelContext).toBe("undefined");
    expect(native.chain).toEqual(["ModelContext", "EventTarget", "Object"]);
    expect(native.members).toEqual(["constructor", "executeTool", "getTools", "ontoolactivated", "ontoolcancel", "ontoolchange", "registerTool"]);
    expect(native.interfaces).toEqual(["ModelContext", "ToolActivatedEvent", "ToolCancelEvent"]);
  });

  test("an in-page agent operates the devices page through Chromium's own modelContext", async (ctx) => {
    if (native.documentModelContext === "undefined") ctx.skip("this Chromium has no WebMCP behind --enable-features=WebMCP");
    expectAgentFlow(await b.page.evaluate(agentFlow, { useFixture: false }));
    expect(b.problems).toEqual([]);
  });

  test("the browser's agent side (the DevTools protocol's WebMCP domain) sees the tools and its call waits for the page's dialog", async (ctx) => {
    if (native.documentModelContext === "undefined") ctx.skip("this Chromium has no WebMCP behind --enable-features=WebMCP");
    await b.page.reload();
    await b.page.waitForFunction(() => document.getElementById("ready")?.textContent === "ready");
    const cdp = await b.page.context().newCDPSession(b.page);
    const added = [];
    const responded = new Map();
    cdp.on("WebMCP.toolsAdded", (e) => added.push(...e.tools));
    cdp.on("WebMCP.toolResponded", (e) => responded.set(e.invocationId, e));
    await cdp.send("WebMCP.enable");
    await b.page.evaluate(() => {
      const { core, exposeToWebMCP, createDevicesPage, manifest } = window.__t;
      const page = createDevicesPage(core, manifest);
      window.__page = page;
      window.__exposure = exposeToWebMCP(page.registry);
    });
    const until = async (predicate) => {
      for (let i = 0; i < 400 && !(await predicate()); i++) await new Promise((r) => setTimeout(r, 5));
      expect(await predicate()).toBe(true);
    };
    await until(() => added.length === 10);
    const decommission = added.find((t) => t.name === "domain_devices_decommission");
    expect(decommission.annotations).toEqual({ readOnly: false, untrustedContent: false, consequential: true, debugging: false });
    expect(added.find((t) => t.name === "view_devices_table_readState").annotations).toMatchObject({ readOnly: true, consequential: false });
    const { frameId } = decommission;
    const read = await cdp.send("WebMCP.invokeTool", { frameId, toolName: "view_devices_table_readState", input: {} });
    await until(() => responded.has(read.invocationId));
    expect(responded.get(read.invocationId)).toMatchObject({ status: "Completed", output: { status: "ok", capabilityId: "view:devices.table.readState" } });
    const call = await cdp.send("WebMCP.invokeTool", { frameId, toolName: "domain_devices_decommission", input: { ids: ["dev_aaaaaa"] } });
    await until(() => b.page.evaluate(() => window.__page.registry.confirmations.pending().length === 1));
    expect(responded.has(call.invocationId)).toBe(false);
    expect(await b.page.evaluate(() => window.__page.state.decommissionCalls)).toBe(0);
    await b.page.evaluate(() => {
      const [p] = window.__page.registry.confirmations.pending();
      window.__page.registry.confirmations.resolve(p.confirmationId, { approved: true });
    });
    await until(() => responded.has(call.invocationId));
    expect(responded.get(call.invocationId)).toMatchObject({ status: "Completed", output: { status: "ok", capabilityId: "domain:devices.decommission" } });
    expect(await b.page.evaluate(() => window.__page.state)).toMatchObject({ decommissionCalls: 1, decommissioned: ["dev_aaaaaa"] });
    await b.page.evaluate(() => window.__exposure.close());
    await cdp.detach();
    expect(b.problems).toEqual([]);
  });

  test("the fixture and Chromium agree case by case, except where Chromium departs from the draft's serialization", async (ctx) => {
    if (native.documentModelContext === "undefined") ctx.skip("this Chromium has no WebMCP behind --enable-features=WebMCP");
    // A fresh page for each, so that the tool maps start empty.
    await b.page.reload();
    await b.page.waitForFunction(() => document.getElementById("ready")?.textContent === "ready");
    const chromiumSide = await b.page.evaluate(conformance, { useFixture: false });
    await b.page.reload();
    await b.page.waitForFunction(() => document.getElementById("ready")?.textContent === "ready");
    const fixtureSide = await b.page.evaluate(conformance, { useFixture: true });
    for (const [key, { draft, chromium: actual }] of Object.entries(CHROMIUM_DEPARTS)) {
      expect(fixtureSide[key], `the fixture's ${key}`).toEqual(draft);
      expect(chromiumSide[key], `Chromium's ${key}`).toEqual(actual);
      delete fixtureSide[key];
      delete chromiumSide[key];
    }
    expect(fixtureSide.plain.origin).toMatch(/^http:\/\/127\.0\.0\.1:/);
    expect(fixtureSide).toEqual(chromiumSide);
    expect(fixtureSide.annotations).toEqual({ readOnlyHint: true, untrustedContentHint: false, consequentialHint: false, debugging: false });
    expect(fixtureSide.object).toEqual({ resolved: '{"echo":{"x":"not validated"}}' });
    expect(fixtureSide.numberResult).toEqual({ resolved: "5" });
    expect(fixtureSide.duplicate).toEqual({ rejected: "InvalidStateError" });
    expect(fixtureSide.schemaNotObject).toEqual({ rejected: "TypeError" });
    expect(fixtureSide.staleExecute).toEqual({ rejected: "UnknownError" });
    expect(fixtureSide.cancelled).toEqual({ rejected: "stop" });
    expect(fixtureSide.executionAborted).toBe(true);
    expect(fixtureSide.events.cancelled).toEqual(["toolcancel:c_slow"]);
  });
});
