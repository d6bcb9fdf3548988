// End to end, per bundler: a build of test/app with the plugin carries the compiler's provenance
// (with a source map back to the contract), the verified authority module, and fails at a
// contract's diagnostic with its file:line:column and code frame.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { TraceMap, originalPositionFor } from "@jridgewell/trace-mapping";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { builders, watchBuild } from "./builders.js";
import { compileManifest, copyApp, runBundle } from "./helpers.js";

/** Every generated position (1-based line, 0-based column) of `needle` in `text`. */
function positionsOf(text, needle) {
  const found = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
    const before = text.slice(0, at).split("\n");
    found.push({ line: before.length, column: before[before.length - 1].length });
  }
  return found;
}

describe.each(Object.keys(builders))("%s", (name) => {
  const build = builders[name];
  let app;
  let manifest;

  beforeAll(() => {
    app = copyApp();
    manifest = compileManifest(app.root);
  });
  afterAll(() => app?.cleanup());

  test("the bundle carries the compiler's provenance, verified by the authority module", async () => {
    await build(app.root);
    const bundle = path.join(app.root, "dist/main.js");
    const report = await runBundle(bundle);
    expect(manifest.contracts.map((c) => c.id).sort()).toEqual(["domain:devices.reboot", "external:reports.export"]);
    expect(report.manifestHash).toBe(manifest.manifestHash);
    const expected = ["domain:devices.reboot", "external:reports.export"].map((id) => {
      const c = manifest.contracts.find((m) => m.id === id);
      return { contractHash: c.contractHash, id };
    });
    expect(report.provenance).toEqual(expected);
    expect(report.verified).toBe(true);

    // The contract's own text maps back to its line in the source, past the inserted provenance.
    const text = readFileSync(bundle, "utf8");
    const map = new TraceMap(JSON.parse(readFileSync(bundle + ".map", "utf8")));
    // (The description is in the manifest too: one of its places is the contract's own.)
    const places = positionsOf(text, '"Export the devices report and email it to the signed-in user."').map((at) => originalPositionFor(map, at));
    const own = places.filter((o) => /src\/external\/reports\.ts$/.test(o.source ?? ""));
    expect(own, JSON.stringify(places)).toHaveLength(1);
    expect(own[0].line).toBe(6);
  });

  test("without the plugin the contracts carry no provenance (the virtual module is the plugin's)", async () => {
    const entry = path.join(app.root, "src/main.ts");
    const original = readFileSync(entry, "utf8");
    writeFileSync(entry, 'import { exportReport } from "./external/reports";\n(globalThis as any).agentSurfaceReport = JSON.stringify({ provenance: (exportReport as any).provenance ?? null });\n');
    try {
      rmSync(path.join(app.root, "dist"), { recursive: true, force: true });
      await build(app.root, { plugin: false });
      expect(await runBundle(path.join(app.root, "dist/main.js"))).toEqual({ provenance: null });
    } finally {
      writeFileSync(entry, original);
    }
  });

  test("a project-wide error in a file the bundle never imports fails the build, the entry importing no authority", async () => {
    // buildStart starts the project's scan without waiting for it; buildEnd reports it.
    const entry = path.join(app.root, "src/main.ts");
    const original = readFileSync(entry, "utf8");
    const dup = path.join(app.root, "src/domain/duplicate.ts");
    writeFileSync(entry, 'import { exportReport } from "./external/reports";\n(globalThis as any).agentSurfaceReport = JSON.stringify({ provenance: (exportReport as any).provenance ?? null });\n');
    writeFileSync(
      dup,
      [
        'import { defineAgentProcedureContract, emptyObjectSchema } from "@agent-surface/core";',
        "",
        "export const again = defineAgentProcedureContract({",
        '  id: "external:reports.export",',
        '  description: "A second export, declared twice.",',
        "  input: emptyObjectSchema,",
        '  effect: "mutation",',
        "});",
        "",
      ].join("\n"),
    );
    try {
      const err = await build(app.root).then(
        () => null,
        (e) => e,
      );
      expect(err, "the build must fail").not.toBeNull();
      const message = `${err.message}\n${err.frame ?? ""}`;
      expect(message).toMatch(/external:reports\.export/);
      expect(message).toMatch(/src\/(domain\/duplicate|external\/reports)\.ts:\d+:\d+: error AS\d{4}/);
    } finally {
      writeFileSync(entry, original);
      rmSync(dup, { force: true });
    }
  });

  test("an invalid contract fails the build at its file:line:column, with a code frame", async () => {
    const file = path.join(app.root, "src/external/reports.ts");
    const original = readFileSync(file, "utf8");
    writeFileSync(file, original.replace('effect: "external-side-effect"', 'effect: "local-state"'));
    try {
      const err = await build(app.root).then(
        () => null,
        (e) => e,
      );
      expect(err, "the build must fail").not.toBeNull();
      // Rollup and Rolldown keep the frame and location apart from the message (and print them).
      const message = `${err.message}\n${err.frame ?? ""}`;
      expect(message).toContain("src/external/reports.ts:12:11: error AS0401");
      expect(message).toContain('> 12 |   effect: "local-state",');
      if (name === "rollup") expect(err.loc).toEqual({ file, line: 12, column: 11 });
    } finally {
      writeFileSync(file, original);
    }
  });

  test("an error in a module that declares no contract fails the build at its file:line:column", async () => {
    // Such a module makes no round trip to the compiler in a build: the project-wide check finds it.
    const entry = path.join(app.root, "src/main.ts");
    const helper = path.join(app.root, "src/helper.ts");
    const original = readFileSync(entry, "utf8");
    writeFileSync(
      helper,
      [
        'import type { ContractProvenance } from "@agent-surface/core";',
        'import { exportReport } from "./external/reports";',
        "",
        'export const bound: ContractProvenance | undefined = exportReport.bind({ instanceId: "Not An Id!" });',
        "",
      ].join("\n"),
    );
    writeFileSync(entry, `import "./helper";\n${original}`);
    try {
      const err = await build(app.root).then(
        () => null,
        (e) => e,
      );
      expect(err, "the build must fail").not.toBeNull();
      expect(`${err.message}\n${err.frame ?? ""}`).toContain("src/helper.ts:4:90: error AS0105");
    } finally {
      writeFileSync(entry, original);
      rmSync(helper, { force: true });
    }
  });
});

describe.each(["webpack", "rspack"])("%s watch mode", (name) => {
  test("a rebuild after a contract's change bundles the new authority", async () => {
    const app = copyApp();
    let stop;
    try {
      const builds = [];
      let next;
      const built = () => new Promise((resolve) => (next = resolve));
      const first = built();
      stop = await watchBuild(name, app.root, (err, stats) => {
        builds.push(err ?? (stats.hasErrors() ? new Error(stats.toString()) : null));
        next?.();
      });
      await first;
      expect(builds[0]).toBeNull();
      // Let the watcher settle (webpack may rebuild once for the copy's fresh timestamps), so the
      // rebuild below is the edit's own.
      await new Promise((r) => setTimeout(r, 1500));
      const before = await runBundle(path.join(app.root, "dist/main.js"));
      expect(before.manifestHash).toBe(compileManifest(app.root).manifestHash);

      const file = path.join(app.root, "src/domain/devices.ts");
      writeFileSync(file, readFileSync(file, "utf8").replace("Reboot the selected devices.", "Reboot the selected devices now."));
      const expected = compileManifest(app.root).manifestHash;
      expect(expected).not.toBe(before.manifestHash);
      // Wait for the build that saw the edit (the contract's provenance changes with it), at most 10 s.
      const deadline = Date.now() + 10_000;
      let after = before;
      while (after.provenance?.[0]?.contractHash === before.provenance?.[0]?.contractHash && Date.now() < deadline) {
        await Promise.race([built(), new Promise((r) => setTimeout(r, 500))]);
        after = await runBundle(path.join(app.root, "dist/main.js"));
      }
      expect(builds.every((b) => b === null)).toBe(true);
      expect(after.provenance[0].contractHash, "no rebuild saw the edit").not.toBe(before.provenance[0].contractHash);
      expect(after.manifestHash).toBe(expected);
      expect(after.verified).toBe(true);
    } finally {
      await stop?.();
      app.cleanup();
    }
  }, 30_000);
});
