#!/usr/bin/env node
// One build of the example app in this fresh process, as a user's `vite build` (or rolldown,
// esbuild, ...) runs: for bench.mjs --fresh. Prints the build call's own time in ms.
// Usage: node bench/build-once.mjs <bundler> <with|without> <app dir> <out dir> <prebuilt authority file>
import { performance } from "node:perf_hooks";
import { exampleBuilders } from "./example-builders.js";

const [name, kind, appDir, out, authorityFile] = process.argv.slice(2);
const t0 = performance.now();
await exampleBuilders[name](appDir, { plugin: kind === "with", out, authorityFile });
process.stdout.write(String(performance.now() - t0));
process.exit(0);
