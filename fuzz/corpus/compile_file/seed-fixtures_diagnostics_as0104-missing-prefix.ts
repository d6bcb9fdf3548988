// expect: AS0104
import { defineExternalAgentToolContract, fromJsonSchema } from "@agent-surface/core";

export const createJiraIssue = defineExternalAgentToolContract({
  id: "jira.createIssue",
  description: "Create an issue in the team's Jira project.",
  input: fromJsonSchema({
    type: "object",
    properties: { summary: { type: "string", maxLength: 255 }, body: { type: "string" } },
    required: ["summary"],
    additionalProperties: false,
  }),
  effect: "external-side-effect",
});
