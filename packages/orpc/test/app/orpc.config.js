// The page's procedure contracts from the devices contract router (oRPC 1.16.1): which
// procedures an agent may reach, and their governance. `agent-surface-orpc orpc.config.js`
// writes src/procedures.ts; `--check` fails when it no longer matches the router.
import { defineORPCContracts } from "@agent-surface/orpc/contracts";
import { devicesContract } from "./contract.js";

export default defineORPCContracts({
  router: devicesContract,
  output: "src/procedures.ts",
  procedures: {
    "devices.decommission": {
      description: "Permanently remove devices from management. Cannot be undone.",
      effect: "destructive",
      audit: "full",
      tags: ["devices"],
    },
    "devices.reboot": {
      description: "Reboot devices. They are offline for about a minute.",
      effect: "mutation",
      tags: ["devices"],
    },
    "devices.status": {
      description: "Whether a device is online, with its note and tags.",
      effect: "read",
    },
    "devices.slow": {
      description: "A slow diagnostic (the server waits until the request is aborted).",
      effect: "read",
    },
  },
});
