// What the page pays for agent-surface, against a WebMCP peer and the AI SDK (docs/performance.md,
// "What the page pays"). Each entry in entries/ is the same one-component React page plus one
// library's way of giving an agent that component; the delta over entries/baseline.jsx is what
// the library adds, minified (esbuild) and gzip -9. Also: a file importing only the contract
// macros (its schemas plain AgentSchema objects), the same file building its schemas with
// fromJsonSchema, and each entry point of ours on its own. `--json` prints one JSON document.
import { bundle, here } from "./build.mjs";
import path from "node:path";

const entry = (f) => path.join(here, "entries", f);
const baseline = await bundle({ entry: entry("baseline.jsx") });
const pages = {};
for (const [name, file] of [["agent-surface", "agent-surface.jsx"], ["@mcp-b/global + @mcp-b/react-webmcp (zod)", "mcp-b.jsx"], ["AI SDK tool() + generateText (zod)", "ai-sdk.jsx"]]) {
  const b = await bundle({ entry: entry(file) });
  pages[name] = { gzip: b.gzip, minified: b.minified, deltaGzip: b.gzip - baseline.gzip, deltaMinified: b.minified - baseline.minified };
}
const macros = await bundle({ entry: entry("macros-only.js") });
const macrosWithSchemas = await bundle({ entry: entry("macros-schemas.js") });
// Each entry point alone (React and the core's root external where an entry point builds on them).
const entryPoints = {};
for (const [name, external] of [
  ["@agent-surface/core", []],
  ["@agent-surface/core/explain", []],
  ["@agent-surface/core/webmcp", []],
  ["@agent-surface/core/bridge", []],
  ["@agent-surface/core/providers", []],
  ["@agent-surface/react", ["react", "react-dom", "@agent-surface/core"]],
  ["@agent-surface/ai-sdk", ["ai", "zod", "@agent-surface/core"]],
]) {
  try {
    const b = await bundle({ contents: `export * from ${JSON.stringify(name)};`, external });
    entryPoints[name] = { minified: b.minified, gzip: b.gzip };
  } catch (e) {
    entryPoints[name] = { error: String(e.message ?? e).split("\n")[0] };
  }
}
const ours = pages["agent-surface"].deltaGzip;
const peer = pages["@mcp-b/global + @mcp-b/react-webmcp (zod)"].deltaGzip;
const result = { baseline: { gzip: baseline.gzip, minified: baseline.minified }, pages, macrosOnly: { gzip: macros.gzip, minified: macros.minified }, macrosWithFromJsonSchema: { gzip: macrosWithSchemas.gzip, minified: macrosWithSchemas.minified }, entryPoints, oursOverPeer: ours / peer };
if (process.argv.includes("--json")) {
  console.log(JSON.stringify(result, null, 2));
} else {
  const kb = (n) => (n / 1000).toFixed(1) + " kB";
  console.log(`baseline page (React 19, one component): ${kb(baseline.gzip)} gzip\n`);
  console.log("| what the page adds | minified | gzip |\n|---|---|---|");
  for (const [n, p] of Object.entries(pages)) console.log(`| ${n} | +${kb(p.deltaMinified)} | **+${kb(p.deltaGzip)}** |`);
  console.log(`\nagent-surface / WebMCP peer: ${result.oursOverPeer.toFixed(3)} (target ≤ 0.2)`);
  console.log(`a file importing only the macros: ${macros.gzip} B gzip (target ≤ 2,000 B)`);
  console.log(`the same file with its schemas from fromJsonSchema: ${macrosWithSchemas.gzip} B gzip\n`);
  console.log("| entry point alone | minified | gzip |\n|---|---|---|");
  for (const [n, p] of Object.entries(entryPoints)) console.log(p.error ? `| ${n} | ${p.error} | |` : `| ${n} | ${kb(p.minified)} | ${kb(p.gzip)} |`);
}
