// expect: AS0020
import { actionContract, defineAgentComponentContract, emptyObjectSchema } from "@agent-surface/core";

export const sidebarContract = defineAgentComponentContract({
  type: "app.sidebar",
  description: "The collapsible navigation sidebar.",
  actions: {
    collapse: actionContract({
      description: "Collapse the sidebar to icons only.",
      input: emptyObjectSchema,
      effect: "local_state",
    }),
  },
});
