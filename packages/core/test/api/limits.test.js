// Spec "Limits and defaults": every AgentSurfaceLimits field is enforced and overridable through
// RegistryOptions.limits, and violations are diagnosable (a typed error or a structured result),
// never silent. Time-based limits are driven with vi.useFakeTimers().
import { afterEach, describe, expect, it, vi } from "vitest";
import { bindNotes, bindPanel, core, deferred, definitionError, fetchNote, makeRegistry, settle } from "./helpers.js";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("definition limits (checked at register against the registry's limits)", () => {
  const cases = [
    ["maxComponentDescription", { maxComponentDescription: 5 }, "/description"],
    ["maxCapabilityDescription", { maxCapabilityDescription: 10 }, "/observations/list/description"],
    ["maxMetaBytes", { maxMetaBytes: 5 }, "/meta"],
    ["maxSchemaBytes", { maxSchemaBytes: 50 }, "/observations/list/outputSchema"],
    ["maxSchemaDepth", { maxSchemaDepth: 1 }, "/observations/list/outputSchema"],
  ];
  for (const [field, limits, pointer] of cases) {
    it(`${field}: a compiled contract over the registry's limit is refused (code invalid, at ${pointer})`, () => {
      const r = makeRegistry({ limits });
      const e = definitionError(() => r.register(bindNotes()));
      expect(e.code).toBe("invalid");
      expect(e.contract).toBe("view:api.notes");
      expect(e.message).toContain(pointer);
      r.dispose();
    });
  }

  it("the defaults (500 / 300 / 2048 / 16384 / 8) accept the fixture's contracts", () => {
    const r = makeRegistry({ limits: { maxComponentDescription: 500, maxCapabilityDescription: 300, maxMetaBytes: 2048, maxSchemaBytes: 16_384, maxSchemaDepth: 8 } });
    expect(r.register(bindNotes()).status).toBe("active");
    r.dispose();
  });
});

describe("maxOutputBytes (default 32 kB)", () => {
  it("an output over the limit is EXECUTION_FAILED {reason: output-too-large}, never truncated", async () => {
    let size = 32_768 - 2; // the JSON string's quotes count
    const r = makeRegistry();
    r.register(bindNotes({ actions: { produce: { execute: () => "x".repeat(size) } } }));
    const fits = await r.invoke({ capabilityId: "view:api.notes.produce", input: {} });
    expect(fits.status).toBe("ok");
    expect(fits.output).toHaveLength(size);
    size += 1;
    const over = await r.invoke({ capabilityId: "view:api.notes.produce", input: {} });
    expect(over.error).toMatchObject({ code: "EXECUTION_FAILED", details: { reason: "output-too-large" } });
    expect("output" in over).toBe(false);
    r.dispose();
  });

  it("is overridable", async () => {
    const r = makeRegistry({ limits: { maxOutputBytes: 50 } });
    r.register(bindNotes({ observations: { raw: { read: () => "y".repeat(60) } } }));
    expect((await r.invoke({ capabilityId: "view:api.notes.raw" })).error.details.reason).toBe("output-too-large");
    r.dispose();
  });
});

describe("timeouts", () => {
  it("observationTimeoutMs, actionTimeoutMs and procedureTimeoutMs override the defaults", async () => {
    vi.useFakeTimers();
    vi.spyOn(console, "warn").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    const r = makeRegistry({ limits: { observationTimeoutMs: 100, actionTimeoutMs: 200, procedureTimeoutMs: 300 } });
    const never = () => new Promise(() => {});
    r.register(bindNotes({ observations: { raw: { read: never } }, actions: { work: { execute: never } }, procedures: [fetchNote.bind({ execute: never })] }));
    const out = {};
    r.invoke({ capabilityId: "view:api.notes.raw" }).then((x) => (out.raw = x.error.code));
    r.invoke({ capabilityId: "view:api.notes.work", input: {} }).then((x) => (out.work = x.error.code));
    r.invoke({ capabilityId: "domain:api.fetchNote", input: { id: "n" } }).then((x) => (out.fetch = x.error.code));
    await vi.advanceTimersByTimeAsync(100);
    expect(out).toEqual({ raw: "TIMEOUT" });
    await vi.advanceTimersByTimeAsync(100);
    expect(out).toEqual({ raw: "TIMEOUT", work: "TIMEOUT" });
    await vi.advanceTimersByTimeAsync(100);
    expect(out).toEqual({ raw: "TIMEOUT", work: "TIMEOUT", fetch: "TIMEOUT" });
    r.dispose();
  });

  it("a binding's timeoutMs wins over the limits default", async () => {
    vi.useFakeTimers();
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const r = makeRegistry({ limits: { actionTimeoutMs: 100 } });
    r.register(bindNotes({ actions: { work: { timeoutMs: 1_000, execute: () => new Promise((resolve) => setTimeout(resolve, 500)) } } }));
    let res;
    r.invoke({ capabilityId: "view:api.notes.work", input: {} }).then((x) => (res = x));
    await vi.advanceTimersByTimeAsync(500);
    expect(res.status).toBe("ok");
    r.dispose();
  });
});

describe("queues", () => {
  it("actionQueueDepth, and the three observation gates, overflow as RATE_LIMITED queue-full", async () => {
    const gate = deferred();
    const r = makeRegistry({ limits: { actionQueueDepth: 1, maxConcurrentObservationsPerConsumer: 1, maxQueuedObservationsPerConsumer: 0, maxConcurrentObservationsTotal: 5 } });
    r.register(bindNotes({ actions: { work: { execute: () => gate.promise } }, observations: { raw: { read: () => gate.promise } } }));
    const pending = [r.invoke({ capabilityId: "view:api.notes.work", input: {} }), r.invoke({ capabilityId: "view:api.notes.work", input: {} }), r.invoke({ capabilityId: "view:api.notes.raw" })];
    await settle();
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: {} })).error.details.reason).toBe("queue-full");
    expect((await r.invoke({ capabilityId: "view:api.notes.raw" })).error.details.reason).toBe("queue-full");
    // another consumer has its own per-consumer gate
    const other = r.invoke({ capabilityId: "view:api.notes.raw" }, { consumer: { id: "b", kind: "test" } });
    await settle();
    gate.resolve();
    expect((await Promise.all([...pending, other])).map((x) => x.status)).toEqual(["ok", "ok", "ok", "ok"]);
    r.dispose();
  });
});

describe("dedupe window", () => {
  it("dedupeCacheSize: the oldest key is evicted, and then a new attempt", async () => {
    let n = 0;
    const r = makeRegistry({ limits: { dedupeCacheSize: 1 } });
    r.register(bindNotes({ actions: { add: { execute: () => ({ id: `n${++n}` }) } } }));
    const call = (invocationId) => r.invoke({ capabilityId: "view:api.notes.add", input: { text: "a" }, invocationId });
    expect((await call("k1")).output.id).toBe("n1");
    expect((await call("k1")).output.id).toBe("n1");
    await call("k2");
    expect((await call("k1")).output.id).toBe("n3");
    r.dispose();
  });

  it("dedupeCacheTtlMs (default 10 min): an expired key is a new attempt", async () => {
    vi.useFakeTimers();
    let n = 0;
    const r = makeRegistry();
    r.register(bindNotes({ actions: { add: { execute: () => ({ id: `n${++n}` }) } } }));
    const call = () => r.invoke({ capabilityId: "view:api.notes.add", input: { text: "a" }, invocationId: "k" });
    expect((await call()).output.id).toBe("n1");
    vi.advanceTimersByTime(599_999);
    expect((await call()).output.id).toBe("n1");
    vi.advanceTimersByTime(2);
    expect((await call()).output.id).toBe("n2");
    r.dispose();
  });
});

describe("tombstones", () => {
  it("tombstoneSize: beyond it the oldest unmounted id is forgotten (CAPABILITY_NOT_FOUND)", async () => {
    const r = makeRegistry({ limits: { tombstoneSize: 1 } });
    const a = r.register(bindPanel({ instanceId: "a" }));
    const b = r.register(bindPanel({ instanceId: "b" }));
    a.unregister();
    b.unregister();
    expect((await r.invoke({ capabilityId: "view:api.panel.state", registrationId: b.registrationId })).error.code).toBe("COMPONENT_UNMOUNTED");
    expect((await r.invoke({ capabilityId: "view:api.panel.state", registrationId: a.registrationId })).error.code).toBe("CAPABILITY_NOT_FOUND");
    r.dispose();
  });

  it("tombstoneTtlMs (default 5 min)", async () => {
    vi.useFakeTimers();
    const r = makeRegistry();
    const h = r.register(bindPanel());
    h.unregister();
    vi.advanceTimersByTime(299_000);
    expect((await r.invoke({ capabilityId: "view:api.panel.state", registrationId: h.registrationId })).error.code).toBe("COMPONENT_UNMOUNTED");
    vi.advanceTimersByTime(2_000);
    expect((await r.invoke({ capabilityId: "view:api.panel.state", registrationId: h.registrationId })).error.code).toBe("CAPABILITY_NOT_FOUND");
    r.dispose();
  });
});

describe("confirmations", () => {
  it("maxPendingConfirmations: overflow is RATE_LIMITED and creates no record", async () => {
    const r = makeRegistry({ limits: { maxPendingConfirmations: 2 } });
    const events = [];
    r.subscribe((e) => e.type === "confirmation-requested" && events.push(e));
    r.register(bindNotes());
    for (const id of ["a", "b"]) expect((await r.invoke({ capabilityId: "view:api.notes.remove", input: { id } })).error.code).toBe("CONFIRMATION_REQUIRED");
    const over = await r.invoke({ capabilityId: "view:api.notes.remove", input: { id: "c" } });
    expect(over.error).toMatchObject({ code: "RATE_LIMITED", retry: "after-delay" });
    expect(r.confirmations.pending().map((p) => p.input.id)).toEqual(["a", "b"]);
    expect(events).toHaveLength(2);
    r.dispose();
  });

  it("the default is 32", async () => {
    const r = makeRegistry();
    r.register(bindNotes());
    for (let i = 0; i < 32; i++) expect((await r.invoke({ capabilityId: "view:api.notes.remove", input: { id: `n${i}` } })).error.code).toBe("CONFIRMATION_REQUIRED");
    expect((await r.invoke({ capabilityId: "view:api.notes.remove", input: { id: "n32" } })).error.code).toBe("RATE_LIMITED");
    r.dispose();
  });

  it("confirmationTtlMs (default 120 s) sets expiresAt", async () => {
    const t = Date.UTC(2026, 0, 1);
    const r = makeRegistry({ now: () => t, limits: { confirmationTtlMs: 5_000 } });
    r.register(bindNotes());
    const res = await r.invoke({ capabilityId: "view:api.notes.remove", input: { id: "n" } });
    expect(res.error.details.expiresAt).toBe("2026-01-01T00:00:05.000Z");
    r.dispose();
  });
});

describe("the limits option", () => {
  it("refuses unknown fields and values of the wrong type at construction", () => {
    expect(() => makeRegistry({ limits: { maxOutputByte: 1 } })).toThrow(/maxOutputByte/);
    expect(() => makeRegistry({ limits: { maxOutputBytes: -1 } })).toThrow(TypeError);
    expect(() => makeRegistry({ limits: { maxOutputBytes: "1" } })).toThrow(TypeError);
    // an array would be read as the struct's fields in order ([5] = maxComponentDescription 5)
    expect(() => makeRegistry({ limits: [] })).toThrow(TypeError);
    expect(() => makeRegistry({ limits: [5] })).toThrow(/limits must be an object/);
  });

  it("the other option objects are objects too (an array would be positional)", async () => {
    const r = makeRegistry();
    r.register(bindNotes());
    expect(() => r.snapshot([{ id: "x", kind: "test" }])).toThrow(TypeError);
    await expect(r.invoke({ capabilityId: "view:api.notes.raw" }, [{ id: "x", kind: "test" }])).rejects.toThrow(TypeError);
    expect(() => core.createAgentToolset(r, [{ id: "x", kind: "test" }, "meta", "remote"])).toThrow(TypeError);
    r.dispose();
  });
});
