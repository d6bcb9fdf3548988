// The devices API's oRPC contract router (@orpc/contract 1.16.1, zod 4 schemas): what the server
// (./devices.js) implements and what ../orpc.config.js turns into the page's procedure contract
// (src/domain/procedures.ts, `npx agent-surface-orpc orpc.config.js`).
import { oc } from "@orpc/contract";
import * as z from "zod";

const DeviceId = z
  .string()
  .regex(/^dev_[a-z0-9]{6,}$/)
  .describe("A device id such as dev_8f3k2a");

export const devicesContract = {
  devices: {
    decommission: oc
      .route({ description: "Permanently remove devices from management. Cannot be undone." })
      .input(z.strictObject({ ids: z.array(DeviceId).min(1).max(50) })),
  },
};
