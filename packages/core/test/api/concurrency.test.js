// Spec "Concurrency, timeouts, cancellation": per-instance FIFO action queues with bounded depth,
// concurrency groups, observation admission, procedures' own groups; timeouts (ctx.signal is a
// real AbortSignal, aborted), external cancellation, unmount, navigation settlement; and time:
// registry timers use the global setTimeout at call time and `now` defaults to Date.now, so
// vi.useFakeTimers() makes a user's tests deterministic.
import { afterEach, describe, expect, it, vi } from "vitest";
import { bindNotes, bindPanel, deferred, fetchNote, makeRegistry, settle } from "./helpers.js";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** A handler that records its start and end and waits for `release(name)`. */
function controlled() {
  const log = [];
  const gates = new Map();
  const handler = (name, result) => async () => {
    log.push(`start ${name}`);
    const g = deferred();
    gates.set(name, g);
    await g.promise;
    log.push(`end ${name}`);
    return result;
  };
  const release = async (name) => {
    gates.get(name).resolve();
    await settle();
  };
  return { log, handler, release };
}

describe("action queues", () => {
  it("actions on one instance run one at a time, FIFO; a full queue is RATE_LIMITED {reason: queue-full}", async () => {
    const c = controlled();
    let n = 0;
    const r = makeRegistry();
    r.register(bindNotes({ actions: { work: { execute: (...a) => c.handler(`w${++n}`)(...a) } } }));
    const calls = [1, 2, 3].map(() => r.invoke({ capabilityId: "view:api.notes.work", input: {} }));
    await settle();
    expect(c.log).toEqual(["start w1"]);
    // one in flight + actionQueueDepth (2) waiting: the fourth overflows
    const overflow = await r.invoke({ capabilityId: "view:api.notes.work", input: {} });
    expect(overflow.error).toEqual({ code: "RATE_LIMITED", message: expect.any(String), retry: "after-delay", details: { reason: "queue-full" } });
    await c.release("w1");
    expect(c.log).toEqual(["start w1", "end w1", "start w2"]);
    await c.release("w2");
    await c.release("w3");
    expect(c.log).toEqual(["start w1", "end w1", "start w2", "end w2", "start w3", "end w3"]);
    expect((await Promise.all(calls)).map((x) => x.status)).toEqual(["ok", "ok", "ok"]);
    r.dispose();
  });

  it("two actions of the same instance never interleave; other instances are not blocked", async () => {
    const c = controlled();
    const r = makeRegistry();
    r.register(bindNotes({ instanceId: "a", actions: { work: { execute: c.handler("a.work") }, add: { execute: c.handler("a.add", { id: "n1" }) } } }));
    r.register(bindNotes({ instanceId: "b", actions: { work: { execute: c.handler("b.work") } } }));
    const calls = [
      r.invoke({ capabilityId: "view:api.notes.work", instanceId: "a", input: {} }),
      r.invoke({ capabilityId: "view:api.notes.add", instanceId: "a", input: { text: "x" } }),
      r.invoke({ capabilityId: "view:api.notes.work", instanceId: "b", input: {} }),
    ];
    await settle();
    expect(c.log).toEqual(["start a.work", "start b.work"]);
    await c.release("a.work");
    expect(c.log.at(-1)).toBe("start a.add");
    await c.release("a.add");
    await c.release("b.work");
    await Promise.all(calls);
    r.dispose();
  });

  it("concurrency groups: parallel {max}, capability, key, and a per-group queueDepth", async () => {
    const c = controlled();
    let n = 0;
    const r = makeRegistry();
    r.register(
      bindNotes({
        actions: {
          work: { execute: (...a) => c.handler(`work${++n}`)(...a), concurrency: { mode: "parallel", max: 2, queueDepth: 0 } },
          add: { execute: c.handler("add", { id: "n1" }), concurrency: { mode: "capability" } },
          open: { execute: c.handler("open"), concurrency: { mode: "key", key: "router" } },
          produce: { execute: c.handler("produce", 1), concurrency: { mode: "key", key: "router" } },
        },
      }),
    );
    const works = [r.invoke({ capabilityId: "view:api.notes.work", input: {} }), r.invoke({ capabilityId: "view:api.notes.work", input: {} })];
    const add = r.invoke({ capabilityId: "view:api.notes.add", input: { text: "x" } });
    const open = r.invoke({ capabilityId: "view:api.notes.open", input: { path: "/" } });
    const produce = r.invoke({ capabilityId: "view:api.notes.produce", input: {} });
    await settle();
    // two parallel works, and add in its own group, and open — but produce shares open's key
    expect(c.log.sort()).toEqual(["start add", "start open", "start work1", "start work2"]);
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: {} })).error).toMatchObject({ code: "RATE_LIMITED", details: { reason: "queue-full" } });
    await c.release("open");
    expect(c.log).toContain("start produce");
    for (const name of ["work1", "work2", "add", "produce"]) await c.release(name);
    expect((await Promise.all([...works, add, open, produce])).every((x) => x.status === "ok")).toBe(true);
    r.dispose();
  });
});

describe("observation admission", () => {
  it("observations never wait for the action queue", async () => {
    const c = controlled();
    const r = makeRegistry();
    r.register(bindNotes({ actions: { work: { execute: c.handler("work") } }, observations: { raw: { read: () => "fresh" } } }));
    const work = r.invoke({ capabilityId: "view:api.notes.work", input: {} });
    await settle();
    expect((await r.invoke({ capabilityId: "view:api.notes.raw" })).output).toBe("fresh");
    await c.release("work");
    await work;
    r.dispose();
  });

  it("per-consumer and total gates are independent; overflow is RATE_LIMITED {queue-full, retryAfterMs}", async () => {
    const c = controlled();
    let n = 0;
    const r = makeRegistry({ limits: { maxConcurrentObservationsPerConsumer: 1, maxQueuedObservationsPerConsumer: 1, maxConcurrentObservationsTotal: 2 } });
    r.register(bindNotes({ observations: { raw: { read: (...a) => c.handler(`r${++n}`, n)(...a) } } }));
    const ana = { consumer: { id: "ana", kind: "test" } };
    const bo = { consumer: { id: "bo", kind: "test" } };
    const cy = { consumer: { id: "cy", kind: "test" } };
    const a1 = r.invoke({ capabilityId: "view:api.notes.raw" }, ana);
    const a2 = r.invoke({ capabilityId: "view:api.notes.raw" }, ana); // queued behind a1
    await settle();
    const a3 = await r.invoke({ capabilityId: "view:api.notes.raw" }, ana);
    expect(a3.error).toMatchObject({ code: "RATE_LIMITED", retry: "after-delay", details: { reason: "queue-full", retryAfterMs: expect.any(Number) } });
    const b1 = r.invoke({ capabilityId: "view:api.notes.raw" }, bo); // second slot of the total gate
    const c1 = r.invoke({ capabilityId: "view:api.notes.raw" }, cy); // waits for the total gate
    await settle();
    expect(c.log).toEqual(["start r1", "start r2"]);
    await c.release("r1");
    await c.release("r2");
    await c.release("r3");
    await c.release("r4");
    expect((await Promise.all([a1, a2, b1, c1])).map((x) => x.status)).toEqual(["ok", "ok", "ok", "ok"]);
    expect(n).toBe(4);
    r.dispose();
  });
});

describe("procedures", () => {
  it("a forwarded or local procedure has its own group: a view action of the same component is not blocked", async () => {
    const c = controlled();
    const r = makeRegistry();
    r.register(bindNotes({ actions: { work: { execute: () => undefined } }, procedures: [fetchNote.bind({ execute: c.handler("fetch", { text: "t" }) })] }));
    const first = r.invoke({ capabilityId: "domain:api.fetchNote", input: { id: "n1" } });
    const second = r.invoke({ capabilityId: "domain:api.fetchNote", input: { id: "n2" } });
    await settle();
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: {} })).status).toBe("ok");
    expect(c.log).toEqual(["start fetch"]); // repeat calls of the same procedure serialize
    await c.release("fetch");
    await settle();
    expect(c.log).toEqual(["start fetch", "end fetch", "start fetch"]);
    await c.release("fetch");
    expect((await first).output).toEqual({ text: "t" });
    expect((await second).output).toEqual({ text: "t" });
    r.dispose();
  });
});

describe("timeouts", () => {
  it("abort ctx.signal (a real AbortSignal, reason TimeoutError), settle TIMEOUT, and log the late settlement", async () => {
    const warnOrError = [vi.spyOn(console, "warn").mockImplementation(() => {}), vi.spyOn(console, "error").mockImplementation(() => {})];
    let signal;
    let onAbort = 0;
    const late = deferred();
    const r = makeRegistry();
    r.register(
      bindNotes({
        actions: {
          work: {
            timeoutMs: 30,
            execute: (_i, ctx) => {
              signal = ctx.signal;
              signal.addEventListener("abort", () => onAbort++);
              return late.promise;
            },
          },
        },
      }),
    );
    const res = await r.invoke({ capabilityId: "view:api.notes.work", input: {} });
    expect(res.error).toMatchObject({ code: "TIMEOUT", retry: "after-delay" });
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(signal.aborted).toBe(true);
    expect(onAbort).toBe(1);
    expect(signal.reason.name).toBe("TimeoutError");
    const logged = () => warnOrError.flatMap((s) => s.mock.calls.map((c) => String(c[0]))).join("\n");
    expect(logged()).toMatch(/view:api\.notes\.work/);
    const before = logged();
    late.resolve();
    await settle();
    // the late settlement itself is logged when it arrives
    expect(logged().slice(before.length)).toMatch(/late|after/);
    // the late value changed nothing
    expect(await r.invoke({ capabilityId: "view:api.notes.work", input: {}, invocationId: res.invocationId })).toEqual(res);
    r.dispose();
  });

  it("InvokeOptions.timeoutMs overrides the capability's", async () => {
    const r = makeRegistry();
    r.register(bindNotes({ observations: { raw: { read: () => new Promise(() => {}), timeoutMs: 60_000 } } }));
    expect((await r.invoke({ capabilityId: "view:api.notes.raw" }, { timeoutMs: 20 })).error.code).toBe("TIMEOUT");
    r.dispose();
  });
});

describe("cancellation and unmount", () => {
  it("InvokeOptions.signal aborted → CANCELLED (retry never), the handler's signal aborted too", async () => {
    let signal;
    const r = makeRegistry();
    r.register(bindNotes({ actions: { work: { execute: (_i, ctx) => ((signal = ctx.signal), new Promise(() => {})) } } }));
    const controller = new AbortController();
    const running = r.invoke({ capabilityId: "view:api.notes.work", input: {} }, { signal: controller.signal });
    await settle();
    expect(signal.aborted).toBe(false);
    controller.abort();
    const res = await running;
    expect(res.error).toMatchObject({ code: "CANCELLED", retry: "never" });
    expect(signal.aborted).toBe(true);
    expect(signal.reason.name).toBe("AbortError");
    r.dispose();
  });

  it("an already-aborted signal cancels before the handler runs", async () => {
    const execute = vi.fn();
    const r = makeRegistry();
    r.register(bindNotes({ actions: { work: { execute } } }));
    const res = await r.invoke({ capabilityId: "view:api.notes.work", input: {} }, { signal: AbortSignal.abort() });
    expect(res.error.code).toBe("CANCELLED");
    expect(execute).not.toHaveBeenCalled();
    r.dispose();
  });

  it("cancelling a queued invocation frees its place; the running one continues", async () => {
    const c = controlled();
    const r = makeRegistry();
    r.register(bindNotes({ actions: { work: { execute: c.handler("w") } } }));
    const running = r.invoke({ capabilityId: "view:api.notes.work", input: {} });
    const controller = new AbortController();
    const queued = r.invoke({ capabilityId: "view:api.notes.work", input: {} }, { signal: controller.signal });
    await settle();
    controller.abort();
    expect((await queued).error.code).toBe("CANCELLED");
    await c.release("w");
    expect((await running).status).toBe("ok");
    expect(c.log).toEqual(["start w", "end w"]);
    r.dispose();
  });

  it("unmount → COMPONENT_UNMOUNTED with the signal aborted; a navigation action is not settled by unmount", async () => {
    const nav = deferred();
    let workSignal;
    let navSignal;
    const r = makeRegistry();
    const h = r.register(
      bindNotes({
        actions: {
          work: { execute: (_i, ctx) => ((workSignal = ctx.signal), new Promise(() => {})) },
        },
      }),
    );
    const work = r.invoke({ capabilityId: "view:api.notes.work", input: {} });
    await settle();
    h.unregister();
    expect((await work).error.code).toBe("COMPONENT_UNMOUNTED");
    expect(workSignal.aborted).toBe(true);

    const r2 = makeRegistry();
    const h2 = r2.register(bindNotes({ actions: { open: { execute: (_i, ctx) => ((navSignal = ctx.signal), nav.promise) } } }));
    let settled;
    const open = r2.invoke({ capabilityId: "view:api.notes.open", input: { path: "/next" } }).then((x) => (settled = x));
    await settle();
    h2.unregister();
    await settle();
    expect(settled).toBeUndefined();
    expect(navSignal.aborted).toBe(false);
    nav.resolve();
    await open;
    expect(settled.status).toBe("ok");
    // before dispatch, unmount still means COMPONENT_UNMOUNTED
    expect((await r2.invoke({ capabilityId: "view:api.notes.open", input: { path: "/" }, registrationId: h2.registrationId })).error.code).toBe("COMPONENT_UNMOUNTED");
    r.dispose();
    r2.dispose();
  });
});

describe("fake timers (vi.useFakeTimers) drive the registry", () => {
  it("the default action timeout (10 s) fires exactly when the faked clock reaches it", async () => {
    vi.useFakeTimers();
    vi.setSystemTime(Date.UTC(2026, 0, 1));
    vi.spyOn(console, "warn").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    const records = [];
    // no `now` option: Date.now, which the fake timers control
    const r = makeRegistry({ audit: { record: (x) => records.push(x) } });
    let signal;
    r.register(bindNotes({ actions: { work: { execute: (_i, ctx) => ((signal = ctx.signal), new Promise(() => {})) } } }));
    let result;
    r.invoke({ capabilityId: "view:api.notes.work", input: {} }).then((x) => (result = x));
    await vi.advanceTimersByTimeAsync(9_999);
    expect(result).toBeUndefined();
    expect(signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(result.error.code).toBe("TIMEOUT");
    expect(signal.aborted).toBe(true);
    expect(records[0]).toMatchObject({ startedAt: "2026-01-01T00:00:00.000Z", durationMs: 10_000, code: "TIMEOUT" });
    r.dispose();
  });

  it("observation (5 s) and procedure (30 s) defaults, and a handler's own setTimeout, all on the fake clock", async () => {
    vi.useFakeTimers();
    vi.spyOn(console, "warn").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    const r = makeRegistry();
    r.register(
      bindNotes({
        observations: { raw: { read: () => new Promise(() => {}) } },
        actions: { open: { execute: () => new Promise((resolve) => setTimeout(resolve, 50)) } },
        procedures: [fetchNote.bind({ execute: () => new Promise(() => {}) })],
      }),
    );
    const out = {};
    r.invoke({ capabilityId: "view:api.notes.raw" }).then((x) => (out.raw = x));
    r.invoke({ capabilityId: "domain:api.fetchNote", input: { id: "n" } }).then((x) => (out.fetch = x));
    r.invoke({ capabilityId: "view:api.notes.open", input: { path: "/" } }).then((x) => (out.open = x));
    await vi.advanceTimersByTimeAsync(50);
    expect(out.open?.status).toBe("ok");
    expect(out.raw).toBeUndefined();
    await vi.advanceTimersByTimeAsync(4_950);
    expect(out.raw.error.code).toBe("TIMEOUT");
    expect(out.fetch).toBeUndefined();
    await vi.advanceTimersByTimeAsync(24_999);
    expect(out.fetch).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(out.fetch.error.code).toBe("TIMEOUT");
    r.dispose();
  });

  it("a settled invocation leaves no registry timer behind (its timeout is cleared)", async () => {
    vi.useFakeTimers();
    const r = makeRegistry();
    r.register(bindPanel());
    for (let i = 0; i < 5; i++) await r.invoke({ capabilityId: "view:api.panel.toggle", input: {} });
    expect(vi.getTimerCount()).toBe(0);
    r.dispose();
  });
});
