// The suite's fixture: app/src/contracts.ts compiled by `agent-surface compile` into
// manifest.json, and helpers.js defining the same contracts in JavaScript with the compiler's
// provenance. Every contract of the manifest must be accepted by the registry or the gateway as
// the helper defines it (any difference is a semantic-change), and the manifest must come from
// the app's source. With AGENT_SURFACE_BINARY set, `agent-surface compile --check` proves it is
// not stale.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as h from "./helpers.js";

const source = readFileSync(join(h.appDir, "src/contracts.ts"), "utf8").split("\n");

describe("the fixture", () => {
  it("the manifest is complete, verified, and every contract points at its macro call in app/src/contracts.ts", () => {
    expect(h.manifest.completeness).toEqual({ status: "complete", contracts: h.manifest.contracts.length, failed: 0 });
    for (const c of h.manifest.contracts) {
      expect(c.source.file).toBe("src/contracts.ts");
      const line = source[c.source.line - 1];
      expect(line, c.id).toMatch(/define(AgentComponentContract|AgentProcedureContract|ExternalAgentToolContract)\(/);
      const text = source.slice(c.source.line - 1, c.source.line + 3).join("\n");
      expect(text, c.id).toContain(c.kind === "component" ? `type: "${c.type}"` : `id: "${c.id}"`);
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

  it("is not stale (agent-surface compile --check, when AGENT_SURFACE_BINARY is set)", () => {
    const binary = process.env.AGENT_SURFACE_BINARY;
    if (!binary) {
      // Without the binary the check above (source positions and semantic equality) is what runs.
      expect(h.manifest.generator.name).toBe("agent-surface");
      return;
    }
    expect(() => execFileSync(binary, ["compile", "--check", h.appDir], { encoding: "utf8", stdio: "pipe" })).not.toThrow();
  });
});
