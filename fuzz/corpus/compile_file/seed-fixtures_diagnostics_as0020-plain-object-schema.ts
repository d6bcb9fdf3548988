// expect: AS0020
import { defineAgentProcedureContract } from "@agent-surface/core";

export const renameFolder = defineAgentProcedureContract({
  id: "domain:drive.renameFolder",
  description: "Rename a folder in the shared drive.",
  input: {
    type: "object",
    properties: { folderId: { type: "string" }, name: { type: "string", minLength: 1, maxLength: 255 } },
    required: ["folderId", "name"],
    additionalProperties: false,
  },
  effect: "mutation",
});
