// expect: AS0204
import { defineExternalAgentToolContract, fromJsonSchema } from "@agent-surface/core";

export const createCalendarEvent = defineExternalAgentToolContract({
  id: "external:gcal.createEvent",
  description: "Create an event in the user's Google Calendar.",
  input: fromJsonSchema({
    type: "object",
    properties: {
      title: { type: "string" },
      attendees: { type: "array", items: { $ref: "https://schemas.example.com/attendee.json" } },
    },
    required: ["title"],
    additionalProperties: false,
  }),
  effect: "external-side-effect",
});
