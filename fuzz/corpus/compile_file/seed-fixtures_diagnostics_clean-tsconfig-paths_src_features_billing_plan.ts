// expect: clean
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";
import { MAX_SEATS } from "@shared/limits";
import { PlanId } from "~schemas";

export const changePlan = defineAgentProcedureContract({
  id: "domain:billing.changePlan",
  description: "Move the workspace to another plan; billed pro rata.",
  input: fromJsonSchema({
    type: "object",
    properties: { plan: PlanId, seats: { type: "integer", minimum: 1, maximum: MAX_SEATS } },
    required: ["plan"],
    additionalProperties: false,
  }),
  effect: "mutation",
  confirmation: "required",
});
