// Lighthouse 13.5's Agentic Browsing category (`--only-categories=agentic-browsing`) on the
// built example app, run as its CLI against the suite's Chromium (`--port`): the
// `webmcp-registered-tools` audit lists every tool the page registers and the schema-validity
// audit passes. The category score is printed (docs/webmcp.md records it).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { here } from "./harness.js";
import { pageToolNames } from "./playwright-mcp.js";

export function lighthouseSuite(ctx) {
  describe("Lighthouse 13.5, Agentic Browsing category", () => {
    let report;
    let names;
    let dir;
    before(async () => {
      dir = mkdtempSync(path.join(tmpdir(), "lighthouse-"));
      const out = path.join(dir, "report.json");
      const url = `${ctx.origin}/devices`;
      await promisify(execFile)(
        process.execPath,
        [
          path.join(here, "node_modules/lighthouse/cli/index.js"),
          url,
          `--port=${ctx.chrome.port}`,
          "--only-categories=agentic-browsing",
          "--output=json",
          `--output-path=${out}`,
          "--quiet",
          "--form-factor=desktop",
          "--screenEmulation.disabled",
          "--throttling-method=provided",
        ],
        { timeout: 300_000, maxBuffer: 16 << 20 },
      );
      report = JSON.parse(readFileSync(out, "utf8"));
      const page = await ctx.browser.newPage();
      await page.goto(url);
      await page.waitForSelector('section.devices[data-agent-status="active"]');
      names = await pageToolNames(page);
      await page.close();
    });
    after(() => dir && rmSync(dir, { recursive: true, force: true }));

    test("webmcp-registered-tools lists every tool the page registers, with its schema", () => {
      const audit = report.audits["webmcp-registered-tools"];
      const sections = audit.details.items.filter((i) => i.type === "list-section");
      const imperative = sections.find((s) => /Imperative/.test(s.title));
      assert.ok(imperative, JSON.stringify(audit.details).slice(0, 500));
      const listed = imperative.value.items.map((i) => i.tool).sort();
      assert.ok(names.length >= 10);
      assert.deepEqual(listed, names);
      for (const item of imperative.value.items) {
        assert.equal(JSON.parse(item.inputSchema).type, "object", item.tool);
        assert.match(item.description, /^\[(view|domain|external) · /, item.tool);
      }
    });

    test("the schema-validity audit passes; the category score is recorded", (t) => {
      const validity = report.audits["webmcp-schema-validity"];
      // Lighthouse 13.5 checks the issues Chromium reports for declarative (form) tools; it is
      // applicable because the page has WebMCP, and passes: the page reports none.
      assert.equal(report.audits["webmcp-registered-tools"].score, 1);
      assert.equal(validity.scoreDisplayMode, "binary");
      assert.equal(validity.score, 1, JSON.stringify(validity.details));
      assert.equal(report.audits["agent-accessibility-tree"].score, 1, JSON.stringify(report.audits["agent-accessibility-tree"].details));
      const category = report.categories["agentic-browsing"];
      const lines = category.auditRefs.map((r) => `${r.id}: ${report.audits[r.id].score ?? report.audits[r.id].scoreDisplayMode} (weight ${r.weight})`);
      t.diagnostic(`Agentic Browsing score ${category.score} (Lighthouse ${report.lighthouseVersion}, ${report.environment.hostUserAgent}): ${lines.join("; ")}`);
      assert.equal(typeof category.score, "number");
    });
  });
}
