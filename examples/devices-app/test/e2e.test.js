// The example app end to end in headless Chromium (playwright-core driving /usr/bin/chromium)
// over a `vite build` of it. The assistant panel's scripted model (the AI SDK's mock, through
// generateText and aiSdkTools) is driven by typing into the panel; the test plays the user who
// answers the app's own confirmation dialog. Then the same flow through a WebMCP
// document.modelContext (the repository's fixture of the draft, packages/core/test/fixtures).
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { build, createServer as createViteServer } from "vite";
import { createDevicesRpc } from "../server/devices.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const artifacts = path.join(root, "test-artifacts");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".map": "application/json" };
const POLYFILL = path.join(root, "../../packages/core/test/fixtures/webmcp-polyfill.js");

// The app's oRPC server (RPCHandler at /rpc, server/devices.js): the page's registry forwards
// domain:devices.decommission to it; the tests read what it did.
const rpc = createDevicesRpc();

/** dist/ as a static site with the SPA fallback (every unknown path is index.html), and /rpc. */
function serve(dir) {
  const server = createServer(async (req, res) => {
    if (await rpc.handle(req, res)) return;
    const rel = decodeURIComponent(new URL(req.url, "http://x").pathname).replace(/^\/+/, "");
    let file = path.resolve(dir, rel || "index.html");
    if (!file.startsWith(dir + path.sep) || !existsSync(file) || !path.extname(file)) file = path.join(dir, "index.html");
    res.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

let http;
let browser;
let userDataDir;
let origin;

before(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium, or set CHROMIUM_PATH`);
  await build({ root, logLevel: "warn" });
  http = await serve(path.join(root, "dist"));
  origin = `http://127.0.0.1:${http.address().port}`;
  mkdirSync(artifacts, { recursive: true });
  userDataDir = mkdtempSync(path.join(tmpdir(), "devices-app-chromium-"));
  browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 760 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"],
  });
});

after(async () => {
  await browser?.close();
  await new Promise((r) => (http ? http.close(r) : r()));
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

async function open(initScript, base = origin) {
  const page = await browser.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  if (initScript) await page.addInitScript(initScript);
  await page.goto(`${base}/devices`);
  await page.waitForSelector('section.devices[data-agent-status="active"]');
  return { page, problems };
}

/** Types a request into the assistant panel and waits for the loop to finish. */
async function ask(page, text) {
  const before = await page.locator(".log li.assistant").count();
  await page.fill('input[aria-label="Ask the assistant"]', text);
  await page.click('.assistant button[type="submit"]');
  await page.waitForFunction((n) => document.querySelectorAll(".log li.assistant").length > n, before);
  return page.locator(".log li.assistant").last().textContent();
}

/** Sends a request without waiting for the loop (it will wait for the dialog). */
async function send(page, text) {
  await page.fill('input[aria-label="Ask the assistant"]', text);
  await page.click('.assistant button[type="submit"]');
}

const runs = (page) => page.evaluate(() => ({ ...window.__devicesApp.runs }));
const lastTool = (page) => page.locator(".log li.tool").last();

describe("the assistant panel (AI SDK generateText, scripted mock model, aiSdkTools over a wait-mode toolset)", () => {
  let page;
  let problems;
  before(async () => ({ page, problems } = await open()));
  after(() => page?.close());

  test("reads the table, filters it, sorts it and selects rows", async () => {
    assert.match(await ask(page, "show devices"), /I see 8 device\(s\): .*core-router \(online\)/);
    assert.match(await ask(page, "filter printer"), /view_devices_table_filter done/);
    assert.deepEqual(await page.locator("tbody tr").evaluateAll((rows) => rows.map((r) => r.dataset.id)), ["dev_pr1nt2", "dev_pr1nt1"]); // by name: printer-3rd-floor, printer-lobby
    assert.equal(await page.inputValue('input[aria-label="Filter by name"]'), "printer");
    assert.match(await ask(page, "show devices"), /I see 2 device\(s\): printer-3rd-floor \(online\), printer-lobby \(offline\)/);
    await ask(page, "sort by status desc");
    assert.deepEqual(await page.locator("tbody tr").evaluateAll((rows) => rows.map((r) => r.dataset.id)), ["dev_pr1nt2", "dev_pr1nt1"]);
    assert.match(await ask(page, "select dev_pr1nt1 dev_pr1nt2"), /view_devices_table_selectRows done/);
    assert.equal(await page.textContent(".toolbar .selected"), "2 selected");
    assert.equal(await page.locator("tbody tr.sel").count(), 2);
    assert.deepEqual(problems, []);
  });

  test("decommission: the app's dialog appears, Approve runs the procedure exactly once; a redelivery is the cached result", async () => {
    await send(page, "decommission dev_pr1nt1");
    const dialog = page.locator("dialog.confirm");
    await dialog.waitFor();
    assert.match(await dialog.textContent(), /domain:devices\.decommission/);
    assert.match(await dialog.textContent(), /dev_pr1nt1/);
    assert.equal(await lastTool(page).getAttribute("data-state"), "running"); // the call waits for the user
    assert.equal((await runs(page)).decommission, 0);
    await page.screenshot({ path: path.join(artifacts, "dialog.png") });
    await page.click("dialog.confirm button.approve");
    await page.waitForFunction(() => [...document.querySelectorAll(".log li.tool")].pop()?.dataset.state !== "running");
    const call = lastTool(page);
    assert.equal(await call.getAttribute("data-state"), "ok");
    await page.waitForFunction(() => document.querySelectorAll(".log li.assistant").length > 0 && !document.querySelector(".thinking"));
    assert.equal((await runs(page)).decommission, 1);
    assert.equal(await page.locator('tr[data-id="dev_pr1nt1"]').count(), 0);
    // It ran on the oRPC server, once, with the tool call's id as its idempotency key.
    const toolCallId = await call.getAttribute("data-tool-call");
    assert.equal(rpc.state.runs, 1);
    assert.deepEqual([...rpc.state.decommissioned], ["dev_pr1nt1"]);
    assert.deepEqual(rpc.state.keys, [toolCallId]);
    // The same tool call delivered a second time (a transport retry): answered, not run again.
    const again = await page.evaluate((id) => window.__devicesApp.deliver("domain_devices_decommission", { ids: ["dev_pr1nt1"] }, id), toolCallId);
    assert.equal((await runs(page)).decommission, 1);
    assert.equal(await page.locator("dialog.confirm").count(), 0);
    assert.equal(again.status, "ok", `second delivery: ${JSON.stringify(again)}`);
    assert.equal(again.invocationId, toolCallId);
    assert.equal(rpc.state.keys.length, 1); // answered by the page's registry: never sent again
    // A new call for the same device: approved, sent, and refused by the server (NOT_FOUND, with
    // its own message): the agent reads EXECUTION_FAILED, never the server's words.
    const failing = page.evaluate(() => window.__devicesApp.deliver("domain_devices_decommission", { ids: ["dev_pr1nt1"] }, "call-again-1"));
    await page.locator("dialog.confirm").waitFor();
    await page.click("dialog.confirm button.approve");
    const failed = await failing;
    assert.equal(failed.status, "error", JSON.stringify(failed));
    assert.equal(failed.error.code, "EXECUTION_FAILED");
    assert.doesNotMatch(JSON.stringify(failed), /already decommissioned|NOT_FOUND/);
    assert.deepEqual(rpc.state.keys, [toolCallId, "call-again-1"]);
    assert.equal(rpc.state.runs, 1);
    assert.equal((await runs(page)).decommission, 1);
    // The registry logs why (console.error): the oRPC code and status, not the message.
    // (Chromium adds its own line for the 404 response.)
    const logged = problems.splice(0);
    const why = /domain:devices\.decommission failed: procedure domain:devices\.decommission: POST \/rpc\/devices\/decommission answered the oRPC error NOT_FOUND \(HTTP 404\)/;
    assert.ok(logged.some((l) => why.test(l)), logged.join("\n"));
    assert.ok(logged.every((l) => why.test(l) || /Failed to load resource: the server responded with a status of 404/.test(l)), logged.join("\n"));
    assert.doesNotMatch(logged.join("\n"), /already decommissioned/);
  });


  test("a denied decommission runs zero times and the model reads CONFIRMATION_DENIED", async () => {
    const before = (await runs(page)).decommission;
    assert.match(await ask(page, "select dev_pr1nt2"), /view_devices_table_selectRows done/);
    // Two steps of the loop: the model reads the selection, then asks to decommission it.
    await send(page, "decommission the selection");
    await page.locator("dialog.confirm").waitFor();
    assert.match(await page.textContent("dialog.confirm pre"), /"dev_pr1nt2"/);
    assert.deepEqual(await page.locator(".log li.tool").evaluateAll((ls) => ls.slice(-2).map((l) => l.querySelector("code").textContent)), ["view_devices_table_readSelection", "domain_devices_decommission"]);
    await page.click("dialog.confirm button.deny");
    await page.waitForFunction(() => [...document.querySelectorAll(".log li.tool")].pop()?.dataset.state === "error");
    assert.equal(await lastTool(page).getAttribute("data-code"), "CONFIRMATION_DENIED");
    await page.waitForFunction(() => !document.querySelector(".thinking"));
    assert.match(await page.locator(".log li.assistant").last().textContent(), /CONFIRMATION_DENIED/);
    assert.equal((await runs(page)).decommission, before);
    assert.equal(await page.locator('tr[data-id="dev_pr1nt2"]').count(), 1);
    assert.equal(rpc.state.decommissioned.has("dev_pr1nt2"), false); // nothing reached the server
  });

  test("the export external tool asks in the same dialog, then runs once", async () => {
    await send(page, "export pdf");
    await page.locator("dialog.confirm").waitFor();
    assert.match(await page.textContent("dialog.confirm"), /external:reports\.export/);
    await page.click("dialog.confirm button.approve");
    await page.waitForFunction(() => !document.querySelector(".thinking"));
    assert.match(await page.locator(".log li.assistant").last().textContent(), /external_reports_export done: \{"jobId":"[0-9a-f-]{36}"/);
    assert.equal((await runs(page)).export, 1);
  });

  test("a reboot (no confirmation) runs once; the second delivery of its tool call is the cached result", async () => {
    assert.match(await ask(page, "reboot dev_r0ut3r"), /domain_devices_reboot done: \{"scheduled":1\}/);
    assert.equal((await runs(page)).reboot, 1);
    const toolCallId = await lastTool(page).getAttribute("data-tool-call");
    const again = await page.evaluate((id) => window.__devicesApp.deliver("domain_devices_reboot", { ids: ["dev_r0ut3r"] }, id), toolCallId);
    assert.equal(again.status, "ok", JSON.stringify(again));
    assert.deepEqual(again.output, { scheduled: 1 });
    assert.equal(again.invocationId, toolCallId);
    assert.equal((await runs(page)).reboot, 1);
  });

  test("the table unmounted mid-call: the reboot settles COMPONENT_UNMOUNTED and never finishes", async () => {
    const before = (await runs(page)).reboot;
    await send(page, "reboot dev_cam002");
    await page.waitForSelector(".toolbar .busy"); // the handler is running
    await page.click('nav a[href="/reports"]'); // the user navigates away
    await page.waitForFunction(() => [...document.querySelectorAll(".log li.tool")].pop()?.dataset.state === "error");
    assert.equal(await lastTool(page).getAttribute("data-code"), "COMPONENT_UNMOUNTED");
    await page.waitForTimeout(1800); // longer than the handler's own delay
    assert.equal((await runs(page)).reboot, before);
  });

  test("after navigation the old page's tools are gone, and a stale call is refused with STALE_CAPABILITY", async () => {
    await page.click('nav a[href="/devices"]');
    await page.waitForSelector('section.devices[data-agent-status="active"]');
    await page.evaluate(() => window.__devicesApp.capture()); // the SDK tools of this page
    assert.match(await ask(page, "go to reports"), /view_app_nav_navigate done/);
    assert.equal(await page.getAttribute("main", "data-path"), "/reports");
    const names = await page.evaluate(() => window.__devicesApp.toolNames());
    assert.deepEqual(names.filter((n) => n.startsWith("view_devices_table") || n.startsWith("domain_devices")), []);
    assert.ok(names.includes("view_app_nav_navigate"));
    assert.match(await ask(page, "show devices"), /I cannot see the devices table \(no view_devices_table_readState on this page\)/);
    const gone = await page.evaluate(() => window.__devicesApp.callCaptured("view_devices_table_readState", {}, "stale-1"));
    assert.equal(gone.error?.code, "COMPONENT_UNMOUNTED", JSON.stringify(gone));
    // Back on /devices the table is a new registration: the old catalog's tools are stale.
    await page.click('nav a[href="/devices"]');
    await page.waitForSelector('section.devices[data-agent-status="active"]');
    const stale = await page.evaluate(() => window.__devicesApp.callCaptured("view_devices_table_selectRows", { ids: ["dev_r0ut3r"] }, "stale-2"));
    assert.equal(stale.error?.code, "STALE_CAPABILITY", JSON.stringify(stale));
    const staleDestructive = await page.evaluate(() => window.__devicesApp.callCaptured("domain_devices_decommission", { ids: ["dev_r0ut3r"] }, "stale-3"));
    assert.equal(staleDestructive.error?.code, "STALE_CAPABILITY", JSON.stringify(staleDestructive));
    assert.equal(await page.locator("dialog.confirm").count(), 0);
    assert.equal((await runs(page)).decommission, 1);
    assert.equal(await page.locator(".toolbar .selected").textContent(), "0 selected");
    await page.screenshot({ path: path.join(artifacts, "assistant-panel.png") });
    await page.locator("aside.assistant").screenshot({ path: path.join(artifacts, "assistant-panel-only.png") });
    assert.deepEqual(problems, []);
  });
});

// The page as a browser agent sees it through WebMCP: document.modelContext is the repository's
// in-page implementation of the draft (packages/core/test/fixtures/webmcp-polyfill.js),
// installed before the app's scripts run; the app feature-detects it (exposeToWebMCP in
// src/main.tsx). The agent here is page.evaluate calling getTools()/executeTool().
describe("the same flow through WebMCP (document.modelContext, the draft's fixture)", () => {
  let page;
  let problems;
  const polyfill = `(() => {\n${readFileSync(POLYFILL, "utf8").replace(/^export /gm, "")}\ninstallModelContext(window);\n})();`;
  // The agent's side: list the tools, call one by name, read the JSON text executeTool resolves with.
  const AGENT = () => {
    const mc = document.modelContext;
    window.__agent = {
      names: async () => (await mc.getTools()).map((t) => t.name),
      tool: async (name) => (await mc.getTools()).find((t) => t.name === name),
      exec: async (name, input) => {
        const t = await window.__agent.tool(name);
        if (!t) throw new Error(`${name} is not registered`);
        return JSON.parse(await mc.executeTool(t, input));
      },
      execTool: async (t, input) => {
        try {
          return JSON.parse(await mc.executeTool(t, input));
        } catch (e) {
          return { rejected: `${e.name}: ${e.message}` };
        }
      },
      pending: {},
      start: (key, name, input) => void (window.__agent.pending[key] = window.__agent.exec(name, input)),
    };
  };
  before(async () => {
    ({ page, problems } = await open(polyfill));
    await page.evaluate(AGENT);
    await page.waitForFunction(async () => (await window.__agent.names()).includes("view_devices_table_readState"));
  });
  after(() => page?.close());

  test("the toolset is registered with the draft's annotations; reads, filters, selects", async () => {
    assert.equal(await page.evaluate(() => window.__devicesApp.webmcp), true);
    const names = await page.evaluate(() => window.__agent.names());
    for (const n of ["view_devices_table_readState", "view_devices_table_filter", "view_devices_table_selectRows", "domain_devices_decommission", "domain_devices_reboot", "view_app_nav_navigate"]) {
      assert.ok(names.includes(n), `${n} in ${names}`);
    }
    const decommission = await page.evaluate(() => window.__agent.tool("domain_devices_decommission").then(({ window: _w, ...t }) => t));
    assert.equal(decommission.title, "domain:devices.decommission");
    assert.equal(decommission.annotations.consequentialHint, true);
    assert.equal(decommission.annotations.readOnlyHint, false);
    const read = await page.evaluate(() => window.__agent.exec("view_devices_table_readState", {}));
    assert.equal(read.status, "ok");
    assert.equal(read.output.rows.length, 8);
    const filtered = await page.evaluate(() => window.__agent.exec("view_devices_table_filter", { text: "camera" }));
    assert.equal(filtered.status, "ok");
    assert.deepEqual(await page.locator("tbody tr").evaluateAll((rows) => rows.map((r) => r.dataset.id)), ["dev_cam001", "dev_cam002"]);
    const selected = await page.evaluate(() => window.__agent.exec("view_devices_table_selectRows", { ids: ["dev_cam001"] }));
    assert.equal(selected.status, "ok");
    assert.equal(await page.textContent(".toolbar .selected"), "1 selected");
    const bad = await page.evaluate(() => window.__agent.exec("view_devices_table_selectRows", { ids: ["not-an-id"] }));
    assert.equal(bad.error.code, "INVALID_INPUT"); // WebMCP validates nothing; the pipeline does
    assert.deepEqual(problems, []);
  });

  test("a procedure declared with ArkType: its compiled schema is listed and enforced", async () => {
    const label = await page.evaluate(() => window.__agent.tool("domain_devices_label").then((t) => t.inputSchema));
    assert.deepEqual(label.required, ["id", "label"]);
    assert.deepEqual(label.properties.label, { type: "string", maxLength: 64, minLength: 1 });
    const labelled = await page.evaluate(() => window.__agent.exec("domain_devices_label", { id: "dev_r0ut3r", label: "Router" }));
    assert.equal(labelled.status, "ok", JSON.stringify(labelled));
    const badLabel = await page.evaluate(() => window.__agent.exec("domain_devices_label", { id: "dev_r0ut3r", label: "" }));
    assert.equal(badLabel.error?.code, "INVALID_INPUT", JSON.stringify(badLabel));
    const badId = await page.evaluate(() => window.__agent.exec("domain_devices_label", { id: "r0ut3r", label: "Router" }));
    assert.equal(badId.error?.code, "INVALID_INPUT", JSON.stringify(badId));
    assert.equal((await runs(page)).label, 1);
  });

  test("a procedure declared with zod 3 and zod-to-json-schema: its compiled schema is listed and enforced", async () => {
    const tag = await page.evaluate(() => window.__agent.tool("domain_devices_tag").then((t) => t.inputSchema));
    assert.deepEqual(tag.required, ["ids", "tag"]);
    assert.equal(tag.additionalProperties, false);
    assert.equal(tag.$schema, undefined); // draft-07's, dropped by the compiler and the page alike
    assert.equal(tag.properties.tag.description, "The tag to add, e.g. lab");
    const tagged = await page.evaluate(() => window.__agent.exec("domain_devices_tag", { ids: ["dev_r0ut3r"], tag: "lab" }));
    assert.equal(tagged.status, "ok", JSON.stringify(tagged));
    const badTag = await page.evaluate(() => window.__agent.exec("domain_devices_tag", { ids: ["dev_r0ut3r"], tag: "" }));
    assert.equal(badTag.error?.code, "INVALID_INPUT", JSON.stringify(badTag));
    assert.equal((await runs(page)).tag, 1);
  });

  test("decommission waits for the app's dialog; Approve runs it once, Deny never", async () => {
    await page.evaluate(() => window.__agent.start("approve", "domain_devices_decommission", { ids: ["dev_cam001"] }));
    await page.locator("dialog.confirm").waitFor();
    assert.match(await page.textContent("dialog.confirm"), /domain:devices\.decommission/);
    assert.equal((await runs(page)).decommission, 0);
    await page.screenshot({ path: path.join(artifacts, "webmcp-dialog.png") });
    await page.click("dialog.confirm button.approve");
    const approved = await page.evaluate(() => window.__agent.pending.approve);
    assert.equal(approved.status, "ok", JSON.stringify(approved));
    assert.equal((await runs(page)).decommission, 1);
    assert.equal(await page.locator('tr[data-id="dev_cam001"]').count(), 0);
    assert.equal(rpc.state.decommissioned.has("dev_cam001"), true);
    const served = rpc.state.runs;

    await page.evaluate(() => window.__agent.start("deny", "domain_devices_decommission", { ids: ["dev_cam002"] }));
    await page.locator("dialog.confirm").waitFor();
    await page.click("dialog.confirm button.deny");
    const denied = await page.evaluate(() => window.__agent.pending.deny);
    assert.equal(denied.error?.code, "CONFIRMATION_DENIED", JSON.stringify(denied));
    assert.equal((await runs(page)).decommission, 1);
    assert.equal(rpc.state.runs, served);
    assert.equal(rpc.state.decommissioned.has("dev_cam002"), false);
  });

  test("unmounted mid-call: COMPONENT_UNMOUNTED; after navigation the table's tools are unregistered", async () => {
    const oldTool = await page.evaluate(() => window.__agent.tool("view_devices_table_selectRows").then((t) => (window.__oldTool = t, t.name)));
    assert.equal(oldTool, "view_devices_table_selectRows");
    await page.evaluate(() => window.__agent.start("reboot", "domain_devices_reboot", { ids: ["dev_cam002"] }));
    await page.waitForSelector(".toolbar .busy");
    await page.click('nav a[href="/reports"]');
    const reboot = await page.evaluate(() => window.__agent.pending.reboot);
    assert.equal(reboot.error?.code, "COMPONENT_UNMOUNTED", JSON.stringify(reboot));
    await page.waitForFunction(async () => !(await window.__agent.names()).includes("view_devices_table_readState"));
    const names = await page.evaluate(() => window.__agent.names());
    assert.deepEqual(names.filter((n) => n.startsWith("view_devices_table") || n.startsWith("domain_devices")), []);
    assert.ok(names.includes("view_app_nav_navigate"));
    // The old RegisteredTool never reaches the page: the user agent refuses it.
    const stale = await page.evaluate(() => window.__agent.execTool(window.__oldTool, { ids: ["dev_r0ut3r"] }));
    assert.match(stale.rejected ?? "", /UnknownError/, JSON.stringify(stale));
    await page.waitForTimeout(1800);
    assert.equal((await runs(page)).reboot, 0);
    // The agent navigates back; the table's tools come back as a new registration.
    const nav = await page.evaluate(() => window.__agent.exec("view_app_nav_navigate", { to: "/devices" }));
    assert.equal(nav.status, "ok");
    await page.waitForFunction(async () => (await window.__agent.names()).includes("view_devices_table_readState"));
    assert.equal((await page.evaluate(() => window.__agent.exec("view_devices_table_readState", {}))).status, "ok");
    assert.deepEqual(problems, []);
  });

  test("the Valibot and TypeBox contracts: rename (Valibot) and ping (TypeBox) run with their compiled schemas", async () => {
    const renamed = await page.evaluate(() => window.__agent.exec("domain_devices_rename", { id: "dev_pr1nt1", name: "Front desk printer" }));
    assert.equal(renamed.status, "ok", JSON.stringify(renamed));
    assert.match(await page.textContent('tr[data-id="dev_pr1nt1"] td:nth-child(2)'), /^Front desk printer dev_pr1nt1$/);
    assert.equal((await runs(page)).rename, 1);
    // minLength 1 from Valibot's v.minLength(1), compiled into the manifest's input schema
    const empty = await page.evaluate(() => window.__agent.exec("domain_devices_rename", { id: "dev_pr1nt1", name: "" }));
    assert.equal(empty.error?.code, "INVALID_INPUT", JSON.stringify(empty));
    // additionalProperties: false from v.strictObject
    const extra = await page.evaluate(() => window.__agent.exec("domain_devices_rename", { id: "dev_pr1nt1", name: "x", color: "red" }));
    assert.equal(extra.error?.code, "INVALID_INPUT", JSON.stringify(extra));
    assert.equal((await runs(page)).rename, 1);
    const ping = await page.evaluate(() => window.__agent.exec("domain_devices_ping", { ids: ["dev_pr1nt2", "dev_pr1nt1", "dev_nope00"] }));
    assert.equal(ping.status, "ok", JSON.stringify(ping));
    assert.deepEqual(ping.output, { reachable: ["dev_pr1nt2"], unreachable: ["dev_pr1nt1", "dev_nope00"] });
    const tooMany = await page.evaluate(() => window.__agent.exec("domain_devices_ping", { ids: ["dev_pr1nt1"], attempts: 9 }));
    assert.equal(tooMany.error?.code, "INVALID_INPUT", JSON.stringify(tooMany));
    assert.deepEqual(problems, []);
  });
});

// `npm run dev`: the Vite dev server (development registry, StrictMode's double mount) serves
// the same app; the assistant reads the table and the dialog gates a decommission.
describe("the dev server (npm run dev)", () => {
  let server;
  let page;
  let problems;
  before(async () => {
    server = await createViteServer({ root, logLevel: "warn", server: { host: "127.0.0.1", port: 0 } });
    await server.listen();
    ({ page, problems } = await open(undefined, server.resolvedUrls.local[0].replace(/\/$/, "")));
  });
  after(async () => {
    await page?.close();
    await server?.close();
  });

  test("the assistant works in development too", async () => {
    assert.match(await ask(page, "show devices"), /I see 8 device\(s\)/);
    await send(page, "decommission dev_ap0002");
    await page.locator("dialog.confirm").waitFor();
    await page.click("dialog.confirm button.approve");
    await page.waitForFunction(() => [...document.querySelectorAll(".log li.tool")].pop()?.dataset.state === "ok");
    assert.equal((await runs(page)).decommission, 1); // StrictMode's double mount registers once
    assert.equal(await page.locator('tr[data-id="dev_ap0002"]').count(), 0);
    assert.deepEqual(problems, []);
  });
});
