// The example's devices server: the contract router of ./contract.js implemented with oRPC
// 1.16.1 and served by its node:http adapter (RPCHandler at /rpc). The built page's test server
// (test/e2e.test.js) and the Vite dev server (vite.config.ts) mount it; the page's registry
// forwards domain:devices.decommission here (src/registry.ts, @agent-surface/orpc).
import { implement, ORPCError } from "@orpc/server";
import { RPCHandler } from "@orpc/server/node";
import { devicesContract } from "./contract.js";

/**
 * A fresh devices server: `handle(req, res)` answers /rpc/* (resolving true) and leaves the rest
 * (false); `state` holds what it did: `decommissioned` ids, `runs` (how often decommission
 * really ran) and `keys` (each request's idempotency-key).
 */
export function createDevicesRpc() {
  const state = { decommissioned: new Set(), runs: 0, keys: [], answered: new Map() };
  const os = implement(devicesContract).$context();
  const router = os.router({
    devices: {
      decommission: os.devices.decommission.handler(({ input, context }) => {
        const key = context.headers["idempotency-key"];
        state.keys.push(key);
        // The same invocation delivered again (a retried call): answered from the record.
        if (typeof key === "string" && state.answered.has(key)) return;
        const gone = input.ids.filter((id) => state.decommissioned.has(id));
        if (gone.length > 0) throw new ORPCError("NOT_FOUND", { message: `already decommissioned: ${gone.join(", ")}` });
        state.runs += 1;
        for (const id of input.ids) state.decommissioned.add(id);
        if (typeof key === "string") state.answered.set(key, true);
      }),
    },
  });
  const handler = new RPCHandler(router);
  return {
    state,
    async handle(req, res) {
      const { matched } = await handler.handle(req, res, { prefix: "/rpc", context: { headers: req.headers } });
      return matched;
    },
  };
}
