// expect: AS0011
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";
import { TicketPriority } from "./schemas/tickets";

export const escalateTicket = defineAgentProcedureContract({
  id: "domain:support.escalateTicket",
  description: "Raise the priority of a support ticket.",
  input: fromJsonSchema({
    type: "object",
    properties: { ticketId: { type: "string" }, priority: TicketPriority },
    required: ["ticketId", "priority"],
    additionalProperties: false,
  }),
  effect: "mutation",
});
