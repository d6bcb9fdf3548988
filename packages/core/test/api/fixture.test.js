// The suite's fixture: app/src/contracts.ts compiled by `agent-surface compile` into
// manifest.json, and helpers.js defining the same contracts in JavaScript with the compiler's
// provenance. Every contract of the manifest must be accepted by the registry or the gateway as
// the helper defines it (any difference is a semantic-change), and the manifest must come from
// the app's source. With AGENT_SURFACE_BINARY set, `agent-surface compile --check` proves it is
// not stale.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as h from "./helpers.js";

const source = readFileSync(join(h.appDir, "src/contracts.ts"), "utf8").split("\n");

describe("the fixture", () => {
  it("the manifest is complete, verified, and every contract is declared by a macro call in app/src/contracts.ts", () => {
    expect(h.manifest.completeness).toEqual({ status: "complete", contracts: h.manifest.contracts.length, failed: 0 });
    const text = source.join("\n");
    for (const c of h.manifest.contracts) {
      // Format 2: where it is written is in the locations sidecar, not in the contract.
      expect(Object.hasOwn(c, "source"), c.id).toBe(false);
      const declared = c.kind === "component" ? `type: "${c.type}"` : `id: "${c.id}"`;
      expect(text, c.id).toMatch(new RegExp(`define(AgentComponentContract|AgentProcedureContract|ExternalAgentToolContract)\\(\\{\\s*${declared.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    }
  });

  it("the helper defines every contract exactly as compiled (registered or exposed without a semantic-change)", () => {
    const defined = [h.notes, h.panel, h.alpha, h.purge, h.fetchNote, h.alphaPing, h.exportNotes, h.lookup];
    expect(defined.map((c) => c.id).sort()).toEqual(h.manifest.contracts.map((c) => c.id).sort());
    for (const c of defined) expect(c.provenance, c.id).toEqual(h.provenance(c.id));
    const r = h.makeRegistry({ duplicateSuffixPolicy: "off" });
    const procedures = [h.purge.bind({}), h.fetchNote.bind({}), h.alphaPing.bind({})];
    expect(r.register(h.bindNotes({ procedures })).status).toBe("active");
    expect(r.register(h.bindPanel()).status).toBe("active");
    expect(r.register(h.bindAlpha()).status).toBe("active");
    expect(r.snapshot().procedures).toHaveLength(3);
    r.dispose();
    const exposed = h.core.createAgentExposureGateway(h.authority).expose([h.exportNotes.bind({ execute: () => ({ bytes: 0 }) }), h.lookup.bind({ execute: () => null })]);
    expect(exposed.tools()).toHaveLength(2);
  });

  it("is not stale, and the locations sidecar points at each macro call (when AGENT_SURFACE_BINARY is set)", () => {
    const binary = process.env.AGENT_SURFACE_BINARY;
    if (!binary) {
      // Without the binary the checks above (declarations and semantic equality) are what runs.
      expect(h.manifest.generator.name).toBe("agent-surface");
      return;
    }
    expect(() => execFileSync(binary, ["compile", "--check", h.appDir], { encoding: "utf8", stdio: "pipe" })).not.toThrow();
    const dir = mkdtempSync(join(tmpdir(), "agent-surface-fixture-"));
    try {
      execFileSync(binary, ["compile", h.appDir, "--out", join(dir, "m.json")], { encoding: "utf8", stdio: "pipe" });
      expect(readFileSync(join(dir, "m.json"), "utf8")).toBe(readFileSync(join(h.appDir, "../manifest.json"), "utf8"));
      const sidecar = JSON.parse(readFileSync(join(dir, "m.locations.json"), "utf8"));
      expect(sidecar.formatVersion).toBe(1);
      expect(sidecar.manifestHash).toBe(h.manifest.manifestHash);
      expect(Object.keys(sidecar.locations).sort()).toEqual(h.manifest.contracts.map((c) => c.id).sort());
      for (const c of h.manifest.contracts) {
        const at = sidecar.locations[c.id];
        expect(at.file).toBe("src/contracts.ts");
        const line = source[at.line - 1];
        expect(line.slice(at.column - 1), c.id).toMatch(/^define(AgentComponentContract|AgentProcedureContract|ExternalAgentToolContract)\(/);
        const text = source.slice(at.line - 1, at.line + 3).join("\n");
        expect(text, c.id).toContain(c.kind === "component" ? `type: "${c.type}"` : `id: "${c.id}"`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
