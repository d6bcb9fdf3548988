// esbuild hands a plugin every file its filter matches. The plugin's own `onLoad` leaves the
// files its build's scan found inert (no contract, no diagnostic) to esbuild without reading them,
// gives esbuild back only what the compiler changed, and reads again once a file changed.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { unpluginFactory } from "../src/index.js";
import { binary, buildContext, copyApp } from "./helpers.js";

const ctx = buildContext();
/** An invalid contract (AS0101): the compiler fails any transform of a text holding it. */
const BAD = 'import { defineAgentComponentContract } from "@agent-surface/core";\nexport const b = defineAgentComponentContract({ type: "Not A Type!", description: "x" });\n';

describe("the esbuild plugin's onLoad", () => {
  let app;
  beforeAll(() => {
    app = copyApp();
  });
  afterAll(() => app?.cleanup());

  test("an inert file is not read; a contract file gets its provenance; a changed file is read again", async () => {
    const p = unpluginFactory({ binary: binary() }, { framework: "esbuild" });
    const loads = [];
    p.esbuild.setup({ initialOptions: { absWorkingDir: app.root }, onResolve() {}, onDispose() {}, onLoad: (options, callback) => loads.push({ options, callback }) });
    const [onLoad] = loads.filter((l) => l.options.filter.test("/x/a.tsx") && l.options.namespace === "file");
    expect(onLoad, "an onLoad for TypeScript files").toBeDefined();
    const load = (file) => onLoad.callback({ path: path.join(app.root, file), suffix: "", namespace: "file" });
    try {
      p.buildStart.call(ctx);
      const scan = await p.api.scan();
      const main = path.join(app.root, "src/main.ts");
      expect(scan.inert).toContain(main);

      const reports = await load("src/external/reports.ts");
      expect(reports.loader).toBe("ts");
      expect(reports.contents).toContain('"id":"external:reports.export"');
      expect(reports.contents).not.toContain("sourceMappingURL"); // no `sourcemap` option: no map

      // The build's scan is its snapshot: an inert file changed since is still left to esbuild.
      const original = readFileSync(main, "utf8");
      writeFileSync(main, BAD);
      expect(await load("src/main.ts")).toBeUndefined();
      // Once the bundler reports the change (watch mode), the file is read and compiled again.
      await p.watchChange(main, { event: "update" });
      const err = await load("src/main.ts").then(
        () => null,
        (e) => e,
      );
      expect(err, "the changed file's transform must fail").not.toBeNull();
      expect(err.message).toContain("AS0101");
      writeFileSync(main, original);
      // A file outside the project root, or one in node_modules, is never the compiler's.
      expect(await onLoad.callback({ path: path.join(app.root, "node_modules/x/index.ts"), suffix: "", namespace: "file" })).toBeUndefined();
    } finally {
      await p.api.close();
    }
  });
});
