import { defineAgentProcedureContract as defineProcedure, fromJsonSchema, fromStandardSchema } from "@agent-surface/core";
import * as z from "zod";
import { DEVICE_ID } from "../schemas";
import { RebootInput } from "../schemas/zod";

const DeviceIdsInput = fromJsonSchema({
  type: "object",
  properties: { ids: { type: "array", items: DEVICE_ID, minItems: 1, maxItems: 50 } },
  required: ["ids"],
  additionalProperties: false,
});

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

export const decommissionDevices = defineProcedure({
  id: "domain:devices.decommission",
  description: "Permanently remove devices from management. Cannot be undone.",
  input: DeviceIdsInput,
  effect: "destructive",
  audit: "full",
  policies: [{ name: "role", requires: "admin" }],
});
