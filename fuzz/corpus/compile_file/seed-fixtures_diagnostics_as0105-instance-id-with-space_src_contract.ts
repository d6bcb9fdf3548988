import { actionContract, defineAgentComponentContract, emptyObjectSchema } from "@agent-surface/core";

export const splitPaneContract = defineAgentComponentContract({
  type: "layout.splitPane",
  description: "A resizable pane of the split editor.",
  actions: {
    maximize: actionContract({ description: "Give this pane the full width.", input: emptyObjectSchema, effect: "local-state" }),
  },
});
