#!/usr/bin/env node
// What the plugin adds to a build, per bundler (a report, not a test; figures in
// docs/performance.md):
//  1. a cold build of test/app with Rollup, Rolldown, webpack, Rspack and esbuild, with the plugin
//     and without it: median of N runs each, interleaved, the same entry (the contracts, no
//     authority import: the plugin's cost is the compiler child, the project scan and the
//     provenance transforms) and, with the plugin, also the entry importing the authority module;
//  2. the dev loop of @agent-surface/next (the watcher next dev runs): from saving a contract to
//     the generated authority module holding the new manifest, median of M saves;
//  3. the example app (examples/devices-app: React 19, the AI SDK, zod, Valibot, ArkType, TypeBox,
//     oRPC; 9 contracts): a cold production build with Vite, Rollup, Rolldown, webpack, Rspack and
//     esbuild (bench/example-builders.js), against the same build without the plugin, where
//     `virtual:agent-surface/authority` is a module made ahead of time from the same manifest:
//     what the plugin costs a real app's build (compiler child, scan, provenance transforms, the
//     bundler's hooks into the plugin); median of N rounds, each round every bundler without and
//     with it (the order alternating);
//  4. the dev loop on the example app: `vite dev` (createServer with the app's vite.config.ts, an
//     HMR WebSocket client) from saving a contract until the served authority module carries the
//     new manifest hash, next dev's watcher until the generated module does, webpack and Rspack
//     watch mode until the rebuilt bundle does (bench/dev-loop.js).
//
//     With --fresh, each build of section 3 runs in a Node process of its own (bench/build-once.mjs),
//     as `vite build` does: in one long-lived process the heap of the earlier builds makes the
//     plugin's spawn of the compiler dearer than a CLI pays (Node forks, and each page the parent
//     writes after a fork faults once), so this is the figure a user sees.
// Usage: AGENT_SURFACE_BINARY=../../target/release/agent-surface node bench/bench.mjs [--builds 5] [--saves 10] [--sections 1,2,3,4] [--bundlers vite,rolldown] [--fresh]
// (sections 3 and 4 need `npm ci` in examples/devices-app and the built packages it links).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { builders } from "../test/builders.js";
import { copyApp, repoDir } from "../test/helpers.js";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const BUILDS = arg("builds", 5);
const SAVES = arg("saves", 10);
const sectionsArg = process.argv.indexOf("--sections");
/** Section 3 builds each time in a fresh Node process (bench/build-once.mjs), as a CLI does. */
const FRESH = process.argv.includes("--fresh");
const sections = new Set(sectionsArg === -1 ? [1, 2, 3, 4] : process.argv[sectionsArg + 1].split(",").map(Number));
const execFileAsync = promisify(execFile);
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" ");
const candidates = [process.env.AGENT_SURFACE_BINARY, path.join(repoDir, "target/release/agent-surface"), path.join(repoDir, "target/debug/agent-surface")];
const bin = candidates.find((p) => p && existsSync(p));
if (!bin) {
  console.error("no agent-surface binary: set AGENT_SURFACE_BINARY or cargo build --release");
  process.exit(1);
}
process.env.AGENT_SURFACE_BINARY = bin;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ms = (x) => `${x.toFixed(0)} ms`;
/**
 * CPU time so far, in ms: this process's threads (the bundler's native threads included) and its
 * children that have exited (the compiler child once closed; not esbuild's long-lived service).
 * Linux only (/proc/self/stat); null elsewhere. Unlike wall time it hardly moves with the load.
 */
const TICK_MS = 10; // USER_HZ is 100 on Linux
function cpuMs() {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime, stime, cutime, cstime: fields 14-17 of proc(5), counted here from the state (field 3)
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * TICK_MS;
  } catch {
    return null;
  }
}

const PLAIN = `import { rebootDevices } from "./domain/devices";
import { exportReport } from "./external/reports";
(globalThis as any).agentSurfaceReport = JSON.stringify([rebootDevices, exportReport].map((c: any) => c.provenance ?? null));
`;

console.log(`binary: ${bin}`);
console.log(`node ${process.version}, ${os.cpus().length} CPUs, load average ${load()}`);
if (sections.has(1)) {
  console.log(`\n1. cold build of packages/unplugin/test/app, median of ${BUILDS} (interleaved)`);
  console.log("| bundler | without the plugin | with it | ratio | with it + the authority module |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const [name, build] of Object.entries(builders)) {
    const app = copyApp();
    try {
      const main = path.join(app.root, "src/main.ts");
      const withAuthority = readFileSync(main, "utf8");
      const times = { without: [], with: [], authority: [] };
      const once = async (kind) => {
        rmSync(path.join(app.root, "dist"), { recursive: true, force: true });
        writeFileSync(main, kind === "authority" ? withAuthority : PLAIN);
        const t0 = performance.now();
        await build(app.root, { plugin: kind !== "without" });
        times[kind].push(performance.now() - t0);
      };
      await once("without"); // warm-up: the bundler's own module loading
      await once("with");
      for (let i = 0; i < BUILDS; i++) for (const kind of ["without", "with", "authority"]) await once(kind);
      const [w, p, a] = [median(times.without), median(times.with), median(times.authority)];
      console.log(`| ${name} | ${ms(w)} | ${ms(p)} | ${(p / w).toFixed(2)} | ${ms(a)} |`);
    } finally {
      app.cleanup();
    }
  }
}

// 2. next dev's loop: @agent-surface/next's watcher, in this process.
const nextDir = path.join(repoDir, "packages/next");
if (sections.has(2) && existsSync(path.join(nextDir, "node_modules"))) {
  const { generateAuthority, watchAuthority, authorityPath } = await import(createRequire(import.meta.url).resolve(path.join(nextDir, "src/index.js")));
  const app = copyApp();
  try {
    await generateAuthority(app.root);
    const handle = watchAuthority(app.root);
    const file = path.join(app.root, "src/domain/devices.ts");
    const original = readFileSync(file, "utf8");
    const times = [];
    for (let i = 0; i < SAVES; i++) {
      const before = readFileSync(authorityPath(app.root), "utf8");
      const t0 = performance.now();
      writeFileSync(file, original.replace("Reboot the selected devices.", `Reboot the selected devices (${i}).`));
      while (readFileSync(authorityPath(app.root), "utf8") === before) await new Promise((r) => setTimeout(r, 2));
      times.push(performance.now() - t0);
    }
    handle.close();
    console.log(`\n2. next dev: saving a contract -> the generated authority module holds the new manifest: median ${ms(median(times))} of ${SAVES} (min ${ms(Math.min(...times))}, max ${ms(Math.max(...times))}; includes the watcher's 30 ms debounce)`);
  } finally {
    app.cleanup();
  }
}

// 3. The example app per bundler (its devDependencies: `npm ci` in examples/devices-app first).
const exampleDir = path.join(repoDir, "examples/devices-app");
if (sections.has(3) && existsSync(path.join(exampleDir, "node_modules/vite"))) {
  const { exampleBuilders, prebuiltAuthorityFile } = await import("./example-builders.js");
  const out = mkdtempSync(path.join(os.tmpdir(), "as-bench-"));
  const { authorityFile, manifest } = prebuiltAuthorityFile(bin, exampleDir, out);
  const bundlersArg = process.argv.indexOf("--bundlers");
  const names = bundlersArg === -1 ? Object.keys(exampleBuilders) : process.argv[bundlersArg + 1].split(",");
  const times = Object.fromEntries(names.map((n) => [n, { without: [], with: [] }]));
  const cpu = Object.fromEntries(names.map((n) => [n, { without: [], with: [] }]));
  const sizes = {};
  const once = async (name, kind, record = true) => {
    const dir = path.join(out, `${name}-${kind}`);
    rmSync(dir, { recursive: true, force: true });
    // Each build starts from a collected heap (node --expose-gc), not paying for the garbage of
    // the builds before it: the difference between two builds is then less the collector's.
    globalThis.gc?.();
    const c0 = cpuMs();
    const t0 = performance.now();
    let t;
    if (FRESH) {
      // The build call's own time in a process that did nothing before it (its CPU: the
      // process's, an exited child, once waited for).
      const { stdout } = await execFileAsync(process.execPath, [path.join(import.meta.dirname, "build-once.mjs"), name, kind, exampleDir, dir, authorityFile]);
      t = Number(stdout);
    } else {
      await exampleBuilders[name](exampleDir, { plugin: kind === "with", out: dir, authorityFile });
      t = performance.now() - t0;
    }
    // (the compiler child exits right after the build: its CPU counts once it has)
    await new Promise((r) => setTimeout(r, 30));
    const c = c0 === null ? null : cpuMs() - c0;
    if (record) {
      times[name][kind].push(t);
      if (c !== null) cpu[name][kind].push(c);
    }
    // Not a timing check: both builds must have bundled the same verified authority.
    const js = readdirSync(dir, { recursive: true }).filter((f) => /\.m?js$/.test(f));
    const text = js.map((f) => readFileSync(path.join(dir, f), "utf8")).join("\n");
    if (!text.includes(manifest.manifestHash)) throw new Error(`${name} (${kind} the plugin): the bundle lacks the authority of ${manifest.manifestHash}`);
    (sizes[name] ??= {})[kind] = text.length;
  };
  try {
    // warm-up: each bundler's and plugin's own module loading, once per kind
    for (const name of names) for (const kind of ["without", "with"]) await once(name, kind, false);
    // interleaved: one build of each bundler without and with the plugin per round
    for (let i = 0; i < BUILDS; i++) for (const name of names) for (const kind of i % 2 ? ["with", "without"] : ["without", "with"]) await once(name, kind);
  } finally {
    rmSync(out, { recursive: true, force: true });
    rmSync(path.dirname(authorityFile), { recursive: true, force: true });
  }
  console.log(`\n3. cold production build of examples/devices-app, median of ${BUILDS} (interleaved${FRESH ? "; each build in a fresh process, its CPU the whole process's" : ""}; load average after: ${load()})`);
  // The paired figure: each round's with - without (the same moment's load on both), its median
  // and quartiles, which move less with the machine's load than the ratio of the two medians.
  console.log("| bundler | without the plugin (the authority made ahead) | with it | ratio | paired difference: median (quartiles) | CPU time without / with (medians), paired difference | JS out (with / without) |");
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  const quantile = (xs, q) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.max(0, Math.round(q * (s.length - 1))))];
  };
  for (const name of names) {
    const [w, p] = [median(times[name].without), median(times[name].with)];
    const diffs = times[name].with.map((t, i) => t - times[name].without[i]);
    const c = cpu[name];
    const cpuDiffs = c.with.map((t, i) => t - c.without[i]);
    const cpuCell = c.with.length ? `${ms(median(c.without))} / ${ms(median(c.with))}, ${ms(median(cpuDiffs))} (${ms(quantile(cpuDiffs, 0.25))} … ${ms(quantile(cpuDiffs, 0.75))})` : "n/a";
    console.log(
      `| ${name} | ${ms(w)} | ${ms(p)} | ${(p / w).toFixed(3)} | ${ms(median(diffs))} (${ms(quantile(diffs, 0.25))} … ${ms(quantile(diffs, 0.75))}) | ${cpuCell} | ${sizes[name].with} / ${sizes[name].without} B |`,
    );
  }
  if (process.env.BENCH_RAW) console.log(JSON.stringify({ times, cpu }));
}

// 4. The dev loop on the example app: saving a contract until the new authority is served.
if (sections.has(4) && existsSync(path.join(exampleDir, "node_modules/vite"))) {
  const { devLoops } = await import("./dev-loop.js");
  for (const [name, loop] of Object.entries(devLoops)) {
    const result = await loop(exampleDir, { saves: SAVES });
    if (!result) continue;
    const t = result.times;
    console.log(`\n4. ${name}: saving a contract of examples/devices-app -> ${result.what}: median ${ms(median(t))} of ${t.length} saves (min ${ms(Math.min(...t))}, max ${ms(Math.max(...t))})${result.note ? `; ${result.note}` : ""}`);
  }
}
process.exit(0);
