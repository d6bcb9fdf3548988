// expect: AS0011
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";
import { ProjectReference } from "./schemas";

export const archiveProject = defineAgentProcedureContract({
  id: "domain:projects.archive",
  description: "Archive a project; it becomes read-only.",
  input: fromJsonSchema({
    type: "object",
    properties: { project: ProjectReference },
    required: ["project"],
    additionalProperties: false,
  }),
  effect: "mutation",
});
