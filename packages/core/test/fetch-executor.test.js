// createFetchProcedureExecutor against a real HTTP server (node:http on 127.0.0.1, an ephemeral
// port): what goes over the wire, and how non-2xx answers, non-JSON bodies and aborts end.
import { createServer } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createFetchProcedureExecutor } from "../dist/index.js";

/** Requests the server received: `{ method, url, headers, body }`; and the handler for the next one. */
let received = [];
let respond;
let server;
let base;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const r = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(r);
      respond(req, res, r);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received = [];
  respond = (_req, res) => {
    res.writeHead(500).end();
  };
});

function reply(status, body, contentType = "application/json") {
  respond = (_req, res) => {
    res.writeHead(status, { "content-type": contentType }).end(body);
  };
}

const call = (signal = new AbortController().signal) => ({
  procedureId: "domain:devices.reboot",
  input: { ids: ["d1", "d2"], mode: "soft", note: "ünïcode ✓" },
  invocationId: "inv_42",
  signal,
});

describe("createFetchProcedureExecutor", () => {
  it("POSTs exactly { procedureId, input, invocationId } as JSON and resolves with the answer's JSON value", async () => {
    reply(200, JSON.stringify({ rebooted: ["d1", "d2"], at: null }));
    const executor = createFetchProcedureExecutor({ url: `${base}/agent/procedures` });
    const c = call();
    await expect(executor.execute(c)).resolves.toEqual({ rebooted: ["d1", "d2"], at: null });
    expect(received).toHaveLength(1);
    const [r] = received;
    expect(r.method).toBe("POST");
    expect(r.url).toBe("/agent/procedures");
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.body).toBe(JSON.stringify({ procedureId: c.procedureId, input: c.input, invocationId: c.invocationId }));
    expect(JSON.parse(r.body)).toEqual({ procedureId: "domain:devices.reboot", input: { ids: ["d1", "d2"], mode: "soft", note: "ünïcode ✓" }, invocationId: "inv_42" });
  });

  it("any JSON value is an answer (null, a number, a string)", async () => {
    const executor = createFetchProcedureExecutor({ url: base });
    for (const value of [null, 0, "done", [1, { a: true }]]) {
      reply(201, JSON.stringify(value));
      await expect(executor.execute(call())).resolves.toEqual(value);
    }
  });

  it("sends the extra headers (a function is read at each call); content-type stays application/json", async () => {
    reply(200, "true");
    let token = 0;
    const executor = createFetchProcedureExecutor({ url: base, headers: () => ({ authorization: `Bearer t${++token}`, "content-type": "text/plain" }) });
    await executor.execute(call());
    await executor.execute(call());
    expect(received.map((r) => r.headers.authorization)).toEqual(["Bearer t1", "Bearer t2"]);
    expect(received.map((r) => r.headers["content-type"])).toEqual(["application/json", "application/json"]);
    await createFetchProcedureExecutor({ url: base, headers: { "x-app": "devices" } }).execute(call());
    expect(received[2].headers["x-app"]).toBe("devices");
  });

  it("a status outside 2xx throws an Error naming the status and the URL, not the body", async () => {
    reply(503, JSON.stringify({ secret: "internal detail" }));
    const url = `${base}/agent/procedures`;
    const executor = createFetchProcedureExecutor({ url });
    const error = await executor.execute(call()).then(
      () => null,
      (e) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toContain("503");
    expect(error.message).toContain(url);
    expect(error.message).toContain("domain:devices.reboot");
    expect(error.message).not.toContain("internal detail");
    reply(404, "");
    await expect(executor.execute(call())).rejects.toThrow(/HTTP 404/);
  });

  it("a 2xx body that is not JSON throws an Error naming the status and the URL", async () => {
    const executor = createFetchProcedureExecutor({ url: base });
    reply(200, "<html>login</html>", "text/html");
    await expect(executor.execute(call())).rejects.toThrow(`POST ${base} answered HTTP 200 with a body that is not JSON`);
    reply(200, '{"truncated":');
    await expect(executor.execute(call())).rejects.toThrow(/not JSON/);
    // No body at all is not JSON either: a procedure without output answers null.
    respond = (_req, res) => res.writeHead(204).end();
    await expect(executor.execute(call())).rejects.toThrow(`POST ${base} answered HTTP 204 with a body that is not JSON`);
  });

  it("aborting the call's signal while the server holds the request rejects, and the server sees the connection close", async () => {
    let arrived;
    const held = new Promise((resolve) => (arrived = resolve));
    let closed;
    const sawClose = new Promise((resolve) => (closed = resolve));
    respond = (req, res) => {
      // Hold the request: never answer; record when the client goes away.
      res.on("close", () => closed({ finished: res.writableFinished }));
      arrived();
    };
    const controller = new AbortController();
    const executor = createFetchProcedureExecutor({ url: base });
    const pending = executor.execute(call(controller.signal));
    await held;
    controller.abort();
    const error = await pending.then(
      () => null,
      (e) => e,
    );
    expect(error).not.toBeNull();
    expect(error.name).toBe("AbortError");
    expect(await sawClose).toEqual({ finished: false });
  });

  it("uses options.fetch when given, with the call's signal and the credentials", async () => {
    const seen = [];
    const fakeFetch = async (url, init) => {
      seen.push({ url, init });
      return new Response('{"ok":true}', { status: 200 });
    };
    const c = call();
    await expect(createFetchProcedureExecutor({ url: new URL("https://api.example.test/procedures"), fetch: fakeFetch, credentials: "include" }).execute(c)).resolves.toEqual({ ok: true });
    expect(seen).toHaveLength(1);
    expect(seen[0].url).toBe("https://api.example.test/procedures");
    expect(seen[0].init.signal).toBe(c.signal);
    expect(seen[0].init.credentials).toBe("include");
    expect(seen[0].init.method).toBe("POST");
    expect(received).toHaveLength(0);
  });

  it("refuses options without a url", () => {
    expect(() => createFetchProcedureExecutor({})).toThrow(TypeError);
    expect(() => createFetchProcedureExecutor({ url: "" })).toThrow(TypeError);
    expect(() => createFetchProcedureExecutor({ url: base, fetch: "no" })).toThrow(TypeError);
    expect(() => createFetchProcedureExecutor()).toThrow(TypeError);
  });
});
