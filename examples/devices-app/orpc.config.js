// The page's procedure contracts from the server's oRPC contract router (server/contract.js):
// `npx agent-surface-orpc orpc.config.js` writes src/domain/procedures.ts; `--check` (npm test)
// fails when it no longer matches the server's schemas.
import { defineORPCContracts } from "@agent-surface/orpc/contracts";
import { devicesContract } from "./server/contract.js";

export default defineORPCContracts({
  router: devicesContract,
  output: "src/domain/procedures.ts",
  procedures: {
    "devices.decommission": {
      exportName: "decommissionDevices",
      effect: "destructive",
      audit: "full",
      policies: [{ name: "role", requires: "admin" }],
    },
  },
});
