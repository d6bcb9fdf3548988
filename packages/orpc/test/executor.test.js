// createORPCProcedureExecutor against real oRPC servers on loopback (test/server.js: oRPC's
// node:http adapter, RPCHandler at /rpc), 1.16.1 and 2.0.0-beta: what reaches the server (path,
// input, idempotency key, headers), what comes back (outputs, none, errors without the server's
// words, outputs JSON cannot carry), the same request as oRPC's own RPCLink, and aborts.
import { RPCLink as RPCLinkV1 } from "@orpc/client/fetch";
import { createORPCClient as createClientV1 } from "@orpc/client";
import { RPCLink as RPCLinkV2 } from "@orpc/client-v2/fetch";
import { createORPCClient as createClientV2 } from "@orpc/client-v2";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createORPCProcedureExecutor, defaultProcedurePath, ORPCProcedureError } from "@agent-surface/orpc";
import { startDevicesServer } from "./server.js";

const CLIENTS = { 1: { RPCLink: RPCLinkV1, createORPCClient: createClientV1 }, 2: { RPCLink: RPCLinkV2, createORPCClient: createClientV2 } };

let n = 0;
/** A call as the registry makes it (a fresh invocation id unless given). */
const call = (procedureId, input, extra = {}) => ({ procedureId, input, invocationId: `inv_test${++n}`, signal: new AbortController().signal, ...extra });

/** The rejection of `promise`, which must be an ORPCProcedureError. */
async function failure(promise) {
  const e = await promise.then(
    (v) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(v)}`);
    },
    (e) => e,
  );
  expect(e).toBeInstanceOf(ORPCProcedureError);
  return e;
}

describe.each([1, 2])("oRPC %i.x", (major) => {
  let server;
  let executor;
  beforeAll(async () => {
    server = await startDevicesServer(major);
    executor = createORPCProcedureExecutor({ url: server.url });
  });
  afterAll(() => server?.close());

  test("an output comes back as JSON; the server got the input at the router path, and the invocation id as idempotency-key", async () => {
    const c = call("domain:devices.reboot", { ids: ["dev_cam001", "dev_cam002"] });
    expect(await executor.execute(c)).toEqual({ scheduled: 2 });
    expect(server.state.runs.reboot).toBe(1);
    expect(server.state.seen.at(-1)).toEqual({ name: "reboot", key: c.invocationId, path: ["devices", "reboot"], input: { ids: ["dev_cam001", "dev_cam002"] }, auth: undefined });
    // nulls and arrays as they are
    expect(await executor.execute(call("domain:devices.status", { id: "dev_pr1nt1" }))).toEqual({ id: "dev_pr1nt1", online: true, note: null, tags: ["a", "b"] });
  });

  test("a procedure without output answers null; the same invocation delivered twice runs once on the server (its idempotency key)", async () => {
    const c = call("domain:devices.decommission", { ids: ["dev_pr1nt2"] });
    expect(await executor.execute(c)).toBeNull();
    expect(server.state.runs.decommission).toBe(1);
    expect(server.state.devices.has("dev_pr1nt2")).toBe(false);
    // A second delivery of the same call (a retried tool call): the server answers from its record.
    expect(await executor.execute({ ...c, signal: new AbortController().signal })).toBeNull();
    expect(server.state.runs.decommission).toBe(1);
    expect(server.state.seen.filter((s) => s.key === c.invocationId)).toHaveLength(2);
    // A new invocation is a new call: the device is gone now.
    const again = await failure(executor.execute(call("domain:devices.decommission", { ids: ["dev_pr1nt2"] })));
    expect(again).toMatchObject({ failure: "error", code: "NOT_FOUND", status: 404 });
    expect(server.state.runs.decommission).toBe(1);
  });

  test("the request is the one oRPC's own RPCLink sends (URL, method, content type, body)", async () => {
    const sent = [];
    const capture = (request, init) => {
      const req = request instanceof Request ? request : new Request(request, init);
      const clone = req.clone();
      return clone.text().then((body) => {
        sent.push({ url: req.url, method: req.method, type: req.headers.get("content-type"), body: JSON.parse(body), key: req.headers.get("idempotency-key") });
        return fetch(req);
      });
    };
    const input = { ids: ["dev_cam001"] };
    const c = call("domain:devices.reboot", input);
    const mine = createORPCProcedureExecutor({ url: server.url, fetch: capture });
    const { RPCLink, createORPCClient } = CLIENTS[major];
    const client = createORPCClient(new RPCLink({ url: server.url, fetch: capture, headers: () => ({ "idempotency-key": c.invocationId }) }));
    expect(await mine.execute(c)).toEqual({ scheduled: 1 });
    expect(await client.devices.reboot(input)).toEqual({ scheduled: 1 });
    expect(sent).toHaveLength(2);
    expect(sent[0]).toEqual(sent[1]);
    expect(sent[0]).toMatchObject({ url: `${server.url}/devices/reboot`, method: "POST", body: { json: input } });
  });

  test("server errors settle with their code and status, never the server's message or data", async () => {
    const notFound = await failure(executor.execute(call("domain:devices.decommission", { ids: ["dev_zzz999"] })));
    expect(notFound).toMatchObject({ failure: "error", code: "NOT_FOUND", status: 404, defined: false, procedureId: "domain:devices.decommission" });
    const crash = await failure(executor.execute(call("domain:devices.crash", {})));
    expect(crash).toMatchObject({ failure: "error", code: "INTERNAL_SERVER_ERROR", status: 500, defined: false });
    const busy = await failure(executor.execute(call("domain:devices.conflict", {})));
    // 1.x answers a defined error with its status (409); 2.0.0-beta's handler maps codes to statuses itself (500 unless errorStatusMap says).
    expect(busy).toMatchObject({ failure: "error", code: "BUSY", defined: true, status: major === 1 ? 409 : 500 });
    for (const e of [notFound, crash, busy]) {
      const everything = JSON.stringify({ ...e, message: e.message, stack: e.stack });
      expect(everything).not.toMatch(/secret|acme-internal|hunter2|dev_zzz999|retryAfter|Internal server error/i);
      expect(e).not.toHaveProperty("data");
    }
    expect(busy.message).toBe(`procedure domain:devices.conflict: POST /rpc/devices/conflict answered the oRPC error BUSY (HTTP ${major === 1 ? 409 : 500}, defined by the procedure)`);
  });

  test("outputs JSON cannot carry are refused: Date, BigInt, undefined in an array, a file, an event stream", async () => {
    const date = await failure(executor.execute(call("domain:devices.lastSeen", { id: "dev_cam001" })));
    expect(date).toMatchObject({ failure: "not-json", status: 200 });
    expect(date.message).toMatch(/not JSON \(date at \/at\)$/);
    const big = await failure(executor.execute(call("domain:devices.counts", {})));
    expect(big.message).toMatch(/not JSON \(bigint at \/total\)$/);
    const sparse = await failure(executor.execute(call("domain:devices.sparse", {})));
    expect(sparse.message).toMatch(/not JSON \(undefined at \/list\/1\)$/);
    const file = await failure(executor.execute(call("domain:devices.firmware", {})));
    expect(file).toMatchObject({ failure: "not-json" });
    expect(file.message).toMatch(major === 1 ? /answered multipart\/form-data/ : /answered application\/octet-stream/);
    const stream = await failure(executor.execute(call("domain:devices.watch", {})));
    expect(stream.message).toMatch(/answered text\/event-stream \(a file or an event stream\), not JSON/);
  });

  test("router paths: the id's segments by default, a record or a function to map them; no path, no request", async () => {
    expect(defaultProcedurePath("domain:devices.reboot")).toEqual(["devices", "reboot"]);
    expect(defaultProcedurePath("view:devices.table")).toBeUndefined();
    const seen = server.state.seen.length;
    const mapped = createORPCProcedureExecutor({ url: `${server.url}/`, paths: { "domain:fleet.restart": ["devices", "reboot"] } });
    expect(await mapped.execute(call("domain:fleet.restart", { ids: ["dev_cam002"] }))).toEqual({ scheduled: 1 });
    expect(server.state.seen.at(-1)).toMatchObject({ name: "reboot", path: ["devices", "reboot"] });
    // the record overrides some ids; the others keep the default
    expect(await mapped.execute(call("domain:devices.status", { id: "dev_cam002" }))).toMatchObject({ online: true });
    const fn = createORPCProcedureExecutor({ url: server.url, paths: (id) => (id === "domain:ops.restart" ? ["devices", "reboot"] : undefined) });
    expect(await fn.execute(call("domain:ops.restart", { ids: ["dev_cam002"] }))).toEqual({ scheduled: 1 });
    const before = server.state.seen.length;
    expect(await failure(fn.execute(call("domain:devices.reboot", { ids: ["dev_cam002"] })))).toMatchObject({ failure: "no-path" });
    expect(server.state.seen.length).toBe(before);
    expect(seen).toBeLessThan(before);
    // a path the router does not have: the handler does not match, the HTTP server answers 404 itself
    const none = await failure(executor.execute(call("domain:devices.teleport", {})));
    expect(none).toMatchObject({ failure: "malformed", status: 404 });
    expect(() => createORPCProcedureExecutor({ url: server.url, paths: { "domain:a.b": [] } })).toThrow(/non-empty array/);
  });

  test("headers: extra ones per call, another idempotency header name, or none", async () => {
    const custom = createORPCProcedureExecutor({ url: server.url, idempotencyHeader: "x-invocation-id", headers: (c) => ({ authorization: `Bearer for-${c.procedureId}` }) });
    const c = call("domain:devices.reboot", { ids: ["dev_cam001"] });
    await custom.execute(c);
    expect(server.state.seen.at(-1)).toMatchObject({ key: undefined, invocation: c.invocationId, auth: "Bearer for-domain:devices.reboot" });
    const none = createORPCProcedureExecutor({ url: server.url, idempotencyHeader: false });
    await none.execute(call("domain:devices.reboot", { ids: ["dev_cam001"] }));
    expect(server.state.seen.at(-1)).toMatchObject({ key: undefined, invocation: undefined });
    expect(() => createORPCProcedureExecutor({ url: server.url, idempotencyHeader: "bad header" })).toThrow(/header name/);
  });

  test("an aborted call rejects and the server's procedure sees its request aborted", async () => {
    const controller = new AbortController();
    const pending = executor.execute(call("domain:devices.slow", {}, { signal: controller.signal }));
    await expect.poll(() => server.state.runs.slow).toBe(1);
    controller.abort(new DOMException("the invocation timed out", "TimeoutError"));
    await expect(pending).rejects.toThrow(/timed out/);
    await expect.poll(() => server.state.aborted).toEqual(["slow"]);
  });
});
