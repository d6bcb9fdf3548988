// expect: AS0022
import { actionContract, defineAgentComponentContract, fromJsonSchema } from "@agent-surface/core";

export const themeToggleContract = defineAgentComponentContract({
  type: "app.themeToggle",
  description: "Switch between light and dark theme.",
  actions: {
    setTheme: actionContract({
      description: "Use the given colour theme.",
      input: fromJsonSchema({
        type: "object",
        properties: { theme: { enum: ["light", "dark", "system"] } },
        required: ["theme"],
        additionalProperties: false,
      }),
    }),
  },
});
