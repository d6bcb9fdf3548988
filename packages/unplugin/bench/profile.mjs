#!/usr/bin/env node
// Where the plugin's time goes in a cold build of examples/devices-app (a diagnosis aid, not a
// test): each build's timeline of the compiler child's requests, relative to the build's start —
// when each was sent and answered, how long sending blocked the caller ("sync": the first request
// spawns the child, which Node does synchronously), the scan's own time in the child, how many
// files a transform parsed — and when the child was closed, beside the same build without the
// plugin. Transforms the plugin answers from the scan make no request and do not show.
// Usage: AGENT_SURFACE_BINARY=... node bench/profile.mjs [--builds 5] [--bundlers vite,rolldown,esbuild]
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { ServeClient } from "../src/child.js";
import { repoDir } from "../test/helpers.js";
import { exampleBuilders, prebuiltAuthorityFile } from "./example-builders.js";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : process.argv[i + 1];
};
const BUILDS = Number(arg("builds", 5));
const names = arg("bundlers", "vite,rolldown,esbuild").split(",");
const bin = process.env.AGENT_SURFACE_BINARY;
const exampleDir = path.join(repoDir, "examples/devices-app");

let t0 = 0;
let events = [];
const rel = (t) => +(t - t0).toFixed(1);
const origRequest = ServeClient.prototype.request;
ServeClient.prototype.request = function (method, params) {
  const a = performance.now();
  const p = origRequest.call(this, method, params);
  const b = performance.now();
  const ev = { method, file: params?.file ? path.relative(exampleDir, params.file) : undefined, sent: rel(a), syncMs: +(b - a).toFixed(1) };
  events.push(ev);
  p.then(
    (r) => {
      ev.done = rel(performance.now());
      if (r && r.elapsedMs !== undefined) ev.childMs = r.elapsedMs;
      if (r && r.parsed !== undefined) ev.parsed = r.parsed;
    },
    () => (ev.done = "err"),
  );
  return p;
};
const origClose = ServeClient.prototype.close;
ServeClient.prototype.close = function (g) {
  const a = performance.now();
  const ev = { method: "(close)", sent: rel(a) };
  events.push(ev);
  return origClose.call(this, g).then((x) => {
    ev.done = rel(performance.now());
    return x;
  });
};

const out = mkdtempSync(path.join(os.tmpdir(), "as-prof-"));
const { authorityFile } = prebuiltAuthorityFile(bin, exampleDir, out);
try {
  for (const name of names) {
    for (const kind of ["without", "with"]) await exampleBuilders[name](exampleDir, { plugin: kind === "with", out: path.join(out, name), authorityFile });
    for (let i = 0; i < BUILDS; i++) {
      const tw0 = performance.now();
      await exampleBuilders[name](exampleDir, { plugin: false, out: path.join(out, name), authorityFile });
      const without = performance.now() - tw0;
      events = [];
      t0 = performance.now();
      await exampleBuilders[name](exampleDir, { plugin: true, out: path.join(out, name), authorityFile });
      const total = performance.now() - t0;
      console.log(`\n${name} #${i}: with ${total.toFixed(0)} ms, without ${without.toFixed(0)} ms (load ${os.loadavg()[0].toFixed(2)})`);
      for (const e of events) console.log(`  ${String(e.sent).padStart(6)} → ${String(e.done).padStart(6)} ms  ${e.method}${e.file ? " " + e.file : ""}${e.syncMs > 1 ? ` (sync ${e.syncMs} ms)` : ""}${e.childMs !== undefined ? ` (child ${e.childMs} ms)` : ""}${e.parsed !== undefined ? ` parsed ${e.parsed}` : ""}`);
    }
  }
} finally {
  rmSync(out, { recursive: true, force: true });
  rmSync(path.dirname(authorityFile), { recursive: true, force: true });
}
process.exit(0);
