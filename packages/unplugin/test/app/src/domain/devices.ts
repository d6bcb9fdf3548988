import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";

interface RebootInput {
  deviceIds: string[];
}

export const rebootDevices = defineAgentProcedureContract({
  id: "domain:devices.reboot",
  description: "Reboot the selected devices.",
  input: fromJsonSchema<RebootInput>({
    type: "object",
    properties: { deviceIds: { type: "array", items: { type: "string" }, minItems: 1 } },
    required: ["deviceIds"],
    additionalProperties: false,
  }),
  effect: "mutation",
  confirmation: "required",
});
