// Spec "Registry" setProcedureExecutor (+ issue 16: procedures bound without execute are
// forwarded to it, and the package ships a fetch-based executor): createFetchProcedureExecutor
// against a real node:http server on 127.0.0.1. The page's pipeline runs first (availability,
// policies, input, confirmation, admission); the answer is validated against the output schema.
import { createServer } from "node:http";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { bindNotes, core, makeRegistry, purge, fetchNote, settle } from "./helpers.js";

const { createFetchProcedureExecutor } = core;

let server;
let url;
let received;
let respond;
let closed;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const r = { method: req.method, path: req.url, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(r);
      res.on("close", () => closed.push(r));
      respond(r, res);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${server.address().port}/rpc`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received = [];
  closed = [];
  respond = (_r, res) => res.writeHead(500).end();
});

afterEach(() => {
  vi.restoreAllMocks();
});

const json = (status, value) => (_r, res) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));

function forwarding(options = {}, procedures = [fetchNote.bind({}), purge.bind({})]) {
  const r = makeRegistry(options);
  r.register(bindNotes({ procedures }));
  r.setProcedureExecutor(createFetchProcedureExecutor({ url }));
  return r;
}

describe("a forwarded procedure", () => {
  it("POSTs { procedureId, input, invocationId } as JSON, and the server's answer is the output", async () => {
    respond = json(200, { text: "buy milk" });
    const r = forwarding();
    const res = await r.invoke({ capabilityId: "domain:api.fetchNote", input: { id: "n1" }, invocationId: "inv-42" });
    expect(res).toEqual({ status: "ok", invocationId: "inv-42", capabilityId: "domain:api.fetchNote", output: { text: "buy milk" }, surfaceVersion: "2" }); // register, then setProcedureExecutor
    expect(received).toHaveLength(1);
    const [req] = received;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/rpc");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(req.body)).toEqual({ procedureId: "domain:api.fetchNote", input: { id: "n1" }, invocationId: "inv-42" });
    r.dispose();
  });

  it("the answer is validated against the procedure's output schema (EXECUTION_FAILED otherwise)", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const r = forwarding();
    for (const [i, reply] of [json(200, { text: 5 }), json(200, { text: "t", extra: true }), json(200, null)].entries()) {
      respond = reply;
      const res = await r.invoke({ capabilityId: "domain:api.fetchNote", input: { id: "n1" }, invocationId: `bad-${i}` });
      expect(res.error?.code, `reply ${i}`).toBe("EXECUTION_FAILED");
    }
    r.dispose();
  });

  it("an HTTP error or a body that is not JSON is EXECUTION_FAILED, without the server's text", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const r = forwarding();
    respond = (_r, res) => res.writeHead(403, { "content-type": "text/plain" }).end("session sess_SECRET expired");
    const forbidden = await r.invoke({ capabilityId: "domain:api.fetchNote", input: { id: "n1" } });
    expect(forbidden.error.code).toBe("EXECUTION_FAILED");
    expect(JSON.stringify(forbidden)).not.toContain("sess_SECRET");
    respond = (_r, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>oops</html>");
    expect((await r.invoke({ capabilityId: "domain:api.fetchNote", input: { id: "n1" } })).error.code).toBe("EXECUTION_FAILED");
    r.dispose();
  });

  it("nothing is sent for a call the page refuses: invalid input, policy denial, unconfirmed destructive call", async () => {
    respond = json(200, null);
    const r = forwarding({ policies: [{ name: "deny-guests", authorize: (ctx) => (ctx.consumer.id === "guest" ? { deny: "no" } : "allow") }] });
    expect((await r.invoke({ capabilityId: "domain:api.fetchNote", input: { id: 1 } })).error.code).toBe("INVALID_INPUT");
    expect((await r.invoke({ capabilityId: "domain:api.fetchNote", input: { id: "n1" } }, { consumer: { id: "guest", kind: "test" } })).error.code).toBe("POLICY_DENIED");
    const asked = await r.invoke({ capabilityId: "domain:api.purge", input: {}, invocationId: "p1" });
    expect(asked.error.code).toBe("CONFIRMATION_REQUIRED");
    expect(received).toEqual([]);
    // approved: forwarded exactly once, with the effective input
    r.confirmations.resolve(asked.error.details.confirmationId, { approved: true });
    const done = await r.invoke({ capabilityId: "domain:api.purge", input: {}, invocationId: "p1", confirmationId: asked.error.details.confirmationId });
    expect(done.status).toBe("ok");
    expect(received.map((x) => JSON.parse(x.body))).toEqual([{ procedureId: "domain:api.purge", input: {}, invocationId: "p1" }]);
    r.dispose();
  });

  it("a timeout aborts the request (the connection is closed) and settles TIMEOUT", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    respond = () => {}; // never answers
    const r = forwarding({}, [fetchNote.bind({ timeoutMs: 100 })]);
    const res = await r.invoke({ capabilityId: "domain:api.fetchNote", input: { id: "n1" } });
    expect(res.error.code).toBe("TIMEOUT");
    for (let i = 0; i < 50 && closed.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(closed).toHaveLength(1);
    r.dispose();
  });

  it("InvokeOptions.signal cancels the forwarded call: CANCELLED, the request aborted", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    respond = () => {};
    const r = forwarding();
    const controller = new AbortController();
    const running = r.invoke({ capabilityId: "domain:api.fetchNote", input: { id: "n1" } }, { signal: controller.signal });
    for (let i = 0; i < 50 && received.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(received).toHaveLength(1);
    controller.abort();
    expect((await running).error.code).toBe("CANCELLED");
    for (let i = 0; i < 50 && closed.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(closed).toHaveLength(1);
    r.dispose();
  });
});

describe("setProcedureExecutor", () => {
  it("an executor that throws or rejects → EXECUTION_FAILED (its message is not shown)", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const r = makeRegistry();
    r.register(bindNotes({ procedures: [fetchNote.bind({})] }));
    for (const execute of [
      () => {
        throw new Error("token tok_123 rejected");
      },
      async () => {
        throw new Error("token tok_123 rejected");
      },
      () => Promise.reject("plain string tok_123"),
    ]) {
      r.setProcedureExecutor({ execute });
      const res = await r.invoke({ capabilityId: "domain:api.fetchNote", input: { id: "n1" } });
      expect(res.error).toMatchObject({ code: "EXECUTION_FAILED", retry: "never" });
      expect(JSON.stringify(res)).not.toContain("tok_123");
    }
    r.dispose();
  });

  it("the executor gets { procedureId, input, invocationId, signal }; a local execute is never forwarded", async () => {
    const calls = [];
    const local = vi.fn(() => ({ text: "local" }));
    const r = makeRegistry();
    r.register(bindNotes({ procedures: [fetchNote.bind({}), purge.bind({ execute: local })] }));
    r.setProcedureExecutor({ execute: async (call) => (calls.push(call), { text: "remote" }) });
    expect((await r.invoke({ capabilityId: "domain:api.fetchNote", input: { id: "n9" }, invocationId: "f1" })).output).toEqual({ text: "remote" });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ procedureId: "domain:api.fetchNote", input: { id: "n9" }, invocationId: "f1" });
    expect(calls[0].signal).toBeInstanceOf(AbortSignal);
    const asked = await r.invoke({ capabilityId: "domain:api.purge", input: {}, invocationId: "p" });
    r.confirmations.resolve(asked.error.details.confirmationId, { approved: true });
    await r.invoke({ capabilityId: "domain:api.purge", input: {}, invocationId: "p", confirmationId: asked.error.details.confirmationId });
    expect(local).toHaveBeenCalledTimes(1);
    expect(calls).toHaveLength(1);
    r.dispose();
  });

  it("without an executor (never installed, or removed with undefined) a forwarded call is CAPABILITY_NOT_AVAILABLE {reason: no-procedure-executor}", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const r = makeRegistry();
    r.register(bindNotes({ procedures: [fetchNote.bind({})] }));
    const none = await r.invoke({ capabilityId: "domain:api.fetchNote", input: { id: "n1" } });
    expect(none.error).toMatchObject({ code: "CAPABILITY_NOT_AVAILABLE", details: { reason: "no-procedure-executor" } });
    r.setProcedureExecutor({ execute: async () => ({ text: "t" }) });
    expect((await r.invoke({ capabilityId: "domain:api.fetchNote", input: { id: "n1" } })).status).toBe("ok");
    r.setProcedureExecutor(undefined);
    expect((await r.invoke({ capabilityId: "domain:api.fetchNote", input: { id: "n1" } })).error.details.reason).toBe("no-procedure-executor");
    expect(() => r.setProcedureExecutor({})).toThrow(TypeError);
    expect(() => r.setProcedureExecutor(() => ({}))).toThrow(TypeError);
    await settle();
    r.dispose();
  });
});
