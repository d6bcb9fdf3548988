// expect: AS0010
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";

export const lookupInvoice = defineAgentProcedureContract({
  id: "domain:billing.lookupInvoice",
  description: "Find an invoice by its number.",
  input: fromJsonSchema({
    type: "object",
    properties: { number: { type: "string", pattern: /^INV-\d{6}$/ } },
    required: ["number"],
    additionalProperties: false,
  }),
  effect: "read",
});
