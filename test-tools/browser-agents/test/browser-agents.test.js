// Third-party browser agents against the built example app (examples/devices-app/dist) served
// on loopback, all on one headless Chromium with WebMCP (see harness.js); and web-platform-tests'
// webmcp/ files (vendored in wpt/) in that same browser.
import { after, before } from "node:test";
import puppeteer from "puppeteer-core";
import { launchChromium, serveApp } from "./harness.js";
import { lighthouseSuite } from "./lighthouse.js";
import { playwrightMcpSuite } from "./playwright-mcp.js";
import { puppeteerSuite } from "./puppeteer.js";
import { selfApprovalSuite } from "./self-approval.js";
import { wptSuite } from "./wpt.js";

const ctx = {};
before(async () => {
  ctx.chrome = await launchChromium();
  ctx.app = await serveApp();
  ctx.origin = ctx.app.origin;
  // The user's side (and puppeteer's page.webmcp): puppeteer-core attached to the same browser.
  ctx.browser = await puppeteer.connect({ browserWSEndpoint: ctx.chrome.wsEndpoint, defaultViewport: null });
  /** The tab an agent opened at `url`, as the user sees it. */
  ctx.findPage = async (url) => {
    for (let i = 0; i < 100; i++) {
      for (const p of await ctx.browser.pages()) if (p.url().startsWith(url)) return p;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no tab at ${url}: ${(await ctx.browser.pages()).map((p) => p.url())}`);
  };
});
after(async () => {
  await ctx.browser?.disconnect();
  await ctx.app?.close();
  await ctx.chrome?.close();
});

playwrightMcpSuite(ctx);
puppeteerSuite(ctx);
selfApprovalSuite(ctx);
lighthouseSuite(ctx);
wptSuite(ctx);
