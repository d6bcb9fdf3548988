// expect: AS0401
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";

export const openSettings = defineAgentProcedureContract({
  id: "domain:settings.open",
  description: "Open the settings page at a section.",
  input: fromJsonSchema({
    type: "object",
    properties: { section: { enum: ["profile", "security", "billing"] } },
    required: ["section"],
    additionalProperties: false,
  }),
  effect: "navigation",
});
