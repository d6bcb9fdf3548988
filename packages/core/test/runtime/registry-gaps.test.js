// The registry's part of issue 25's gap fixes, on the page runtime: the default audit sink is
// readable (readAuditRecords), a forwarded procedure without an executor is unavailable with a
// reason, setProcedureExecutor is a version step, explainSurface reports threw and
// confirmationEscalation in the published shapes, and nested option objects given as arrays are
// refused naming the field.
import { describe, expect, it, vi } from "vitest";
import { readAuditRecords } from "../../dist/registry.js";
import { explainSurface } from "../../dist/explain.js";
import { bindNotes, bindPanel, fetchNote, makeRegistry, record, settle } from "../api/helpers.js";

describe("readAuditRecords", () => {
  it("reads the default sink: frozen records, oldest first, a copy", async () => {
    const r = makeRegistry();
    r.register(bindNotes());
    await r.invoke({ capabilityId: "view:api.notes.work", input: {}, invocationId: "a1" });
    await r.invoke({ capabilityId: "view:api.notes.nothing", invocationId: "a2" });
    const records = readAuditRecords(r);
    expect(records.map((x) => [x.invocationId, x.status, x.code])).toEqual([
      ["a1", "ok", null],
      ["a2", "error", "CAPABILITY_NOT_FOUND"],
    ]);
    expect(Object.isFrozen(records)).toBe(true);
    expect(Object.isFrozen(records[0])).toBe(true);
    await r.invoke({ capabilityId: "view:api.notes.work", input: {}, invocationId: "a3" });
    expect(records).toHaveLength(2);
    expect(readAuditRecords(r)).toHaveLength(3);
    r.dispose();
    expect(readAuditRecords(r)).toHaveLength(3);
  });

  it("keeps the newest 1,000 records, oldest first, past the capacity", async () => {
    const r = makeRegistry();
    r.register(bindNotes());
    for (let i = 0; i < 1_005; i++) await r.invoke({ capabilityId: "view:api.notes.work", input: {}, invocationId: `n${i}` });
    const records = readAuditRecords(r);
    expect(records).toHaveLength(1_000);
    expect(records[0].invocationId).toBe("n5");
    expect(records[999].invocationId).toBe("n1004");
    r.dispose();
  });

  it("is empty when options.audit was given, and refuses what is not a registry", async () => {
    const seen = [];
    const r = makeRegistry({ audit: { record: (x) => seen.push(x) } });
    r.register(bindNotes());
    await r.invoke({ capabilityId: "view:api.notes.work", input: {} });
    expect(seen).toHaveLength(1);
    expect(readAuditRecords(r)).toEqual([]);
    expect(() => readAuditRecords({ ...r })).toThrow(TypeError);
    r.dispose();
  });
});

describe("procedures without a local execute", () => {
  it("are unavailable (no-procedure-executor) until an executor is installed; installing it is a version step", async () => {
    const r = makeRegistry();
    const events = record(r);
    r.register(bindNotes({ procedures: [fetchNote.bind({})] }));
    const proc = () => r.snapshot().procedures.find((p) => p.capabilityId === "domain:api.fetchNote");
    expect(proc()).toMatchObject({ available: false, unavailableReason: "no-procedure-executor" });
    expect(r.snapshot({ includeUnavailable: false }).procedures).toEqual([]);
    const before = await r.invoke({ capabilityId: "domain:api.fetchNote", input: { id: "n1" } });
    expect(before.error).toMatchObject({ code: "CAPABILITY_NOT_AVAILABLE", details: { reason: "no-procedure-executor" } });
    expect(explainSurface(r).capabilities.find((c) => c.capabilityId === "domain:api.fetchNote")).toMatchObject({
      outcome: "disable",
      reason: "no-procedure-executor",
      availability: { available: false, reason: "no-procedure-executor" },
    });
    await settle(1);
    events.events.length = 0;
    r.setProcedureExecutor({ execute: async () => ({ text: "t" }) });
    expect(r.getVersion()).toBe("2");
    expect(proc()).toMatchObject({ available: true });
    expect((await r.invoke({ capabilityId: "domain:api.fetchNote", input: { id: "n1" } })).output).toEqual({ text: "t" });
    await settle(1);
    expect(events.events.filter((e) => e.type === "surface-changed")).toEqual([{ type: "surface-changed", surfaceVersion: "2" }]);
    r.setProcedureExecutor(undefined);
    expect(r.getVersion()).toBe("3");
    expect(proc().available).toBe(false);
    r.dispose();
    const disposed = r.getVersion();
    r.setProcedureExecutor({ execute: async () => null });
    expect(r.getVersion()).toBe(disposed);
  });
});

describe("explainSurface votes", () => {
  it("a throwing onDiscovery is threw: true (counted as hide); a disable vote keeps its reason; invoke policies may escalate actions", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const r = makeRegistry({
      policies: [
        {
          name: "broken",
          onDiscovery: (ctx) => {
            if (ctx.capabilityId.endsWith(".toggle")) throw new Error("no");
            return ctx.capabilityId.endsWith(".state") ? { disable: "read-only" } : "expose";
          },
        },
        { name: "asks", invoke: () => "allow" },
      ],
    });
    r.register(bindPanel());
    const e = explainSurface(r).capabilities;
    const toggle = e.find((c) => c.capabilityId === "view:api.panel.toggle");
    expect(toggle.outcome).toBe("hide");
    expect(toggle.policies).toEqual([
      { name: "broken", scope: "registry", phases: ["discovery"], discovery: "hide", threw: true },
      { name: "asks", scope: "registry", phases: ["invoke"], confirmationEscalation: true },
    ]);
    const state = e.find((c) => c.capabilityId === "view:api.panel.state");
    expect(state.policies).toEqual([
      { name: "broken", scope: "registry", phases: ["discovery"], discovery: { disable: "read-only" } },
      { name: "asks", scope: "registry", phases: ["invoke"] },
    ]);
    expect(state).toMatchObject({ outcome: "disable", reason: "read-only" });
    r.dispose();
    vi.restoreAllMocks();
  });
});

describe("option objects given as arrays", () => {
  it("are refused with a TypeError naming the field", async () => {
    expect(() => makeRegistry({ limits: [] })).toThrow(/limits/);
    expect(() => makeRegistry({ audit: [] })).toThrow(/audit/);
    const r = makeRegistry();
    const h = r.register(bindPanel());
    expect(() => r.snapshot({ budget: [] })).toThrow(/budget/);
    expect(() => r.snapshot({ consumer: [] })).toThrow(/consumer/);
    expect(() => r.snapshot({ scope: "api" })).toThrow(/scope/);
    expect(() => h.update({ availability: [] })).toThrow(/availability/);
    expect(() => explainSurface(r, { budget: [3] })).toThrow(/budget/);
    expect(() => explainSurface(r, [])).toThrow(TypeError);
    await expect(r.invoke({ capabilityId: "view:api.panel.state" }, { consumer: [] })).rejects.toThrow(/consumer/);
    expect(r.getVersion()).toBe("1");
    r.dispose();
  });
});
