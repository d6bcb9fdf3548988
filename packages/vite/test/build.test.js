// End to end: `vite build` of a copy of examples/devices-app with @vitejs/plugin-react + this plugin.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import agentSurface from "../src/index.js";
import { compileManifest, copyApp, viteConfig } from "./helpers.js";

function bundleText(root) {
  const dir = path.join(root, "dist/assets");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".js"))
    .map((f) => readFileSync(path.join(dir, f), "utf8"))
    .join("\n");
}

const q = "[\"'`]";
/** The provenance literal as any minifier may print it: {contractHash:"…",id:"…"}. */
function provenancePattern(id, hash) {
  const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`${q}?contractHash${q}?\\s*:\\s*${q}${esc(hash)}${q}\\s*,\\s*${q}?id${q}?\\s*:\\s*${q}${esc(id)}${q}`);
}

async function buildApp(root, extra = {}) {
  const warnings = [];
  const config = await viteConfig(root, [agentSurface()], {
    build: { rolldownOptions: { onwarn: (w) => warnings.push(w) }, ...extra.build },
  });
  const result = await build(config);
  return { result, warnings };
}

describe("vite build of the example app", () => {
  let app;
  let manifest;
  let bundle;
  beforeAll(async () => {
    app = copyApp();
    manifest = compileManifest(app.root);
    await buildApp(app.root);
    bundle = bundleText(app.root);
  });
  afterAll(() => app?.cleanup());

  test("the bundle carries the compiler's provenance for every contract", () => {
    expect(manifest.contracts).toHaveLength(9);
    for (const c of manifest.contracts) {
      expect(c.contractHash).toMatch(/^blake3:[0-9a-f]{64}$/);
      expect(bundle, `provenance of ${c.id}`).toMatch(provenancePattern(c.id, c.contractHash));
    }
  });

  test("the authority module holds the compiled manifest and its verifier", () => {
    expect(bundle).toContain(manifest.manifestHash);
    // createCapabilityAuthority from @agent-surface/core verifies in TypeScript: its refusal kinds
    // are in the bundle, and no wasm module is ("AGFzbQEAAAA", base64 of "\0asm" version 1).
    expect(bundle).toContain("manifest-hash-mismatch");
    expect(bundle).not.toContain("AGFzbQEAAAA");
  });

  test("without the plugin the contracts carry no provenance (inert)", async () => {
    const plain = copyApp();
    try {
      // The app's registry reads the plugin's virtual authority module, so this page imports the
      // contract modules that do not reach it (every contract but the table's).
      writeFileSync(
        path.join(plain.root, "src/main.tsx"),
        'import { labelDevice, rebootDevices, tagDevices } from "./domain/devices";\nimport { pingDevices, renameDevice } from "./domain/maintenance";\nimport { decommissionDevices } from "./domain/procedures";\nimport { exportReport } from "./external/reports";\nimport { appNavContract } from "./routes/AppNav";\nconsole.log([labelDevice, rebootDevices, tagDevices, pingDevices, renameDevice, decommissionDevices, exportReport, appNavContract].map((c) => c.provenance));\n',
      );
      const config = await viteConfig(plain.root, []);
      await build(config);
      const text = bundleText(plain.root);
      expect(text).not.toMatch(/contractHash\W*:\W*blake3/);
    } finally {
      await plain.cleanup();
    }
  });
});

describe("diagnostics fail the build", () => {
  let app;
  beforeAll(() => {
    app = copyApp();
  });
  afterAll(() => app?.cleanup());

  function edit(rel, from, to) {
    const file = path.join(app.root, rel);
    const text = readFileSync(file, "utf8");
    if (!text.includes(from)) throw new Error(`${rel} has no ${from}`);
    writeFileSync(file, text.replace(from, to));
    return () => writeFileSync(file, text);
  }

  test("an invalid contract fails `vite build` with its file:line", async () => {
    const undo = edit("src/external/reports.ts", 'effect: "external-side-effect"', 'effect: "local-state"');
    try {
      const err = await buildApp(app.root).then(
        () => null,
        (e) => e,
      );
      expect(err, "the build must fail").not.toBeNull();
      const file = path.join(app.root, "src/external/reports.ts");
      expect(err.message).toContain("src/external/reports.ts:18:11: error AS0401");
      expect(err.message).toContain('> 18 |   effect: "local-state",');
      const first = err.errors?.[0] ?? err;
      expect(first.id).toBe(file);
      expect(first.loc).toMatchObject({ file, line: 18, column: 11 });
      expect(first.plugin).toBe("agent-surface");
    } finally {
      undo();
    }
  });

  test("a project-wide error (a duplicate id in another file, never imported) fails it too", async () => {
    const dup = path.join(app.root, "src/domain/duplicate.ts");
    writeFileSync(
      dup,
      [
        'import { defineAgentProcedureContract, emptyObjectSchema } from "@agent-surface/core";',
        "",
        "export const again = defineAgentProcedureContract({",
        '  id: "domain:devices.reboot",',
        '  description: "A second reboot, declared twice.",',
        "  input: emptyObjectSchema,",
        '  effect: "mutation",',
        "});",
        "",
      ].join("\n"),
    );
    try {
      const err = await buildApp(app.root).then(
        () => null,
        (e) => e,
      );
      expect(err, "the build must fail").not.toBeNull();
      expect(err.message).toMatch(/domain:devices\.reboot/);
      expect(err.message).toMatch(/src\/domain\/(duplicate|devices)\.ts:\d+:\d+: error AS\d{4}/);
    } finally {
      const { rmSync } = await import("node:fs");
      rmSync(dup);
    }
  });

  test("warnings go to this.warn, once each, and do not fail the build", async () => {
    const undo = edit("src/domain/devices.ts", 'z.toJSONSchema(RebootInput, { io: "input" })', "z.toJSONSchema(RebootInput)");
    try {
      const { warnings } = await buildApp(app.root);
      const ours = warnings.filter((w) => w.plugin === "agent-surface");
      expect(ours).toHaveLength(1);
      expect(ours[0].message).toMatch(/src\/domain\/devices\.ts:11:\d+: warning AS0209/);
      expect(ours[0].id).toBe(path.join(app.root, "src/domain/devices.ts"));
    } finally {
      undo();
    }
  });
});
