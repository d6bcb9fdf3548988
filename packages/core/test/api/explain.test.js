// Spec "explainSurface() — developer projection": a separate entry point
// (@agent-surface/core/explain, not the package root), every capability including hidden ones,
// outcomes equal to what snapshot() did for the same context, availability kept apart from
// policy votes, and a throw on a foreign or disposed registry.
import { describe, expect, it, vi } from "vitest";
import { explainSurface } from "@agent-surface/core/explain";
import * as root from "@agent-surface/core";
import { bindAlpha, bindNotes, bindPanel, makeRegistry, purge } from "./helpers.js";

const consumers = [
  { id: "anonymous", kind: "embedded" },
  { id: "ops", kind: "test", grants: ["ops"] },
  { id: "guest", kind: "webmcp" },
];

/** A registry whose policies hide, disable and expose depending on the consumer. */
function surface() {
  const r = makeRegistry({
    duplicateSuffixPolicy: "off",
    policies: [
      { name: "ops-only-panel", onDiscovery: (ctx) => (ctx.componentType === "api.panel" && !ctx.consumer.grants?.includes("ops") ? "hide" : "expose") },
      { name: "guests-read-only", onDiscovery: (ctx) => (ctx.consumer.kind === "webmcp" && !ctx.capabilityId.endsWith(".list") ? { disable: "read-only for guests" } : "expose"), authorize: () => "allow" },
    ],
  });
  r.register(bindPanel());
  r.register(
    bindNotes({
      policies: [{ name: "no-produce", onDiscovery: (ctx) => (ctx.capabilityId.endsWith(".produce") ? "hide" : "expose") }],
      actions: { work: { execute: () => undefined, when: () => false, unavailableReason: "busy", policies: [{ name: "cap-level", onDiscovery: () => "expose", invoke: () => "allow" }] } },
      procedures: [purge.bind({ execute: () => undefined })],
    }),
  );
  r.register(bindAlpha({ enabled: false }));
  return r;
}

/** capabilityId → "expose" | "disable" | "hide", as the snapshot shows it. */
function snapshotOutcomes(r, ctx) {
  const s = r.snapshot({ ...ctx, includeUnavailable: true });
  const out = new Map();
  for (const c of s.components) for (const x of [...c.observations, ...c.actions]) out.set(x.capabilityId, x.available ? "expose" : "disable");
  for (const p of s.procedures) out.set(p.capabilityId, p.available ? "expose" : "disable");
  return out;
}

describe("the entry point", () => {
  it("is @agent-surface/core/explain, deliberately not exported from the package root", () => {
    expect(typeof explainSurface).toBe("function");
    expect("explainSurface" in root).toBe(false);
  });
});

describe("explainSurface", () => {
  it("reports every capability, hidden ones included, with their description and component", () => {
    const r = surface();
    const e = explainSurface(r);
    expect(e.surfaceId).toBe(r.surfaceId);
    expect(e.surfaceVersion).toBe(r.getVersion());
    const ids = e.capabilities.map((c) => c.capabilityId);
    expect(ids).toHaveLength(2 + 8 + 1 + 1); // panel, notes, purge, alpha
    const toggle = e.capabilities.find((c) => c.capabilityId === "view:api.panel.toggle");
    expect(toggle).toMatchObject({
      kind: "action",
      plane: "view",
      description: "Opens or closes the panel",
      component: { type: "api.panel", instanceId: "default" },
      outcome: "hide",
    });
    expect(e.capabilities.find((c) => c.capabilityId === "domain:api.purge")).toMatchObject({ kind: "procedure", plane: "domain", outcome: "expose" });
    expect(e.capabilities.find((c) => c.capabilityId === "view:api.notes.list").kind).toBe("observation");
    expect(Object.isFrozen(e.capabilities[0])).toBe(true);
    r.dispose();
  });

  it("its composed outcome equals what snapshot() did, for every consumer and scope", () => {
    const r = surface();
    for (const consumer of consumers) {
      for (const scope of [undefined, ["api.notes"], ["api.panel", "api.alpha"]]) {
        const ctx = scope ? { consumer, scope } : { consumer };
        const seen = snapshotOutcomes(r, ctx);
        const explained = explainSurface(r, ctx).capabilities;
        for (const c of explained) expect(c.outcome, `${consumer.id} ${c.capabilityId}`).toBe(seen.get(c.capabilityId) ?? "hide");
        // nothing in the snapshot is missing from the explanation
        for (const id of seen.keys()) expect(explained.some((c) => c.capabilityId === id)).toBe(true);
        if (scope) expect(explained.every((c) => scope.some((p) => c.component.type.startsWith(p)))).toBe(true);
      }
    }
    r.dispose();
  });

  it("ignores includeUnavailable and budget: withholding is what an explanation must not do", () => {
    const r = surface();
    const all = explainSurface(r).capabilities.map((c) => c.capabilityId);
    expect(explainSurface(r, { includeUnavailable: false, budget: { maxComponents: 1 } }).capabilities.map((c) => c.capabilityId)).toEqual(all);
    r.dispose();
  });

  it("attributes each policy's own vote by scope and phases, and keeps availability (when) apart", () => {
    const r = surface();
    const e = explainSurface(r, { consumer: consumers[0] });
    const toggle = e.capabilities.find((c) => c.capabilityId === "view:api.panel.toggle");
    expect(toggle.policies).toEqual([
      { name: "ops-only-panel", scope: "registry", phases: ["discovery"], discovery: "hide" },
      { name: "guests-read-only", scope: "registry", phases: ["discovery", "authorize"], discovery: "expose" },
    ]);
    expect(toggle.availability).toEqual({ available: true });
    const produce = e.capabilities.find((c) => c.capabilityId === "view:api.notes.produce");
    expect(produce.outcome).toBe("hide");
    expect(produce.policies.find((p) => p.name === "no-produce")).toEqual({ name: "no-produce", scope: "component", phases: ["discovery"], discovery: "hide" });
    // when() false: disabled by state, not by policy — every vote is expose
    const work = e.capabilities.find((c) => c.capabilityId === "view:api.notes.work");
    expect(work).toMatchObject({ outcome: "disable", reason: "busy", availability: { available: false, reason: "busy" } });
    expect(work.policies.map((p) => [p.name, p.scope, p.discovery])).toEqual([
      ["ops-only-panel", "registry", "expose"],
      ["guests-read-only", "registry", "expose"],
      ["no-produce", "component", "expose"],
      ["cap-level", "capability", "expose"],
    ]);
    expect(work.policies[3].phases).toEqual(["discovery", "invoke"]);
    // a disabled component
    const ping = e.capabilities.find((c) => c.capabilityId === "view:api.alpha.ping");
    expect(ping).toMatchObject({ outcome: "disable", reason: "component-disabled" });
    // a policy's disable for a guest: outcome disable with the policy's reason, availability still true
    const guestAdd = explainSurface(r, { consumer: consumers[2] }).capabilities.find((c) => c.capabilityId === "view:api.notes.add");
    expect(guestAdd).toMatchObject({ outcome: "disable", reason: "read-only for guests", availability: { available: true } });
    r.dispose();
  });

  it("re-runs onDiscovery per policy: a hide does not stop the later policies from being asked", () => {
    const later = vi.fn(() => "expose");
    const r = makeRegistry({ policies: [{ name: "first", onDiscovery: () => "hide" }, { name: "second", onDiscovery: later }] });
    r.register(bindPanel());
    r.snapshot();
    const inSnapshot = later.mock.calls.length;
    const e = explainSurface(r);
    expect(later.mock.calls.length).toBeGreaterThan(inSnapshot);
    expect(e.capabilities.every((c) => c.outcome === "hide" && c.policies[1].discovery === "expose")).toBe(true);
    r.dispose();
  });

  it("throws on a registry it did not create, or a disposed one", () => {
    const r = surface();
    expect(() => explainSurface({ ...r })).toThrow(TypeError);
    expect(() => explainSurface({ snapshot: () => ({}) })).toThrow(TypeError);
    expect(() => explainSurface(undefined)).toThrow(TypeError);
    r.dispose();
    expect(() => explainSurface(r)).toThrow(/disposed/);
  });
});
