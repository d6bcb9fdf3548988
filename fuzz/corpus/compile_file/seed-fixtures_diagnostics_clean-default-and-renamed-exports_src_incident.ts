// expect: clean
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";
import Priority from "./schemas/priority";
import { IncidentPriority, ServiceRef } from "./schemas";

export default defineAgentProcedureContract({
  id: "domain:oncall.openIncident",
  description: "Open an incident and page the on-call engineer.",
  input: fromJsonSchema({
    type: "object",
    properties: { service: ServiceRef, priority: IncidentPriority, initialPriority: Priority },
    required: ["service", "priority"],
    additionalProperties: false,
  }),
  effect: "external-side-effect",
});
