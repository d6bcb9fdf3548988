// expect: AS0102
import { actionContract, defineAgentComponentContract, fromJsonSchema } from "@agent-surface/core";

export const chatComposerContract = defineAgentComponentContract({
  type: "chat.composer",
  description: "The message box of the open conversation.",
  actions: {
    "insert-emoji": actionContract({
      description: "Insert an emoji at the cursor.",
      input: fromJsonSchema({
        type: "object",
        properties: { shortcode: { type: "string", pattern: "^:[a-z0-9_+-]+:$" } },
        required: ["shortcode"],
        additionalProperties: false,
      }),
      effect: "local-state",
    }),
  },
});
