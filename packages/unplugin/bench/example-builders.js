// A production build of examples/devices-app (React 19, the AI SDK, zod, Valibot, ArkType,
// TypeBox, oRPC; 9 contracts) per bundler, for bench.mjs: the app's own Vite settings carried over
// to each bundler — entry src/main.tsx, the "@" alias to src, React's automatic JSX runtime, one
// copy of react, react-dom, ai and @agent-surface/core (the repository's packages are file: links
// with their own dev installs of them), import.meta.env.DEV false, minified, no source maps.
//
// `plugin: true` adds the agent-surface plugin; `plugin: false` resolves
// `virtual:agent-surface/authority` to `authorityFile` instead: a module made ahead of time from
// the same compiled manifest (authorityModule), so both builds bundle the same code apart from
// the provenance the plugin inserts. The bundler versions are the ones this package's tests pin;
// Vite is the example app's own.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { authorityModule, VIRTUAL_AUTHORITY_ID } from "../src/index.js";

const require = createRequire(import.meta.url);

/** The packages the app's vite.config.ts dedupes: resolved from the app's root everywhere. */
export const DEDUPE = ["react", "react-dom", "ai", "@agent-surface/core"];
const DEDUPE_ID = /^(?:react|react-dom|ai|@agent-surface\/core)(?:\/.*)?$/;
const AUTHORITY_ID = /^virtual:agent-surface\/authority$/;
/** Vite's replacements of a production build that the app's code reads. */
const DEFINE = {
  "process.env.NODE_ENV": JSON.stringify("production"),
  "import.meta.env.DEV": "false",
  "import.meta.env.PROD": "true",
  "import.meta.env.MODE": JSON.stringify("production"),
};

/**
 * @typedef {{ plugin: boolean, out: string, authorityFile: string }} BuildOptions
 * @typedef {(root: string, options: BuildOptions) => Promise<void>} ExampleBuilder
 */

/** Rollup and Rolldown: the authority import goes to the prebuilt module. */
/**
 * The authority module the plugin would make for `exampleDir`, compiled once by `bin` (into
 * `out`) outside the timing, for the builds without the plugin to import instead of
 * `virtual:agent-surface/authority`. It lives in the app's node_modules so that its import of
 * @agent-surface/core resolves as the app's. Returns its path and the manifest.
 */
export function prebuiltAuthorityFile(bin, exampleDir, out) {
  execFileSync(bin, ["compile", exampleDir, "--out", path.join(out, "manifest.json")], { stdio: "ignore" });
  const manifest = JSON.parse(readFileSync(path.join(out, "manifest.json"), "utf8"));
  const authorityDir = path.join(exampleDir, "node_modules/.agent-surface-bench");
  mkdirSync(authorityDir, { recursive: true });
  const authorityFile = path.join(authorityDir, "authority.js");
  writeFileSync(authorityFile, authorityModule(manifest));
  return { authorityFile, manifest };
}

function prebuiltAuthority(authorityFile) {
  return { name: "bench-prebuilt-authority", resolveId: { filter: { id: AUTHORITY_ID }, handler: () => authorityFile } };
}

/** Rolldown: `react` & co. resolved as if the app's root imported them (Vite's resolve.dedupe). */
function dedupe(root) {
  const importer = path.join(root, "package.json");
  return {
    name: "bench-dedupe",
    resolveId: {
      filter: { id: DEDUPE_ID },
      handler(source, from, options) {
        if (from === importer) return null;
        return this.resolve(source, importer, { ...options, skipSelf: true });
      },
    },
  };
}

/** Rollup and Rolldown bundle no CSS: the stylesheet is emitted as an asset, as Vite does. */
function cssAsset() {
  return {
    name: "bench-css-asset",
    load(id) {
      if (!id.endsWith(".css")) return null;
      this.emitFile({ type: "asset", name: path.basename(id), source: readFileSync(id) });
      return { code: "", moduleType: "js" };
    },
  };
}

/** @type {ExampleBuilder} */
async function viteBuild(root, { plugin, out, authorityFile }) {
  const requireApp = createRequire(path.join(root, "package.json"));
  const vite = await import(requireApp.resolve("vite"));
  const { default: react } = await import(requireApp.resolve("@vitejs/plugin-react"));
  const { default: agentSurface } = await import("../src/vite.js");
  await vite.build({
    root,
    configFile: false,
    logLevel: "silent",
    plugins: [react(), ...(plugin ? [agentSurface()] : [])],
    resolve: {
      alias: { "@": path.join(root, "src"), ...(plugin ? {} : { [VIRTUAL_AUTHORITY_ID]: authorityFile }) },
      dedupe: DEDUPE,
    },
    build: { outDir: out, emptyOutDir: true },
  });
}

/** @type {ExampleBuilder} */
async function rollupBuild(root, { plugin, out, authorityFile }) {
  const { rollup } = await import("rollup");
  const { default: alias } = await import("@rollup/plugin-alias");
  const { default: commonjs } = await import("@rollup/plugin-commonjs");
  const { default: replace } = await import("@rollup/plugin-replace");
  const { nodeResolve } = await import("@rollup/plugin-node-resolve");
  const { default: esbuild } = await import("rollup-plugin-esbuild");
  const { default: agentSurface } = await import("../src/rollup.js");
  const bundle = await rollup({
    input: path.join(root, "src/main.tsx"),
    plugins: [
      // Rollup has no cwd option: the plugin's root is named.
      plugin ? agentSurface({ root }) : prebuiltAuthority(authorityFile),
      alias({ entries: [{ find: /^@\//, replacement: path.join(root, "src") + "/" }] }),
      replace({ preventAssignment: true, values: DEFINE }),
      cssAsset(),
      nodeResolve({ browser: true, extensions: [".tsx", ".ts", ".mjs", ".js", ".json"], dedupe: DEDUPE, rootDir: root }),
      commonjs(),
      esbuild({ target: "es2022", jsx: "automatic", minify: true }),
    ],
    onwarn: () => {},
  });
  try {
    await bundle.write({ dir: out, format: "es" });
  } finally {
    await bundle.close();
  }
}

/** @type {ExampleBuilder} */
async function rolldownBuild(root, { plugin, out, authorityFile }) {
  const { build } = await import("rolldown");
  const { default: agentSurface } = await import("../src/rolldown.js");
  await build({
    cwd: root,
    input: path.join(root, "src/main.tsx"),
    platform: "browser",
    plugins: [plugin ? agentSurface() : prebuiltAuthority(authorityFile), dedupe(root), cssAsset()],
    resolve: { alias: { "@": path.join(root, "src") } },
    transform: { jsx: "react-jsx", define: DEFINE },
    logLevel: "silent",
    output: { dir: out, format: "es", minify: true },
  });
}

/** webpack and Rspack: one config, the TSX loader, the minifier and the plugins differ. */
function webpackConfig(root, out, { tsRule, minimizer, plugins }) {
  return {
    mode: "production",
    context: root,
    entry: "./src/main.tsx",
    devtool: false,
    resolve: {
      extensions: [".tsx", ".ts", ".mjs", ".js", ".json"],
      alias: { "@": path.join(root, "src") },
      // Vite's dedupe: a bare import looks in the app's node_modules first.
      modules: [path.join(root, "node_modules"), "node_modules"],
    },
    module: { rules: [tsRule, { test: /\.css$/, type: "css" }] },
    experiments: { css: true },
    optimization: minimizer ? { minimizer: [minimizer] } : {},
    plugins,
    output: { path: out, clean: true },
    performance: { hints: false },
    infrastructureLogging: { level: "error" },
  };
}

function runCompiler(compiler) {
  return new Promise((resolve, reject) => {
    compiler.run((err, stats) => {
      compiler.close(() => {
        if (err) return reject(err);
        if (stats.hasErrors()) {
          const { errors } = stats.toJson({ all: false, errors: true });
          return reject(new Error(errors.map((e) => e.message).join("\n")));
        }
        resolve(stats);
      });
    });
  });
}

/** webpack's rule for the app's TypeScript: esbuild-loader (a function: it resolves the loader). */
const webpackTsRule = () => ({ test: /\.tsx?$/, loader: require.resolve("esbuild-loader"), options: { loader: "tsx", target: "es2022", jsx: "automatic" } });
/** Rspack's rule for the app's TypeScript: its built-in SWC loader. */
const RSPACK_TS_RULE = {
  test: /\.tsx?$/,
  loader: "builtin:swc-loader",
  options: { jsc: { parser: { syntax: "typescript", tsx: true }, transform: { react: { runtime: "automatic" } }, target: "es2022" } },
  type: "javascript/auto",
};
const webpackDefine = Object.fromEntries(Object.entries(DEFINE).filter(([k]) => k !== "process.env.NODE_ENV")); // mode sets it

/** @type {ExampleBuilder} */
async function webpackBuild(root, { plugin, out, authorityFile }) {
  const { default: webpack } = await import("webpack");
  const { EsbuildPlugin } = await import("esbuild-loader");
  const { default: agentSurface } = await import("../src/webpack.js");
  const plugins = [
    plugin ? agentSurface() : new webpack.NormalModuleReplacementPlugin(AUTHORITY_ID, authorityFile),
    new webpack.DefinePlugin(webpackDefine),
  ];
  await runCompiler(webpack(webpackConfig(root, out, { tsRule: webpackTsRule(), minimizer: new EsbuildPlugin({ target: "es2022", css: true }), plugins })));
}

/** @type {ExampleBuilder} */
async function rspackBuild(root, { plugin, out, authorityFile }) {
  const { rspack } = await import("@rspack/core");
  const { default: agentSurface } = await import("../src/rspack.js");
  const plugins = [
    plugin ? agentSurface() : new rspack.NormalModuleReplacementPlugin(AUTHORITY_ID, authorityFile),
    new rspack.DefinePlugin(webpackDefine),
  ];
  // Rspack's own minifiers (SWC, Lightning CSS) are its production defaults.
  await runCompiler(rspack(webpackConfig(root, out, { tsRule: RSPACK_TS_RULE, minimizer: null, plugins })));
}

/**
 * webpack or Rspack watching the app with the plugin, in development mode (the cache a dev
 * server has; no minifier): `onBuild(err, stats)` after each build; returns a stop function.
 */
export async function watchExample(name, root, out, onBuild) {
  let compiler;
  if (name === "webpack") {
    const { default: webpack } = await import("webpack");
    const { default: agentSurface } = await import("../src/webpack.js");
    compiler = webpack({ ...webpackConfig(root, out, { tsRule: webpackTsRule(), minimizer: null, plugins: [agentSurface(), new webpack.DefinePlugin({ ...webpackDefine, "import.meta.env.DEV": "true", "import.meta.env.PROD": "false" })] }), mode: "development" });
  } else {
    const { rspack } = await import("@rspack/core");
    const { default: agentSurface } = await import("../src/rspack.js");
    compiler = rspack({ ...webpackConfig(root, out, { tsRule: RSPACK_TS_RULE, minimizer: null, plugins: [agentSurface(), new rspack.DefinePlugin({ ...webpackDefine, "import.meta.env.DEV": "true", "import.meta.env.PROD": "false" })] }), mode: "development" });
  }
  const watching = compiler.watch({ aggregateTimeout: 20 }, onBuild);
  return () => new Promise((resolve) => watching.close(() => resolve()));
}

/** @type {ExampleBuilder} */
async function esbuildBuild(root, { plugin, out, authorityFile }) {
  const esbuild = await import("esbuild");
  const { default: agentSurface } = await import("../src/esbuild.js");
  const prebuilt = {
    name: "bench-prebuilt-authority",
    setup(build) {
      build.onResolve({ filter: AUTHORITY_ID }, () => ({ path: authorityFile }));
    },
  };
  const dedupeEsbuild = {
    name: "bench-dedupe",
    setup(build) {
      build.onResolve({ filter: DEDUPE_ID }, (args) => {
        if (args.pluginData === "bench-dedupe") return undefined;
        return build.resolve(args.path, { kind: args.kind, resolveDir: root, pluginData: "bench-dedupe" });
      });
    },
  };
  // The "@" alias comes from the app's tsconfig.json paths, which esbuild reads.
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: ["src/main.tsx"],
    bundle: true,
    format: "esm",
    splitting: true,
    platform: "browser",
    target: "es2022",
    jsx: "automatic",
    minify: true,
    define: DEFINE,
    outdir: out,
    plugins: [plugin ? agentSurface() : prebuilt, dedupeEsbuild],
    logLevel: "silent",
  });
}

/** @type {Record<string, ExampleBuilder>} */
export const exampleBuilders = {
  vite: viteBuild,
  rollup: rollupBuild,
  rolldown: rolldownBuild,
  webpack: webpackBuild,
  rspack: rspackBuild,
  esbuild: esbuildBuild,
};
