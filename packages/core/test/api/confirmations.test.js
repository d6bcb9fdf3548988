// Spec "Confirmation API": pending(), resolve(id, {approved, reason}), waitFor(id, {signal}),
// subscribe(listener) — including expiry at the TTL driven by a timer (listeners called with no
// other call), denial reasons, single-use evidence bound to consumer and request.
import { afterEach, describe, expect, it, vi } from "vitest";
import { bindNotes, bindPanel, makeRegistry, purge, record, settle } from "./helpers.js";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const T0 = Date.UTC(2026, 0, 1);
const remove = (r, id = "n1", extra = {}, options) => r.invoke({ capabilityId: "view:api.notes.remove", input: { id }, ...extra }, options);

describe("pending()", () => {
  it("lists each request with its effect, summary, exact effective input, consumer and a 120 s TTL", async () => {
    const r = makeRegistry({ now: () => T0 });
    const h = r.register(bindNotes({ procedures: [purge.bind({ execute: () => undefined })] }));
    const res = await remove(r, "n7", {}, { consumer: { id: "claude", kind: "embedded" } });
    await r.invoke({ capabilityId: "domain:api.purge", input: {} });
    const pending = r.confirmations.pending();
    expect(pending).toHaveLength(2);
    const p = pending.find((x) => x.capabilityId === "view:api.notes.remove");
    expect(p).toEqual({
      confirmationId: res.error.details.confirmationId,
      capabilityId: "view:api.notes.remove",
      registrationId: h.registrationId,
      consumerKey: "embedded:claude",
      effect: "local-state",
      summary: expect.stringContaining("Deletes a note"),
      input: { id: "n7" },
      requestedAt: "2026-01-01T00:00:00.000Z",
      expiresAt: "2026-01-01T00:02:00.000Z",
    });
    expect(p.confirmationId).toMatch(/^cnf_[0-9A-Za-z]+$/);
    expect(p.summary).toContain("n7");
    expect(res.error.details).toMatchObject({ expiresAt: p.expiresAt, summary: p.summary });
    expect(pending.find((x) => x.capabilityId === "domain:api.purge").effect).toBe("destructive");
    expect(Object.isFrozen(pending)).toBe(true);
    expect(Object.isFrozen(p)).toBe(true);
    r.dispose();
  });

  it("the pending input is the effective one (defaults applied) when a policy escalates", async () => {
    const r = makeRegistry({ policies: [{ name: "confirm-adds", invoke: () => "require-confirmation" }] });
    r.register(bindNotes());
    await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "a" } });
    expect(r.confirmations.pending()[0].input).toEqual({ text: "a", tag: "misc" });
    r.dispose();
  });
});

describe("resolve()", () => {
  it("approval lets the retry run once, with ctx.confirmation", async () => {
    const execute = vi.fn();
    const r = makeRegistry();
    r.register(bindNotes({ actions: { remove: { execute } } }));
    const asked = await remove(r, "n1", { invocationId: "i1" });
    const { confirmationId } = asked.error.details;
    r.confirmations.resolve(confirmationId, { approved: true });
    expect(r.confirmations.pending()).toEqual([]);
    expect((await remove(r, "n1", { invocationId: "i1", confirmationId })).status).toBe("ok");
    expect(execute.mock.calls[0][1].confirmation.id).toBe(confirmationId);
    r.dispose();
  });

  it("denial with a reason → CONFIRMATION_DENIED (retry never) with details.reason; the handler never runs", async () => {
    const execute = vi.fn();
    const r = makeRegistry();
    r.register(bindNotes({ actions: { remove: { execute } } }));
    const asked = await remove(r, "n1", { invocationId: "i1" });
    const { confirmationId } = asked.error.details;
    r.confirmations.resolve(confirmationId, { approved: false, reason: "keep it, it's my shopping list" });
    const res = await remove(r, "n1", { invocationId: "i1", confirmationId });
    expect(res.error).toEqual({ code: "CONFIRMATION_DENIED", message: expect.any(String), retry: "never", details: { reason: "keep it, it's my shopping list" } });
    // a denial without a reason has none
    const again = await remove(r, "n2", { invocationId: "i2" });
    r.confirmations.resolve(again.error.details.confirmationId, { approved: false });
    const plain = await remove(r, "n2", { invocationId: "i2", confirmationId: again.error.details.confirmationId });
    expect(plain.error.code).toBe("CONFIRMATION_DENIED");
    expect(plain.error.details?.reason).toBeUndefined();
    expect(execute).not.toHaveBeenCalled();
    r.dispose();
  });

  it("an unknown or already resolved id throws (code not-pending); malformed arguments are TypeErrors", async () => {
    const r = makeRegistry();
    r.register(bindNotes());
    const asked = await remove(r);
    const { confirmationId } = asked.error.details;
    expect(() => r.confirmations.resolve(confirmationId, { approved: "yes" })).toThrow(TypeError);
    expect(() => r.confirmations.resolve(confirmationId)).toThrow(TypeError);
    expect(() => r.confirmations.resolve(confirmationId, { approved: false, reason: 5 })).toThrow(TypeError);
    expect(() => r.confirmations.resolve(42, { approved: true })).toThrow(TypeError);
    r.confirmations.resolve(confirmationId, { approved: true });
    let e;
    try {
      r.confirmations.resolve(confirmationId, { approved: false });
    } catch (x) {
      e = x;
    }
    expect(e?.code).toBe("not-pending");
    expect(() => r.confirmations.resolve("cnf_unknown", { approved: true })).toThrow(/cnf_unknown/);
    r.dispose();
  });
});

describe("evidence", () => {
  it("is single use, bound to the consumer and to the request it approved", async () => {
    const execute = vi.fn();
    const r = makeRegistry();
    r.register(bindNotes({ actions: { remove: { execute } } }));
    const ana = { consumer: { id: "ana", kind: "test" } };
    const asked = await remove(r, "n1", {}, ana);
    const { confirmationId } = asked.error.details;
    r.confirmations.resolve(confirmationId, { approved: true });
    expect((await remove(r, "n1", { confirmationId }, { consumer: { id: "bo", kind: "test" } })).error.code).toBe("CONFIRMATION_EXPIRED");
    expect((await remove(r, "n2", { confirmationId }, ana)).error.code).toBe("CONFIRMATION_EXPIRED");
    expect(execute).not.toHaveBeenCalled();
    r.dispose();
  });
});

describe("waitFor()", () => {
  it('resolves "approved" / "denied" when the user decides', async () => {
    const r = makeRegistry();
    r.register(bindNotes());
    const a = (await remove(r, "n1")).error.details.confirmationId;
    const b = (await remove(r, "n2")).error.details.confirmationId;
    const waits = [r.confirmations.waitFor(a), r.confirmations.waitFor(b)];
    await settle();
    r.confirmations.resolve(a, { approved: true });
    r.confirmations.resolve(b, { approved: false, reason: "no" });
    expect(await Promise.all(waits)).toEqual(["approved", "denied"]);
    r.dispose();
  });

  it("settles when its signal aborts, leaving the confirmation pending and resolvable", async () => {
    const r = makeRegistry();
    r.register(bindNotes());
    const id = (await remove(r)).error.details.confirmationId;
    const controller = new AbortController();
    const waiting = r.confirmations.waitFor(id, { signal: controller.signal });
    let settled = false;
    waiting.then(
      () => (settled = true),
      () => (settled = true),
    );
    await settle();
    expect(settled).toBe(false);
    controller.abort();
    await settle();
    expect(settled).toBe(true);
    expect(r.confirmations.pending().map((p) => p.confirmationId)).toEqual([id]);
    const later = r.confirmations.waitFor(id);
    r.confirmations.resolve(id, { approved: true });
    expect(await later).toBe("approved");
    r.dispose();
  });

  it('"expired" at the TTL, under fake timers, with confirmation-resolved {outcome: "expired"} and CONFIRMATION_EXPIRED on retry', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(T0);
    const r = makeRegistry();
    const events = record(r);
    r.register(bindNotes());
    const asked = await remove(r, "n1", { invocationId: "i1" });
    const { confirmationId } = asked.error.details;
    expect(asked.error.details.expiresAt).toBe("2026-01-01T00:02:00.000Z");
    let outcome;
    r.confirmations.waitFor(confirmationId).then((o) => (outcome = o));
    await vi.advanceTimersByTimeAsync(119_999);
    expect(outcome).toBeUndefined();
    expect(r.confirmations.pending()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toBe("expired");
    expect(r.confirmations.pending()).toEqual([]);
    expect(events.events.at(-1)).toEqual({ type: "confirmation-resolved", confirmationId, outcome: "expired" });
    expect((await remove(r, "n1", { invocationId: "i1", confirmationId })).error).toMatchObject({ code: "CONFIRMATION_EXPIRED", retry: "with-changes" });
    expect(() => r.confirmations.resolve(confirmationId, { approved: true })).toThrow();
    r.dispose();
  });
});

describe("subscribe()", () => {
  it("listeners get the new pending list on request, on resolve, and at TTL expiry by the timer alone", async () => {
    vi.useFakeTimers();
    const r = makeRegistry({ limits: { confirmationTtlMs: 1_000 } });
    r.register(bindNotes());
    const heard = [];
    const stop = r.confirmations.subscribe((list) => heard.push(list.map((p) => p.input.id)));
    const a = (await remove(r, "a")).error.details.confirmationId;
    await vi.advanceTimersByTimeAsync(500);
    await remove(r, "b");
    r.confirmations.resolve(a, { approved: false });
    expect(heard).toEqual([["a"], ["a", "b"], ["b"]]);
    // nothing else is called: only the clock moves
    await vi.advanceTimersByTimeAsync(1_000);
    expect(heard).toEqual([["a"], ["a", "b"], ["b"], []]);
    stop();
    await remove(r, "c");
    expect(heard).toHaveLength(4);
    r.dispose();
  });

  it("a throwing confirmations listener does not stop the others", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const r = makeRegistry();
    r.register(bindPanel());
    r.register(bindNotes());
    const heard = [];
    r.confirmations.subscribe(() => {
      throw new Error("ui crashed");
    });
    r.confirmations.subscribe((list) => heard.push(list.length));
    expect((await remove(r)).error.code).toBe("CONFIRMATION_REQUIRED");
    expect(heard).toEqual([1]);
    expect(() => r.confirmations.subscribe(null)).toThrow(TypeError);
    r.dispose();
  });
});
