// Where the page's bytes go (docs/performance.md, "What the page pays"): for the macros-only
// file and the minimal React entry of size.mjs, the bundle split per module, each with its
// minified bytes and its gzip weight: how much smaller the gzip -9 bundle gets without that
// module's code (everything else kept, so the weights add up to about the whole). The split
// comes from the same build with whitespace kept (esbuild heads each module's code with a
// `// path` comment); each remainder is whitespace-minified again before it is compressed.
// Strings are counted apart (`strings`: the gzip weight of the module's string and template
// literal text — messages, help texts, names), since they are what agents and authors read.
// `--json` prints one JSON document.
import { build, transform } from "esbuild";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { buildOptions, here } from "./build.mjs";

const packages = path.resolve(here, "../../..");
const gzip = (text) => gzipSync(text, { level: 9 }).length;
const minified = async (text) => (await transform(text, { minifyWhitespace: true, legalComments: "none", loader: "js" })).code;
/** Every string, template or regular-expression-free quoted text of minified code, emptied. */
const LITERAL = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g;

async function weights(entry) {
  const r = await build({ ...buildOptions({ entry }), minify: false, minifySyntax: true, minifyIdentifiers: true });
  const text = r.outputFiles[0].text;
  // Chunks: [name, code], the first one (esbuild's helpers, if any) unnamed.
  const chunks = [];
  for (const line of text.split("\n")) {
    const head = /^\/\/ (\S+)$/.exec(line);
    if (head || chunks.length === 0) chunks.push([head ? path.relative(packages, path.resolve(here, head[1])) : "(bundle)", []]);
    else chunks.at(-1)[1].push(line);
  }
  const whole = await minified(text);
  const total = gzip(whole);
  const rows = [];
  for (let i = 0; i < chunks.length; i++) {
    const [name, lines] = chunks[i];
    const own = await minified(lines.join("\n"));
    const rest = await minified(chunks.flatMap(([, l], j) => (j === i ? [] : l)).join("\n"));
    // Where the literal pattern cannot blank this module's code safely (a regular expression
    // with a quote in it, templates inside templates), its strings figure is left out.
    let strings = null;
    try {
      strings = total - gzip(await minified(chunks.flatMap(([, l], j) => (j === i ? l.map((x) => x.replace(LITERAL, '""')) : l)).join("\n")));
    } catch {}
    rows.push({ module: name, minified: own.length, gzipWeight: total - gzip(rest), strings });
  }
  rows.sort((a, b) => b.gzipWeight - a.gzipWeight);
  return { minified: whole.length, gzip: total, modules: rows };
}

const result = {};
for (const file of ["macros-only.js", "agent-surface.jsx"]) result[file] = await weights(path.join(here, "entries", file));
if (process.argv.includes("--json")) {
  console.log(JSON.stringify(result, null, 2));
} else {
  for (const [name, r] of Object.entries(result)) {
    console.log(`entries/${name}: ${r.minified} B minified, ${r.gzip} B gzip\n\n| module | minified | gzip weight | of which strings |\n|---|---|---|---|`);
    const third = (m) => m.module.includes("node_modules") || m.module === "(bundle)";
    const shown = r.modules.filter((m) => !third(m));
    const sum = (rows, k) => rows.reduce((n, m) => n + (m[k] ?? 0), 0);
    for (const m of shown) console.log(`| ${m.module} | ${m.minified} | ${m.gzipWeight} | ${m.strings ?? "—"} |`);
    console.log(`| **all of the above** | ${sum(shown, "minified")} | ${sum(shown, "gzipWeight")} | ≥ ${sum(shown, "strings")} |`);
    const rest = r.modules.filter(third);
    if (rest.length) console.log(`| React (${rest.length - 1} modules) and esbuild's CommonJS helpers | ${sum(rest, "minified")} | ${sum(rest, "gzipWeight")} | |`);
    console.log();
  }
}
