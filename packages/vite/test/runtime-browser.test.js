// The runtime in the page, in headless Chromium: the example app built with Vite creates the
// registry from virtual:agent-surface/authority, registers its bound components, and an agent
// (driven from here through page.evaluate) snapshots, invokes an observation and an action, gets
// CONFIRMATION_REQUIRED for the destructive procedure, approves through confirmations.resolve,
// retries once, and builds direct and meta toolsets. The shared engine scenarios
// (conformance/scenarios) then run through the same page's JavaScript API.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { build } from "vite";
import { afterAll, beforeAll, expect, test } from "vitest";
import agentSurface from "../src/index.js";
import { CHROMIUM, copyApp, coreDir, repoDir, serveDir, viteConfig } from "./helpers.js";


const HTML = `<!doctype html>
<html lang="en">
  <head><meta charset="UTF-8" /><link rel="icon" href="data:," /><title>runtime</title></head>
  <body><pre id="ready"></pre><script type="module" src="/src/runtime-main.ts"></script></body>
</html>
`;

// What the app's own code would do: one registry from the verified authority, the table and
// the navigation bound to live state, the domain procedures referenced by the table.
const MAIN = `import authority from "virtual:agent-surface/authority";
import * as core from "@agent-surface/core";
import { explainSurface } from "@agent-surface/core/explain";
import { devicesTableContract } from "./components/DevicesTable";
import { rebootDevices } from "./domain/devices";
import { decommissionDevices } from "./domain/procedures";
import { appNavContract } from "./routes/AppNav";
import { runScenario } from "./scenario-runner.js";

type Row = { id: string; name: string; status: "online" | "offline" | "maintenance"; lastSeen: string | null };
const state = {
  rows: [
    { id: "dev_aaaaaa", name: "router", status: "online", lastSeen: null },
    { id: "dev_bbbbbb", name: "printer", status: "offline", lastSeen: "2026-11-30T10:00:00Z" },
  ] as Row[],
  selection: [] as string[],
  sort: "name" as "name" | "status" | "lastSeen",
  filter: "",
  path: "/devices",
  decommissioned: [] as string[],
  rebooted: [] as string[],
};

const registry = core.createAgentSurfaceRegistry({ authority, environment: "development" });
const table = registry.register(
  devicesTableContract.bind({
    observations: {
      readState: { read: () => ({ rows: state.rows, sort: state.sort, filter: state.filter }) },
      readSelection: { read: () => ({ ids: state.selection }) },
    },
    actions: {
      selectRows: { execute: ({ ids }) => { state.selection = ids; } },
      clearSelection: { execute: () => { state.selection = []; } },
      sortBy: { execute: ({ column }) => { state.sort = column; } },
      filter: { execute: ({ text }) => { state.filter = text; } },
    },
    procedures: [
      decommissionDevices.bind({
        execute: async ({ ids }, ctx) => {
          if (ctx.confirmation === undefined) throw new Error("ran without confirmation evidence");
          state.decommissioned.push(...ids);
          state.rows = state.rows.filter((r) => !ids.includes(r.id));
        },
      }),
      rebootDevices.bind({ execute: ({ ids }) => { state.rebooted.push(...ids); return { scheduled: ids.length }; } }),
    ],
  }),
);
const nav = registry.register(
  appNavContract.bind({
    observations: { currentRoute: { read: () => ({ path: state.path }) } },
    actions: { navigate: { execute: ({ to }) => { state.path = to; } } },
  }),
);
(window as any).__agent = { core, explainSurface, runScenario, registry, state, handles: { table, nav } };
document.getElementById("ready")!.textContent = [table.status, nav.status].join(" ");
`;


let app;
let http;
let browser;
let page;
let userDataDir;
const problems = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium), or set CHROMIUM_PATH`);
  }
  app = copyApp({ entry: false });
  writeFileSync(path.join(app.root, "index.html"), HTML);
  writeFileSync(path.join(app.root, "src/runtime-main.ts"), MAIN);
  copyFileSync(path.join(coreDir, "test/scenarios/runner.js"), path.join(app.root, "src/scenario-runner.js"));
  await build(await viteConfig(app.root, [agentSurface()]));
  http = await serveDir(path.join(app.root, "dist"));
  userDataDir = mkdtempSync(path.join(tmpdir(), "agent-surface-chromium-"));
  browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"],
  });
  page = await browser.newPage();
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  await page.goto(`http://127.0.0.1:${http.address().port}/`);
  await page.waitForFunction(() => document.getElementById("ready")?.textContent !== "", null, { timeout: 15000 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => (http ? http.close(r) : r()));
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  await app?.cleanup();
});

test("the page registers its bound components from the verified authority", async () => {
  expect(await page.textContent("#ready")).toBe("active active");
  const snap = await page.evaluate(() => window.__agent.registry.snapshot());
  expect(snap.surfaceVersion).toBe("2");
  expect(snap.surfaceId).toMatch(/^srf_[0-9A-Za-z]{22}$/);
  expect(snap.components.map((c) => c.type)).toEqual(["devices.table", "app.nav"]); // priority 10 first
  expect(snap.procedures.map((p) => p.capabilityId)).toEqual(["domain:devices.decommission", "domain:devices.reboot"]);
  expect(problems).toEqual([]);
});

test("an agent reads, acts, is asked to confirm the destructive procedure, and retries once after approval", async () => {
  const outcome = await page.evaluate(async () => {
    const { registry, state } = window.__agent;
    const consumer = { id: "assistant", kind: "embedded" };
    const read = await registry.invoke({ capabilityId: "view:devices.table.readState" }, { consumer });
    const select = await registry.invoke({ capabilityId: "view:devices.table.selectRows", input: { ids: ["dev_bbbbbb"] } }, { consumer });
    const selection = await registry.invoke({ capabilityId: "view:devices.table.readSelection" }, { consumer });
    const first = await registry.invoke({ capabilityId: "domain:devices.decommission", input: { ids: state.selection }, invocationId: "call-1" }, { consumer });
    const pending = registry.confirmations.pending();
    const ranBefore = state.decommissioned.length;
    registry.confirmations.resolve(first.error.details.confirmationId, { approved: true });
    const retry = await registry.invoke(
      { capabilityId: "domain:devices.decommission", input: { ids: ["dev_bbbbbb"] }, invocationId: "call-1", confirmationId: first.error.details.confirmationId },
      { consumer },
    );
    const again = await registry.invoke(
      { capabilityId: "domain:devices.decommission", input: { ids: ["dev_bbbbbb"] }, invocationId: "call-2", confirmationId: first.error.details.confirmationId },
      { consumer },
    );
    return { read, select, selection, first, pending, ranBefore, retry, again, decommissioned: state.decommissioned, rows: state.rows.map((r) => r.id) };
  });
  expect(outcome.read.status).toBe("ok");
  expect(outcome.read.output.rows).toHaveLength(2);
  expect(outcome.select).toMatchObject({ status: "ok", capabilityId: "view:devices.table.selectRows" });
  expect(outcome.selection.output).toEqual({ ids: ["dev_bbbbbb"] });
  expect(outcome.first.status).toBe("error");
  expect(outcome.first.error.code).toBe("CONFIRMATION_REQUIRED");
  expect(outcome.pending).toHaveLength(1);
  expect(outcome.pending[0]).toMatchObject({ capabilityId: "domain:devices.decommission", effect: "destructive", consumerKey: "embedded:assistant", input: { ids: ["dev_bbbbbb"] } });
  expect(outcome.ranBefore).toBe(0);
  expect(outcome.retry).toMatchObject({ status: "ok", invocationId: "call-1" });
  expect(outcome.again.status).toBe("error"); // the evidence is single use
  expect(outcome.decommissioned).toEqual(["dev_bbbbbb"]);
  expect(outcome.rows).toEqual(["dev_aaaaaa"]);
  expect(problems).toEqual([]);
});

test("direct and meta toolsets over the page's registry", async () => {
  const out = await page.evaluate(async () => {
    const { core, registry, state } = window.__agent;
    const consumer = { id: "webmcp", kind: "webmcp" };
    const direct = core.createAgentToolset(registry, { consumer, topology: "remote" });
    const tools = direct.tools();
    const nav = tools.find((t) => t.name === "view_app_nav_navigate");
    const navigated = await nav.execute({ to: "/reports" }, { toolCallId: "tc-1" });
    const reboot = tools.find((t) => t.name === "domain_devices_reboot");
    const asked = await reboot.execute({ ids: ["dev_aaaaaa"] }, { toolCallId: "tc-2" });
    const meta = core.createAgentToolset(registry, { consumer, topology: "remote", mode: "meta" });
    const metaTools = meta.tools();
    const discovered = await metaTools.find((t) => t.name === "surface_discover").execute({}, { toolCallId: "tc-3" });
    const current = await metaTools.find((t) => t.name === "surface_read").execute({ capabilityId: "view:app.nav.currentRoute" }, { toolCallId: "tc-4" });
    return {
      names: tools.map((t) => t.name),
      wire: [...direct.wireNameMap()].length,
      navigated,
      path: state.path,
      asked,
      rebooted: state.rebooted,
      metaNames: metaTools.map((t) => t.name),
      discovered: discovered.status,
      current,
      openai: direct.toolBlock("openai").length,
    };
  });
  expect(out.names).toContain("view_devices_table_readState");
  expect(out.names).toContain("domain_devices_decommission");
  expect(out.wire).toBe(out.names.length);
  expect(out.navigated).toMatchObject({ status: "ok", invocationId: "tc-1" });
  expect(out.path).toBe("/reports");
  // The reboot is a mutation: no confirmation, it runs.
  expect(out.asked).toMatchObject({ status: "ok", output: { scheduled: 1 } });
  expect(out.rebooted).toEqual(["dev_aaaaaa"]);
  expect(out.metaNames).toEqual(["surface_discover", "surface_invoke", "surface_read"]);
  expect(out.discovered).toBe("ok");
  expect(out.current).toMatchObject({ status: "ok", output: { path: "/reports" } });
  expect(out.openai).toBe(out.names.length);
  expect(problems).toEqual([]);
});

test("the shared engine scenarios pass through the page's JavaScript API", async () => {
  const dir = path.join(repoDir, "conformance/scenarios");
  const manifest = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));
  const files = readdirSync(dir).filter((f) => f.endsWith(".json") && f !== "manifest.json").sort();
  const docs = files.map((file) => ({ file, scenarios: JSON.parse(readFileSync(path.join(dir, file), "utf8")).scenarios }));
  const failures = await page.evaluate(
    async ({ docs, manifest }) => {
      const { core, explainSurface, runScenario } = window.__agent;
      const failed = [];
      let ran = 0;
      for (const { file, scenarios } of docs) {
        for (const scenario of scenarios) {
          ran += 1;
          try {
            await runScenario({ core, explainSurface, manifest, file, scenario });
          } catch (e) {
            failed.push(String(e.message));
          }
        }
      }
      return { ran, failed };
    },
    { docs, manifest },
  );
  expect(failures.failed).toEqual([]);
  expect(failures.ran).toBe(docs.reduce((n, d) => n + d.scenarios.length, 0));
  expect(failures.ran).toBeGreaterThanOrEqual(250);
}, 240_000); // 629 scenarios took 26 s on a quiet machine; CI's may be loaded
