// Spec "Events": the event union, surface-changed coalesced per microtask, invocation-settled
// without `code` when ok, ordering guarantees (started before settled, requested before
// resolved, one total order, queued re-entrancy) and listener-exception isolation.
import { afterEach, describe, expect, it, vi } from "vitest";
import { bindAlpha, bindNotes, bindPanel, makeRegistry, record, settle } from "./helpers.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("surface-changed", () => {
  it("a burst of registrations in one tick yields ONE surface-changed, with the latest version", async () => {
    const r = makeRegistry({ duplicateSuffixPolicy: "off" });
    const events = record(r);
    r.register(bindNotes({ instanceId: "a" }));
    r.register(bindNotes({ instanceId: "b" }));
    r.register(bindPanel());
    const h = r.register(bindAlpha());
    h.update({ enabled: false });
    expect(events.types().filter((t) => t === "surface-changed")).toEqual([]);
    await Promise.resolve();
    const changes = events.events.filter((e) => e.type === "surface-changed");
    expect(changes).toEqual([{ type: "surface-changed", surfaceVersion: "5" }]);
    expect(r.getVersion()).toBe("5");
    r.dispose();
  });

  it("mutations in separate ticks are separate events; a tick without mutation has none", async () => {
    const r = makeRegistry();
    const events = record(r);
    const h = r.register(bindPanel());
    await settle(1);
    h.invalidate();
    await settle(1);
    r.snapshot();
    await r.invoke({ capabilityId: "view:api.panel.state" });
    await settle(1);
    h.unregister();
    await settle(1);
    expect(events.events.filter((e) => e.type === "surface-changed").map((e) => e.surfaceVersion)).toEqual(["1", "2", "3"]);
    r.dispose();
  });

  it("component events are dispatched right after their mutation, before the coalesced surface-changed", async () => {
    const r = makeRegistry();
    const events = record(r);
    const h = r.register(bindPanel());
    expect(events.events).toEqual([{ type: "component-registered", registrationId: h.registrationId, componentType: "api.panel", instanceId: "default" }]);
    h.unregister();
    expect(events.events[1]).toEqual({ type: "component-unregistered", registrationId: h.registrationId, componentType: "api.panel", instanceId: "default" });
    await settle(1);
    expect(events.types()).toEqual(["component-registered", "component-unregistered", "surface-changed"]);
    r.dispose();
  });
});

describe("invocation events", () => {
  it("invocation-started strictly before invocation-settled; settled has no code when ok, the code when not", async () => {
    const r = makeRegistry();
    const events = record(r);
    r.register(bindNotes());
    await settle(1);
    events.events.length = 0;
    await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "a" }, invocationId: "ok-1" }, { consumer: { id: "c1", kind: "test" } });
    await r.invoke({ capabilityId: "view:api.notes.add", input: {}, invocationId: "bad-1" });
    expect(events.events).toEqual([
      { type: "invocation-started", invocationId: "ok-1", capabilityId: "view:api.notes.add", consumerId: "test:c1" },
      { type: "invocation-settled", invocationId: "ok-1", capabilityId: "view:api.notes.add", status: "ok", durationMs: expect.any(Number) },
      { type: "invocation-started", invocationId: "bad-1", capabilityId: "view:api.notes.add", consumerId: "embedded:anonymous" },
      { type: "invocation-settled", invocationId: "bad-1", capabilityId: "view:api.notes.add", status: "error", code: "INVALID_INPUT", durationMs: expect.any(Number) },
    ]);
    expect("code" in events.events[1]).toBe(false);
    r.dispose();
  });

  it("confirmation-requested precedes confirmation-resolved (approved | denied)", async () => {
    const r = makeRegistry();
    const events = record(r);
    r.register(bindNotes());
    for (const approved of [true, false]) {
      const res = await r.invoke({ capabilityId: "view:api.notes.remove", input: { id: "n1" } });
      const { confirmationId, expiresAt } = res.error.details;
      r.confirmations.resolve(confirmationId, { approved });
      const mine = events.events.filter((e) => e.confirmationId === confirmationId);
      expect(mine).toEqual([
        { type: "confirmation-requested", confirmationId, capabilityId: "view:api.notes.remove", expiresAt },
        { type: "confirmation-resolved", confirmationId, outcome: approved ? "approved" : "denied" },
      ]);
    }
    r.dispose();
  });

  it("events are deep-frozen", async () => {
    const r = makeRegistry();
    const events = record(r);
    r.register(bindPanel());
    await r.invoke({ capabilityId: "view:api.panel.state" });
    await settle(1);
    expect(events.events.length).toBeGreaterThan(2);
    for (const e of events.events) expect(Object.isFrozen(e)).toBe(true);
    r.dispose();
  });
});

describe("listeners", () => {
  it("a throwing listener is isolated: the others still hear every event and the call that mutated succeeds", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const r = makeRegistry();
    const before = [];
    const after = [];
    r.subscribe((e) => before.push(e.type));
    r.subscribe(() => {
      throw new Error("listener bug");
    });
    r.subscribe((e) => after.push(e.type));
    const h = r.register(bindPanel());
    expect(h.status).toBe("active");
    expect((await r.invoke({ capabilityId: "view:api.panel.toggle", input: {} })).status).toBe("ok");
    await settle(1);
    expect(after).toEqual(before);
    expect(after).toEqual(["component-registered", "surface-changed", "invocation-started", "invocation-settled"]);
    expect(error).toHaveBeenCalledTimes(4);
    expect(String(error.mock.calls[0][0])).toMatch(/listener bug/);
    r.dispose();
  });

  it("unsubscribe stops delivery; subscribe refuses a non-function", async () => {
    const r = makeRegistry();
    const heard = [];
    const stop = r.subscribe((e) => heard.push(e.type));
    r.register(bindPanel());
    stop();
    stop();
    r.register(bindNotes());
    await settle(1);
    expect(heard).toEqual(["component-registered"]);
    expect(() => r.subscribe("listener")).toThrow(TypeError);
    r.dispose();
  });

  it("re-entrancy is queued: a mutation inside a listener is dispatched after the current event reached every listener", async () => {
    const r = makeRegistry();
    const first = [];
    const second = [];
    r.subscribe((e) => {
      first.push(e.type === "component-registered" ? `registered ${e.componentType}` : e.type);
      if (e.type === "component-registered" && e.componentType === "api.notes") r.register(bindPanel());
    });
    r.subscribe((e) => second.push(e.type === "component-registered" ? `registered ${e.componentType}` : e.type));
    r.register(bindNotes());
    await settle(1);
    expect(first).toEqual(["registered api.notes", "registered api.panel", "surface-changed"]);
    expect(second).toEqual(first);
    expect(r.snapshot().components).toHaveLength(2);
    r.dispose();
  });
});
