// Each bundler's build of the fixture app with the plugin, as its docs (docs/bundlers.md) show
// it, into dist/main.js (a script) and dist/main.js.map. A failed build rejects with an Error
// whose message holds every error the bundler reported.
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

const out = (root) => path.join(root, "dist");

async function rollupBuild(root, { plugin = true } = {}) {
  const { rollup } = await import("rollup");
  const { nodeResolve } = await import("@rollup/plugin-node-resolve");
  const { default: esbuild } = await import("rollup-plugin-esbuild");
  const { default: agentSurface } = await import("../src/rollup.js");
  const bundle = await rollup({
    input: path.join(root, "src/main.ts"),
    // Rollup has no cwd option: the plugin's root defaults to process.cwd(); the test names it.
    plugins: [...(plugin ? [agentSurface({ root })] : []), nodeResolve({ extensions: [".ts", ".js"] }), esbuild({ target: "es2022" })],
    onwarn: () => {},
  });
  try {
    await bundle.write({ file: path.join(out(root), "main.js"), format: "iife", sourcemap: true });
  } finally {
    await bundle.close();
  }
}

async function rolldownBuild(root, { plugin = true } = {}) {
  const { build } = await import("rolldown");
  const { default: agentSurface } = await import("../src/rolldown.js");
  await build({
    cwd: root,
    input: path.join(root, "src/main.ts"),
    plugins: plugin ? [agentSurface()] : [],
    logLevel: "silent",
    output: { file: path.join(out(root), "main.js"), format: "iife", sourcemap: true },
  });
}

/** webpack and Rspack: one config, the TypeScript loader differs. */
function webpackConfig(root, tsRule, plugins) {
  return {
    mode: "production",
    context: root,
    entry: "./src/main.ts",
    devtool: "source-map",
    optimization: { minimize: false },
    resolve: { extensions: [".ts", ".js"] },
    module: { rules: [tsRule] },
    plugins,
    output: { path: out(root), filename: "main.js" },
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

/**
 * webpack or Rspack in watch mode with the plugin, in development mode (its cache keeps the
 * modules a change does not touch, as a dev server's does): calls `onBuild(err, stats)` after each build;
 * returns a function that stops watching (resolves when closed).
 */
export async function watchBuild(name, root, onBuild) {
  let compiler;
  if (name === "webpack") {
    const { default: webpack } = await import("webpack");
    const { default: agentSurface } = await import("../src/webpack.js");
    const rule = { test: /\.ts$/, loader: require.resolve("esbuild-loader"), options: { target: "es2022" } };
    compiler = webpack({ ...webpackConfig(root, rule, [agentSurface()]), mode: "development" });
  } else {
    const { rspack } = await import("@rspack/core");
    const { default: agentSurface } = await import("../src/rspack.js");
    const rule = { test: /\.ts$/, loader: "builtin:swc-loader", options: { jsc: { parser: { syntax: "typescript" }, target: "es2022" } }, type: "javascript/auto" };
    compiler = rspack({ ...webpackConfig(root, rule, [agentSurface()]), mode: "development" });
  }
  const watching = compiler.watch({ aggregateTimeout: 20 }, (err, stats) => onBuild(err, stats));
  return () => new Promise((resolve) => watching.close(() => resolve()));
}

async function webpackBuild(root, { plugin = true } = {}) {
  const { default: webpack } = await import("webpack");
  const { default: agentSurface } = await import("../src/webpack.js");
  const rule = { test: /\.ts$/, loader: require.resolve("esbuild-loader"), options: { target: "es2022" } };
  await runCompiler(webpack(webpackConfig(root, rule, plugin ? [agentSurface()] : [])));
}

async function rspackBuild(root, { plugin = true } = {}) {
  const { rspack } = await import("@rspack/core");
  const { default: agentSurface } = await import("../src/rspack.js");
  const rule = { test: /\.ts$/, loader: "builtin:swc-loader", options: { jsc: { parser: { syntax: "typescript" }, target: "es2022" } }, type: "javascript/auto" };
  await runCompiler(rspack(webpackConfig(root, rule, plugin ? [agentSurface()] : [])));
}

async function esbuildBuild(root, { plugin = true } = {}) {
  const esbuild = await import("esbuild");
  const { default: agentSurface } = await import("../src/esbuild.js");
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: ["src/main.ts"],
    bundle: true,
    format: "iife",
    sourcemap: true,
    outfile: path.join(out(root), "main.js"),
    plugins: plugin ? [agentSurface()] : [],
    logLevel: "silent",
  });
}

export const builders = {
  rollup: rollupBuild,
  rolldown: rolldownBuild,
  webpack: webpackBuild,
  rspack: rspackBuild,
  esbuild: esbuildBuild,
};
