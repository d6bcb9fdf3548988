// Spec "Snapshot": synchronous and side-effect free, deep-frozen plain JSON, internal metadata
// never present, deterministic ordering (priority desc, type, instanceId), scope,
// includeUnavailable, budgets (truncated), procedures at the top level, stable vs volatile text.
import { describe, expect, it, vi } from "vitest";
import { bindAlpha, bindNotes, bindPanel, core, fetchNote, makeRegistry, purge } from "./helpers.js";

const SECRET = "INTERNAL-7f3a";
const key = (c) => `${c.type}/${c.instanceId}`;
const isDeepFrozen = (v) => v === null || typeof v !== "object" || (Object.isFrozen(v) && Object.values(v).every(isDeepFrozen));

describe("shape", () => {
  it("is plain, deep-frozen JSON with surfaceId, surfaceVersion, capturedAt, components and procedures", () => {
    const r = makeRegistry({ now: () => Date.UTC(2026, 4, 1, 12) });
    const h = r.register(bindNotes({ procedures: [purge.bind({ execute: () => undefined })] }));
    const s = r.snapshot();
    expect(Object.keys(s).sort()).toEqual(["capturedAt", "components", "procedures", "surfaceId", "surfaceVersion"]);
    expect(s).toMatchObject({ surfaceId: r.surfaceId, surfaceVersion: "1", capturedAt: "2026-05-01T12:00:00.000Z" });
    expect(isDeepFrozen(s)).toBe(true);
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
    const [c] = s.components;
    expect(c).toMatchObject({ type: "api.notes", instanceId: "default", registrationId: h.registrationId, description: "The notes list", meta: { area: "notes" } });
    expect(c.observations.map((o) => o.name)).toEqual(["list", "raw"]);
    expect(c.observations[0]).toEqual({
      capabilityId: "view:api.notes.list",
      name: "list",
      description: "The notes on screen",
      outputSchema: expect.objectContaining({ type: "object", required: ["items"] }),
      available: true,
    });
    const remove = c.actions.find((a) => a.name === "remove");
    expect(remove).toEqual({
      capabilityId: "view:api.notes.remove",
      name: "remove",
      description: "Deletes a note",
      inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false },
      effect: "local-state",
      idempotent: false,
      reversible: false,
      confirmation: "required",
      available: true,
    });
    expect(c.actions.find((a) => a.name === "add").outputSchema).toBeDefined();
    expect(c.actions.find((a) => a.name === "open").effect).toBe("navigation");
    r.dispose();
  });

  it("is synchronous and side-effect free: no read, no execute, no version step", () => {
    const read = vi.fn(() => ({ open: true }));
    const execute = vi.fn();
    const r = makeRegistry();
    r.register(bindPanel({ observations: { state: { read } }, actions: { toggle: { execute } } }));
    const a = r.snapshot();
    const b = r.snapshot();
    expect(a).not.toBeInstanceOf(Promise);
    expect(read).not.toHaveBeenCalled();
    expect(execute).not.toHaveBeenCalled();
    expect(a.components).toEqual(b.components);
    expect(r.getVersion()).toBe("1");
    r.dispose();
  });

  it("procedures are top-level descriptors linked to the registering component; describe() is contextualNote, never the description", () => {
    let count = 3;
    const r = makeRegistry();
    const h = r.register(bindNotes({ procedures: [purge.bind({ execute: () => undefined, describe: () => `${count} notes would be deleted` }), fetchNote.bind({})] }));
    const s = r.snapshot();
    expect(s.components[0]).not.toHaveProperty("procedures");
    const p = s.procedures.find((x) => x.capabilityId === "domain:api.purge");
    expect(p).toMatchObject({
      description: "Deletes every note on the server",
      effect: "destructive",
      confirmation: "required",
      reversible: false,
      available: true,
      registrationId: h.registrationId,
      component: { type: "api.notes", instanceId: "default" },
      contextualNote: "3 notes would be deleted",
    });
    count = 0;
    const again = r.snapshot().procedures.find((x) => x.capabilityId === "domain:api.purge");
    expect(again.contextualNote).toBe("0 notes would be deleted");
    expect(again.description).toBe("Deletes every note on the server");
    expect(s.procedures.find((x) => x.capabilityId === "domain:api.fetchNote")).not.toHaveProperty("contextualNote");
    expect(r.getVersion()).toBe("1");
    r.dispose();
  });
});

describe("internal metadata", () => {
  it("never appears in a snapshot, an invocation result, an event or a tool", async () => {
    const r = makeRegistry({ onDuplicateInstance: "reject" });
    const events = [];
    r.subscribe((e) => events.push(e));
    r.register(bindNotes({ internal: { owner: SECRET, nested: { token: SECRET } }, procedures: [purge.bind({ execute: () => undefined })] }));
    const payloads = [r.snapshot(), r.snapshot({ includeUnavailable: false }), await r.invoke({ capabilityId: "view:api.notes.list" }), await r.invoke({ capabilityId: "domain:api.purge", input: {} })];
    const toolset = core.createAgentToolset(r, { consumer: { id: "t", kind: "test" }, topology: "remote" });
    payloads.push(toolset.tools().map(({ execute, ...t }) => t), Object.fromEntries(toolset.wireNameMap()), r.confirmations.pending());
    const meta = core.createAgentToolset(r, { consumer: { id: "t", kind: "test" }, topology: "remote", mode: "meta" });
    const discover = meta.tools().find((t) => t.name.includes("discover"));
    payloads.push(await discover.execute({}, { toolCallId: "d1" }));
    payloads.push(events);
    for (const p of payloads) expect(JSON.stringify(p)).not.toContain(SECRET);
    expect(JSON.stringify(payloads)).not.toContain("internal");
    r.dispose();
  });
});

describe("ordering", () => {
  it("components are sorted by (priority desc, type, instanceId), whatever the mount order", () => {
    const expected = ["api.panel/default", "api.alpha/default", "api.notes/a", "api.notes/b"];
    const mounts = [
      () => bindNotes({ instanceId: "b" }),
      () => bindAlpha(),
      () => bindNotes({ instanceId: "a" }),
      () => bindPanel(),
    ];
    for (const order of [[0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1]]) {
      const r = makeRegistry({ duplicateSuffixPolicy: "off" });
      for (const i of order) r.register(mounts[i]());
      expect(r.snapshot().components.map(key)).toEqual(expected);
      r.dispose();
    }
  });
});

describe("SnapshotContext", () => {
  const full = () => {
    const r = makeRegistry({ duplicateSuffixPolicy: "off" });
    r.register(bindNotes({ instanceId: "a", actions: { work: { execute: () => undefined, when: () => false } } }));
    r.register(bindNotes({ instanceId: "b" }));
    r.register(bindPanel({ actions: { toggle: { execute: () => undefined, when: () => false } } }));
    r.register(bindAlpha({ actions: { ping: { execute: () => undefined, when: () => false } } }));
    return r;
  };

  it("scope keeps components whose type starts with a listed prefix (whole segments)", () => {
    const r = full();
    expect(r.snapshot({ scope: ["api.notes"] }).components.map(key)).toEqual(["api.notes/a", "api.notes/b"]);
    expect(r.snapshot({ scope: ["api.notes", "api.panel"] }).components.map(key)).toEqual(["api.panel/default", "api.notes/a", "api.notes/b"]);
    expect(r.snapshot({ scope: ["api"] }).components).toHaveLength(4);
    expect(r.snapshot({ scope: ["api.pa"] }).components).toEqual([]);
    expect(r.snapshot().components).toHaveLength(4);
    r.dispose();
  });

  it("includeUnavailable: false drops visible-disabled capabilities (default true keeps them)", () => {
    const r = full();
    const all = r.snapshot();
    const available = r.snapshot({ includeUnavailable: false });
    const caps = (s) => s.components.flatMap((c) => [...c.observations, ...c.actions]);
    expect(caps(all).some((c) => !c.available)).toBe(true);
    expect(caps(available).every((c) => c.available)).toBe(true);
    const a = available.components.find((c) => c.instanceId === "a");
    expect(a.actions.map((x) => x.name)).not.toContain("work");
    expect(available.components.find((c) => c.instanceId === "b").actions.map((x) => x.name)).toContain("work");
    expect(caps(available).map((c) => c.capabilityId)).toContain("view:api.panel.state");
    expect(caps(all).length - caps(available).length).toBe(3);
    r.dispose();
  });

  it("budget (experimental): drops lowest-priority components after the cap and says so", () => {
    const r = full();
    const s = r.snapshot({ budget: { maxComponents: 2 } });
    expect(s.components.map(key)).toEqual(["api.panel/default", "api.alpha/default"]);
    expect(s.truncated).toEqual({ droppedComponents: 2 });
    const bytes = r.snapshot({ budget: { maxBytes: 1500 } });
    expect(bytes.truncated.droppedComponents).toBeGreaterThan(0);
    expect(bytes.components[0].type).toBe("api.panel");
    expect(r.snapshot({ budget: { maxComponents: 10 } })).not.toHaveProperty("truncated");
    expect(r.snapshot()).not.toHaveProperty("scopeRejected");
    r.dispose();
  });

  it("a malformed context is misuse (TypeError)", () => {
    const r = makeRegistry();
    expect(() => r.snapshot({ consumer: { id: "x", kind: "robot" } })).toThrow(TypeError);
    expect(() => r.snapshot({ scope: "api" })).toThrow(TypeError);
    r.dispose();
  });
});
