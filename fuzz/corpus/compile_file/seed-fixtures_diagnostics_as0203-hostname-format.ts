// expect: AS0203
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";

export const addCustomDomain = defineAgentProcedureContract({
  id: "domain:sites.addCustomDomain",
  description: "Attach a custom domain to a site.",
  input: fromJsonSchema({
    type: "object",
    properties: { siteId: { type: "string" }, hostname: { type: "string", format: "hostname" } },
    required: ["siteId", "hostname"],
    additionalProperties: false,
  }),
  effect: "mutation",
});
