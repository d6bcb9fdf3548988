// connectAgentBridge in Node, against a fake bridge (an in-memory WebSocket passed as
// options.WebSocket): the hello comes first and carries the token, the page publishes its
// toolset's MCP block with the engine's catalog id, serves calls (invocationId = the bridge's),
// honours cancel, answers malformed frames with an error frame and keeps serving, never
// approves a confirmation for the bridge, does not reconnect after a refusal and does after a drop.
import { afterEach, beforeEach, expect, test } from "vitest";
import * as core from "../dist/index.js";
import { connectAgentBridge } from "../dist/bridge.js";
import { fixtureManifestPath, readJson } from "./paths.js";
import { contractsOf } from "./scenarios/runner.js";

const manifest = readJson(fixtureManifestPath);
const contracts = contractsOf(core, manifest);

class FakeSocket {
  static all = [];
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    this.closedWith = undefined;
    this.onopen = this.onmessage = this.onclose = this.onerror = null;
    FakeSocket.all.push(this);
  }
  send(data) {
    if (this.readyState !== 1) throw new Error("send on a socket that is not open");
    this.sent.push(JSON.parse(data));
  }
  close(code, reason) {
    this.closedWith = { code, reason };
    this.readyState = 3;
  }
  // The bridge's side:
  accept() {
    this.readyState = 1;
    this.onopen?.({});
  }
  push(frame) {
    this.onmessage?.({ data: typeof frame === "string" ? frame : JSON.stringify(frame) });
  }
  drop(code, reason = "") {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
  of(type) {
    return this.sent.filter((f) => f.type === type);
  }
}

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));
async function until(predicate, what) {
  for (let i = 0; i < 200; i++) {
    const v = predicate();
    if (v) return v;
    await tick(5);
  }
  throw new Error(`timed out waiting for ${what}`);
}

let registry, state, table, bridge;
const TOKEN = "0123456789abcdef0123456789abcdef";

beforeEach(() => {
  FakeSocket.all = [];
  state = { rows: [{ id: "dev_aaaaaa", name: "router", status: "online", lastSeen: null }], decommissioned: [], slowStarted: 0 };
  registry = core.createAgentSurfaceRegistry({ authority: core.createCapabilityAuthority(manifest) });
  table = registry.register(
    contracts.get("view:devices.table").bind({
      observations: {
        readState: { read: () => ({ rows: state.rows, sort: "name", filter: "" }) },
        readSelection: { read: () => ({ ids: [] }) },
      },
      actions: {
        selectRows: { execute: () => {} },
        clearSelection: { execute: () => {} },
        sortBy: { execute: () => {} },
        filter: { execute: () => {} },
      },
      procedures: [
        contracts.get("domain:devices.decommission").bind({
          execute: ({ ids }) => {
            state.decommissioned.push(...ids);
          },
        }),
        contracts.get("domain:devices.reboot").bind({
          execute: (_input, ctx) =>
            new Promise((resolve, reject) => {
              state.slowStarted += 1;
              const t = setTimeout(() => resolve({ scheduled: 1 }), 5_000);
              ctx.signal.addEventListener("abort", () => {
                clearTimeout(t);
                reject(new Error("aborted"));
              });
            }),
        }),
      ],
    }),
  );
});

afterEach(() => bridge?.close());

function connect(extra = {}) {
  bridge = connectAgentBridge(registry, { url: "ws://127.0.0.1:4000", token: TOKEN, WebSocket: FakeSocket, ...extra });
  return FakeSocket.all.at(-1);
}

async function welcomed() {
  const ws = connect();
  ws.accept();
  ws.push({ type: "welcome", protocol: 1, page: "p1" });
  await until(() => ws.of("tools").length, "the tools frame");
  return ws;
}

test("misuse throws; the token never goes in the URL", () => {
  expect(() => connectAgentBridge(registry, { url: `ws://127.0.0.1:1/?token=${TOKEN}`, token: TOKEN, WebSocket: FakeSocket })).toThrow(/never in the URL/);
  expect(() => connectAgentBridge(registry, { url: "http://x", token: TOKEN, WebSocket: FakeSocket })).toThrow(/ws:\/\//);
  expect(() => connectAgentBridge(registry, { url: "ws://x", token: "", WebSocket: FakeSocket })).toThrow(/token/);
  expect(() => connectAgentBridge(registry, { url: "ws://x", token: TOKEN, WebSocket: FakeSocket, extra: 1 })).toThrow(/unknown option "extra"/);
  expect(() => connectAgentBridge({}, { url: "ws://x", token: TOKEN, WebSocket: FakeSocket })).toThrow(TypeError);
  expect(() => connectAgentBridge(registry, { url: "ws://x", token: TOKEN, WebSocket: FakeSocket, names: "short" })).toThrow(/names must be "prefixed" or "unprefixed"/);
  expect(FakeSocket.all.every((s) => !s.url.includes(TOKEN))).toBe(true);
});

test("hello first, with the token; nothing is served before the welcome", async () => {
  const ws = connect({ consumerId: "desktop" });
  expect(ws.url).toBe("ws://127.0.0.1:4000");
  expect(bridge.status).toBe("connecting");
  ws.accept();
  expect(ws.sent).toEqual([{ type: "hello", protocol: 1, token: TOKEN, page: { surfaceId: registry.surfaceId, title: "", url: "", consumerId: "desktop" } }]);
  ws.push({ type: "call", id: "c1", catalog: 1, name: "view_devices_table_readState", input: {}, invocationId: "i1" });
  await tick();
  expect(ws.of("result")).toEqual([]);
  expect(ws.of("error")[0]).toMatchObject({ id: "c1", message: expect.stringMatching(/before the welcome/) });
  ws.push({ type: "welcome", protocol: 1, page: "p1" });
  await until(() => ws.of("tools").length, "the tools frame");
  expect(bridge.status).toBe("connected");
  expect(bridge.page).toBe("p1");
});

test("publishes the toolset's MCP block with its catalog id and serves calls", async () => {
  const ws = await welcomed();
  const [tools] = ws.of("tools");
  expect(typeof tools.catalog).toBe("number");
  expect(tools.surfaceVersion).toBe(registry.getVersion());
  const byName = Object.fromEntries(tools.tools.map((t) => [t.name, t]));
  expect(Object.keys(byName).sort()).toEqual([
    "domain_devices_decommission",
    "domain_devices_reboot",
    "view_devices_table_clearSelection",
    "view_devices_table_filter",
    "view_devices_table_readSelection",
    "view_devices_table_readState",
    "view_devices_table_selectRows",
    "view_devices_table_sortBy",
  ]);
  expect(byName.view_devices_table_readState.annotations).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
  expect(byName.view_devices_table_readState.outputSchema.type).toBe("object");
  expect(tools.capabilities.view_devices_table_readState).toBe("view:devices.table.readState");
  expect(Object.keys(tools.capabilities).sort()).toEqual(Object.keys(byName).sort());
  ws.push({ type: "call", id: "c1", catalog: tools.catalog, name: "view_devices_table_readState", input: {}, invocationId: "mcp_s_n1" });
  const [r] = await until(() => ws.of("result").length && ws.of("result"), "the result");
  expect(r.id).toBe("c1");
  expect(r.result).toMatchObject({ status: "ok", invocationId: "mcp_s_n1", output: { rows: [{ id: "dev_aaaaaa" }] } });
  // The consumer is the bridge's.
  ws.push({ type: "call", id: "c2", catalog: tools.catalog, name: "no_such_tool", input: {}, invocationId: "mcp_s_n2" });
  await until(() => ws.of("result").length === 2, "the second result");
  expect(ws.of("result")[1].result.error.code).toBe("CAPABILITY_NOT_FOUND");
});

test('names: "unprefixed" publishes the names without the plane, and their capability ids; calls by those names run', async () => {
  const ws = connect({ names: "unprefixed" });
  ws.accept();
  ws.push({ type: "welcome", protocol: 1, page: "p1" });
  const [tools] = await until(() => ws.of("tools").length && ws.of("tools"), "the tools frame");
  expect(tools.tools.map((t) => t.name).sort()).toEqual([
    "devices_decommission",
    "devices_reboot",
    "devices_table_clearSelection",
    "devices_table_filter",
    "devices_table_readSelection",
    "devices_table_readState",
    "devices_table_selectRows",
    "devices_table_sortBy",
  ]);
  expect(tools.capabilities).toMatchObject({ devices_table_readState: "view:devices.table.readState", devices_reboot: "domain:devices.reboot" });
  expect(Object.keys(tools.states).sort()).toEqual(tools.tools.map((t) => t.name).sort());
  ws.push({ type: "call", id: "c1", catalog: tools.catalog, name: "devices_table_readState", input: {}, invocationId: "mcp_s_n1" });
  const [r] = await until(() => ws.of("result").length && ws.of("result"), "the result");
  expect(r.result).toMatchObject({ status: "ok", capabilityId: "view:devices.table.readState", output: { rows: [{ id: "dev_aaaaaa" }] } });
});

test("a destructive call: CONFIRMATION_REQUIRED; the bridge cannot approve; the page's approval lets the retry run once", async () => {
  const ws = await welcomed();
  const { catalog } = ws.of("tools")[0];
  const call = (id) => ws.push({ type: "call", id, catalog, name: "domain_devices_decommission", input: { ids: ["dev_aaaaaa"] }, invocationId: `inv-${id}` });
  call("c1");
  await until(() => ws.of("result").length === 1, "the first result");
  const first = ws.of("result")[0].result;
  expect(first.error.code).toBe("CONFIRMATION_REQUIRED");
  const cid = first.error.details.confirmationId;
  const [pending] = registry.confirmations.pending();
  expect(pending).toMatchObject({ confirmationId: cid, consumerKey: "mcp-bridge:mcp-bridge" });
  // Frames a bridge might try: none of them resolves anything.
  for (const type of ["approve", "resolve", "confirm"]) ws.push({ type, confirmationId: cid, approved: true });
  await tick();
  expect(registry.confirmations.pending()).toHaveLength(1);
  expect(ws.of("error").map((e) => e.message)).toEqual([
    'an unknown bridge frame type "approve"',
    'an unknown bridge frame type "resolve"',
    'an unknown bridge frame type "confirm"',
  ]);
  expect(state.decommissioned).toEqual([]);
  registry.confirmations.resolve(cid, { approved: true });
  call("c2");
  await until(() => ws.of("result").length === 2, "the retry");
  expect(ws.of("result")[1].result).toMatchObject({ status: "ok", invocationId: "inv-c2" });
  expect(state.decommissioned).toEqual(["dev_aaaaaa"]);
  // The same invocation id again: the registry's dedupe answers, nothing runs twice.
  call("c2");
  await until(() => ws.of("result").length === 3, "the repeated id");
  expect(ws.of("result")[2].result.status).toBe("ok");
  expect(state.decommissioned).toEqual(["dev_aaaaaa"]);
});

test("a wait call (the client can wait): pending names the confirmation; the user's approval in the page completes the same call, once; a denial answers CONFIRMATION_DENIED", async () => {
  const ws = await welcomed();
  const { catalog } = ws.of("tools")[0];
  const call = (id, ids) => ws.push({ type: "call", id, catalog, name: "domain_devices_decommission", input: { ids }, invocationId: `inv-${id}`, wait: true });
  call("c1", ["dev_aaaaaa"]);
  const [pending] = await until(() => ws.of("pending").length && ws.of("pending"), "the pending frame");
  const [waiting] = registry.confirmations.pending();
  expect(pending).toEqual({ type: "pending", id: "c1", confirmation: { confirmationId: waiting.confirmationId, summary: expect.any(String), expiresAt: expect.any(String) } });
  await tick(20);
  expect(ws.of("result")).toEqual([]);
  expect(state.decommissioned).toEqual([]);
  registry.confirmations.resolve(waiting.confirmationId, { approved: true });
  const [r] = await until(() => ws.of("result").length && ws.of("result"), "the result");
  expect(r).toMatchObject({ id: "c1", result: { status: "ok", invocationId: "inv-c1" } });
  expect(state.decommissioned).toEqual(["dev_aaaaaa"]);
  // Denied in the page: the call ends with CONFIRMATION_DENIED, nothing ran.
  call("c2", ["dev_bbbbbb"]);
  await until(() => ws.of("pending").length === 2, "the second pending frame");
  registry.confirmations.resolve(ws.of("pending")[1].confirmation.confirmationId, { approved: false });
  await until(() => ws.of("result").length === 2, "the denial");
  expect(ws.of("result")[1].result.error.code).toBe("CONFIRMATION_DENIED");
  expect(state.decommissioned).toEqual(["dev_aaaaaa"]);
  // Cancelled while waiting: the request is closed in the page too.
  call("c3", ["dev_cccccc"]);
  await until(() => ws.of("pending").length === 3, "the third pending frame");
  ws.push({ type: "cancel", id: "c3" });
  await until(() => registry.confirmations.pending().length === 0, "the closed request");
  expect(state.decommissioned).toEqual(["dev_aaaaaa"]);
});

test("a state-only change publishes the tools frame again: the same block, the tool's new state beside it", async () => {
  const ws = await welcomed();
  const [first] = ws.of("tools");
  expect(first.states.view_devices_table_sortBy).toEqual({ available: true });
  table.update({ availability: { sortBy: { available: false, reason: "the table is loading" } } });
  const [, second] = await until(() => ws.of("tools").length === 2 && ws.of("tools"), "a second tools frame");
  expect(second.states.view_devices_table_sortBy).toMatchObject({ available: false, unavailableReason: "the table is loading" });
  expect(second.tools).toEqual(first.tools);
  expect(Object.keys(second.states).sort()).toEqual(second.tools.map((t) => t.name).sort());
});

test("cancel aborts the running call: CANCELLED", async () => {
  const ws = await welcomed();
  const { catalog } = ws.of("tools")[0];
  ws.push({ type: "call", id: "c9", catalog, name: "domain_devices_reboot", input: { ids: ["dev_aaaaaa"] }, invocationId: "i9" });
  await until(() => state.slowStarted === 1, "the handler to start");
  ws.push({ type: "cancel", id: "c9" });
  const [r] = await until(() => ws.of("result").length && ws.of("result"), "the cancelled result");
  expect(r).toMatchObject({ id: "c9", result: { status: "error", error: { code: "CANCELLED" } } });
});

test("malformed and oversized frames get an error frame; the page keeps serving", async () => {
  const ws = await welcomed();
  const { catalog } = ws.of("tools")[0];
  ws.push("{not json");
  ws.push("[1,2]");
  ws.onmessage({ data: new ArrayBuffer(4) });
  ws.push(JSON.stringify({ type: "call", id: "big", catalog, name: "x", input: { s: "x".repeat(4 << 20) } }));
  ws.push({ type: "call", id: "bad", catalog: "one", name: "x" });
  ws.push({ type: "call", id: "bad2", catalog, name: "view_devices_table_readState", input: [1] });
  await tick();
  const errors = ws.of("error").map((e) => e.message);
  expect(errors).toHaveLength(6);
  expect(errors[0]).toMatch(/not JSON/);
  expect(errors[1]).toMatch(/not a JSON object/);
  expect(errors[2]).toMatch(/binary/);
  expect(errors[3]).toMatch(/limit 4194304/);
  expect(errors[4]).toMatch(/numeric catalog/);
  expect(errors[5]).toMatch(/input must be an object/);
  ws.push({ type: "call", id: "ok", catalog, name: "view_devices_table_readState", input: {}, invocationId: "i-ok" });
  await until(() => ws.of("result").length === 1, "a call after the garbage");
  expect(ws.of("result")[0].result.status).toBe("ok");
});

test("a surface change publishes a new catalog; a call on the old one is refused by the engine", async () => {
  const ws = await welcomed();
  const old = ws.of("tools")[0].catalog;
  table.unregister();
  await until(() => ws.of("tools").length === 2, "the new catalog");
  const next = ws.of("tools")[1];
  expect(next.catalog).not.toBe(old);
  expect(next.tools).toEqual([]);
  ws.push({ type: "call", id: "c1", catalog: old, name: "view_devices_table_readState", input: {}, invocationId: "i1" });
  await until(() => ws.of("result").length, "the result");
  expect(["STALE_CAPABILITY", "COMPONENT_UNMOUNTED"]).toContain(ws.of("result")[0].result.error.code);
  // A catalog the page no longer keeps: stale, said by the page.
  ws.push({ type: "call", id: "c2", catalog: 987654, name: "view_devices_table_readState", input: {}, invocationId: "i2" });
  await until(() => ws.of("result").length === 2, "the second result");
  expect(ws.of("result")[1].result.error.code).toBe("STALE_CAPABILITY");
});

test("a refusal (4401) stops; a dropped socket reconnects and says hello again; close() closes", async () => {
  const statuses = [];
  let ws = connect({ onStatus: (s) => statuses.push(s) });
  ws.accept();
  ws.drop(4401, "wrong token");
  await tick(300);
  expect(FakeSocket.all).toHaveLength(1);
  expect(bridge.status).toBe("refused");
  bridge.close();

  ws = connect({ onStatus: (s) => statuses.push(s) });
  ws.accept();
  ws.push({ type: "welcome", protocol: 1, page: "p1" });
  ws.drop(1006);
  expect(bridge.status).toBe("reconnecting");
  await until(() => FakeSocket.all.length === 3, "a new socket");
  const again = FakeSocket.all[2];
  again.accept();
  expect(again.sent[0]).toMatchObject({ type: "hello", token: TOKEN });
  again.push({ type: "welcome", protocol: 1, page: "p2" });
  await until(() => again.of("tools").length, "tools on the new socket");
  expect(bridge.page).toBe("p2");
  bridge.close();
  expect(again.closedWith).toEqual({ code: 1000, reason: "closed by the page" });
  expect(bridge.status).toBe("closed");
  expect(statuses).toEqual(["refused", "closed", "connected", "reconnecting", "connected", "closed"]);
});
