// expect: AS0101
import { defineAgentComponentContract } from "@agent-surface/core";

const AREA = "billing";

export const invoiceListContract = defineAgentComponentContract({
  type: `${AREA}/invoices`,
  description: "The list of invoices of the current account.",
});
