// The dev loop on examples/devices-app, for bench.mjs: from saving a contract (its description
// changes, so the manifest's hash does) until the new authority is what the dev server serves.
// Each loop runs on a copy of the app (its node_modules linked), so the working tree is never
// edited. Returns the times of each save in ms.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { repoDir } from "../test/helpers.js";

const CONTRACT = "src/domain/devices.ts";
const DESCRIPTION = "Reboot devices. They are offline for about a minute.";
const HASH = /"manifestHash":"([^"]+)"/;
const TIMEOUT_MS = 15_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function copyExample(exampleDir, saves) {
  const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "as-bench-dev-")));
  const root = path.join(tmp, "app");
  const skip = new Set(["node_modules", "dist", "test", ".agent-surface"].map((d) => path.join(exampleDir, d)));
  cpSync(exampleDir, root, { recursive: true, filter: (src) => !skip.has(src) });
  symlinkSync(path.join(exampleDir, "node_modules"), path.join(root, "node_modules"), "dir");
  const file = path.join(root, CONTRACT);
  const original = readFileSync(file, "utf8");
  if (!original.includes(DESCRIPTION)) throw new Error(`${CONTRACT} no longer holds "${DESCRIPTION}": update bench/dev-loop.js`);
  const text = (i) => original.replace(DESCRIPTION, `${DESCRIPTION.slice(0, -1)} (${i}).`);
  // The manifest hash each save must lead to, compiled ahead (a rebuild that read a half-written
  // file, or an earlier save's late rebuild, does not count as the new authority).
  const expected = [];
  for (let i = 0; i < saves; i++) {
    writeFileSync(file, text(i));
    execFileSync(process.env.AGENT_SURFACE_BINARY, ["compile", root, "--out", path.join(tmp, "expected.json")], { stdio: "ignore" });
    expected.push(JSON.parse(readFileSync(path.join(tmp, "expected.json"), "utf8")).manifestHash);
  }
  writeFileSync(file, original);
  return {
    tmp,
    root,
    file,
    /** The manifest hash after the i-th save. */
    expected: (i) => expected[i],
    /** Saves the contract with its i-th description. */
    save: (i) => writeFileSync(file, text(i)),
    cleanup: () => rmSync(tmp, { recursive: true, force: true, maxRetries: 20, retryDelay: 200 }),
  };
}

/**
 * `vite` (createServer with the app's own vite.config.ts, so @agent-surface/vite): an HMR client
 * on the dev server's WebSocket, as the page has one. Per save: the time until the plugin's
 * full reload arrives, and until `virtual:agent-surface/authority`, fetched as the reloaded page
 * fetches it, carries the new manifest hash (the figure).
 */
async function viteDev(exampleDir, { saves }) {
  const app = copyExample(exampleDir, saves);
  const vite = await import(createRequire(path.join(exampleDir, "package.json")).resolve("vite"));
  const server = await vite.createServer({
    root: app.root,
    configFile: path.join(app.root, "vite.config.ts"),
    cacheDir: path.join(app.tmp, ".vite"),
    logLevel: "silent",
    clearScreen: false,
    server: { host: "127.0.0.1", port: 0 },
  });
  let ws;
  try {
    await server.listen();
    const base = `http://127.0.0.1:${server.httpServer.address().port}`;
    const authorityUrl = `${base}/@id/__x00__virtual:agent-surface/authority`;
    const servedHash = async () => {
      const res = await fetch(authorityUrl);
      if (!res.ok) throw new Error(`GET ${authorityUrl}: ${res.status}`);
      return (await res.text()).match(HASH)?.[1];
    };
    // The page: its HTML, the modules of the contract and of the authority, an HMR connection.
    let onReload = null;
    ws = new WebSocket(`ws://127.0.0.1:${server.httpServer.address().port}/?token=${server.config.webSocketToken}`, "vite-hmr");
    ws.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "full-reload" && String(message.triggeredBy ?? "").endsWith(CONTRACT)) onReload?.();
    });
    await new Promise((resolve, reject) => {
      ws.addEventListener("open", resolve, { once: true });
      ws.addEventListener("error", () => reject(new Error("the HMR WebSocket did not open")), { once: true });
    });
    await (await fetch(`${base}/`)).text();
    await (await fetch(`${base}/src/main.tsx`)).text();
    await (await fetch(`${base}/${CONTRACT}`)).text();
    if (!(await servedHash())) throw new Error("the served authority holds no manifestHash");
    await sleep(500); // the dependency optimizer's first run settles
    const times = [];
    const reloads = [];
    for (let i = 0; i < saves; i++) {
      const reloaded = new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no full reload ${TIMEOUT_MS} ms after saving ${CONTRACT}`)), TIMEOUT_MS);
        onReload = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      const t0 = performance.now();
      app.save(i);
      await reloaded;
      reloads.push(performance.now() - t0);
      let next = await servedHash();
      while (next !== app.expected(i)) {
        if (performance.now() - t0 > TIMEOUT_MS) throw new Error(`the served authority has ${next}, not the save's ${app.expected(i)}`);
        await sleep(2);
        next = await servedHash();
      }
      times.push(performance.now() - t0);
      await sleep(100);
    }
    const sorted = [...reloads].sort((a, b) => a - b);
    return {
      times,
      what: "the served `virtual:agent-surface/authority` carries the new manifest hash",
      note: `of which the plugin's full reload reaches the page at a median ${sorted[sorted.length >> 1].toFixed(0)} ms (includes the file watcher's notice)`,
    };
  } finally {
    ws?.close();
    await server.close();
    app.cleanup();
  }
}

/** next dev's loop (@agent-surface/next's watcher, in this process) on the same app. */
async function nextDev(exampleDir, { saves }) {
  const nextDir = path.join(repoDir, "packages/next");
  if (!existsSync(path.join(nextDir, "node_modules"))) return null;
  const { generateAuthority, watchAuthority, authorityPath } = await import(path.join(nextDir, "src/index.js"));
  const app = copyExample(exampleDir, saves);
  try {
    await generateAuthority(app.root);
    const handle = watchAuthority(app.root);
    const times = [];
    try {
      for (let i = 0; i < saves; i++) {
        const t0 = performance.now();
        app.save(i);
        while (!readFileSync(authorityPath(app.root), "utf8").includes(`"manifestHash":"${app.expected(i)}"`)) {
          if (performance.now() - t0 > TIMEOUT_MS) throw new Error("the generated authority module kept its old manifest");
          await sleep(2);
        }
        times.push(performance.now() - t0);
        await sleep(100);
      }
    } finally {
      handle.close();
    }
    return { times, what: "the generated authority module holds the new manifest", note: "includes the watcher's 30 ms debounce" };
  } finally {
    app.cleanup();
  }
}

/**
 * webpack and Rspack watch mode (development mode): from saving the contract until the rebuilt
 * bundle on disk carries the new manifest hash.
 */
function watchLoop(name) {
  return async (exampleDir, { saves }) => {
    const { watchExample } = await import("./example-builders.js");
    const app = copyExample(exampleDir, saves);
    const out = path.join(app.tmp, "dist");
    const bundleHash = () => {
      try {
        return readFileSync(path.join(out, "main.js"), "utf8").match(/manifestHash\\?":\\?"(blake3:[0-9a-f]+)/)?.[1];
      } catch {
        return undefined;
      }
    };
    let builds = 0;
    let failure = null;
    const stop = await watchExample(name, app.root, out, (err, stats) => {
      builds++;
      if (err || stats.hasErrors()) failure = err ?? new Error(stats.toString({ all: false, errors: true }));
    });
    try {
      const t0 = performance.now();
      while (!bundleHash()) {
        if (failure) throw failure;
        if (performance.now() - t0 > 60_000) throw new Error(`${name} watch: no first build`);
        await sleep(20);
      }
      await sleep(1500); // the watcher settles (webpack may rebuild once for the copy's timestamps)
      const times = [];
      for (let i = 0; i < saves; i++) {
        const t1 = performance.now();
        app.save(i);
        while (bundleHash() !== app.expected(i)) {
          if (failure) throw failure;
          if (performance.now() - t1 > TIMEOUT_MS) throw new Error(`${name} watch: the bundle has ${bundleHash()}, not the save's ${app.expected(i)}`);
          await sleep(2);
        }
        times.push(performance.now() - t1);
        await sleep(300);
      }
      return { times, what: "the rebuilt bundle on disk carries the new manifest hash", note: `development mode, aggregateTimeout 20 ms; ${builds} builds` };
    } finally {
      await stop();
      app.cleanup();
    }
  };
}

export const devLoops = {
  "vite dev (@agent-surface/vite)": viteDev,
  "next dev (@agent-surface/next's watcher)": nextDev,
  "webpack watch (@agent-surface/unplugin/webpack)": watchLoop("webpack"),
  "rspack watch (@agent-surface/unplugin/rspack)": watchLoop("rspack"),
};
