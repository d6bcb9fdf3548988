// expect: AS0401
import { actionContract, defineAgentComponentContract, fromJsonSchema } from "@agent-surface/core";

export const commentListContract = defineAgentComponentContract({
  type: "docs.comments",
  description: "Comments in the margin of the open document.",
  actions: {
    deleteComment: actionContract({
      description: "Delete a comment.",
      input: fromJsonSchema({
        type: "object",
        properties: { commentId: { type: "string" } },
        required: ["commentId"],
        additionalProperties: false,
      }),
      effect: "destructive",
    }),
  },
});
