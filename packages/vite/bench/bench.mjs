#!/usr/bin/env node
// Performance of @agent-surface/vite (a report, not a test):
//  1. `vite build` of the example app (examples/devices-app + index.html/main.tsx, with
//     @vitejs/plugin-react), with and without the plugin: median of N runs each, interleaved.
//     Without the plugin, `virtual:agent-surface/authority` is aliased to a stub module so both
//     builds bundle the same app.
//  2. The per-transform round trip through the child for an unchanged small file (the compiler's
//     cache answers with parsed: 0): median of M requests, and the same through the plugin's
//     transform hook (round trip + byte->UTF-16 offsets + magic-string + hires source map).
//
// Usage: AGENT_SURFACE_BINARY=../../target/release/agent-surface node bench/bench.mjs [--builds 3] [--transforms 1000]

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { build } from "vite";
import agentSurface, { ServeClient } from "../src/index.js";
import { copyApp, repoDir, viteConfig } from "../test/helpers.js";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const BUILDS = arg("builds", 3);
const TRANSFORMS = arg("transforms", 1000);

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
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const ms = (x, digits = 1) => `${x.toFixed(digits)} ms`;

const app = copyApp();
const stub = path.join(app.root, "authority-stub.ts");
writeFileSync(stub, 'export default { manifest: { manifestHash: "" }, contract: () => undefined };\n');

/** The plugin with its hooks timed (wall time spent inside them, summed). */
function timedPlugin(acc) {
  const p = agentSurface();
  const wrap = (obj, key, label) => {
    const fn = obj[key];
    obj[key] = async function (...args) {
      const t0 = performance.now();
      try {
        return await fn.apply(this, args);
      } finally {
        acc[label] = (acc[label] ?? 0) + performance.now() - t0;
      }
    };
  };
  wrap(p, "buildStart", "buildStart (spawn + handshake + scan)");
  wrap(p.load, "handler", "load (authority module)");
  wrap(p.transform, "handler", "transform (all files)");
  wrap(p, "buildEnd", "buildEnd (close the child)");
  return p;
}
let hookTimes = [];

async function timedBuild(withPlugin) {
  const acc = {};
  const config = await viteConfig(app.root, withPlugin ? [timedPlugin(acc)] : []);
  if (withPlugin) hookTimes.push(acc);
  if (!withPlugin) config.resolve.alias = { ...config.resolve.alias, "virtual:agent-surface/authority": stub };
  const t0 = performance.now();
  await build(config);
  return performance.now() - t0;
}

try {
  console.log(`agent-surface binary: ${bin}`);
  console.log(`node ${process.version}, vite ${(await import("vite")).version}\n`);

  // 1. vite build
  await timedBuild(false); // warm-up: file cache, module loading
  await timedBuild(true);
  const without = [];
  const withPlugin = [];
  for (let i = 0; i < BUILDS; i++) {
    without.push(await timedBuild(false));
    withPlugin.push(await timedBuild(true));
  }
  const mw = median(without);
  const mp = median(withPlugin);
  console.log(`vite build, example app (median of ${BUILDS}, interleaved, after one warm-up each):`);
  console.log(`  without the plugin: ${ms(mw)}   [${without.map((x) => x.toFixed(0)).join(", ")}]`);
  console.log(`  with the plugin:    ${ms(mp)}   [${withPlugin.map((x) => x.toFixed(0)).join(", ")}]`);
  console.log(`  difference:         ${ms(mp - mw)} (${(((mp - mw) / mw) * 100).toFixed(1)} %)`);
  const measured = hookTimes.slice(-BUILDS);
  console.log(`  time inside the plugin's hooks (median over the measured builds; the rest of the difference is`);
  console.log(`  bundling @agent-surface/core's verifier and the manifest, which the stub build leaves out):`);
  for (const key of Object.keys(measured[0])) console.log(`    ${key.padEnd(40)} ${ms(median(measured.map((m) => m[key] ?? 0)))}`);
  console.log();

  // 2. transform round trip, unchanged small file
  const file = path.join(app.root, "src/external/reports.ts");
  const code = readFileSync(file, "utf8");
  const client = new ServeClient({ binary: bin, root: app.root });
  const first = await client.request("transform", { file, code });
  const times = [];
  let parsed = 0;
  for (let i = 0; i < 50; i++) await client.request("transform", { file, code }); // warm-up
  for (let i = 0; i < TRANSFORMS; i++) {
    const t0 = performance.now();
    const r = await client.request("transform", { file, code });
    times.push(performance.now() - t0);
    parsed += r.parsed;
  }
  // For comparison: the pipe's floor (a request that does nothing) and a self-contained contract
  // (no imports from other project files to evaluate).
  const floor = [];
  for (let i = 0; i < TRANSFORMS; i++) {
    const t0 = performance.now();
    await client.request("didChange", { files: [] });
    floor.push(performance.now() - t0);
  }
  const tiny = 'import { defineAgentProcedureContract, emptyObjectSchema } from "@agent-surface/core";\nexport const p = defineAgentProcedureContract({ id: "domain:tiny.one", description: "Tiny.", input: emptyObjectSchema, effect: "read" });\n';
  const tinyFile = path.join(app.root, "src/tiny.ts");
  for (let i = 0; i < 50; i++) await client.request("transform", { file: tinyFile, code: tiny });
  const tinyTimes = [];
  for (let i = 0; i < TRANSFORMS; i++) {
    const t0 = performance.now();
    await client.request("transform", { file: tinyFile, code: tiny });
    tinyTimes.push(performance.now() - t0);
  }
  await client.request("didRemove", { files: [tinyFile] });
  await client.close();
  console.log(`transform round trip through the child, unchanged ${Buffer.byteLength(code)}-byte file (src/external/reports.ts), ${first.edits.length} edit (median of ${TRANSFORMS}):`);
  console.log(`  median ${ms(median(times), 3)}, p90 ${ms(pct(times, 90), 3)}, p99 ${ms(pct(times, 99), 3)}; files parsed over all requests: ${parsed} (first request: ${first.parsed})`);
  console.log(`  for comparison: an empty request (didChange []) ${ms(median(floor), 3)}; an unchanged self-contained ${tiny.length}-byte contract file ${ms(median(tinyTimes), 3)}`);

  const plugin = agentSurface();
  plugin.configResolved({ root: app.root, command: "build", logger: console });
  const ctx = { warn() {}, error(e) { throw e; } };
  await plugin.transform.handler.call(ctx, code, file);
  for (let i = 0; i < 50; i++) await plugin.transform.handler.call(ctx, code, file);
  const hook = [];
  for (let i = 0; i < TRANSFORMS; i++) {
    const t0 = performance.now();
    await plugin.transform.handler.call(ctx, code, file);
    hook.push(performance.now() - t0);
  }
  await plugin.api.close();
  console.log(`plugin transform hook (round trip + offsets + magic-string + hires map), same file (median of ${TRANSFORMS}):`);
  console.log(`  median ${ms(median(hook), 3)}, p90 ${ms(pct(hook, 90), 3)}, p99 ${ms(pct(hook, 99), 3)}`);
  const target = 0.2;
  console.log(`\nround-trip target <= ${target} ms: ${median(times) <= target ? "met" : "NOT met"}`);
} finally {
  app.cleanup();
}
