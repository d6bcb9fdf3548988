// Bundles an entry as a page would get it: esbuild, minified ESM for the browser, production
// React; @agent-surface/* resolve to this checkout's built packages (packages/*/dist through
// their package.json `exports`), everything else to this folder's node_modules.
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

export const here = path.dirname(fileURLToPath(import.meta.url));
const packages = path.resolve(here, "../../..");

function ownPackage(spec) {
  const m = /^@agent-surface\/(core|react|ai-sdk)(\/.*)?$/.exec(spec);
  if (!m) return undefined;
  const dir = path.join(packages, m[1]);
  const exports = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")).exports;
  const target = exports[`.${m[2] ?? ""}`];
  if (!target) throw new Error(`${spec}: no such export`);
  return path.join(dir, typeof target === "string" ? target : target.default);
}

const resolveHere = {
  name: "resolve-here",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === "here") return undefined;
      const own = ownPackage(args.path);
      if (own) return { path: own };
      // One copy of every third-party package (React above all), whoever imports it.
      return b.resolve(args.path, { resolveDir: here, kind: args.kind, pluginData: "here" });
    });
  },
};

/** esbuild's options for an entry file or for `contents` (a virtual entry). */
export function buildOptions({ entry, contents, external = [] }) {
  return {
    ...(contents ? { stdin: { contents, resolveDir: here, loader: "js" } } : { entryPoints: [entry] }),
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    jsx: "automatic",
    loader: { ".json": "json" },
    define: { "process.env.NODE_ENV": '"production"' },
    external,
    plugins: [resolveHere],
    write: false,
    legalComments: "none",
    logLevel: "silent",
  };
}

/** { code, minified, gzip } of an entry file or of `contents` (a virtual entry). */
export async function bundle(what) {
  const r = await build(buildOptions(what));
  const code = r.outputFiles[0].contents;
  return { code, minified: code.length, gzip: gzipSync(code, { level: 9 }).length };
}
