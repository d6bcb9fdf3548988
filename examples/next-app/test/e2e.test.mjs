// The Next.js example end to end, four ways: `next build` + `next start` and `next dev`, each with
// webpack and with Turbopack. In headless Chromium (playwright-core driving /usr/bin/chromium)
// a browser agent (WebMCP: the repository's in-page document.modelContext of the draft) lists the
// page's tools, reads the devices table and calls decommission, which waits for the app's own
// dialog: the test plays the user who approves. The route handler imports contract modules and
// answers with the compiler's provenance; the production server bundle holds none of the page
// runtime. In dev, a changed contract rewrites the generated authority and the page gets it; a
// contract's error fails `next build` at its file:line:column.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = fileURLToPath(new URL("..", import.meta.url));
const NEXT = path.join(root, "node_modules/next/dist/bin/next");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const POLYFILL = path.join(root, "../../packages/core/test/fixtures/webmcp-polyfill.js");
const BINARY = process.env.AGENT_SURFACE_BINARY;
const polyfill = `(() => {\n${readFileSync(POLYFILL, "utf8").replace(/^export /gm, "")}\ninstallModelContext(window);\n})();`;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Runs `next ARGS` (on this Node.js), collecting its output; the process group is ours to end. */
function next(args, env = {}) {
  const child = spawn(process.execPath, [NEXT, ...args], {
    cwd: root,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out = { text: "" };
  child.stdout.on("data", (d) => (out.text += d));
  child.stderr.on("data", (d) => (out.text += d));
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return { child, out, exited };
}

function stop(proc) {
  if (!proc || proc.child.exitCode !== null) return Promise.resolve();
  try {
    process.kill(-proc.child.pid, "SIGTERM");
  } catch {}
  const kill = setTimeout(() => {
    try {
      process.kill(-proc.child.pid, "SIGKILL");
    } catch {}
  }, 5000);
  return proc.exited.finally(() => clearTimeout(kill));
}

async function build(bundler, env = {}) {
  const proc = next(["build", ...(bundler === "webpack" ? ["--webpack"] : [])], env);
  const { code } = await proc.exited;
  return { code, output: proc.out.text };
}

async function waitForHttp(url, proc, timeoutMs = 300_000) {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    if (proc.child.exitCode !== null) throw new Error(`next exited (${proc.child.exitCode}):\n${proc.out.text}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${proc.out.text}`);
}

async function serve(mode, bundler) {
  const port = await freePort();
  const args = mode === "dev" ? ["dev", ...(bundler === "webpack" ? ["--webpack"] : ["--turbopack"])] : ["start"];
  const proc = next([...args, "--hostname", "127.0.0.1", "--port", String(port)]);
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttp(`${origin}/api/contracts`, proc);
  return { proc, origin };
}

/** What `agent-surface compile` says the manifest is. */
function compiledManifest() {
  const dir = mkdtempSync(path.join(tmpdir(), "next-app-manifest-"));
  try {
    execFileSync(BINARY, ["compile", root, "--out", path.join(dir, "m.json")], { stdio: "pipe" });
    return JSON.parse(readFileSync(path.join(dir, "m.json"), "utf8"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map((f) => path.join(dir, String(f)))
    .filter((f) => f.endsWith(".js") && statSync(f).isFile());
}

let browser;
let userDataDir;

before(async () => {
  if (!BINARY || !existsSync(BINARY)) throw new Error("AGENT_SURFACE_BINARY must name a built agent-surface binary");
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium, or set CHROMIUM_PATH`);
  userDataDir = mkdtempSync(path.join(tmpdir(), "next-app-chromium-"));
  browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--enable-features=WebMCP"],
  });
});

after(async () => {
  await browser?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

/** The browser agent's side of WebMCP, in the page. */
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
    pending: {},
    start: (key, name, input) => void (window.__agent.pending[key] = window.__agent.exec(name, input)),
  };
};

async function openApp(origin, timeout = 300_000) {
  const page = await browser.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  try {
    await page.addInitScript(polyfill);
    await page.goto(origin, { timeout });
    await page.waitForSelector('section.devices[data-agent-status="active"]', { timeout });
    await page.evaluate(AGENT);
    await page.waitForFunction(async () => (await window.__agent.names()).includes("domain_devices_decommission"), null, { timeout });
  } catch (err) {
    await page.close();
    throw new Error(`${err.message}\npage problems: ${JSON.stringify(problems)}`);
  }
  return { page, problems };
}

/** Load, register, invoke, confirm: the same for every mode. */
async function agentFlow(origin, manifest) {
  const { page, problems } = await openApp(origin);
  try {
    assert.equal(await page.getAttribute(".server-note", "data-contract"), "domain:devices.reboot"); // the Server Component's import
    assert.equal(await page.evaluate(() => window.__devicesApp.webmcp), true);
    const names = await page.evaluate(() => window.__agent.names());
    for (const n of ["view_devices_table_readState", "view_devices_table_selectRows", "domain_devices_decommission", "domain_devices_reboot"]) {
      assert.ok(names.includes(n), `${n} in ${names}`);
    }
    assert.equal(await page.evaluate(() => window.__devicesApp.manifestHash), manifest.manifestHash); // the generated authority
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
  } finally {
    await page.close();
  }
}

/** The route handler answers with the compiler's provenance of the contracts it imports. */
async function routeProvenance(origin, manifest) {
  const res = await fetch(`${origin}/api/contracts`);
  assert.equal(res.status, 200);
  const body = await res.json();
  for (const c of body) {
    const m = manifest.contracts.find((x) => x.id === c.id);
    assert.ok(m, `${c.id} in the manifest`);
    assert.deepEqual(c.provenance, { contractHash: m.contractHash, id: c.id });
  }
  assert.deepEqual(
    body.map((c) => c.id),
    ["domain:devices.reboot", "domain:devices.decommission", "external:reports.export"],
  );
}

const manifest = () => compiledManifest();

for (const bundler of ["webpack", "turbopack"]) {
  describe(`next build + next start (${bundler})`, () => {
    let server;
    let m;
    before(async () => {
      m = manifest();
      rmSync(path.join(root, ".next"), { recursive: true, force: true });
      // The first build type-checks the app (next build's tsc); the others skip it.
      const { code, output } = await build(bundler, bundler === "webpack" ? {} : { NEXT_APP_SKIP_TYPECHECK: "1" });
      assert.equal(code, 0, output);
      server = await serve("start", bundler);
    });
    after(() => stop(server?.proc));

    test("the route handler imports contract modules: the compiler's provenance, on the server", async () => {
      await routeProvenance(server.origin, m);
    });

    test("the server's bundle holds no page runtime (registry, authority, WebMCP exposure)", () => {
      const files = filesUnder(path.join(root, ".next/server"));
      assert.ok(files.length > 0);
      const text = files.map((f) => readFileSync(f, "utf8")).join("\n");
      assert.match(text, /blake3:[0-9a-f]{64}/); // the contracts' provenance is there
      for (const marker of ["manifest-hash-mismatch", "modelContext", "CONFIRMATION_DENIED"]) {
        assert.ok(!text.includes(marker), `${marker} is in the server bundle`);
      }
    });

    test("load, register, invoke, confirm (WebMCP in headless Chromium)", async () => {
      await agentFlow(server.origin, m);
    });
  });

  describe(`next dev (${bundler})`, () => {
    let server;
    let m;
    const file = path.join(root, "src/domain/devices.ts");
    let original;
    before(async () => {
      m = manifest();
      original = readFileSync(file, "utf8");
      rmSync(path.join(root, ".next"), { recursive: true, force: true });
      server = await serve("dev", bundler);
    });
    after(async () => {
      if (original !== undefined) writeFileSync(file, original);
      await stop(server?.proc);
    });

    test("load, register, invoke, confirm (WebMCP in headless Chromium)", async () => {
      await routeProvenance(server.origin, m);
      await agentFlow(server.origin, m);
    });

    test("a changed contract: the dev server regenerates the authority and the page gets the new tool", async () => {
      const authorityFile = path.join(root, ".agent-surface/authority.js");
      const before = readFileSync(authorityFile, "utf8");
      assert.ok(before.includes(m.manifestHash));
      writeFileSync(file, original.replace('"Reboot devices.', '"Reboot (power-cycle) devices.'));
      const changed = manifest();
      assert.notEqual(changed.manifestHash, m.manifestHash);
      const deadline = Date.now() + 180_000;
      while (!readFileSync(authorityFile, "utf8").includes(changed.manifestHash)) {
        assert.ok(Date.now() < deadline, "the authority module was not regenerated");
        await new Promise((r) => setTimeout(r, 200));
      }
      // The dev server recompiles the contract's module and the authority module (two file
      // events): a page loaded in between may see one without the other. It converges.
      let last;
      while (true) {
        let opened;
        try {
          opened = await openApp(server.origin, 30_000);
          const { page, problems } = opened;
          const hash = await page.evaluate(() => window.__devicesApp.manifestHash);
          const description = await page.evaluate(() => window.__agent.tool("domain_devices_reboot").then((t) => t.description));
          last = { hash, description, problems };
          if (hash === changed.manifestHash && problems.length === 0) {
            assert.match(description, /power-cycle/);
            break;
          }
        } catch (err) {
          last = { error: err.message };
        } finally {
          await opened?.page.close();
        }
        assert.ok(Date.now() < deadline, `the page did not get the new authority: ${JSON.stringify(last)}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    });
  });
}

describe("a contract's error fails next build at its location", () => {
  for (const bundler of ["webpack", "turbopack"]) {
    test(bundler, async () => {
      const file = path.join(root, "src/external/reports.ts");
      const original = readFileSync(file, "utf8");
      writeFileSync(file, original.replace('effect: "external-side-effect"', 'effect: "local-state"'));
      try {
        const { code, output } = await build(bundler, { NEXT_APP_SKIP_TYPECHECK: "1" });
        assert.notEqual(code, 0, output);
        assert.match(output, /src\/external\/reports\.ts:\d+:\d+: error AS0401/);
        assert.match(output, /> *\d+ \|\s+effect: "local-state",/);
      } finally {
        writeFileSync(file, original);
      }
    });
  }
});
