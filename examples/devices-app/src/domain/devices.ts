import { defineAgentProcedureContract as defineProcedure, fromJsonSchema, fromStandardSchema } from "@agent-surface/core";
import * as z from "zod";
import { RebootInput } from "../schemas/zod";

export const rebootDevices = defineProcedure({
  id: "domain:devices.reboot",
  description: "Reboot devices. They are offline for about a minute.",
  input: fromStandardSchema(RebootInput, { jsonSchema: z.toJSONSchema(RebootInput, { io: "input" }) }),
  output: fromJsonSchema({
    type: "object",
    properties: { scheduled: { type: "integer", minimum: 0 } },
    required: ["scheduled"],
    additionalProperties: false,
  }),
  effect: "mutation",
  tags: ["devices"],
});

// domain:devices.decommission is the oRPC server's procedure: its contract is generated from the
// server's contract router (./procedures.ts, `npm run contracts`), and the registry forwards it
// there (../registry.ts).
