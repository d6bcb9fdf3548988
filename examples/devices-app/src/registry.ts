/// <reference types="@agent-surface/vite/client" />
import { createAgentExposureGateway, createAgentSurfaceRegistry, createAgentToolset } from "@agent-surface/core";
import { createORPCProcedureExecutor } from "@agent-surface/orpc";
import authority from "virtual:agent-surface/authority";
import { ran } from "./runs";

// One registry for the page, from the compiler's verified authority.
export const registry = createAgentSurfaceRegistry({ authority, environment: import.meta.env.DEV ? "development" : "production" });

// The assistant's toolset: embedded, so a confirmation waits for the page's dialog
// (confirmations: "wait"); the model never sees CONFIRMATION_REQUIRED and cannot approve.
export const toolset = createAgentToolset(registry, {
  consumer: { id: "assistant", kind: "embedded" },
  topology: "embedded",
});

// External tools (here: the report export) go through the exposure gateway, under the same
// authority: only tools this manifest compiled are exposed.
export const gateway = createAgentExposureGateway(authority);

// Domain procedures bound without `execute` (domain:devices.decommission) go to the app's oRPC
// server, RPCHandler at /rpc (server/devices.js: in the test harness and the Vite dev server),
// after the whole pipeline ran here (policies, the confirmation dialog, admission). The page
// learns of a decommission once the server acknowledged it.
const orpc = createORPCProcedureExecutor({ url: new URL("/rpc", location.origin) });
const decommissionListeners = new Set<(ids: string[]) => void>();
registry.setProcedureExecutor({
  async execute(call) {
    const output = await orpc.execute(call);
    if (call.procedureId === "domain:devices.decommission") {
      const { ids } = call.input as { ids: string[] };
      ran("decommission", ids.join(","));
      for (const l of decommissionListeners) l(ids);
    }
    return output;
  },
});

/** Called with the ids of each decommission the server acknowledged. */
export function onDecommissioned(listener: (ids: string[]) => void): () => void {
  decommissionListeners.add(listener);
  return () => {
    decommissionListeners.delete(listener);
  };
}
