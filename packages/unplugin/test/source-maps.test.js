// A transform's source map is made when the build writes maps, and only then: Vite's
// `build.sourcemap` (or an environment's), esbuild's `sourcemap`, webpack's and Rspack's `devtool`
// (or a SourceMapDevToolPlugin of the config's own), Rolldown's `output.sourcemap` (asked before
// each build); Rollup, which knows its output options only after the transforms, and every dev
// server always get one.
import { readFileSync } from "node:fs";
import path from "node:path";
import { rspack } from "@rspack/core";
import { build as rolldownBuild } from "rolldown";
import { createUnplugin } from "unplugin";
import webpack from "webpack";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { unpluginFactory } from "../src/index.js";
import { binary, buildContext, copyApp } from "./helpers.js";

const ctx = buildContext();

describe("source maps of the provenance transform", () => {
  let app;
  let reports;
  let text;
  beforeAll(() => {
    app = copyApp();
    reports = path.join(app.root, "src/external/reports.ts");
    text = readFileSync(reports, "utf8");
  });
  afterAll(() => app?.cleanup());

  /** The transform of a contract module once the build's scan is done, as the bundler calls it. */
  async function transformOf(framework, configure) {
    const p = unpluginFactory({ binary: binary(), root: app.root }, { framework });
    try {
      configure(p);
      p.buildStart.call(ctx);
      await p.api.scan();
      const out = await p.transform.handler.call(ctx, text, reports);
      expect(out.code).toContain('"id":"external:reports.export"');
      return out;
    } finally {
      await p.api.close();
    }
  }
  const fakeEsbuild = (initialOptions) => ({ initialOptions: { absWorkingDir: app.root, ...initialOptions }, onResolve() {}, onLoad() {}, onDispose() {} });
  const viteConfig = (command, build, environments = {}) => ({ root: app.root, command, build, environments, logger: console });

  test("esbuild: a map only with `sourcemap`", async () => {
    expect((await transformOf("esbuild", (p) => p.esbuild.setup(fakeEsbuild({})))).map).toBeNull();
    const out = await transformOf("esbuild", (p) => p.esbuild.setup(fakeEsbuild({ sourcemap: "linked" })));
    expect(out.map.sources).toEqual([reports]);
  });

  test("Vite: a map in the dev server, and in a build with `build.sourcemap` or an environment's", async () => {
    expect((await transformOf("vite", (p) => p.vite.configResolved(viteConfig("build", { sourcemap: false })))).map).toBeNull();
    expect((await transformOf("vite", (p) => p.vite.configResolved(viteConfig("build", { sourcemap: "hidden" })))).map.sources).toEqual([reports]);
    const ssrMaps = viteConfig("build", { sourcemap: false }, { client: { build: { sourcemap: false } }, ssr: { build: { sourcemap: true } } });
    expect((await transformOf("vite", (p) => p.vite.configResolved(ssrMaps))).map.sources).toEqual([reports]);
    expect((await transformOf("vite", (p) => p.vite.configResolved(viteConfig("serve", { sourcemap: false })))).map.sources).toEqual([reports]);
  });

  test("webpack and Rspack: a map with `devtool` or a SourceMapDevToolPlugin", async () => {
    const configs = { context: app.root, mode: "production", entry: "./src/main.ts" };
    expect((await transformOf("webpack", (p) => p.webpack(webpack({ ...configs, devtool: false })))).map).toBeNull();
    expect((await transformOf("webpack", (p) => p.webpack(webpack({ ...configs, devtool: "source-map" })))).map.sources).toEqual([reports]);
    const own = webpack({ ...configs, devtool: false, plugins: [new webpack.SourceMapDevToolPlugin({ filename: "[file].map" })] });
    expect((await transformOf("webpack", (p) => p.webpack(own))).map.sources).toEqual([reports]);
    expect((await transformOf("rspack", (p) => p.rspack(rspack({ ...configs, devtool: false })))).map).toBeNull();
    expect((await transformOf("rspack", (p) => p.rspack(rspack({ ...configs, devtool: "source-map" })))).map.sources).toEqual([reports]);
  });

  test("Rollup: always a map", async () => {
    expect((await transformOf("rollup", () => {})).map.sources).toEqual([reports]);
  });

  test("Rolldown: a map when the build's output has `sourcemap`", async () => {
    /** The plugin's transform results of a real Rolldown build of the app, by file. */
    async function transformsOf(output) {
      const results = new Map();
      const plugin = createUnplugin((options, meta) => {
        const p = unpluginFactory(options, meta);
        const handler = p.transform.handler;
        p.transform.handler = async function (code, id) {
          const result = await handler.call(this, code, id);
          results.set(id, result);
          return result;
        };
        return p;
      }).rolldown;
      await rolldownBuild({ cwd: app.root, input: path.join(app.root, "src/main.ts"), plugins: [plugin({ binary: binary() })], logLevel: "silent", write: false, output });
      return results;
    }
    expect((await transformsOf({ sourcemap: false })).get(reports).map).toBeNull();
    expect((await transformsOf({})).get(reports).map).toBeNull();
    expect((await transformsOf({ sourcemap: "hidden" })).get(reports).map.sources).toEqual([reports]);
  });
});
