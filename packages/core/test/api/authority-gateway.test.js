// Spec "Authority and external exposure": the CapabilityAuthority is the runtime source of
// truth (registries refuse construction without a genuine one), and createAgentExposureGateway
// applies the same ceiling to external tools: only tools carrying the compiler's provenance for
// its manifest are exposed; their calls are validated against the manifest and confirmed.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { authority, core, definitionError, exportNotes, lookup, manifest, provenance, purge, schemas } from "./helpers.js";
import { packageDir } from "../paths.js";

const { CapabilityAuthorityError, createAgentExposureGateway, createAgentSurfaceRegistry, createCapabilityAuthority, defineExternalAgentToolContract } = core;

const exportDefinition = (changes = {}) => ({
  id: "external:api.export",
  description: "Exports the notes to a file",
  input: schemas.exportInput(),
  output: schemas.exportOutput(),
  effect: "external-side-effect",
  confirmation: "required",
  ...changes,
});
const lookupTool = (execute = ({ word }) => ({ word, meaning: "m" })) => lookup.bind({ execute });

describe("CapabilityAuthority", () => {
  it("the manifest is verified, cloned and deep-frozen", () => {
    expect(authority.manifest).toEqual(manifest);
    expect(authority.manifest).not.toBe(manifest);
    expect(Object.isFrozen(authority.manifest.contracts[0])).toBe(true);
    expect(authority.contract("view:api.notes").type).toBe("api.notes");
    const tampered = JSON.parse(JSON.stringify(manifest));
    tampered.contracts.find((c) => c.id === "view:api.notes").description = "Changed after the build";
    expect(() => createCapabilityAuthority(tampered)).toThrow(CapabilityAuthorityError);
  });

  it("a registry refuses construction without a genuine authority, in every environment", () => {
    for (const environment of ["development", "production", "test"]) {
      expect(() => createAgentSurfaceRegistry({ environment })).toThrow(CapabilityAuthorityError);
      expect(() => createAgentSurfaceRegistry({ environment, authority: { manifest } })).toThrow(CapabilityAuthorityError);
      expect(() => createAgentSurfaceRegistry({ environment, authority: Object.create(authority) })).toThrow(/not a CapabilityAuthority/);
    }
    expect(() => createAgentSurfaceRegistry()).toThrow(TypeError);
  });

  it("a gateway refuses construction without a genuine authority", () => {
    expect(() => createAgentExposureGateway({ manifest })).toThrow(CapabilityAuthorityError);
    expect(() => createAgentExposureGateway(undefined)).toThrow(CapabilityAuthorityError);
  });
});

describe("gateway.expose", () => {
  const gateway = createAgentExposureGateway(authority);

  it("exposes tools bound from this manifest's external tool contracts", () => {
    const exposed = gateway.expose([exportNotes.bind({ execute: () => ({ bytes: 1 }) }), lookupTool()]);
    const tools = exposed.tools();
    expect(tools.map((t) => t.name).sort()).toHaveLength(2);
    const exp = tools.find((t) => t.description.includes("Exports the notes"));
    expect(exp.inputSchema).toEqual(manifest.contracts.find((c) => c.id === "external:api.export").inputSchema);
    expect(exp.state).toEqual({ available: true });
    expect(typeof exp.execute).toBe("function");
    expect(Object.isFrozen(exp)).toBe(true);
    const block = exposed.toolBlock("openai");
    expect(Array.isArray(block)).toBe(true);
    expect(block).toHaveLength(2);
  });

  const refusals = [
    ["a raw tool object", () => ({ name: "export", description: "Exports", inputSchema: { type: "object" }, execute: () => ({}) }), "raw-tool"],
    ["an inert contract (no provenance)", () => defineExternalAgentToolContract(exportDefinition()).bind({ execute: () => ({ bytes: 1 }) }), "inert-contract"],
    [
      "a contract this manifest does not know",
      () => defineExternalAgentToolContract(exportDefinition({ id: "external:api.print" }), { id: "external:api.print", contractHash: provenance("external:api.export").contractHash }).bind({ execute: () => ({ bytes: 1 }) }),
      "unknown-contract",
    ],
    [
      "a stale hash",
      () => defineExternalAgentToolContract(exportDefinition(), { id: "external:api.export", contractHash: `blake3:${"0".repeat(64)}` }).bind({ execute: () => ({ bytes: 1 }) }),
      "hash-mismatch",
    ],
    [
      "a semantically changed definition (description)",
      () => defineExternalAgentToolContract(exportDefinition({ description: "Exports the notes" }), provenance("external:api.export")).bind({ execute: () => ({ bytes: 1 }) }),
      "semantic-change",
    ],
    [
      "a semantically changed definition (confirmation)",
      () => defineExternalAgentToolContract(exportDefinition({ confirmation: "never" }), provenance("external:api.export")).bind({ execute: () => ({ bytes: 1 }) }),
      "semantic-change",
    ],
    [
      "a semantically changed definition (input schema)",
      () =>
        defineExternalAgentToolContract(exportDefinition({ input: core.fromJsonSchema({ type: "object", properties: { format: { type: "string" } }, required: ["format"], additionalProperties: false }) }), provenance("external:api.export")).bind({
          execute: () => ({ bytes: 1 }),
        }),
      "semantic-change",
    ],
  ];
  for (const [what, tool, code] of refusals) {
    it(`throws for ${what} (code ${code}), exposing nothing`, () => {
      const e = definitionError(() => gateway.expose([lookupTool(), tool()]));
      expect(e.code).toBe(code);
    });
  }

  it("throws for a tool compiled against another manifest", () => {
    const other = JSON.parse(readFileSync(join(packageDir, "../../conformance/scenarios/manifest.json"), "utf8"));
    const c = other.contracts.find((x) => x.id === "external:demo.export");
    const foreign = defineExternalAgentToolContract(
      { id: c.id, description: c.description, input: core.emptyObjectSchema, effect: c.effect },
      { id: c.id, contractHash: c.contractHash },
    ).bind({ execute: () => undefined });
    expect(foreign.verified).toBe(true);
    expect(definitionError(() => gateway.expose([foreign])).code).toBe("unknown-contract");
    // and the other manifest's gateway refuses ours
    const theirs = createAgentExposureGateway(createCapabilityAuthority(other));
    expect(definitionError(() => theirs.expose([lookupTool()])).code).toBe("unknown-contract");
  });

  it("throws for a binding that is not an external tool", () => {
    expect(definitionError(() => gateway.expose([purge.bind({ execute: () => undefined })])).code).toBe("wrong-kind");
    expect(() => gateway.expose("tools")).toThrow(TypeError);
  });
});

describe("exposed tool execution", () => {
  const gateway = createAgentExposureGateway(authority);
  const find = (exposed, text) => exposed.tools().find((t) => t.description.includes(text));

  it("validates the input against the manifest's schema before execute runs", async () => {
    const execute = vi.fn(({ word }) => ({ word }));
    const tool = find(gateway.expose([lookupTool(execute)]), "dictionary");
    const bad = await tool.execute({ word: "" }, { toolCallId: "c1" });
    expect(bad).toMatchObject({ status: "error", capabilityId: "external:api.lookup", error: { code: "INVALID_INPUT" } });
    expect(bad.error.details.issues[0]).toMatchObject({ path: "/word", keyword: "minLength" });
    expect((await tool.execute({ word: "x", extra: 1 }, { toolCallId: "c2" })).error.code).toBe("INVALID_INPUT");
    expect(execute).not.toHaveBeenCalled();
    const ok = await tool.execute({ word: "lumen" }, { toolCallId: "c3" });
    expect(ok).toMatchObject({ status: "ok", invocationId: "c3", output: { word: "lumen" } });
    expect(execute).toHaveBeenCalledTimes(1);
  });

  it("input that is not JSON is an INVALID_INPUT envelope, not an exception", async () => {
    const tool = find(gateway.expose([lookupTool()]), "dictionary");
    const cyclic = { word: "a" };
    cyclic.self = cyclic;
    for (const input of [cyclic, { word: () => "a" }, { word: 1n }]) {
      const r = await tool.execute(input, { toolCallId: "c" });
      expect(r.status).toBe("error");
      expect(r.error.code).toBe("INVALID_INPUT");
    }
  });

  it("a tool requiring confirmation asks `confirm` with its id and the input; approval runs it", async () => {
    const execute = vi.fn(({ format }, ctx) => ({ bytes: format === "csv" ? 10 : 20, host: ctx.host }));
    const confirm = vi.fn(async () => true);
    const exposed = gateway.expose([exportNotes.bind({ execute: (i, ctx) => ({ bytes: execute(i, ctx).bytes }) }), lookupTool()], {
      confirm,
      context: () => ({ user: "u1" }),
    });
    const r = await find(exposed, "Exports").execute({ format: "csv" }, { toolCallId: "e1" });
    expect(r).toMatchObject({ status: "ok", output: { bytes: 10 } });
    expect(confirm).toHaveBeenCalledWith("external:api.export", { format: "csv" });
    expect(execute.mock.calls[0][1].host).toEqual({ user: "u1" });
    // a tool that does not require confirmation never asks
    await find(exposed, "dictionary").execute({ word: "a" }, {});
    expect(confirm).toHaveBeenCalledTimes(1);
  });

  it("refusal, a throwing confirm, or no confirm at all → CONFIRMATION_DENIED, and execute never runs", async () => {
    const execute = vi.fn(() => ({ bytes: 1 }));
    for (const options of [{ confirm: () => false }, { confirm: async () => false }, { confirm: () => Promise.reject(new Error("dialog crashed")) }, {}]) {
      const tool = find(gateway.expose([exportNotes.bind({ execute })], options), "Exports");
      const r = await tool.execute({ format: "json" }, { toolCallId: "e2" });
      expect(r.status).toBe("error");
      expect(r.error.code).toBe("CONFIRMATION_DENIED");
    }
    expect(execute).not.toHaveBeenCalled();
  });

  it("a throwing execute is EXECUTION_FAILED without its message", async () => {
    const tool = find(gateway.expose([lookupTool(() => {
      throw new Error("secret token abc123");
    })]), "dictionary");
    const r = await tool.execute({ word: "a" }, { toolCallId: "x" });
    expect(r.error.code).toBe("EXECUTION_FAILED");
    expect(JSON.stringify(r)).not.toContain("abc123");
  });
});
