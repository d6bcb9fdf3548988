// The Rsbuild example end to end: `rsbuild build` (Rsbuild 2 on Rspack, with
// @agent-surface/unplugin/rsbuild) served statically, in headless Chromium (playwright-core
// driving /usr/bin/chromium). A browser agent (WebMCP: the repository's in-page
// document.modelContext of the draft) lists the page's tools, reads the devices table and calls
// decommission, which waits for the app's own dialog; the test plays the user who approves.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { createRsbuild, loadConfig } from "@rsbuild/core";
import { chromium } from "playwright-core";

const root = fileURLToPath(new URL("..", import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const POLYFILL = path.join(root, "../../packages/core/test/fixtures/webmcp-polyfill.js");
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".map": "application/json" };

function serve(dir) {
  const server = createServer((req, res) => {
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
let manifest;

before(async () => {
  const binary = process.env.AGENT_SURFACE_BINARY;
  if (!binary || !existsSync(binary)) throw new Error("AGENT_SURFACE_BINARY must name a built agent-surface binary");
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium, or set CHROMIUM_PATH`);
  const out = path.join(mkdtempSync(path.join(tmpdir(), "rsbuild-app-")), "m.json");
  execFileSync(binary, ["compile", root, "--out", out], { stdio: "pipe" });
  manifest = JSON.parse(readFileSync(out, "utf8"));
  const { content } = await loadConfig({ cwd: root });
  const rsbuild = await createRsbuild({ cwd: root, rsbuildConfig: content });
  await rsbuild.build();
  http = await serve(path.join(root, "dist"));
  origin = `http://127.0.0.1:${http.address().port}`;
  userDataDir = mkdtempSync(path.join(tmpdir(), "rsbuild-app-chromium-"));
  browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--enable-features=WebMCP"],
  });
});

after(async () => {
  await browser?.close();
  await new Promise((r) => (http ? http.close(r) : r()));
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

test("load, register, invoke, confirm (WebMCP in headless Chromium)", async () => {
  const page = await browser.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  await page.addInitScript(`(() => {\n${readFileSync(POLYFILL, "utf8").replace(/^export /gm, "")}\ninstallModelContext(window);\n})();`);
  await page.goto(origin);
  await page.waitForSelector('section.devices[data-agent-status="active"]').catch((e) => {
    throw new Error(`${e.message}\npage problems: ${JSON.stringify(problems)}`);
  });
  await page.evaluate(() => {
    const mc = document.modelContext;
    window.__agent = {
      names: async () => (await mc.getTools()).map((t) => t.name),
      exec: async (name, input) => {
        const t = (await mc.getTools()).find((x) => x.name === name);
        if (!t) throw new Error(`${name} is not registered`);
        return JSON.parse(await mc.executeTool(t, input));
      },
      pending: {},
      start: (key, name, input) => void (window.__agent.pending[key] = window.__agent.exec(name, input)),
    };
  });
  await page.waitForFunction(async () => (await window.__agent.names()).includes("domain_devices_decommission"));
  // The plugin's authority is the compiler's manifest, and it verified every contract's provenance.
  assert.equal(await page.evaluate(() => window.__devicesApp.manifestHash), manifest.manifestHash);
  assert.equal(await page.evaluate(() => window.__devicesApp.webmcp), true);
  const names = await page.evaluate(() => window.__agent.names());
  for (const n of ["view_devices_table_readState", "view_devices_table_selectRows", "domain_devices_decommission", "domain_devices_reboot"]) {
    assert.ok(names.includes(n), `${n} in ${names}`);
  }
  const read = await page.evaluate(() => window.__agent.exec("view_devices_table_readState", {}));
  assert.equal(read.status, "ok", JSON.stringify(read));
  assert.equal(read.output.rows.length, 8);
  await page.evaluate(() => window.__agent.start("approve", "domain_devices_decommission", { ids: ["dev_cam001"] }));
  await page.locator("dialog.confirm").waitFor();
  assert.match(await page.textContent("dialog.confirm"), /domain:devices\.decommission/);
  assert.equal(await page.textContent('[data-runs="decommission"]'), "0");
  await page.click("dialog.confirm button.approve");
  const approved = await page.evaluate(() => window.__agent.pending.approve);
  assert.equal(approved.status, "ok", JSON.stringify(approved));
  assert.equal(await page.textContent('[data-runs="decommission"]'), "1");
  assert.equal(await page.locator('tr[data-id="dev_cam001"]').count(), 0);
  assert.deepEqual(problems, []);
  await page.close();
});
