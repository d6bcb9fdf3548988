// docs/react.md's example, quoted there verbatim below this comment (test/docs.test.tsx checks
// the quote and runs the page and the agent).
import {
  actionContract,
  defineAgentComponentContract,
  defineAgentProcedureContract,
  emptyObjectSchema,
  fromJsonSchema,
  observationContract,
} from "@agent-surface/core";

const Count = fromJsonSchema<{ value: number }>({
  type: "object",
  properties: { value: { type: "integer" } },
  required: ["value"],
  additionalProperties: false,
});

export const counter = defineAgentComponentContract({
  type: "shop.cart.counter",
  description: "How many items are in the cart",
  observations: {
    count: observationContract({ description: "The current number of items", output: Count }),
  },
  actions: {
    add: actionContract({
      description: "Adds items to the cart",
      input: fromJsonSchema<{ by: number }>({
        type: "object",
        properties: { by: { type: "integer", minimum: 1, maximum: 10 } },
        required: ["by"],
        additionalProperties: false,
      }),
      output: Count,
      effect: "local-state",
    }),
  },
});

export const emptyCart = defineAgentProcedureContract({
  id: "domain:shop.cart.empty",
  description: "Empties the cart",
  input: emptyObjectSchema,
  effect: "destructive", // confirmation is required by default
});
