// expect: AS0503
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";

const InvoiceRef = fromJsonSchema({
  type: "object",
  properties: { invoiceId: { type: "string" } },
  required: ["invoiceId"],
  additionalProperties: false,
});

export const sendInvoice = defineAgentProcedureContract({
  id: "domain:billing.sendInvoice",
  description: "Email an invoice to the customer's billing contact.",
  input: InvoiceRef,
  effect: "external-side-effect",
});

export const voidInvoice = defineAgentProcedureContract({
  id: "domain:billing.sendInvoice",
  description: "Void an invoice; it stays visible but cannot be paid.",
  input: InvoiceRef,
  effect: "destructive",
});
