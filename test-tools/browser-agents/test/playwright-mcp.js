// @playwright/mcp 0.0.83 (the published server, run as its CLI over stdio) driven by the official
// MCP TypeScript SDK client, attached over CDP to the suite's Chromium. It re-exposes the page's
// WebMCP tools as `webmcp_<name>` and calls them with `document.modelContext.executeTool(tool,
// input)` in the page. The test is also the user: through puppeteer-core on the same browser it
// reads the page's own counters (`window.__devicesApp.runs`) and answers the page's dialog.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { here } from "./harness.js";

/** The page's tools, as the page itself lists them (getTools()), by name. */
export const pageToolNames = (page) => page.evaluate(async () => (await document.modelContext.getTools()).map((t) => t.name).sort());
export const pageRuns = (page) => page.evaluate(() => ({ ...window.__devicesApp.runs }));
const text = (result) => result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
/** The envelope the page resolved with: the JSON after the relay's preamble line. */
const envelope = (result) => {
  const t = text(result);
  return JSON.parse(t.slice(t.indexOf("{")));
};

/** Starts @playwright/mcp attached to `chrome` and connects the SDK client to it. */
export async function startPlaywrightMcp(chrome) {
  const dir = mkdtempSync(path.join(tmpdir(), "playwright-mcp-"));
  const config = path.join(dir, "config.json");
  writeFileSync(config, JSON.stringify({ browser: { cdpEndpoint: chrome.httpEndpoint }, outputDir: path.join(dir, "out") }));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(here, "node_modules/@playwright/mcp/cli.js"), "--config", config],
    cwd: dir,
    stderr: "pipe",
  });
  const client = new Client({ name: "agent-surface-browser-agents", version: "0.0.0" });
  await client.connect(transport);
  return {
    client,
    async close() {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until the page shows the confirmation dialog for `capabilityId`; returns its text. */
export async function dialogFor(page, capabilityId) {
  await page.waitForFunction((id) => document.querySelector("dialog.confirm")?.textContent.includes(id), { timeout: 15_000 }, capabilityId);
  return page.$eval("dialog.confirm", (d) => d.textContent);
}

export function playwrightMcpSuite(ctx) {
  describe("@playwright/mcp 0.0.83 through the MCP TypeScript SDK client", () => {
    let mcp;
    let page; // the user's view of the same tab (puppeteer-core)
    before(async () => {
      mcp = await startPlaywrightMcp(ctx.chrome);
      const nav = await mcp.client.callTool({ name: "browser_navigate", arguments: { url: `${ctx.origin}/devices` } });
      assert.notEqual(nav.isError, true, text(nav));
      page = await ctx.findPage(`${ctx.origin}/devices`);
      await page.waitForSelector('section.devices[data-agent-status="active"]');
    });
    after(async () => {
      await mcp?.close();
    });

    test("the page's tools are listed as webmcp_<name>, with the page's descriptions and titles", async () => {
      // The relay collects the tools with the page snapshot: take one so the listing is current.
      await mcp.client.callTool({ name: "browser_snapshot", arguments: {} });
      const { tools } = await mcp.client.listTools();
      const relayed = tools.filter((t) => t.name.startsWith("webmcp_"));
      const names = await pageToolNames(page);
      assert.ok(names.length >= 10, `the page registers its toolset: ${names}`);
      assert.deepEqual(relayed.map((t) => t.name).sort(), names.map((n) => `webmcp_${n}`));
      for (const t of relayed) assert.ok(t.name.length <= 64, `${t.name} fits the providers' 64 characters`);
      const decommission = relayed.find((t) => t.name === "webmcp_domain_devices_decommission");
      assert.equal(decommission.annotations.title, "domain:devices.decommission");
      assert.match(decommission.description, /\[CONSEQUENTIAL: .*\] \[domain · destructive · required\] /);
      assert.deepEqual(decommission.inputSchema.required, ["ids"]);
      const read = relayed.find((t) => t.name === "webmcp_view_devices_table_readState");
      assert.equal(read.annotations.readOnlyHint, true);
      assert.match(read.description, /\[READ-ONLY\] \[view · read · never\]/);
      // The component's description reaches the agent with each of its tools (at most 300 characters of it).
      assert.match(read.description, /\n\nComponent devices\.table: \S/);
      assert.doesNotMatch(decommission.description, /Component /); // a procedure belongs to no component
    });

    test("calls run in the page: a read, a filter and a selection", async () => {
      const read = await mcp.client.callTool({ name: "webmcp_view_devices_table_readState", arguments: {} });
      assert.notEqual(read.isError, true, text(read));
      const state = envelope(read);
      assert.equal(state.status, "ok");
      assert.equal(state.output.rows.length, 8);
      const filter = await mcp.client.callTool({ name: "webmcp_view_devices_table_filter", arguments: { text: "camera" } });
      assert.equal(envelope(filter).status, "ok", text(filter));
      assert.deepEqual(await page.$$eval("tbody tr", (rows) => rows.map((r) => r.dataset.id)), ["dev_cam001", "dev_cam002"]);
      const select = await mcp.client.callTool({ name: "webmcp_view_devices_table_selectRows", arguments: { ids: ["dev_cam002"] } });
      assert.equal(envelope(select).status, "ok", text(select));
      assert.equal(await page.$eval(".toolbar .selected", (e) => e.textContent), "1 selected");
    });

    test("errors reach the MCP client as errors: isError set, the envelope's code in the text", async () => {
      const bad = await mcp.client.callTool({ name: "webmcp_view_devices_table_selectRows", arguments: { ids: ["not-an-id"] } });
      assert.equal(bad.isError, true, text(bad));
      const env = envelope(bad);
      assert.equal(env.status, "error");
      assert.equal(env.error.code, "INVALID_INPUT");
      assert.equal(env.error.details.issues[0].path, "/ids/0");
    });

    test("a destructive call waits for the user: a denial runs it 0 times, an approval exactly once, a redelivery needs a new approval", async () => {
      const call = () => mcp.client.callTool({ name: "webmcp_domain_devices_decommission", arguments: { ids: ["dev_cam001"] } });
      const start = await pageRuns(page);

      // Denied in the page's dialog: the handler never runs; the client gets an error.
      const denied = call();
      assert.match(await dialogFor(page, "domain:devices.decommission"), /dev_cam001/);
      assert.equal((await pageRuns(page)).decommission, start.decommission);
      await page.click("dialog.confirm button.deny");
      const deniedResult = await denied;
      assert.equal(deniedResult.isError, true, text(deniedResult));
      assert.equal(envelope(deniedResult).error.code, "CONFIRMATION_DENIED");
      assert.equal((await pageRuns(page)).decommission, start.decommission);
      assert.equal(await page.$$eval('tr[data-id="dev_cam001"]', (r) => r.length), 1);

      // Approved: exactly one run.
      const approved = call();
      await dialogFor(page, "domain:devices.decommission");
      assert.equal((await pageRuns(page)).decommission, start.decommission, "nothing runs before the approval");
      await page.click("dialog.confirm button.approve");
      const approvedResult = await approved;
      assert.notEqual(approvedResult.isError, true, text(approvedResult));
      assert.equal(envelope(approvedResult).status, "ok");
      assert.equal((await pageRuns(page)).decommission, start.decommission + 1);

      // The same request delivered again (the relay passes no call id into the page): it does not
      // run on the earlier approval; it waits for a new one, and a denial leaves the count at one.
      const redelivered = call();
      await dialogFor(page, "domain:devices.decommission");
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await pageRuns(page)).decommission, start.decommission + 1, "a redelivery does not run on the old approval");
      await page.click("dialog.confirm button.deny");
      const redeliveredResult = await redelivered;
      assert.equal(redeliveredResult.isError, true);
      assert.equal(envelope(redeliveredResult).error.code, "CONFIRMATION_DENIED");
      assert.equal((await pageRuns(page)).decommission, start.decommission + 1);
    });
  });
}
