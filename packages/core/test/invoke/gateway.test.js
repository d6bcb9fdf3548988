// Issue 25 gaps of the exposure gateway: its external tools run through the invocation pipeline
// (dedupe by consumer and tool-call id, timeout and the caller's signal, output schema and
// maxOutputBytes, invocation-* events and audit, a pending confirmation with approvedAt), and the
// binding options an external tool accepts are honoured (precondition, when, policies,
// timeoutMs, concurrency) or refused when exposed.
import { afterEach, describe, expect, it, vi } from "vitest";
import { authority, core, deferred, definitionError, exportNotes, lookup, settle } from "../api/helpers.js";

const { createAgentExposureGateway } = core;
const gateway = createAgentExposureGateway(authority);

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const tool = (exposed, id) => exposed.tools().find((t) => t.name === id.replace(/[:.]/g, "_"));
const quiet = () => {
  vi.spyOn(console, "warn").mockImplementation(() => {});
  vi.spyOn(console, "error").mockImplementation(() => {});
};

describe("dedupe by consumer and tool-call id", () => {
  it("a transport retry joins the running call or gets its result; another input under the same id is INVOCATION_CONFLICT", async () => {
    const gate = deferred();
    const execute = vi.fn(async ({ word }) => (await gate.promise, { word }));
    const t = tool(gateway.expose([lookup.bind({ execute })]), "external:api.lookup");
    const first = t.execute({ word: "a" }, { toolCallId: "call-1" });
    const again = t.execute({ word: "a" }, { toolCallId: "call-1" });
    await settle();
    gate.resolve();
    const [a, b] = await Promise.all([first, again]);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ status: "ok", invocationId: "call-1", output: { word: "a" } });
    expect(await t.execute({ word: "a" }, { toolCallId: "call-1" })).toBe(a);
    expect((await t.execute({ word: "b" }, { toolCallId: "call-1" })).error.code).toBe("INVOCATION_CONFLICT");
    expect(execute).toHaveBeenCalledTimes(1);
  });

  it("the same tool-call id of another consumer is another call", async () => {
    const execute = vi.fn(({ word }) => ({ word }));
    const ana = tool(gateway.expose([lookup.bind({ execute })], { consumer: { id: "ana", kind: "test" } }), "external:api.lookup");
    await ana.execute({ word: "a" }, { toolCallId: "c" });
    await ana.execute({ word: "a" }, { toolCallId: "c" });
    expect(execute).toHaveBeenCalledTimes(1);
    const exposed = gateway.expose([lookup.bind({ execute })], { consumer: { id: "bo", kind: "test" } });
    await tool(exposed, "external:api.lookup").execute({ word: "a" }, { toolCallId: "c" });
    expect(execute).toHaveBeenCalledTimes(2);
  });
});

describe("timeout, the caller's signal, output checks", () => {
  it("timeoutMs of the binding aborts ctx.signal and settles TIMEOUT", async () => {
    quiet();
    let signal;
    const t = tool(gateway.expose([lookup.bind({ timeoutMs: 20, execute: (_i, ctx) => ((signal = ctx.signal), new Promise(() => {})) })]), "external:api.lookup");
    const r = await t.execute({ word: "a" }, { toolCallId: "t" });
    expect(r.error).toMatchObject({ code: "TIMEOUT", retry: "after-delay" });
    expect(signal.aborted).toBe(true);
    expect(signal.reason.name).toBe("TimeoutError");
  });

  it("external tools default to the procedure timeout (30 s); the call's timeoutMs overrides the binding's", async () => {
    quiet();
    vi.useFakeTimers();
    const t = tool(gateway.expose([lookup.bind({ timeoutMs: 50, execute: () => new Promise(() => {}) })]), "external:api.lookup");
    let longer;
    t.execute({ word: "a" }, { toolCallId: "l", timeoutMs: 500 }).then((r) => (longer = r));
    await vi.advanceTimersByTimeAsync(499);
    expect(longer).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(longer.error.code).toBe("TIMEOUT");
    const d = tool(gateway.expose([lookup.bind({ execute: () => new Promise(() => {}) })]), "external:api.lookup");
    let dflt;
    d.execute({ word: "a" }, {}).then((r) => (dflt = r));
    await vi.advanceTimersByTimeAsync(29_999);
    expect(dflt).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(dflt.error.code).toBe("TIMEOUT");
  });

  it("the call's signal cancels it (CANCELLED, the handler's signal aborted)", async () => {
    let signal;
    const t = tool(gateway.expose([lookup.bind({ execute: (_i, ctx) => ((signal = ctx.signal), new Promise(() => {})) })]), "external:api.lookup");
    const controller = new AbortController();
    const running = t.execute({ word: "a" }, { toolCallId: "s", signal: controller.signal });
    await settle();
    controller.abort();
    expect((await running).error.code).toBe("CANCELLED");
    expect(signal.aborted).toBe(true);
  });

  it("an output outside the output schema, or over maxOutputBytes, is EXECUTION_FAILED", async () => {
    quiet();
    const confirm = () => true;
    const bad = tool(gateway.expose([exportNotes.bind({ execute: () => ({ bytes: "many" }) })], { confirm }), "external:api.export");
    expect((await bad.execute({ format: "csv" }, {})).error).toMatchObject({ code: "EXECUTION_FAILED", details: { reason: "invalid-output" } });
    const big = tool(gateway.expose([lookup.bind({ execute: () => "é".repeat(20) })], { limits: { maxOutputBytes: 40 } }), "external:api.lookup");
    expect((await big.execute({ word: "a" }, {})).error).toMatchObject({ code: "EXECUTION_FAILED", details: { reason: "output-too-large" } });
    const fits = tool(gateway.expose([lookup.bind({ execute: () => "é".repeat(19) })], { limits: { maxOutputBytes: 40 } }), "external:api.lookup");
    expect((await fits.execute({ word: "a" }, {})).status).toBe("ok");
  });
});

describe("events, audit and the pending confirmation", () => {
  it("invocation-* and confirmation-* events; the handler gets ctx.confirmation with approvedAt; the audit has no error for the wait", async () => {
    const T0 = Date.UTC(2026, 0, 1);
    let seenPending;
    let exposed;
    const confirm = vi.fn(async (id, input) => {
      seenPending = exposed.confirmations.pending();
      return id === "external:api.export" && input.format === "csv";
    });
    const execute = vi.fn((_i, ctx) => ({ bytes: ctx.confirmation ? 1 : 0 }));
    exposed = gateway.expose([exportNotes.bind({ execute })], { confirm, now: () => T0, consumer: { id: "claude", kind: "embedded" } });
    const events = [];
    exposed.subscribe((e) => events.push(e));
    const r = await tool(exposed, "external:api.export").execute({ format: "csv" }, { toolCallId: "e1" });
    expect(r).toMatchObject({ status: "ok", invocationId: "e1", output: { bytes: 1 } });
    expect(confirm).toHaveBeenCalledTimes(1);
    expect(seenPending).toHaveLength(1);
    expect(seenPending[0]).toMatchObject({ capabilityId: "external:api.export", registrationId: exposed.id, consumerKey: "embedded:claude", input: { format: "csv" } });
    expect(execute.mock.calls[0][1].confirmation).toEqual({ id: seenPending[0].confirmationId, approvedAt: "2026-01-01T00:00:00.000Z" });
    expect(execute.mock.calls[0][1].registrationId).toBe(exposed.id);
    expect(exposed.id).toMatch(/^exp_[0-9A-Za-z]{16}$/);
    expect(events.map((e) => e.type)).toEqual(["invocation-started", "confirmation-requested", "confirmation-resolved", "invocation-settled"]);
    expect(events[2]).toMatchObject({ outcome: "approved" });
    const records = exposed.auditRecords();
    expect(records).toEqual([
      { invocationId: "e1", capabilityId: "external:api.export", registrationId: exposed.id, consumerKey: "embedded:claude", status: "ok", code: null, startedAt: "2026-01-01T00:00:00.000Z", durationMs: 0 },
    ]);
    // denied: CONFIRMATION_DENIED, the handler never runs
    const denied = await tool(exposed, "external:api.export").execute({ format: "json" }, { toolCallId: "e2" });
    expect(denied.error.code).toBe("CONFIRMATION_DENIED");
    expect(execute).toHaveBeenCalledTimes(1);
  });

  it("the host may answer through exposed.confirmations instead of confirm; a retry of the call while it waits asks once", async () => {
    const answer = deferred();
    const confirm = vi.fn(() => answer.promise);
    const execute = vi.fn(() => ({ bytes: 3 }));
    const exposed = gateway.expose([exportNotes.bind({ execute })], { confirm });
    const t = tool(exposed, "external:api.export");
    const first = t.execute({ format: "csv" }, { toolCallId: "w" });
    const retry = t.execute({ format: "csv" }, { toolCallId: "w" });
    await settle();
    const [p] = exposed.confirmations.pending();
    exposed.confirmations.resolve(p.confirmationId, { approved: true });
    answer.resolve(false); // too late: the first answer stands
    expect(await first).toMatchObject({ status: "ok", output: { bytes: 3 } });
    expect(await retry).toEqual(await first);
    expect(confirm).toHaveBeenCalledTimes(1);
    expect(execute).toHaveBeenCalledTimes(1);
  });

  it("without confirm: CONFIRMATION_DENIED, nothing opened; the caller's signal while waiting: CANCELLED, the request closed", async () => {
    const execute = vi.fn(() => ({ bytes: 1 }));
    const none = gateway.expose([exportNotes.bind({ execute })]);
    const events = [];
    none.subscribe((e) => events.push(e.type));
    expect((await tool(none, "external:api.export").execute({ format: "csv" }, {})).error.code).toBe("CONFIRMATION_DENIED");
    expect(events).toEqual(["invocation-started", "invocation-settled"]);
    const waiting = gateway.expose([exportNotes.bind({ execute })], { confirm: () => new Promise(() => {}) });
    const controller = new AbortController();
    const call = tool(waiting, "external:api.export").execute({ format: "csv" }, { signal: controller.signal });
    await settle();
    expect(waiting.confirmations.pending()).toHaveLength(1);
    controller.abort();
    expect((await call).error.code).toBe("CANCELLED");
    expect(waiting.confirmations.pending()).toEqual([]);
    expect(execute).not.toHaveBeenCalled();
  });

  it("a custom audit sink gets the records", async () => {
    const records = [];
    const exposed = gateway.expose([lookup.bind({ execute: () => null })], { audit: { record: (r) => records.push(r) } });
    await tool(exposed, "external:api.lookup").execute({ word: "a" }, { toolCallId: "a1" });
    expect(records).toMatchObject([{ invocationId: "a1", capabilityId: "external:api.lookup", status: "ok" }]);
    expect(exposed.auditRecords()).toEqual([]);
  });
});

describe("binding options of an external tool", () => {
  it("precondition, when, policies and concurrency are honoured", async () => {
    let open = true;
    const gate = deferred();
    const exposed = gateway.expose(
      [
        lookup.bind({
          execute: async ({ word }) => (word === "slow" ? await gate.promise : null, { word }),
          precondition: ({ word }) => (word === "nope" ? { message: "not that word" } : undefined),
          when: () => open,
          unavailableReason: "closed",
          policies: [{ name: "no-secrets", invoke: (ctx) => (ctx.effectiveInput.word === "secret" ? { deny: "not that one" } : "allow") }],
          concurrency: { mode: "parallel", max: 1, queueDepth: 0 },
        }),
      ],
      { policies: [{ name: "hide-for-guests", onDiscovery: (ctx) => (ctx.consumer.id === "guest" ? "hide" : "expose") }] },
    );
    const t = tool(exposed, "external:api.lookup");
    expect((await t.execute({ word: "nope" }, {})).error).toMatchObject({ code: "PRECONDITION_FAILED", message: "not that word" });
    expect((await t.execute({ word: "secret" }, {})).error).toMatchObject({ code: "POLICY_DENIED", details: { policy: "no-secrets" } });
    const slow = t.execute({ word: "slow" }, {});
    await settle();
    expect((await t.execute({ word: "fast" }, {})).error).toMatchObject({ code: "RATE_LIMITED", details: { reason: "queue-full" } });
    gate.resolve();
    expect((await slow).status).toBe("ok");
    open = false;
    expect(tool(exposed, "external:api.lookup").state).toEqual({ available: false, unavailableReason: "closed" });
    expect((await t.execute({ word: "a" }, {})).error).toMatchObject({ code: "CAPABILITY_NOT_AVAILABLE", details: { reason: "closed" } });
    const guest = gateway.expose([lookup.bind({ execute: () => null })], {
      consumer: { id: "guest", kind: "test" },
      policies: [{ name: "hide-for-guests", onDiscovery: (ctx) => (ctx.consumer.id === "guest" ? "hide" : "expose") }],
    });
    expect(guest.tools()).toEqual([]);
  });

  it("a malformed option is refused when exposed (never dropped)", () => {
    // refused by bind itself, or when exposed
    definitionError(() => gateway.expose([lookup.bind({ execute: () => null, concurrency: { mode: "parallel", max: 0 } })]));
    expect(definitionError(() => gateway.expose([lookup.bind({ execute: () => null, timeoutMs: -1 })])).code).toBe("binding");
    expect(definitionError(() => gateway.expose([lookup.bind({ execute: () => null, policies: [{}] })])).code).toBe("invalid-policy");
    expect(definitionError(() => gateway.expose([lookup.bind({ execute: () => null }), lookup.bind({ execute: () => null })])).code).toBe("duplicate");
    expect(() => gateway.expose([lookup.bind({ execute: () => null })], { consumer: [] })).toThrow(/consumer/);
    expect(() => gateway.expose([lookup.bind({ execute: () => null })], { limits: [1] })).toThrow(/limits/);
  });
});
