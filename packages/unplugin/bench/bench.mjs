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
//     oRPC) built by Vite with its own config, against the same build without the plugin, where
//     `virtual:agent-surface/authority` is the same module made ahead of time from the same
//     manifest: what the plugin costs a real app's cold build (compiler child, scan, provenance).
//
// Usage: AGENT_SURFACE_BINARY=../../target/release/agent-surface node bench/bench.mjs [--builds 5] [--saves 10]
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
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

const PLAIN = `import { rebootDevices } from "./domain/devices";
import { exportReport } from "./external/reports";
(globalThis as any).agentSurfaceReport = JSON.stringify([rebootDevices, exportReport].map((c: any) => c.provenance ?? null));
`;

console.log(`binary: ${bin}`);
console.log(`node ${process.version}, load average ${(await import("node:os")).loadavg().map((x) => x.toFixed(2)).join(" ")}`);
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

// 2. next dev's loop: @agent-surface/next's watcher, in this process.
const nextDir = path.join(repoDir, "packages/next");
if (existsSync(path.join(nextDir, "node_modules"))) {
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
// 3. The example app with Vite (its devDependencies: `npm ci` in examples/devices-app first).
const exampleDir = path.join(repoDir, "examples/devices-app");
if (existsSync(path.join(exampleDir, "node_modules/vite"))) {
  const requireHere = createRequire(path.join(exampleDir, "package.json"));
  const vite = await import(requireHere.resolve("vite"));
  const react = (await import(requireHere.resolve("@vitejs/plugin-react"))).default;
  const { authorityModule, VIRTUAL_AUTHORITY_ID, RESOLVED_AUTHORITY_ID } = await import("../src/index.js");
  const { execFileSync } = await import("node:child_process");
  const { mkdtempSync } = await import("node:fs");
  const os = await import("node:os");
  // The manifest the plugin would make, compiled once outside the timing.
  const out = mkdtempSync(path.join(os.tmpdir(), "as-bench-"));
  execFileSync(bin, ["compile", exampleDir, "--out", path.join(out, "manifest.json")], { stdio: "ignore" });
  const authority = authorityModule(JSON.parse(readFileSync(path.join(out, "manifest.json"), "utf8")));
  const prebuilt = {
    name: "prebuilt-authority",
    resolveId: (id) => (id === VIRTUAL_AUTHORITY_ID ? RESOLVED_AUTHORITY_ID : null),
    load: (id) => (id === RESOLVED_AUTHORITY_ID ? authority : null),
  };
  const times = { without: [], with: [] };
  const once = async (kind) => {
    const t0 = performance.now();
    await vite.build({
      root: exampleDir,
      logLevel: "silent",
      build: { outDir: path.join(out, kind), emptyOutDir: true },
      ...(kind === "with"
        ? {}
        : { configFile: false, plugins: [react(), prebuilt], resolve: { alias: { "@": path.join(exampleDir, "src") }, dedupe: ["react", "react-dom", "ai", "@agent-surface/core"] } }),
    });
    times[kind].push(performance.now() - t0);
  };
  await once("without"); // warm-up: Vite's and the plugins' own module loading
  await once("with");
  for (let i = 0; i < BUILDS; i++) for (const kind of ["without", "with"]) await once(kind);
  rmSync(out, { recursive: true, force: true });
  const [w, p] = [median(times.without), median(times.with)];
  console.log(`\n3. vite build of examples/devices-app, median of ${BUILDS} (interleaved)`);
  console.log("| without the plugin (the authority made ahead) | with it | ratio |\n| --- | --- | --- |");
  console.log(`| ${ms(w)} | ${ms(p)} | ${(p / w).toFixed(3)} |`);
}
process.exit(0);
