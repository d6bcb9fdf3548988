// Self-approval: an agent that calls a page's tool through @playwright/mcp also drives the
// browser. While its destructive webmcp_* call waits for the user, it clicks the dialog's
// Approve itself: with browser_click (a DevTools-protocol click, a trusted event) and with
// browser_evaluate (a script's click()). Measured under the example's default policy ("allow":
// the click runs the handler, which is the threat) and under the host's
// "refuse-under-automation" policy (src/approvals.ts over createApprovalGuard: refused, nothing
// runs, the call keeps waiting until the person denies it). Counts are read from the page.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { serveApp } from "./harness.js";
import { dialogFor, pageRuns, startPlaywrightMcp } from "./playwright-mcp.js";

const text = (result) => result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");

/** The agent's own click on Approve: the snapshot's ref for the button, then browser_click. */
async function agentClicksApprove(client) {
  const snapshot = await client.callTool({ name: "browser_snapshot", arguments: {} });
  const ref = /button "Approve" \[ref=([^\]]+)\]/.exec(text(snapshot))?.[1];
  assert.ok(ref, `the agent sees the Approve button in its snapshot:\n${text(snapshot)}`);
  const click = await client.callTool({ name: "browser_click", arguments: { element: "Approve button", target: ref } });
  assert.notEqual(click.isError, true, text(click));
}

/** The agent's script clicking Approve (browser_evaluate). */
async function agentEvaluatesApprove(client) {
  const r = await client.callTool({ name: "browser_evaluate", arguments: { function: "() => { document.querySelector('dialog.confirm button.approve').click(); return 'clicked'; }" } });
  assert.notEqual(r.isError, true, text(r));
  assert.match(text(r), /clicked/);
}

export function selfApprovalSuite(ctx) {
  describe("self-approval through @playwright/mcp (the agent clicks Approve itself)", () => {
    let mcp;
    let strict; // the app served with the host policy "refuse-under-automation"
    before(async () => {
      mcp = await startPlaywrightMcp(ctx.chrome);
      strict = await serveApp({ approvals: "refuse-under-automation" });
    });
    after(async () => {
      await mcp?.close();
      await strict?.close();
    });

    const open = async (origin) => {
      const nav = await mcp.client.callTool({ name: "browser_navigate", arguments: { url: `${origin}/devices` } });
      assert.notEqual(nav.isError, true, text(nav));
      const page = await ctx.findPage(`${origin}/devices`);
      await page.waitForSelector('section.devices[data-agent-status="active"]');
      return page;
    };
    const decommission = (id) => mcp.client.callTool({ name: "webmcp_domain_devices_decommission", arguments: { ids: [id] } });

    test("policy off (\"allow\", the example's default): the agent's own click approves and the handler runs — the threat", async () => {
      const page = await open(ctx.origin);
      assert.equal(await page.evaluate(() => navigator.webdriver), true, "the driven browser reports automation");
      const before = (await pageRuns(page)).decommission;
      const call = decommission("dev_ap0001");
      await dialogFor(page, "domain:devices.decommission");
      await agentClicksApprove(mcp.client);
      const result = await call;
      assert.notEqual(result.isError, true, text(result));
      assert.equal((await pageRuns(page)).decommission, before + 1);
    });

    test("policy on (\"refuse-under-automation\"): browser_click and browser_evaluate on Approve are refused; nothing runs until the person denies", async () => {
      const page = await open(strict.origin);
      assert.equal((await pageRuns(page)).decommission, 0);
      let settled = false;
      const call = decommission("dev_ap0002").finally(() => (settled = true));
      await dialogFor(page, "domain:devices.decommission");

      await agentClicksApprove(mcp.client);
      await page.waitForSelector("dialog.confirm .refused");
      assert.match(await page.$eval("dialog.confirm .refused", (e) => e.textContent), /refused: .*under automation/);
      await agentEvaluatesApprove(mcp.client);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await pageRuns(page)).decommission, 0, "the agent's approvals ran nothing");
      assert.equal(settled, false, "the call still waits for the user");
      assert.equal(await page.$$eval("dialog.confirm", (d) => d.length), 1);

      await page.click("dialog.confirm button.deny"); // the person's answer: a denial always goes through
      const result = await call;
      assert.equal(result.isError, true);
      assert.match(text(result), /CONFIRMATION_DENIED/);
      assert.equal((await pageRuns(page)).decommission, 0);
      assert.equal(await page.$$eval('tr[data-id="dev_ap0002"]', (r) => r.length), 1);
    });
  });
}
