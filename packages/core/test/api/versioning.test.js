// Spec "Versioning": surfaceId format, surfaceVersion starting at "0" and stepping by one per
// surface-affecting mutation (replace = one), what does not bump it, and staleness enforcement
// (registrationId, tombstones, surfaceId, surfaceVersion for destructive effects).
import { describe, expect, it } from "vitest";
import { bindNotes, bindPanel, deferred, makeRegistry, purge, settle } from "./helpers.js";

describe("surfaceId", () => {
  it('is "srf_" + 22 base62 characters, distinct per registry', () => {
    const ids = new Set();
    for (let i = 0; i < 20; i++) {
      const r = makeRegistry();
      expect(r.surfaceId).toMatch(/^srf_[0-9A-Za-z]{22}$/);
      ids.add(r.surfaceId);
      r.dispose();
    }
    expect(ids.size).toBe(20);
  });

  it("is on every snapshot and cannot be reassigned", () => {
    const r = makeRegistry();
    expect(r.snapshot().surfaceId).toBe(r.surfaceId);
    expect(() => {
      "use strict";
      r.surfaceId = "srf_x";
    }).toThrow(TypeError);
    r.dispose();
  });
});

describe("surfaceVersion", () => {
  it('starts at "0" and steps by one for register, update, invalidate, unregister', () => {
    const r = makeRegistry();
    const steps = [r.getVersion()];
    const h = r.register(bindPanel());
    steps.push(r.getVersion());
    h.update({ enabled: false });
    steps.push(r.getVersion());
    h.update({ availability: { toggle: { available: false } } });
    steps.push(r.getVersion());
    h.invalidate();
    steps.push(r.getVersion());
    h.unregister();
    steps.push(r.getVersion());
    expect(steps).toEqual(["0", "1", "2", "3", "4", "5"]);
    expect(r.snapshot().surfaceVersion).toBe("5");
    r.dispose();
  });

  it('replace is one mutation (+1), even though it unregisters the previous registration', () => {
    const r = makeRegistry({ onDuplicateInstance: "replace" });
    r.register(bindPanel());
    expect(r.getVersion()).toBe("1");
    r.register(bindPanel());
    expect(r.getVersion()).toBe("2");
    r.dispose();
  });

  it("rejections, refused registrations, handler state, when() drift, snapshots and invocations do not bump it", async () => {
    let open = true;
    const r = makeRegistry();
    r.register(bindPanel({ actions: { toggle: { execute: () => void (open = !open), when: () => open } } }));
    r.register(bindPanel()); // rejected duplicate
    expect(() => r.register(42)).toThrow();
    r.snapshot();
    await r.invoke({ capabilityId: "view:api.panel.toggle", input: {} });
    await r.invoke({ capabilityId: "view:api.panel.state" });
    r.snapshot();
    expect(open).toBe(false);
    expect(r.getVersion()).toBe("1");
    r.dispose();
  });

  it("every result carries the version current at settle time, and surfaceChanged when it moved during execution", async () => {
    const r = makeRegistry();
    const gate = deferred();
    r.register(bindNotes({ actions: { work: { execute: () => gate.promise } } }));
    const quiet = await r.invoke({ capabilityId: "view:api.notes.raw" });
    expect(quiet.surfaceVersion).toBe("1");
    expect("surfaceChanged" in quiet).toBe(false);
    const running = r.invoke({ capabilityId: "view:api.notes.work", input: {} });
    await settle();
    r.register(bindPanel());
    gate.resolve();
    const res = await running;
    expect(res).toMatchObject({ status: "ok", surfaceVersion: "2", surfaceChanged: true });
    r.dispose();
  });
});

describe("staleness enforcement", () => {
  it("a registrationId that is not the live one → STALE_CAPABILITY with details.liveRegistrationId", async () => {
    const r = makeRegistry({ onDuplicateInstance: "replace" });
    const old = r.register(bindNotes());
    const live = r.register(bindNotes());
    const res = await r.invoke({ capabilityId: "view:api.notes.work", input: {}, registrationId: "reg_999_nothere" });
    expect(res.error).toMatchObject({ code: "STALE_CAPABILITY", retry: "with-changes", details: { liveRegistrationId: live.registrationId } });
    // the replaced registration differs from the live one too: stale, pointing at its successor
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: {}, registrationId: old.registrationId })).error).toMatchObject({
      code: "STALE_CAPABILITY",
      details: { liveRegistrationId: live.registrationId },
    });
    // with no live successor, the tombstone answers COMPONENT_UNMOUNTED
    live.unregister();
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: {}, registrationId: live.registrationId })).error.code).toBe("COMPONENT_UNMOUNTED");
    r.register(bindNotes());
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: {} })).status).toBe("ok");
    r.dispose();
  });

  it("a surfaceId of another registry (a reloaded page) → STALE_CAPABILITY", async () => {
    const r = makeRegistry();
    const other = makeRegistry();
    r.register(bindNotes());
    const res = await r.invoke({ capabilityId: "view:api.notes.work", input: {}, surfaceId: other.surfaceId, surfaceVersion: r.getVersion() });
    expect(res.error.code).toBe("STALE_CAPABILITY");
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: {}, surfaceId: r.surfaceId })).status).toBe("ok");
    r.dispose();
    other.dispose();
  });

  it("an outdated surfaceVersion only matters for destructive / external effects", async () => {
    const r = makeRegistry();
    let purged = 0;
    r.register(bindNotes({ procedures: [purge.bind({ execute: () => void purged++ })] }));
    const seen = r.getVersion();
    r.register(bindPanel()); // unrelated change
    // local-state: proceeds with a stale hint
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: {}, surfaceVersion: seen })).status).toBe("ok");
    // destructive: refused before anything else (even before the confirmation step)
    const res = await r.invoke({ capabilityId: "domain:api.purge", input: {}, surfaceVersion: seen });
    expect(res.error).toMatchObject({ code: "STALE_CAPABILITY", details: { reason: "surface-version-mismatch" } });
    expect(r.confirmations.pending()).toEqual([]);
    // with the current version it reaches the confirmation gate
    const current = await r.invoke({ capabilityId: "domain:api.purge", input: {}, surfaceVersion: r.getVersion() });
    expect(current.error.code).toBe("CONFIRMATION_REQUIRED");
    expect(purged).toBe(0);
    r.dispose();
  });
});
