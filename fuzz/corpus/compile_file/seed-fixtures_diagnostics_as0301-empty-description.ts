// expect: AS0301
import { actionContract, defineAgentComponentContract, emptyObjectSchema } from "@agent-surface/core";

export const modalContract = defineAgentComponentContract({
  type: "app.modal",
  description: "The modal dialog currently open, if any.",
  actions: {
    close: actionContract({
      description: "",
      input: emptyObjectSchema,
      effect: "local-state",
    }),
  },
});
