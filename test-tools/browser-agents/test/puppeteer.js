// puppeteer-core 25.16's page.webmcp: the DevTools protocol's WebMCP domain (Chromium with
// DevToolsWebMCPSupport), the browser agent's side of document.modelContext. It lists the page's
// tools with their annotations and executes them; results come back as objects.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { repo } from "./harness.js";
import { pageToolNames } from "./playwright-mcp.js";

/** packages/core's fixtures of the Chrome 160 `Tool` shape and the explicit attribute reader, as a page script. */
const FIXTURES = ["webmcp-chrome160.js", "webmcp-tool-attributes.js"]
  .map((f) => readFileSync(path.join(repo, "packages/core/test/fixtures", f), "utf8").replace(/^export /gm, ""))
  .join("\n");

/** Resolves once page.webmcp lists `name` (the domain reports tools as they are registered). */
async function waitForTool(page, name) {
  for (let i = 0; i < 100; i++) {
    const tool = page.webmcp.tools().find((t) => t.name === name);
    if (tool) return tool;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`page.webmcp never listed ${name}: ${page.webmcp.tools().map((t) => t.name)}`);
}

export function puppeteerSuite(ctx) {
  describe("puppeteer-core 25.16 page.webmcp (the DevTools protocol's WebMCP domain)", () => {
    let page;
    before(async () => {
      page = await ctx.browser.newPage();
      await page.goto(`${ctx.origin}/devices`);
      await page.waitForSelector('section.devices[data-agent-status="active"]');
      await waitForTool(page, "view_devices_table_readState");
    });
    after(() => page?.close());

    test("lists every tool of the page with its description, projected schema and annotations", async () => {
      const tools = page.webmcp.tools();
      assert.deepEqual(tools.map((t) => t.name).sort(), await pageToolNames(page));
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      const decommission = byName.domain_devices_decommission;
      assert.match(decommission.description, /^\[domain · destructive · required\] /);
      assert.equal(decommission.inputSchema.type, "object");
      assert.deepEqual(decommission.inputSchema.required, ["ids"]);
      // The draft's hints under the DevTools protocol's short names.
      assert.equal(decommission.annotations.consequential, true);
      assert.equal(decommission.annotations.readOnly, false);
      const read = byName.view_devices_table_readState;
      assert.equal(read.annotations.readOnly, true);
      assert.equal(read.annotations.consequential, false);
      assert.equal(byName.view_devices_table_filter.annotations.readOnly, false);
      assert.equal(byName.view_devices_table_filter.annotations.consequential, false); // local UI state
      assert.equal(decommission.frame, page.mainFrame());
    });

    test("tool attributes read explicitly: Chromium 156's getTools() and the Chrome 160 Tool shape over it agree", async () => {
      await page.evaluate(`(() => { ${FIXTURES}; window.__asChrome160 = asChrome160; window.__toolAttributes = toolAttributes; })()`);
      const { old, now, spread, viaTool } = await page.evaluate(async () => {
        const mc = document.modelContext;
        const chrome160 = window.__asChrome160(mc);
        const strip = (list) => list.map((t) => ({ ...window.__toolAttributes(t), source: t === undefined ? null : window.__toolAttributes(t).source === window }));
        const tools160 = await chrome160.getTools();
        const readState = tools160.find((t) => t.name === "view_devices_table_readState");
        return {
          old: strip(await mc.getTools()),
          now: strip(tools160),
          spread: JSON.stringify(tools160[0]),
          viaTool: JSON.parse(await chrome160.executeTool(readState, {})),
        };
      });
      assert.equal(spread, "{}");
      assert.deepEqual(now, old);
      assert.deepEqual(now.map((t) => t.name).sort(), await pageToolNames(page));
      const decommission = now.find((t) => t.name === "domain_devices_decommission");
      assert.equal(decommission.title, "domain:devices.decommission");
      assert.equal(decommission.source, true);
      assert.deepEqual(decommission.annotations, { readOnlyHint: false, untrustedContentHint: false, consequentialHint: true, debugging: false });
      assert.deepEqual(decommission.inputSchema.required, ["ids"]);
      assert.equal(viaTool.status, "ok");
    });

    test("every input schema Chromium holds is inside PR #289's allow-list (what registerTool will reject with a TypeError)", () => {
      // The allow-list of WebMCP spec PR #289 (tentative web-platform-tests, wpt #62426): these
      // keywords only, additionalProperties only false, a pattern that compiles as a RegExp.
      const ALLOWED = new Set(["type", "properties", "required", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern", "items", "prefixItems", "additionalProperties", "default", "description"]);
      const problems = [];
      const check = (s, at) => {
        if (typeof s !== "object" || s === null || Array.isArray(s)) return problems.push(`${at}: not a schema object`);
        for (const [k, v] of Object.entries(s)) {
          if (!ALLOWED.has(k)) problems.push(`${at}/${k}: keyword outside the allow-list`);
          if (k === "type" && typeof v !== "string") problems.push(`${at}/type: not one type`);
          if (k === "additionalProperties" && v !== false) problems.push(`${at}/additionalProperties: only false`);
          if (k === "pattern") {
            try {
              new RegExp(v);
            } catch {
              problems.push(`${at}/pattern: does not compile`);
            }
          }
          if (k === "properties") for (const [n, p] of Object.entries(v)) check(p, `${at}/properties/${n}`);
          if (k === "items") check(v, `${at}/items`);
          if (k === "prefixItems") v.forEach((p, i) => check(p, `${at}/prefixItems/${i}`));
        }
      };
      const tools = page.webmcp.tools();
      assert.ok(tools.length >= 10);
      for (const t of tools) check(t.inputSchema, t.name);
      assert.deepEqual(problems, []);
      // The check itself refuses what the tentative tests refuse.
      const before = problems.length;
      check({ type: "object", properties: { x: { type: "string", format: "email" } }, additionalProperties: true }, "probe");
      check({ type: ["string", "null"], pattern: "[" }, "probe2");
      assert.deepEqual(problems.slice(before), [
        "probe/properties/x/format: keyword outside the allow-list",
        "probe/additionalProperties: only false",
        "probe2/type: not one type",
        "probe2/pattern: does not compile",
      ]);
    });

    test("executes a read, a filter and a selection; an invalid input is an error envelope", async () => {
      const read = await (await waitForTool(page, "view_devices_table_readState")).execute({});
      assert.equal(read.status, "Completed", JSON.stringify(read));
      assert.equal(read.output.status, "ok");
      assert.equal(read.output.output.rows.length, 8);
      assert.equal(read.output.capabilityId, "view:devices.table.readState");

      const filter = await page.webmcp.tools().find((t) => t.name === "view_devices_table_filter").execute({ text: "printer" });
      assert.equal(filter.status, "Completed");
      assert.equal(filter.output.status, "ok", JSON.stringify(filter.output));
      assert.deepEqual(await page.$$eval("tbody tr", (rows) => rows.map((r) => r.dataset.id)), ["dev_pr1nt2", "dev_pr1nt1"]);

      const select = await page.webmcp.tools().find((t) => t.name === "view_devices_table_selectRows").execute({ ids: ["dev_pr1nt1", "dev_pr1nt2"] });
      assert.equal(select.output.status, "ok", JSON.stringify(select.output));
      assert.equal(await page.$eval(".toolbar .selected", (e) => e.textContent), "2 selected");
      const selection = await page.webmcp.tools().find((t) => t.name === "view_devices_table_readSelection").execute({});
      assert.deepEqual([...selection.output.output.ids].sort(), ["dev_pr1nt1", "dev_pr1nt2"]);

      const bad = await page.webmcp.tools().find((t) => t.name === "view_devices_table_selectRows").execute({ ids: ["nope"] });
      assert.equal(bad.status, "Completed");
      assert.equal(bad.output.isError, true);
      assert.equal(bad.output.error.code, "INVALID_INPUT");
      assert.equal(await page.$eval(".toolbar .selected", (e) => e.textContent), "2 selected");
    });
  });
}
