// Spec "Invocation": the result union (invoke rejects only on misuse), instance resolution
// (AMBIGUOUS_INSTANCE), the fixed pipeline order, and invocation identity — dedupe joins,
// cached terminal results, INVOCATION_CONFLICT, consumer-scoped keys, confirmation retries.
import { describe, expect, it, vi } from "vitest";
import { bindNotes, bindPanel, deferred, makeRegistry, settle } from "./helpers.js";

describe("the result union", () => {
  it("ok: { status, invocationId, capabilityId, output?, surfaceVersion }; a generated invocationId is inv_…", async () => {
    const r = makeRegistry();
    r.register(bindNotes());
    const ok = await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "a" } });
    expect(Object.keys(ok).sort()).toEqual(["capabilityId", "invocationId", "output", "status", "surfaceVersion"]);
    expect(ok).toMatchObject({ status: "ok", capabilityId: "view:api.notes.add", output: { id: "n1" }, surfaceVersion: "1" });
    expect(ok.invocationId).toMatch(/^inv_[0-9A-Za-z]+$/);
    expect(Object.isFrozen(ok)).toBe(true);
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: {}, invocationId: "tool-call-9" })).invocationId).toBe("tool-call-9");
    r.dispose();
  });

  it("error: { status, invocationId, capabilityId, error: { code, message, retry, details? }, surfaceVersion }", async () => {
    const r = makeRegistry();
    r.register(
      bindNotes({
        actions: {
          work: {
            execute: () => {
              throw new Error("db password hunter2");
            },
          },
        },
      }),
    );
    vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await r.invoke({ capabilityId: "view:api.notes.work", input: {}, invocationId: "w1" });
    expect(res).toEqual({
      status: "error",
      invocationId: "w1",
      capabilityId: "view:api.notes.work",
      error: { code: "EXECUTION_FAILED", message: expect.any(String), retry: "never" },
      surfaceVersion: "1",
    });
    expect(JSON.stringify(res)).not.toContain("hunter2");
    vi.restoreAllMocks();
    r.dispose();
  });

  it("every agent-facing outcome resolves — unknown ids, CONFIRMATION_REQUIRED, handler failures", async () => {
    const r = makeRegistry();
    r.register(bindNotes());
    const outcomes = await Promise.all([
      r.invoke({ capabilityId: "view:api.notes.nothing" }),
      r.invoke({ capabilityId: "not even an id" }),
      r.invoke({ capabilityId: "domain:api.purge", input: {} }),
      r.invoke({ capabilityId: "view:api.notes.remove", input: { id: "n1" } }),
    ]);
    expect(outcomes.map((o) => o.error.code)).toEqual(["CAPABILITY_NOT_FOUND", "CAPABILITY_NOT_FOUND", "CAPABILITY_NOT_FOUND", "CONFIRMATION_REQUIRED"]);
    expect(outcomes[3].error).toMatchObject({ retry: "after-confirmation", details: { confirmationId: expect.stringMatching(/^cnf_/), expiresAt: expect.any(String), summary: expect.any(String) } });
    r.dispose();
  });

  it("invoke rejects only on misuse: no capabilityId, input that is not JSON, malformed options, a disposed registry", async () => {
    const r = makeRegistry();
    r.register(bindNotes());
    await expect(r.invoke({ input: {} })).rejects.toThrow(TypeError);
    await expect(r.invoke(undefined)).rejects.toThrow(TypeError);
    await expect(r.invoke({ capabilityId: 7 })).rejects.toThrow(TypeError);
    await expect(r.invoke({ capabilityId: "view:api.notes.add", input: { text: () => "a" } })).rejects.toThrow(/input/);
    await expect(r.invoke({ capabilityId: "view:api.notes.work", input: {} }, { timeoutMs: -1 })).rejects.toThrow(TypeError);
    await expect(r.invoke({ capabilityId: "view:api.notes.work", input: {} }, { consumer: { id: "x", kind: "robot" } })).rejects.toThrow(TypeError);
    r.dispose();
    await expect(r.invoke({ capabilityId: "view:api.notes.work", input: {} })).rejects.toThrow(/disposed/);
  });

  it("observations are invoked with input omitted", async () => {
    const r = makeRegistry();
    r.register(bindPanel({ observations: { state: { read: () => ({ open: true }) } } }));
    expect(await r.invoke({ capabilityId: "view:api.panel.state" })).toMatchObject({ status: "ok", output: { open: true } });
    r.dispose();
  });
});

describe("instance resolution", () => {
  it("one live instance is used; several → AMBIGUOUS_INSTANCE with details.instances; instanceId picks one", async () => {
    const r = makeRegistry();
    r.register(bindNotes({ instanceId: "inbox", observations: { raw: { read: () => "inbox" } } }));
    expect((await r.invoke({ capabilityId: "view:api.notes.raw" })).output).toBe("inbox");
    r.register(bindNotes({ instanceId: "archive", observations: { raw: { read: () => "archive" } } }));
    const res = await r.invoke({ capabilityId: "view:api.notes.raw" });
    expect(res.error).toMatchObject({ code: "AMBIGUOUS_INSTANCE", retry: "with-changes", details: { instances: ["archive", "inbox"] } });
    expect((await r.invoke({ capabilityId: "view:api.notes.raw", instanceId: "archive" })).output).toBe("archive");
    expect((await r.invoke({ capabilityId: "view:api.notes.raw", instanceId: "drafts" })).error.code).toBe("CAPABILITY_NOT_FOUND");
    r.dispose();
  });
});

describe("pipeline order", () => {
  it("authorization runs before the input is looked at; input-aware policies see only the effective input", async () => {
    const seen = [];
    const r = makeRegistry({
      policies: [
        { name: "auth", authorize: (ctx) => (seen.push(["authorize", "effectiveInput" in ctx]), ctx.consumer.id === "blocked" ? { deny: "not you" } : "allow") },
        { name: "inspect", invoke: (ctx) => void seen.push(["invoke", ctx.effectiveInput]) },
      ],
    });
    r.register(bindNotes());
    // invalid input from a denied consumer: the denial wins (phase 4 before phase 5)
    const denied = await r.invoke({ capabilityId: "view:api.notes.add", input: { nope: true } }, { consumer: { id: "blocked", kind: "test" } });
    expect(denied.error).toMatchObject({ code: "POLICY_DENIED", details: { policy: "auth" } });
    // invalid input from an allowed consumer: the invoke policy never runs
    expect((await r.invoke({ capabilityId: "view:api.notes.add", input: { nope: true } })).error.code).toBe("INVALID_INPUT");
    expect(seen.filter(([p]) => p === "invoke")).toEqual([]);
    await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "a" } });
    expect(seen.at(-1)).toEqual(["invoke", { text: "a", tag: "misc" }]);
    expect(seen.filter(([p]) => p === "authorize").every(([, sawInput]) => sawInput === false)).toBe(true);
    r.dispose();
  });

  it("an invoke policy may deny (POLICY_DENIED) or require confirmation for an action that declares none", async () => {
    const execute = vi.fn(() => ({ id: "n1" }));
    const r = makeRegistry({
      policies: [{ name: "big-notes", invoke: async (ctx) => (ctx.effectiveInput.text === "forbidden" ? { deny: "no" } : ctx.effectiveInput.text.length > 10 ? "require-confirmation" : "allow") }],
    });
    r.register(bindNotes({ actions: { add: { execute } } }));
    expect((await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "forbidden" } })).error).toMatchObject({ code: "POLICY_DENIED", retry: "never" });
    expect((await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "short" } })).status).toBe("ok");
    const asked = await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "a much longer note" } });
    expect(asked.error.code).toBe("CONFIRMATION_REQUIRED");
    expect(execute).toHaveBeenCalledTimes(1);
    r.dispose();
  });

  it("a throwing or rejecting authorize/invoke denies (fail closed)", async () => {
    const r = makeRegistry({
      policies: [
        {
          name: "flaky",
          authorize: (ctx) => {
            if (ctx.capabilityId.endsWith(".work")) throw new Error("policy service down");
            return "allow";
          },
          invoke: (ctx) => (ctx.capabilityId.endsWith(".add") ? Promise.reject(new Error("timeout")) : "allow"),
        },
      ],
    });
    r.register(bindNotes());
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: {} })).error.code).toBe("POLICY_DENIED");
    expect((await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "a" } })).error.code).toBe("POLICY_DENIED");
    expect((await r.invoke({ capabilityId: "view:api.notes.open", input: { path: "/" } })).status).toBe("ok");
    r.dispose();
  });

  it("observations skip the confirmation step, even when an invoke policy asks for one", async () => {
    const r = makeRegistry({ policies: [{ name: "confirm-everything", invoke: () => "require-confirmation" }] });
    r.register(bindNotes({ observations: { raw: { read: () => "seen" } } }));
    expect(await r.invoke({ capabilityId: "view:api.notes.raw" })).toMatchObject({ status: "ok", output: "seen" });
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: {} })).error.code).toBe("CONFIRMATION_REQUIRED");
    expect(r.confirmations.pending().map((p) => p.capabilityId)).toEqual(["view:api.notes.work"]);
    r.dispose();
  });

  it("a failing precondition stops before the confirmation gate (no pending confirmation is created)", async () => {
    const r = makeRegistry();
    r.register(bindNotes({ actions: { remove: { execute: () => undefined, precondition: ({ id }) => (id === "n404" ? { message: "no such note" } : undefined) } } }));
    expect((await r.invoke({ capabilityId: "view:api.notes.remove", input: { id: "n404" } })).error.code).toBe("PRECONDITION_FAILED");
    expect(r.confirmations.pending()).toEqual([]);
    expect((await r.invoke({ capabilityId: "view:api.notes.remove", input: { id: "n1" } })).error.code).toBe("CONFIRMATION_REQUIRED");
    r.dispose();
  });
});

describe("invocation identity and dedupe", () => {
  it("a repeated in-flight key with the same request joins the running invocation (one execution)", async () => {
    const gate = deferred();
    const execute = vi.fn(async () => (await gate.promise, { id: "n1" }));
    const r = makeRegistry();
    r.register(bindNotes({ actions: { add: { execute } } }));
    const req = { capabilityId: "view:api.notes.add", input: { text: "a" }, invocationId: "call-1" };
    const first = r.invoke(req);
    const second = r.invoke({ ...req });
    await settle();
    gate.resolve();
    const [a, b] = await Promise.all([first, second]);
    expect(a).toEqual(b);
    expect(a.status).toBe("ok");
    expect(execute).toHaveBeenCalledTimes(1);
    r.dispose();
  });

  it("a settled terminal result is returned verbatim for the same key and request", async () => {
    let n = 0;
    const r = makeRegistry();
    r.register(bindNotes({ actions: { add: { execute: () => ({ id: `n${++n}` }) } } }));
    const req = { capabilityId: "view:api.notes.add", input: { text: "a" }, invocationId: "call-2" };
    const first = await r.invoke(req);
    const retry = await r.invoke(req);
    expect(retry).toEqual(first);
    expect(n).toBe(1);
    // error results are terminal too (EXECUTION_FAILED, INVALID_INPUT)
    const bad = { capabilityId: "view:api.notes.add", input: { text: "" }, invocationId: "call-3" };
    expect(await r.invoke(bad)).toEqual(await r.invoke(bad));
    r.dispose();
  });

  it("the same key for a different request → INVOCATION_CONFLICT, in flight or settled; the stored record is untouched", async () => {
    const gate = deferred();
    let n = 0;
    const r = makeRegistry();
    r.register(bindNotes({ actions: { add: { execute: async () => (await gate.promise, { id: `n${++n}` }) } } }));
    const running = r.invoke({ capabilityId: "view:api.notes.add", input: { text: "a" }, invocationId: "k" });
    await settle();
    const conflict = await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "b" }, invocationId: "k" });
    expect(conflict.error).toMatchObject({ code: "INVOCATION_CONFLICT", retry: "with-changes" });
    gate.resolve();
    const done = await running;
    expect(await r.invoke({ capabilityId: "view:api.notes.work", input: {}, invocationId: "k" })).toMatchObject({ error: { code: "INVOCATION_CONFLICT" } });
    expect(await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "a" }, invocationId: "k" })).toEqual(done);
    expect(n).toBe(1);
    r.dispose();
  });

  it("keys are consumer-scoped: another consumer may reuse a tool-call id", async () => {
    let n = 0;
    const r = makeRegistry();
    r.register(bindNotes({ actions: { add: { execute: () => ({ id: `n${++n}` }) } } }));
    const req = { capabilityId: "view:api.notes.add", input: { text: "a" }, invocationId: "toolu_01" };
    const a = await r.invoke(req, { consumer: { id: "claude", kind: "embedded" } });
    const b = await r.invoke(req, { consumer: { id: "gpt", kind: "embedded" } });
    const c = await r.invoke({ ...req, input: { text: "other" } }, { consumer: { id: "mcp", kind: "mcp-bridge" } });
    expect([a.output.id, b.output.id, c.output.id]).toEqual(["n1", "n2", "n3"]);
    r.dispose();
  });

  it("CONFIRMATION_REQUIRED is not cached: the retry with the same invocationId and the approved confirmationId executes once", async () => {
    const execute = vi.fn((_i, ctx) => void ctx);
    const r = makeRegistry();
    r.register(bindNotes({ actions: { remove: { execute } } }));
    const req = { capabilityId: "view:api.notes.remove", input: { id: "n1" }, invocationId: "rm-1" };
    const asked = await r.invoke(req);
    const { confirmationId } = asked.error.details;
    expect((await r.invoke(req)).error.code).toBe("CONFIRMATION_REQUIRED"); // still pending: asked again, not cached
    r.confirmations.resolve(confirmationId, { approved: true });
    const done = await r.invoke({ ...req, confirmationId });
    expect(done.status).toBe("ok");
    expect(execute).toHaveBeenCalledTimes(1);
    expect(execute.mock.calls[0][1].confirmation).toEqual({ id: confirmationId, approvedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    // a transport retry of the confirmed call is the cached result; the evidence is single use
    expect(await r.invoke({ ...req, confirmationId })).toEqual(done);
    expect((await r.invoke({ ...req, invocationId: "rm-2", confirmationId })).error.code).toBe("CONFIRMATION_EXPIRED");
    expect(execute).toHaveBeenCalledTimes(1);
    r.dispose();
  });

  it("evidence is bound to the request: another input with the same confirmationId does not run", async () => {
    const execute = vi.fn();
    const r = makeRegistry();
    r.register(bindNotes({ actions: { remove: { execute } } }));
    const asked = await r.invoke({ capabilityId: "view:api.notes.remove", input: { id: "n1" }, invocationId: "rm" });
    const { confirmationId } = asked.error.details;
    r.confirmations.resolve(confirmationId, { approved: true });
    const other = await r.invoke({ capabilityId: "view:api.notes.remove", input: { id: "n2" }, invocationId: "rm-other", confirmationId });
    expect(other.status).toBe("error");
    expect(execute).not.toHaveBeenCalled();
    r.dispose();
  });
});
