// The hooks' bundle size: dist/index.js bundled by esbuild with react, react-dom and
// @agent-surface/core external (an app pays for those anyway), minified, ESM; then gzip -9 and
// brotli quality 11 through Node's zlib, as docs/performance.md measures the engine.
// `npm run size` (after `npm run build`). Prints a Markdown row and, with --json, JSON.
import { build } from "esbuild";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const entry = fileURLToPath(new URL("../dist/index.js", import.meta.url));
if (!existsSync(entry)) {
  console.error("dist/index.js is missing: run npm run build first");
  process.exit(1);
}

const result = await build({
  entryPoints: [entry],
  bundle: true,
  minify: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  external: ["react", "react-dom", "@agent-surface/core"],
  define: { "process.env.NODE_ENV": '"production"' },
  write: false,
  legalComments: "none",
});
const code = result.outputFiles[0].contents;
const gzip = gzipSync(code, { level: 9 }).length;
const brotli = brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
const sizes = { minified: code.length, gzip, brotli };
if (process.argv.includes("--json")) console.log(JSON.stringify(sizes));
else {
  console.log("| bundle | minified | gzip | brotli |\n|---|---|---|---|");
  console.log(`| @agent-surface/react (react and core external) | ${sizes.minified} | ${sizes.gzip} | ${sizes.brotli} |`);
}
