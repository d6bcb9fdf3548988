// expect: AS0202
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";

export const setLabels = defineAgentProcedureContract({
  id: "domain:deployments.setLabels",
  description: "Replace the labels of a deployment.",
  input: fromJsonSchema({
    type: "object",
    properties: {
      deploymentId: { type: "string" },
      labels: { type: "object", additionalProperties: { type: "string" } },
    },
    required: ["deploymentId", "labels"],
    additionalProperties: false,
  }),
  effect: "mutation",
});
