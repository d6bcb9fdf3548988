import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import agentSurface, { RESOLVED_AUTHORITY_ID, VIRTUAL_AUTHORITY_ID, codeFrame, formatDiagnostic, resolveBinary, transformTarget } from "../src/index.js";
import { binary, copyApp } from "./helpers.js";

const root = "/work/app";
const CORE = 'import { defineAgentProcedureContract } from "@agent-surface/core";\n';

describe("transform filter", () => {
  test.each([
    ["/work/app/src/a.ts", true],
    ["/work/app/src/a.tsx", true],
    ["/work/app/src/a.mts", true],
    ["/work/app/src/a.cts", true],
    ["/work/app/src/a.tsx?v=123abc", true],
    ["/work/app/src/a.js", false],
    ["/work/app/src/a.jsx", false],
    ["/work/app/src/a.d.ts.map", false],
    ["/work/app/src/a.ts?raw", false],
    ["/work/app/src/a.ts?url", false],
    ["/work/app/src/a.ts?worker&inline", false],
    ["/work/app/node_modules/lib/index.ts", false],
    ["/work/other/src/a.ts", false],
    ["\0virtual:agent-surface/authority", false],
    ["\0/work/app/src/a.ts", false],
    ["virtual:thing.ts", false],
    ["src/relative.ts", false],
  ])("%s -> %s", (id, yes) => {
    expect(transformTarget(id, CORE, root)).toBe(yes ? id.split("?")[0] : null);
  });

  test("the text must mention @agent-surface/core", () => {
    expect(transformTarget("/work/app/src/a.ts", "export const x = 1;", root)).toBeNull();
    expect(transformTarget("/work/app/src/a.ts", 'import * as agent from "@agent-surface/core";', root)).toBe("/work/app/src/a.ts");
  });

  test("the plugin declares enforce pre and a hook filter on the transform", () => {
    const p = agentSurface();
    expect(p.enforce).toBe("pre");
    expect(p.transform.filter.code).toBe("@agent-surface/core");
    expect(p.transform.filter.id.test("/a/b.tsx")).toBe(true);
    expect(p.transform.filter.id.test("/a/b.tsx?v=1")).toBe(true);
    expect(p.transform.filter.id.test("/a/b.js")).toBe(false);
  });
});

describe("finding the binary", () => {
  test("options.binary, then AGENT_SURFACE_BINARY, then the platform package, then PATH", () => {
    const env = { AGENT_SURFACE_BINARY: "/env/agent-surface" };
    const none = () => undefined;
    const packaged = () => ({ path: "/app/node_modules/@agent-surface/cli-linux-x64-gnu/bin/agent-surface" });
    expect(resolveBinary({ binary: "/opt/as" }, "/r", env, packaged)).toBe("/opt/as");
    expect(resolveBinary({ binary: "tools/as" }, "/r", env, packaged)).toBe("/r/tools/as");
    expect(resolveBinary({}, "/r", env, packaged)).toBe("/env/agent-surface");
    expect(resolveBinary({}, "/r", {}, packaged)).toBe(packaged().path);
    expect(resolveBinary({}, "/r", {}, none)).toBe("agent-surface");
  });

  test("by default the platform package is looked up through @agent-surface/cli", () => {
    // In this repository packages/cli is linked without platform packages: PATH is left.
    expect(resolveBinary({}, "/r", {})).toBe("agent-surface");
  });
});

describe("code frames and messages", () => {
  const src = ["line one", "line two", '  effect: "local-state",', "line four", "line five", "line six"].join("\n");
  test("a frame around the line with carets under the span", () => {
    expect(codeFrame(src, 3, 11, { endLine: 3, endColumn: 24 })).toBe(
      ["  1 | line one", "  2 | line two", '> 3 |   effect: "local-state",', "    |           ^^^^^^^^^^^^^", "  4 | line four", "  5 | line five"].join("\n"),
    );
    expect(codeFrame(src, 1, 1)).toMatch(/^> 1 \| line one\n {4}\| \^\n/);
    expect(codeFrame(src, 99, 1)).toBe("");
  });

  test("formatDiagnostic: file:line:column, code, help", () => {
    const d = { file: "src/x.ts", line: 3, column: 11, severity: "error", code: "AS0401", message: "bad effect", help: "use read" };
    expect(formatDiagnostic(d)).toBe("src/x.ts:3:11: error AS0401: bad effect\n  help: use read");
  });
});

describe("the plugin against the real binary", () => {
  let app;
  beforeAll(() => {
    app = copyApp({ entry: false });
  });
  afterAll(() => app.cleanup());

  function configured(options = {}) {
    const p = agentSurface({ binary: binary(), ...options });
    p.configResolved({ root: app.root, command: "build", logger: console });
    return p;
  }

  const ctx = (warnings = []) => ({
    warn: (w) => warnings.push(w),
    error: (e) => {
      throw Object.assign(new Error(e.message), e);
    },
  });

  test("resolveId/load: the virtual module", async () => {
    const p = configured();
    try {
      expect(p.resolveId.handler(VIRTUAL_AUTHORITY_ID)).toBe(RESOLVED_AUTHORITY_ID);
      expect(p.resolveId.handler("other")).toBeNull();
      const out = await p.load.handler.call(ctx(), RESOLVED_AUTHORITY_ID);
      expect(out.code).toMatch(/^import \{ createCapabilityAuthority \} from "@agent-surface\/core";\nexport default createCapabilityAuthority\(JSON\.parse\('\{/);
      expect(out.code).toContain('"manifestHash":"blake3:');
    } finally {
      await p.api.close();
    }
  });

  test("transform of a non-ASCII file: the provenance lands right after the definition object", async () => {
    const p = configured();
    try {
      const file = path.join(app.root, "src/external/reports.ts");
      const code = readFileSync(file, "utf8").replace("Export the devices report", "Exportér le rapport — 東京 🚀 👩‍💻");
      const out = await p.transform.handler.call(ctx(), code, file);
      const at = out.code.indexOf(', {"contractHash":"blake3:');
      expect(at).toBeGreaterThan(0);
      expect(out.code.slice(0, at)).toBe(code.slice(0, at));
      expect(out.code.slice(0, at).trimEnd().endsWith("}")).toBe(true);
      expect(out.code.slice(at)).toMatch(/^, \{"contractHash":"blake3:[0-9a-f]{64}","id":"external:reports\.export"\}\);\n$/);
      // Unchanged text, no edits: null.
      expect(await p.transform.handler.call(ctx(), 'import "@agent-surface/core";\nexport const x = 1;\n', path.join(app.root, "src/lib/plain.ts"))).toBeNull();
      // Filtered out: never reaches the child.
      expect(await p.transform.handler.call(ctx(), code, path.join(app.root, "node_modules/x/reports.ts"))).toBeNull();
    } finally {
      await p.api.close();
    }
  });

  test("transform errors carry id, the diagnostic's loc and a code frame; warnings are reported once", async () => {
    const p = configured();
    try {
      const file = path.join(app.root, "src/external/reports.ts");
      const code = readFileSync(file, "utf8").replace('effect: "external-side-effect"', 'effect: "local-state"');
      const err = await p.transform.handler.call(ctx(), code, file).catch((e) => e);
      expect(err.id).toBe(file);
      expect(err.loc).toEqual({ file, line: 18, column: 11 });
      expect(err.message).toMatch(/^src\/external\/reports\.ts:18:11: error AS0401: /);
      expect(err.frame).toContain('> 18 |   effect: "local-state",');

      const warnings = [];
      const domain = path.join(app.root, "src/domain/devices.ts");
      const warned = readFileSync(domain, "utf8").replace('z.toJSONSchema(RebootInput, { io: "input" })', "z.toJSONSchema(RebootInput)");
      const out = await p.transform.handler.call(ctx(warnings), warned, domain);
      expect(out.code).toContain('"id":"domain:devices.reboot"');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ id: domain, loc: { line: 11 } });
      expect(warnings[0].message).toMatch(/AS0209/);
      await p.transform.handler.call(ctx(warnings), warned, domain);
      expect(warnings).toHaveLength(1);
    } finally {
      await p.api.close();
    }
  });

  test("instances share nothing; closing is idempotent through every hook", async () => {
    const a = configured();
    const b = configured();
    await a.api.scan();
    await b.api.scan();
    expect(a.api.client).not.toBe(b.api.client);
    expect(a.api.client.pid).not.toBe(b.api.client.pid);
    const pidA = a.api.client.pid;
    await a.buildEnd();
    await a.closeBundle();
    await a.closeBundle();
    expect(a.api.client).toBeNull();
    expect(() => process.kill(pidA, 0)).toThrow();
    expect(b.api.client.running).toBe(true); // the other instance is untouched
    await b.closeBundle();
    await b.api.close();
    // Lazily again after close.
    await expect(a.api.scan()).resolves.toMatchObject({ complete: true });
    await a.api.close();
  });
});
