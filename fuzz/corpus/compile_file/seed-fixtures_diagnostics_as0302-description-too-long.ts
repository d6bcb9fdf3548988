// expect: AS0302
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";

export const exportLedger = defineAgentProcedureContract({
  id: "domain:accounting.exportLedger",
  description:
    "Export the general ledger for a period. The export contains every journal entry with its " +
    "account, counter-account, amount, currency, tax code and the user who booked it. Entries " +
    "still in draft are left out. Closed periods export instantly; open periods are recomputed " +
    "first, which can take several minutes for large companies. The file is kept for 30 days.",
  input: fromJsonSchema({
    type: "object",
    properties: { from: { type: "string", format: "date" }, to: { type: "string", format: "date" } },
    required: ["from", "to"],
    additionalProperties: false,
  }),
  effect: "read",
});
