// Spec "Registration lifecycle": handles (registrationId, status, update, invalidate,
// unregister), the normative rules 1–7 (mount → register, structural immutability, unmount,
// tombstones, post-unregister no-ops, dispose) and collisions.
import { afterEach, describe, expect, it, vi } from "vitest";
import { bindNotes, bindPanel, deferred, definitionError, makeRegistry, record, settle } from "./helpers.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("handles", () => {
  it("registrationId is reg_ + a monotonic counter + random; a handle is frozen", () => {
    const r = makeRegistry();
    const a = r.register(bindNotes());
    const b = r.register(bindPanel());
    const c = r.register(bindNotes()); // rejected duplicate still gets an id
    const seq = [a, b, c].map((h) => {
      const m = /^reg_(\d+)_([0-9A-Za-z]+)$/.exec(h.registrationId);
      expect(m, h.registrationId).not.toBeNull();
      return Number(m[1]);
    });
    expect(seq[1]).toBeGreaterThan(seq[0]);
    expect(seq[2]).toBeGreaterThan(seq[1]);
    expect(new Set([a, b, c].map((h) => h.registrationId)).size).toBe(3);
    expect(Object.isFrozen(a)).toBe(true);
    expect(c.status).toBe("rejected");
    r.dispose();
  });

  it("rule 1: a registration is live immediately and in the next snapshot; surface-changed carries the new version", async () => {
    const r = makeRegistry();
    const events = record(r);
    const h = r.register(bindNotes());
    expect(h.status).toBe("active");
    expect(r.snapshot().components.map((c) => c.registrationId)).toEqual([h.registrationId]);
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: {} })).status).toBe("ok");
    expect(events.events).toContainEqual({ type: "component-registered", registrationId: h.registrationId, componentType: "api.notes", instanceId: "default" });
    expect(events.events).toContainEqual({ type: "surface-changed", surfaceVersion: "1" });
    r.dispose();
  });
});

describe("handle.update", () => {
  it("only enabled and availability are updatable; anything structural is refused (not-updatable)", () => {
    const r = makeRegistry();
    const h = r.register(bindNotes());
    for (const key of ["description", "instanceId", "actions", "policies", "meta"]) {
      expect(definitionError(() => h.update({ [key]: "x" })).code).toBe("not-updatable");
    }
    expect(() => h.update("enabled")).toThrow(TypeError);
    expect(r.getVersion()).toBe("1");
    r.dispose();
  });

  it("enabled: false makes every capability visible-disabled (component-disabled) and invocations CAPABILITY_NOT_AVAILABLE; identity is kept", async () => {
    const r = makeRegistry();
    const h = r.register(bindPanel());
    h.update({ enabled: false });
    const [c] = r.snapshot().components;
    expect(c.registrationId).toBe(h.registrationId);
    for (const cap of [...c.observations, ...c.actions]) expect(cap).toMatchObject({ available: false, unavailableReason: "component-disabled" });
    const res = await r.invoke({ capabilityId: "view:api.panel.toggle", input: {} });
    expect(res.error).toMatchObject({ code: "CAPABILITY_NOT_AVAILABLE", retry: "after-delay", details: { reason: "component-disabled" } });
    h.update({ enabled: true });
    expect((await r.invoke({ capabilityId: "view:api.panel.toggle", input: {} })).status).toBe("ok");
    expect(r.getVersion()).toBe("3");
    r.dispose();
  });

  it("enabled: false at bind time starts the component disabled", () => {
    const r = makeRegistry();
    r.register(bindPanel({ enabled: false }));
    expect(r.snapshot().components[0].actions[0]).toMatchObject({ available: false, unavailableReason: "component-disabled" });
    r.dispose();
  });

  it("availability overrides are keyed by capability name and emit availability-changed with the capability id", async () => {
    const r = makeRegistry();
    const events = record(r);
    const h = r.register(bindPanel());
    h.update({ availability: { toggle: { available: false, reason: "animating" } } });
    const [c] = r.snapshot().components;
    expect(c.actions[0]).toMatchObject({ name: "toggle", available: false, unavailableReason: "animating" });
    expect(c.observations[0].available).toBe(true);
    expect((await r.invoke({ capabilityId: "view:api.panel.toggle", input: {} })).error.details.reason).toBe("animating");
    h.update({ availability: { toggle: { available: true } } });
    expect(r.snapshot().components[0].actions[0].available).toBe(true);
    const changes = events.events.filter((e) => e.type === "availability-changed");
    expect(changes).toEqual([
      { type: "availability-changed", registrationId: h.registrationId, capabilityId: "view:api.panel.toggle", available: false },
      { type: "availability-changed", registrationId: h.registrationId, capabilityId: "view:api.panel.toggle", available: true },
    ]);
    r.dispose();
  });

  it("an override names a capability of this component; a capability id or unknown name is ignored (with a development warning)", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const r = makeRegistry({ environment: "development" });
    const h = r.register(bindPanel());
    h.update({ availability: { "view:api.panel.toggle": { available: false } } });
    h.update({ availability: { nope: { available: false } } });
    expect(r.snapshot().components[0].actions[0].available).toBe(true);
    expect(warn.mock.calls.map((c) => String(c[0])).join("\n")).toMatch(/"nope" is not an observation or action/);
    r.dispose();
  });
});

describe("unregister, tombstones and post-unregister calls", () => {
  it("rule 4: capabilities disappear; in-flight non-navigation work settles COMPONENT_UNMOUNTED, its signal aborted", async () => {
    const r = makeRegistry();
    const gate = deferred();
    let signal;
    const h = r.register(bindNotes({ actions: { work: { execute: (_i, ctx) => ((signal = ctx.signal), gate.promise) } } }));
    const running = r.invoke({ capabilityId: "view:api.notes.work", input: {} });
    await settle();
    h.unregister();
    expect(h.status).toBe("unregistered");
    expect(r.snapshot().components).toEqual([]);
    const res = await running;
    expect(res.error).toMatchObject({ code: "COMPONENT_UNMOUNTED" });
    expect(signal.aborted).toBe(true);
    gate.resolve();
    r.dispose();
  });

  it("rule 5: a late invocation naming the old registrationId gets COMPONENT_UNMOUNTED, otherwise CAPABILITY_NOT_FOUND", async () => {
    const r = makeRegistry();
    const h = r.register(bindNotes());
    h.unregister();
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: {}, registrationId: h.registrationId })).error.code).toBe("COMPONENT_UNMOUNTED");
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: {} })).error.code).toBe("CAPABILITY_NOT_FOUND");
    // a new registration of the same key is live; the tombstone still answers for the old id
    const again = r.register(bindNotes());
    expect(again.registrationId).not.toBe(h.registrationId);
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: {}, registrationId: h.registrationId })).error).toMatchObject({ code: "STALE_CAPABILITY", details: { liveRegistrationId: again.registrationId } });
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: {}, registrationId: again.registrationId })).status).toBe("ok");
    r.dispose();
  });

  it("rule 6: update, invalidate and unregister after unregister are no-ops (no version step), warning in development", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    for (const environment of ["production", "development"]) {
      const r = makeRegistry({ environment });
      const events = record(r);
      const h = r.register(bindPanel());
      h.unregister();
      await settle(1);
      events.events.length = 0;
      const version = r.getVersion();
      h.update({ enabled: false });
      h.update({ availability: { toggle: { available: false } } });
      h.invalidate();
      h.unregister();
      expect(r.getVersion()).toBe(version);
      expect(h.status).toBe("unregistered");
      await settle(1);
      expect(events.events).toEqual([]);
      r.dispose();
      if (environment === "production") {
        expect(warn).not.toHaveBeenCalled();
      } else {
        expect(warn.mock.calls.length).toBeGreaterThanOrEqual(4);
        expect(warn.mock.calls.every((c) => String(c[0]).includes(h.registrationId))).toBe(true);
      }
    }
  });

  it("a rejected handle's calls are no-ops too", () => {
    const r = makeRegistry();
    r.register(bindPanel());
    const dead = r.register(bindPanel());
    const version = r.getVersion();
    dead.update({ enabled: false });
    dead.invalidate();
    dead.unregister();
    expect(dead.status).toBe("rejected");
    expect(r.getVersion()).toBe(version);
    expect(r.snapshot().components[0].actions[0].available).toBe(true);
    r.dispose();
  });
});

describe("dispose (rule 7)", () => {
  it("unregisters everything, settles in-flight work CANCELLED, expires pending confirmations, drops listeners", async () => {
    const r = makeRegistry();
    const h = r.register(bindNotes({ actions: { work: { execute: () => new Promise(() => {}) } } }));
    const listener = vi.fn();
    const pendingListener = vi.fn();
    const running = r.invoke({ capabilityId: "view:api.notes.work", input: {} });
    const asked = await r.invoke({ capabilityId: "view:api.notes.remove", input: { id: "n1" } });
    const waiting = r.confirmations.waitFor(asked.error.details.confirmationId);
    r.subscribe(listener);
    r.confirmations.subscribe(pendingListener);
    pendingListener.mockClear();
    r.dispose();
    // the teardown is announced synchronously; then the listeners are gone
    const during = listener.mock.calls.map(([e]) => e.type);
    expect(during).toEqual(expect.arrayContaining(["component-unregistered", "confirmation-resolved"]));
    expect(listener.mock.calls.find(([e]) => e.type === "confirmation-resolved")[0].outcome).toBe("expired");
    expect(h.status).toBe("unregistered");
    expect((await running).error.code).toBe("CANCELLED");
    expect(await waiting).toBe("expired");
    expect(r.confirmations.pending()).toEqual([]);
    expect(r.snapshot().components).toEqual([]);
    await settle();
    // no invocation-settled, no coalesced surface-changed after dispose
    expect(listener.mock.calls.map(([e]) => e.type)).toEqual(during);
    r.dispose(); // idempotent
  });

  it("queued and running observations settle CANCELLED on dispose", async () => {
    const r = makeRegistry({ limits: { maxConcurrentObservationsPerConsumer: 1 } });
    r.register(bindNotes({ observations: { raw: { read: () => new Promise(() => {}) } } }));
    const running = r.invoke({ capabilityId: "view:api.notes.raw" });
    const queued = r.invoke({ capabilityId: "view:api.notes.raw" });
    await settle();
    r.dispose();
    expect((await running).error.code).toBe("CANCELLED");
    expect((await queued).error.code).toBe("CANCELLED");
  });

  it("after dispose, invoke rejects (misuse) and register throws", async () => {
    const r = makeRegistry();
    r.dispose();
    await expect(r.invoke({ capabilityId: "view:api.notes.work", input: {} })).rejects.toThrow(TypeError);
    expect(definitionError(() => r.register(bindNotes())).code).toBe("disposed");
  });
});

describe("collisions", () => {
  it("the component key is (type, instanceId): another instance id is not a collision", () => {
    const r = makeRegistry();
    const a = r.register(bindNotes({ instanceId: "inbox" }));
    const b = r.register(bindNotes({ instanceId: "archive" }));
    expect([a.status, b.status]).toEqual(["active", "active"]);
    expect(r.snapshot().components.map((c) => c.instanceId)).toEqual(["archive", "inbox"]);
    r.dispose();
  });

  it("after unregister the key is free again", () => {
    const r = makeRegistry();
    r.register(bindNotes()).unregister();
    expect(r.register(bindNotes()).status).toBe("active");
    r.dispose();
  });
});
