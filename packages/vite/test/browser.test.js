// Headless Chromium (Debian's /usr/bin/chromium driven by playwright-core) loads the built example
// app and reads the manifest hash the verified authority module wrote into the page, and reads
// the dev server's error overlay for a broken contract.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { build, createServer as createViteServer } from "vite";
import { afterAll, beforeAll, expect, test } from "vitest";
import agentSurface from "../src/index.js";
import { CHROMIUM, DEV_SERVER, compileManifest, copyApp, serveDir, viteConfig } from "./helpers.js";


let app;
let http;
let browser;
let userDataDir;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get update && apt-get install -y chromium), or set CHROMIUM_PATH`);
  }
  app = copyApp();
  await build(await viteConfig(app.root, [agentSurface()]));
  http = await serveDir(path.join(app.root, "dist"));
  userDataDir = mkdtempSync(path.join(tmpdir(), "agent-surface-chromium-"));
  // A fresh, empty profile: launchPersistentContext is how playwright takes --user-data-dir.
  browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => (http ? http.close(r) : r()));
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  await app?.cleanup();
});

test("the built app shows the verified manifest hash, equal to `agent-surface compile`'s", async () => {
  const expected = compileManifest(app.root);
  const page = await browser.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  const { port } = http.address();
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.waitForFunction(() => document.getElementById("verified")?.textContent !== "", null, { timeout: 15000 });

  expect(problems).toEqual([]);
  expect(await page.textContent("#manifest-hash")).toBe(expected.manifestHash);
  expect(await page.textContent("#verified")).toBe("true");
  const provenance = JSON.parse(await page.textContent("#provenance"));
  expect(provenance).toHaveLength(9);
  const byId = Object.fromEntries(expected.contracts.map((c) => [c.id, c.contractHash]));
  for (const p of provenance) {
    expect(p).not.toBeNull();
    expect(p.contractHash).toBe(byId[p.id]);
  }
  expect(new Set(provenance.map((p) => p.id))).toEqual(new Set(Object.keys(byId)));
  // React rendered the app too.
  expect(await page.locator("nav a").count()).toBe(3);
  await page.close();
});

test("a tampered bundle is refused at run time by the authority module's verifier", async () => {
  const { readdirSync, writeFileSync } = await import("node:fs");
  const assets = path.join(app.root, "dist/assets");
  for (const f of readdirSync(assets).filter((f) => f.endsWith(".js"))) {
    const file = path.join(assets, f);
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replaceAll("Cannot be undone.", "Can easily be undone."));
  }
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  const { port } = http.address();
  await page.goto(`http://127.0.0.1:${port}/`);
  await expect.poll(() => errors.length, { timeout: 15000 }).toBeGreaterThan(0);
  expect(errors[0]).toMatch(/contractHash of "domain:devices\.decommission" does not match its contents/);
  expect(await page.textContent("#manifest-hash")).toBe("");
  await page.close();
});

test("the dev overlay shows one position for an error: the one its message and the CLI give", async () => {
  const dev = copyApp();
  const file = path.join(dev.root, "src/external/reports.ts");
  writeFileSync(file, readFileSync(file, "utf8").replace('effect: "external-side-effect"', 'effect: "local-state"'));
  const server = await createViteServer(await viteConfig(dev.root, [agentSurface()], DEV_SERVER));
  try {
    await server.listen();
    const { port } = server.httpServer.address();
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForSelector("vite-error-overlay", { state: "attached", timeout: 20000 });
    const shown = await page.evaluate(() => {
      const root = document.querySelector("vite-error-overlay").shadowRoot;
      return { file: root.querySelector(".file")?.textContent ?? "", message: root.querySelector(".message")?.textContent ?? "" };
    });
    const positions = [...`${shown.file}\n${shown.message}`.matchAll(/reports\.ts:(\d+):(\d+)/g)].map((m) => `${m[1]}:${m[2]}`);
    expect(shown.message, JSON.stringify(shown)).toContain("AS0401");
    expect(positions.length, JSON.stringify(shown)).toBeGreaterThanOrEqual(2);
    expect(new Set(positions)).toEqual(new Set(["18:11"]));
    await page.close();
  } finally {
    await server.close();
    await dev.cleanup();
  }
});

// Manifest format 2: where a contract is written is not in the manifest, so an edit that moves a
// contract (a comment or an import above it, the contract moved in its file) changes no hash:
// the plugin leaves the authority module alone and React Fast Refresh keeps the page's state.
// A real contract change still reloads the page with the new authority.
test("the dev server keeps the page's state across edits that change no contract, and reloads for one that does", async () => {
  const dev = copyApp();
  const table = path.join(dev.root, "src/components/DevicesTable.tsx");
  // A Fast Refresh boundary exports components only: the contract stays in the component's file
  // (the recommended layout) but is not exported. The module counts its evaluations and
  // publishes its contract's provenance, so the page can tell an HMR update from a reload.
  writeFileSync(
    table,
    readFileSync(table, "utf8").replace("export const devicesTableContract", "const devicesTableContract") +
      "\nconst w = window as unknown as { tableEvaluations?: number; tableProvenance?: unknown };\nw.tableEvaluations = (w.tableEvaluations ?? 0) + 1;\nw.tableProvenance = devicesTableContract.provenance;\n",
  );
  writeFileSync(
    path.join(dev.root, "src/main.tsx"),
    `import { createRoot } from "react-dom/client";
import authority from "virtual:agent-surface/authority";
import { App } from "./App";
(window as unknown as { authority: unknown }).authority = authority;
document.getElementById("manifest-hash")!.textContent = authority.manifest.manifestHash;
createRoot(document.getElementById("root")!).render(<App />);
`,
  );
  const server = await createViteServer(await viteConfig(dev.root, [agentSurface()], DEV_SERVER));
  try {
    await server.listen();
    const { port } = server.httpServer.address();
    const page = await browser.newPage();
    const problems = [];
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction(() => document.getElementById("manifest-hash")?.textContent !== "" && window.tableEvaluations === 1, null, { timeout: 20000 });
    const firstHash = await page.textContent("#manifest-hash");
    expect(firstHash).toBe(compileManifest(dev.root).manifestHash);
    // Page state: React state in the table, and a marker a reload would lose.
    await page.fill('input[placeholder="Filter by name"]', "state kept");
    await page.evaluate(() => (window.marker = "no reload"));
    /** The page's view: evaluations of the table module, its state, and whether the contract's provenance verifies against the page's authority. */
    const view = () =>
      page.evaluate(() => ({
        evaluations: window.tableEvaluations,
        marker: window.marker ?? null,
        filter: document.querySelector('input[placeholder="Filter by name"]')?.value ?? null,
        manifestHash: document.getElementById("manifest-hash")?.textContent,
        verified: window.authority.contract(window.tableProvenance.id)?.contractHash === window.tableProvenance.contractHash,
      }));
    expect(await view()).toEqual({ evaluations: 1, marker: "no reload", filter: "state kept", manifestHash: firstHash, verified: true });

    const moveContractBelowComponent = (text) => {
      const start = text.indexOf("const devicesTableContract");
      const end = text.indexOf("\n});\n", start) + "\n});\n".length;
      const block = text.slice(start, end);
      const rest = text.slice(0, start) + text.slice(end);
      const after = rest.indexOf("\nconst w = window");
      return rest.slice(0, after) + "\n" + block + rest.slice(after);
    };
    const edits = [
      ["a comment above the contract", (t) => t.replace("const devicesTableContract", "// The table's agent contract,\n// next to its component.\nconst devicesTableContract")],
      ["an import above the contract", (t) => `import { useRef } from "react";\n${t}`],
      ["the contract moved below its component", moveContractBelowComponent],
    ];
    for (const [i, [what, change]] of edits.entries()) {
      const before = readFileSync(table, "utf8");
      const after = change(before);
      expect(after, what).not.toBe(before);
      writeFileSync(table, after);
      await page.waitForFunction((n) => window.tableEvaluations === n, i + 2, { timeout: 20000 });
      expect(await view(), what).toEqual({ evaluations: i + 2, marker: "no reload", filter: "state kept", manifestHash: firstHash, verified: true });
      expect(compileManifest(dev.root).manifestHash, what).toBe(firstHash);
    }

    // A real contract change: the page reloads (state gone) with the new authority.
    writeFileSync(table, readFileSync(table, "utf8").replace('description: "Clear the selection."', 'description: "Clear the whole selection."'));
    await page.waitForFunction((h) => window.marker === undefined && document.getElementById("manifest-hash")?.textContent !== h && window.tableEvaluations === 1, firstHash, { timeout: 20000 });
    const reloaded = await view();
    expect(reloaded).toEqual({ evaluations: 1, marker: null, filter: "", manifestHash: compileManifest(dev.root).manifestHash, verified: true });
    expect(reloaded.manifestHash).not.toBe(firstHash);
    expect(problems).toEqual([]);
    await page.close();
  } finally {
    await server.close();
    await dev.cleanup();
  }
});
