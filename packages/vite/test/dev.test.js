// End to end: the Vite dev server with @vitejs/plugin-react + this plugin on a copy of the example
// app: HMR decisions, invalidation of the authority module, overlay errors, source maps.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { TraceMap, originalPositionFor } from "@jridgewell/trace-mapping";
import { createServer } from "vite";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import agentSurface, { RESOLVED_AUTHORITY_ID, VIRTUAL_AUTHORITY_ID } from "../src/index.js";
import { compileManifest, copyApp, viteConfig } from "./helpers.js";

/** Records every payload the server sends to browsers (the client environment's hot channel). */
function recorder() {
  const sent = [];
  return {
    sent,
    plugin: {
      name: "test:record-hot-payloads",
      configureServer(server) {
        const send = server.ws.send.bind(server.ws);
        server.ws.send = (...args) => {
          sent.push(typeof args[0] === "string" ? { type: "custom", event: args[0], data: args[1] } : args[0]);
          return send(...args);
        };
      },
    },
  };
}

async function waitFor(what, cond, ms = 10000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = cond();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("dev server", () => {
  let app;
  let server;
  let rec;
  let env;
  const contractFile = () => path.join(app.root, "src/components/DevicesTable.tsx");

  beforeAll(async () => {
    app = copyApp();
    // Non-ASCII text before the insertion point exercises the byte -> UTF-16 conversion.
    const nav = path.join(app.root, "src/routes/AppNav.tsx");
    writeFileSync(nav, readFileSync(nav, "utf8").replace("The application's main navigation.", "La navigation principale — 東京 🚀 déjà."));
    rec = recorder();
    server = await createServer(await viteConfig(app.root, [agentSurface(), rec.plugin], { server: { middlewareMode: true } }));
    env = server.environments.client;
    // What the browser would request for the page.
    // Make sure the file watcher is live before the tests edit files.
    const probe = path.join(app.root, "watch-probe.txt");
    let seen = false;
    const onAdd = (f) => (seen ||= f === probe);
    server.watcher.on("add", onAdd);
    await waitFor("the file watcher", () => {
      if (!seen) writeFileSync(probe, String(Date.now()));
      return seen;
    });
    server.watcher.off("add", onAdd);
    for (const url of ["/src/main.tsx", "/src/components/DevicesTable.tsx", "/src/routes/AppNav.tsx", "/src/external/reports.ts", "/src/domain/devices.ts", VIRTUAL_AUTHORITY_ID]) {
      await env.transformRequest(url);
    }
  });
  afterAll(async () => {
    await server?.close();
    await app?.cleanup();
  });

  const authority = () => env.moduleGraph.getModuleById(RESOLVED_AUTHORITY_ID);
  const hashIn = (code) => code.match(/"manifestHash":"(blake3:[0-9a-f]{64})"/)?.[1];

  test("the authority module is served with the compiled manifest and verifies when evaluated", async () => {
    const expected = compileManifest(app.root).manifestHash;
    expect(hashIn(authority().transformResult.code)).toBe(expected);
    const { default: auth } = await server.ssrLoadModule(VIRTUAL_AUTHORITY_ID);
    expect(auth.manifest.manifestHash).toBe(expected);
    expect(Object.isFrozen(auth)).toBe(true);
    expect(Object.isFrozen(auth.manifest.contracts[0].inputSchema)).toBe(true);
    expect(auth.contract("view:devices.table").contractHash).toMatch(/^blake3:/);
  });

  test("the source map of a transformed file maps positions after the insertion back", async () => {
    const file = path.join(app.root, "src/routes/AppNav.tsx");
    const original = readFileSync(file, "utf8");
    expect(original).toContain("東京 🚀");
    const { code, map } = await env.transformRequest("/src/routes/AppNav.tsx");
    expect(code).toMatch(/contractHash[\s\S]{0,8}blake3:[0-9a-f]{64}[\s\S]{0,8}id[\s\S]{0,8}view:app\.nav/);
    const trace = new TraceMap(map);
    const origLines = original.split("\n");
    const lines = code.split("\n");
    const where = (needle, from = 0) => {
      for (let i = from; i < lines.length; i++) {
        const c = lines[i].indexOf(needle);
        if (c !== -1) return { line: i + 1, column: c };
      }
      throw new Error(`${needle} not in the output`);
    };
    const origWhere = (needle) => {
      const i = origLines.findIndex((l) => l.includes(needle));
      return { line: i + 1, column: origLines[i].indexOf(needle) };
    };
    // The first token after the insertion, and one far after it.
    for (const needle of ["AppNav({", '"/reports"']) {
      const pos = originalPositionFor(trace, where(needle));
      expect(pos.source).toMatch(/AppNav\.tsx$/);
      expect({ line: pos.line, column: pos.column }, needle).toEqual(origWhere(needle));
    }
    // And one before it, on the non-ASCII line.
    const before = originalPositionFor(trace, where('"La navigation'));
    expect({ line: before.line, column: before.column }).toEqual(origWhere('"La navigation'));
  });

  test("editing a non-contract line keeps regular HMR: no full reload, the authority stays", async () => {
    const before = authority().transformResult;
    expect(before).toBeTruthy();
    rec.sent.length = 0;
    const file = contractFile();
    writeFileSync(file, readFileSync(file, "utf8").replace('placeholder="Filter by name"', 'placeholder="Filter devices by name"'));
    await waitFor("an HMR update of DevicesTable.tsx", () =>
      rec.sent.find((p) => p.type === "update" && p.updates.some((u) => u.path === "/src/components/DevicesTable.tsx")),
    );
    await new Promise((r) => setTimeout(r, 300)); // anything else would come now
    expect(rec.sent.filter((p) => p.type === "full-reload")).toEqual([]);
    expect(authority().transformResult).toBe(before);
  });

  test("an import or a comment above a contract moves it but changes no hash: regular HMR, the authority stays", async () => {
    const before = authority().transformResult;
    const hash = hashIn(before.code);
    const file = contractFile();
    for (const [what, change] of [
      ["a comment", (t) => t.replace("export const devicesTableContract", "// The table's contract.\nexport const devicesTableContract")],
      ["an import", (t) => `import { useRef } from "react";\n${t}`],
    ]) {
      rec.sent.length = 0;
      writeFileSync(file, change(readFileSync(file, "utf8")));
      await waitFor(`an HMR update of DevicesTable.tsx after ${what}`, () =>
        rec.sent.find((p) => p.type === "update" && p.updates.some((u) => u.path === "/src/components/DevicesTable.tsx")),
      );
      await new Promise((r) => setTimeout(r, 300)); // anything else would come now
      expect(rec.sent.filter((p) => p.type === "full-reload"), what).toEqual([]);
      expect(authority().transformResult, what).toBe(before);
      expect(compileManifest(app.root).manifestHash, what).toBe(hash);
    }
    // The module still carries its contract's (unchanged) provenance.
    const table = await env.transformRequest("/src/components/DevicesTable.tsx");
    expect(table.code).toContain(compileManifest(app.root).contracts.find((c) => c.id === "view:devices.table").contractHash);
  });

  test("editing a contract invalidates the authority module and sends a full reload", async () => {
    const oldHash = hashIn(authority().transformResult.code);
    rec.sent.length = 0;
    const file = contractFile();
    writeFileSync(file, readFileSync(file, "utf8").replace('description: "Clear the selection."', 'description: "Clear the whole selection."'));
    const reload = await waitFor("a full reload", () => rec.sent.find((p) => p.type === "full-reload"));
    expect(reload).toMatchObject({ type: "full-reload", path: "*", triggeredBy: file });
    expect(rec.sent.filter((p) => p.type === "update")).toEqual([]); // replaced by the reload
    expect(authority().transformResult).toBeNull(); // invalidated
    // The reloaded page gets the new manifest.
    const again = await env.transformRequest(VIRTUAL_AUTHORITY_ID);
    const newHash = hashIn(again.code);
    expect(newHash).not.toBe(oldHash);
    expect(newHash).toBe(compileManifest(app.root).manifestHash);
    // And the edited contract's new provenance.
    const table = await env.transformRequest("/src/components/DevicesTable.tsx");
    const manifest = compileManifest(app.root);
    expect(table.code).toContain(manifest.contracts.find((c) => c.id === "view:devices.table").contractHash);
  });

  test("editing a schema file that is not a contract file but changes a contract also reloads", async () => {
    rec.sent.length = 0;
    const file = path.join(app.root, "src/schemas/devices.ts");
    writeFileSync(file, readFileSync(file, "utf8").replace("maxLength: 120", "maxLength: 121"));
    await waitFor("a full reload", () => rec.sent.find((p) => p.type === "full-reload"));
    expect(authority()?.transformResult ?? null).toBeNull();
    await env.transformRequest(VIRTUAL_AUTHORITY_ID);
  });

  test("an invalid contract reaches the overlay with its location and frame", async () => {
    rec.sent.length = 0;
    const file = path.join(app.root, "src/external/reports.ts");
    writeFileSync(file, readFileSync(file, "utf8").replace('effect: "external-side-effect"', 'effect: "local-state"'));
    await waitFor("a full reload", () => rec.sent.find((p) => p.type === "full-reload"));
    // The reloaded page requests the module: the transform error is what Vite shows in the overlay.
    const err = await env.transformRequest("/src/external/reports.ts").catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err.plugin).toBe("agent-surface");
    expect(err.id).toBe(file);
    expect(err.loc).toMatchObject({ file, line: 18, column: 11 });
    expect(err.frame).toContain('> 18 |   effect: "local-state",');
    expect(err.message).toContain("src/external/reports.ts:18:11: error AS0401");
    // The authority module refuses to load too (the manifest is incomplete).
    await expect(env.transformRequest(VIRTUAL_AUTHORITY_ID)).rejects.toThrow(/AS0401/);
  });

  test("removing a contract file reloads with a manifest without its contracts", async () => {
    rec.sent.length = 0;
    const { rmSync } = await import("node:fs");
    rmSync(path.join(app.root, "src/external/reports.ts"));
    await waitFor("a full reload", () => rec.sent.find((p) => p.type === "full-reload"));
    const again = await env.transformRequest(VIRTUAL_AUTHORITY_ID);
    expect(again.code).not.toContain("external:reports.export");
    expect(hashIn(again.code)).toBe(compileManifest(app.root).manifestHash);
    expect(compileManifest(app.root).contracts).toHaveLength(8);
  });
});

test("a dev server that starts with an error sends it to the overlay", async () => {
  const app = copyApp();
  const file = path.join(app.root, "src/external/reports.ts");
  writeFileSync(file, readFileSync(file, "utf8").replace('effect: "external-side-effect"', 'effect: "local-state"'));
  const rec = recorder();
  const server = await createServer(await viteConfig(app.root, [agentSurface(), rec.plugin], { server: { middlewareMode: true } }));
  try {
    const payload = await waitFor("an error payload", () => rec.sent.find((p) => p.type === "error"));
    expect(payload.err).toMatchObject({ plugin: "agent-surface", id: file, loc: { line: 18, column: 11 } });
    expect(payload.err.message).toContain("src/external/reports.ts:18:11: error AS0401");
    expect(payload.err.frame).toContain('> 18 |   effect: "local-state",');
  } finally {
    await server.close();
    await app.cleanup();
  }
});
