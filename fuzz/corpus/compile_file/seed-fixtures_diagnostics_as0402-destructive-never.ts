// expect: AS0402
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";

export const purgeTrash = defineAgentProcedureContract({
  id: "domain:drive.purgeTrash",
  description: "Permanently delete everything in the trash.",
  input: fromJsonSchema({
    type: "object",
    properties: { olderThanDays: { type: "integer", minimum: 0 } },
    additionalProperties: false,
  }),
  effect: "destructive",
  confirmation: "never",
});
