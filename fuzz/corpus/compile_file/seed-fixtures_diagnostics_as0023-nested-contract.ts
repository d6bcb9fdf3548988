// expect: AS0023
import { defineAgentComponentContract, defineAgentProcedureContract, emptyObjectSchema } from "@agent-surface/core";

export const toolbarContract = defineAgentComponentContract({
  type: "editor.toolbar",
  description: "Formatting toolbar of the document editor.",
  meta: {
    save: defineAgentProcedureContract({
      id: "domain:docs.save",
      description: "Save the document.",
      input: emptyObjectSchema,
      effect: "mutation",
    }),
  },
});
