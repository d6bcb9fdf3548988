// In a build, a module that can declare no contract makes no round trip to the compiler (its
// diagnostics come with the build's project-wide check, reported in buildEnd), nor does one whose
// text the build's scan compiled; in the dev server, which has no such check, every module the
// compiler would look at still goes to it, so its errors show where it is transformed.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { applyEdits, compilerThreads, unpluginFactory } from "../src/index.js";
import { binary, buildContext, copyApp } from "./helpers.js";

/** Declares no contract; binds one with an instance id the grammar refuses (AS0105). */
const HELPER = [
  'import type { ContractProvenance } from "@agent-surface/core";',
  'import { exportReport } from "./external/reports";',
  "",
  'export const bound: ContractProvenance | undefined = exportReport.bind({ instanceId: "Not An Id!" });',
  "",
].join("\n");

describe("transform in a build and in the dev server", () => {
  let app;
  let helper;
  beforeAll(() => {
    app = copyApp();
    helper = path.join(app.root, "src/helper.ts");
    writeFileSync(helper, HELPER);
  });
  afterAll(() => app?.cleanup());

  test("a build sends only the modules that can declare a contract, and still fails at the others' errors", async () => {
    const p = unpluginFactory({ binary: binary(), root: app.root }, { framework: "rollup" });
    try {
      p.buildStart.call(buildContext());
      const requests = () => p.api.client.nextId - 1;
      expect(requests()).toBe(1); // the project's scan
      expect(await p.transform.handler.call(buildContext(), HELPER, helper)).toBeNull();
      expect(requests()).toBe(1);
      // Once the build's scan is done, a contract module whose text it compiled gets its edits.
      await p.api.scan();
      const reports = path.join(app.root, "src/external/reports.ts");
      const text = readFileSync(reports, "utf8");
      const out = await p.transform.handler.call(buildContext(), text, reports);
      expect(requests()).toBe(1);
      // The same as the compiler's transform of that text gives; a source map back to it.
      const asked = await p.api.client.request("transform", { file: reports, code: text });
      expect(requests()).toBe(2);
      expect(asked.edits).toHaveLength(1);
      expect(out.code).toBe(applyEdits(text, asked.edits, reports).code);
      expect(out.code).toContain('"id":"external:reports.export"');
      expect(out.map.sources).toEqual([reports]);
      // Another text (a comment added above the contract): the compiler is asked.
      const edited = `// edited\n${text}`;
      const again = await p.transform.handler.call(buildContext(), edited, reports);
      expect(requests()).toBe(3);
      expect(again.code).toBe(`// edited\n${out.code}`);
      const err = await p.buildEnd.call(buildContext()).then(
        () => null,
        (e) => e,
      );
      expect(err, "the build must fail").not.toBeNull();
      expect(err.message).toContain("src/helper.ts:4:90: error AS0105");
    } finally {
      await p.api.close();
    }
  });

  test("the dev server sends them too: the error shows where the module is transformed", async () => {
    const p = unpluginFactory({ binary: binary() }, { framework: "vite" });
    try {
      p.vite.configResolved({ root: app.root, command: "serve", logger: console });
      const err = await p.transform.handler.call(buildContext(), HELPER, helper).then(
        () => null,
        (e) => e,
      );
      expect(err, "the transform must fail").not.toBeNull();
      expect(`${err.message}\n${err.frame ?? ""}`).toContain("src/helper.ts:4:90: error AS0105");
      expect(p.api.client.nextId - 1).toBe(1);
    } finally {
      await p.api.close();
    }
  });
});

describe("a Vite build starts the compiler in its config hook", () => {
  let app;
  beforeAll(() => {
    app = copyApp();
  });
  afterAll(() => app?.cleanup());

  test("the scan is under way before buildStart, which reuses it; a root the resolved config moves is scanned anew", async () => {
    const p = unpluginFactory({ binary: binary() }, { framework: "vite" });
    try {
      p.vite.config({ root: app.root }, { command: "build", mode: "production" });
      const client = p.api.client;
      expect(client?.running, "the child starts in the config hook").toBe(true);
      p.vite.configResolved({ root: app.root, command: "build", build: { sourcemap: false }, logger: console });
      p.buildStart.call(buildContext());
      expect(p.api.client).toBe(client);
      expect(client.nextId - 1).toBe(1); // one scan, the config hook's
      expect((await p.api.scan()).manifest.contracts).toHaveLength(2);

      // Another root in the resolved config: that root's child and scan.
      const q = unpluginFactory({ binary: binary() }, { framework: "vite" });
      q.vite.config({}, { command: "build", mode: "production" }); // the working directory
      const first = q.api.client;
      q.vite.configResolved({ root: app.root, command: "build", build: { sourcemap: false }, logger: console });
      q.buildStart.call(buildContext());
      expect(q.api.client).not.toBe(first);
      expect(q.api.client.root).toBe(app.root);
      expect((await q.api.scan()).manifest.contracts).toHaveLength(2);
      await q.api.close();
    } finally {
      await p.api.close();
    }
  });

  test("the dev server and preview start nothing before buildStart", () => {
    const p = unpluginFactory({ binary: binary() }, { framework: "vite" });
    p.vite.config({ root: app.root }, { command: "serve", mode: "development" });
    expect(p.api.client).toBeNull();
  });
});

describe("the compiler child's threads", () => {
  test("half the cores by default, at least one; `threads` sets them; the child is started with them", async () => {
    const cores = (await import("node:os")).availableParallelism();
    expect(compilerThreads()).toBe(Math.max(1, Math.floor(cores / 2)));
    expect(compilerThreads({ threads: 3 })).toBe(3);
    expect(() => compilerThreads({ threads: 0 })).toThrow(/threads/);
    const app = copyApp();
    const p = unpluginFactory({ binary: binary(), root: app.root, threads: 2 }, { framework: "rollup" });
    try {
      await p.api.scan();
      expect(p.api.client.args.slice(-2)).toEqual(["--threads", "2"]);
    } finally {
      await p.api.close();
      app.cleanup();
    }
  });
});
