// expect: AS0202
import { defineAgentComponentContract, fromJsonSchema, observationContract } from "@agent-surface/core";

export const clockContract = defineAgentComponentContract({
  type: "app.clock",
  description: "The clock in the status bar.",
  observations: {
    readTime: observationContract({
      description: "The current time shown.",
      output: fromJsonSchema({
        type: "object",
        properties: { now: { type: "datetime" } },
        required: ["now"],
        additionalProperties: false,
      }),
    }),
  },
});
