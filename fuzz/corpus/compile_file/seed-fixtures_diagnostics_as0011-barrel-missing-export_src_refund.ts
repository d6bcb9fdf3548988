// expect: AS0011
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";
import { Amount, CurrencyCode } from "./schemas";

export const refundPayment = defineAgentProcedureContract({
  id: "domain:payments.refund",
  description: "Refund part or all of a captured payment.",
  input: fromJsonSchema({
    type: "object",
    properties: { paymentId: { type: "string" }, amount: Amount, currency: CurrencyCode },
    required: ["paymentId", "amount", "currency"],
    additionalProperties: false,
  }),
  effect: "mutation",
  confirmation: "required",
});
