// expect: AS0207
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";

export const applyCoupon = defineAgentProcedureContract({
  id: "domain:checkout.applyCoupon",
  description: "Apply a coupon code to the current cart.",
  input: fromJsonSchema({
    type: "object",
    properties: { code: { type: "string", pattern: "^[A-Z0-9{4,12}$" } },
    required: ["code"],
    additionalProperties: false,
  }),
  effect: "mutation",
});
