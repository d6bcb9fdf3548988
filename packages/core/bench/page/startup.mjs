// Start-up in headless Chromium (docs/performance.md, "What the page pays"): in one page load,
// the time to import @agent-surface/core + createCapabilityAuthority (the example app's manifest)
// + createAgentSurfaceRegistry + snapshot(), against the time to import React DOM and render one
// component; at CPU ×1 and ×4 (DevTools CPU throttling), medians of 7 loads. Each module is a
// separate minified bundle fetched from a loopback server, after an empty module warmed the
// page's module loader; the order alternates between loads. The floor beside them: the same
// timing of a module that only exports `start() { return 1 }` — what fetching and running any
// separate module costs in this setup, whatever it holds.
import { createServer } from "node:http";
import path from "node:path";
import { chromium } from "playwright-core";
import { bundle, here } from "./build.mjs";

const files = {
  "/core.js": (await bundle({ entry: path.join(here, "entries/core-start.js") })).code,
  "/react.js": (await bundle({ entry: path.join(here, "entries/react-start.jsx") })).code,
  "/floor.js": Buffer.from("export function start() { return 1; }"),
  "/empty.js": Buffer.from("export {};"),
  "/": Buffer.from(`<!doctype html><meta charset="utf-8"><div id="root"></div>
<script type="module">
const order = new URL(location.href).searchParams.get("order").split(",");
// The page's first dynamic import pays for the module loader itself (50-150 ms here): warm it
// with an empty module, so each figure is the library's own import.
await import("/empty.js");
const out = {};
for (const which of order) {
  const t0 = performance.now();
  const m = await import("/" + which + ".js");
  const r = which === "react" ? m.start(document.getElementById("root")) : m.start();
  out[which] = performance.now() - t0;
  if (!r) throw new Error(which + " gave nothing");
}
window.__done = out;
</script>`),
};
const server = createServer((req, res) => {
  const body = files[new URL(req.url, "http://x").pathname];
  if (!body) return res.writeHead(404).end();
  res.writeHead(200, { "content-type": req.url.endsWith(".js") ? "text/javascript" : "text/html", "cache-control": "no-store" }).end(body);
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = {};
try {
  for (const rate of [1, 4]) {
    const core = [];
    const react = [];
    const floor = [];
    for (let i = 0; i < 7; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate });
      const errors = [];
      page.on("pageerror", (e) => errors.push(e));
      await page.goto(`${base}/?order=${i % 2 ? "react,floor,core" : "core,floor,react"}`);
      const out = await page.waitForFunction(() => window.__done, null, { timeout: 60_000 }).then((h) => h.jsonValue());
      if (errors.length) throw errors[0];
      core.push(out.core);
      react.push(out.react);
      floor.push(out.floor);
      await context.close();
    }
    results[`cpu×${rate}`] = { coreMs: median(core), reactMs: median(react), ratio: median(core) / median(react), floorRatio: median(floor) / median(react), core, react, floor };
  }
} finally {
  await browser.close();
  server.close();
}
if (process.argv.includes("--json")) console.log(JSON.stringify(results, null, 2));
else {
  console.log("| CPU | core: import + authority + registry + snapshot | React DOM: import + render one component | ratio (target ≤ 0.15) | floor: a one-line module, over React |\n|---|---|---|---|---|");
  for (const [k, r] of Object.entries(results)) console.log(`| ${k} | ${r.coreMs.toFixed(1)} ms | ${r.reactMs.toFixed(1)} ms | ${r.ratio.toFixed(3)} | ${r.floorRatio.toFixed(3)} |`);
}
