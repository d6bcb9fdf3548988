// expect: AS0204
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";

export const createShipment = defineAgentProcedureContract({
  id: "domain:shipping.createShipment",
  description: "Create a shipment from a sender to a recipient address.",
  input: fromJsonSchema({
    type: "object",
    properties: {
      from: { $ref: "#/$defs/address" },
      to: { $ref: "#/$defs/adress" },
    },
    required: ["from", "to"],
    additionalProperties: false,
    $defs: {
      address: {
        type: "object",
        properties: { street: { type: "string" }, city: { type: "string" }, zip: { type: "string" } },
        required: ["street", "city", "zip"],
      },
    },
  }),
  effect: "mutation",
});
