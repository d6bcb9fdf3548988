// expect: AS0023
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";

export const snoozeAlert = defineAgentProcedureContract({
  id: "domain:alerts.snooze",
  description: "Snooze an alert for some minutes.",
  input: fromJsonSchema(
    { type: "object", properties: { minutes: { type: "integer", minimum: 1, maximum: 1440 } }, required: ["minutes"] },
    { strict: true },
  ),
  effect: "mutation",
});
