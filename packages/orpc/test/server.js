// A real oRPC server on loopback (node:http and oRPC's own node adapter, RPCHandler mounted at
// /rpc), in 1.16.1 or 2.0.0-beta (the npm aliases @orpc/server-v2, @orpc/contract-v2), serving
// the devices router of test/app/contract.js: the contract router implemented with `implement`.
// What each procedure saw is recorded, so the tests assert what reached the server.
import { createServer } from "node:http";
import * as v1 from "@orpc/server";
import * as v1node from "@orpc/server/node";
import * as v2 from "@orpc/server-v2";
import * as v2node from "@orpc/server-v2/node";
import { devicesContract as contractV1 } from "./app/contract.js";
import { devicesContract as contractV2 } from "./app/contract-v2.js";

const VERSIONS = {
  1: { server: v1, node: v1node, contract: contractV1 },
  2: { server: v2, node: v2node, contract: contractV2 },
};

/**
 * Starts the devices server of oRPC `major` (1 or 2) on 127.0.0.1 (a free port). Its state:
 * `devices` (the fleet), `runs` (how often each procedure's body ran), `seen` (each request's
 * idempotency key, path and input), `aborted` (the procedures whose request signal aborted).
 */
export async function startDevicesServer(major) {
  const { server: orpc, node, contract } = VERSIONS[major];
  const { ORPCError, implement } = orpc;
  const state = {
    devices: new Set(["dev_cam001", "dev_cam002", "dev_pr1nt1", "dev_pr1nt2"]),
    runs: { decommission: 0, reboot: 0, slow: 0 },
    seen: [],
    aborted: [],
    /** decommission answers by idempotency key: a repeated delivery runs nothing. */
    results: new Map(),
  };
  const os = implement(contract).$context();
  const record = (name) => ({ context, input, path }) =>
    state.seen.push({ name, key: context.headers["idempotency-key"], path, input, auth: context.headers.authorization, invocation: context.headers["x-invocation-id"] });

  const router = os.router({
    devices: {
      decommission: os.devices.decommission.handler(({ input, context, path }) => {
        record("decommission")({ context, input, path });
        const key = context.headers["idempotency-key"];
        if (typeof key === "string" && state.results.has(key)) return state.results.get(key);
        const unknown = input.ids.filter((id) => !state.devices.has(id));
        if (unknown.length > 0) {
          // A defined error would carry its data to the client; the message is the server's own.
          throw new ORPCError("NOT_FOUND", { message: `secret: no such devices in tenant acme-internal: ${unknown.join(",")}`, data: { unknown } });
        }
        state.runs.decommission += 1;
        for (const id of input.ids) state.devices.delete(id);
        if (typeof key === "string") state.results.set(key, undefined);
        return undefined;
      }),
      reboot: os.devices.reboot.handler(({ input, context, path }) => {
        record("reboot")({ context, input, path });
        state.runs.reboot += 1;
        return { scheduled: input.ids.length };
      }),
      status: os.devices.status.handler(({ input }) => ({ id: input.id, online: state.devices.has(input.id), note: null, tags: ["a", "b"] })),
      lastSeen: os.devices.lastSeen.handler(({ input }) => ({ id: input.id, at: new Date("2026-01-02T03:04:05.000Z") })),
      counts: os.devices.counts.handler(() => ({ total: 4n })),
      sparse: os.devices.sparse.handler(() => ({ list: [1, undefined, 3] })),
      crash: os.devices.crash.handler(() => {
        throw new Error("secret: database password hunter2 rejected");
      }),
      conflict: os.devices.conflict.handler(({ errors }) => {
        throw errors.BUSY({ message: "secret: locked by admin@acme-internal", data: { retryAfter: 30 } });
      }),
      firmware: os.devices.firmware.handler(() => new File(["\x7fELF..."], "firmware.bin", { type: "application/octet-stream" })),
      watch: os.devices.watch.handler(async function* () {
        yield { id: "dev_cam001" };
      }),
      slow: os.devices.slow.handler(async ({ signal }) => {
        state.runs.slow += 1;
        await new Promise((resolve) => {
          const t = setTimeout(resolve, 10_000);
          signal?.addEventListener("abort", () => {
            clearTimeout(t);
            state.aborted.push("slow");
            resolve();
          });
        });
        return { done: true };
      }),
    },
  });

  const handler = new node.RPCHandler(router);
  const http = createServer(async (req, res) => {
    const { matched } = await handler.handle(req, res, { prefix: "/rpc", context: { headers: req.headers } });
    if (!matched) {
      res.statusCode = 404;
      res.end("not an oRPC route");
    }
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${http.address().port}/rpc`;
  return {
    url,
    state,
    router,
    close: () => new Promise((resolve) => {
      http.closeAllConnections();
      http.close(resolve);
    }),
  };
}
