// expect: AS0011
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";

const CUSTOMER_ID = { type: "string", pattern: "^cus_[A-Za-z0-9]{14}$" } as const;

export const mergeCustomers = defineAgentProcedureContract({
  id: "domain:crm.mergeCustomers",
  description: "Merge two customer records; the second is archived.",
  input: fromJsonSchema({
    type: "object",
    properties: { keep: CUSTOMER_ID, archive: CUSTOMER_IDS },
    required: ["keep", "archive"],
    additionalProperties: false,
  }),
  effect: "mutation",
});
