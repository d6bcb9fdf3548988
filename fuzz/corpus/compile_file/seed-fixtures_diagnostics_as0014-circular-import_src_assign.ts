// expect: AS0014
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";
import { Person } from "./person";

export const assignOwner = defineAgentProcedureContract({
  id: "domain:org.assignOwner",
  description: "Make a person the owner of a repository.",
  input: fromJsonSchema({
    type: "object",
    properties: { repo: { type: "string" }, owner: Person },
    required: ["repo", "owner"],
    additionalProperties: false,
  }),
  effect: "mutation",
});
