// src/counter.ts
import { actionContract, defineAgentComponentContract, fromJsonSchema, observationContract } from "@agent-surface/core";

const Value = fromJsonSchema({
  type: "object",
  properties: { value: { type: "integer" } },
  required: ["value"],
  additionalProperties: false,
});

export const counterContract = defineAgentComponentContract({
  type: "demo.counter",
  description: "A counter on the page",
  observations: {
    value: observationContract({ description: "The current value", output: Value }),
  },
  actions: {
    increment: actionContract({
      description: "Adds to the counter",
      input: fromJsonSchema({
        type: "object",
        properties: { by: { type: "integer", minimum: 1, maximum: 10, default: 1 } },
        additionalProperties: false,
      }),
      output: Value,
      effect: "local-state",
    }),
  },
});
