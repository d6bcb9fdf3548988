// expect: AS0201
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";

export const scheduleReminder = defineAgentProcedureContract({
  id: "domain:reminders.schedule",
  description: "Schedule a reminder at a time or after a delay.",
  input: fromJsonSchema({
    type: "object",
    properties: {
      text: { type: "string" },
      when: {
        oneOf: [
          { type: "string", format: "date-time" },
          { type: "integer", minimum: 1, description: "minutes from now" },
        ],
      },
    },
    required: ["text", "when"],
    additionalProperties: false,
  }),
  effect: "mutation",
});
