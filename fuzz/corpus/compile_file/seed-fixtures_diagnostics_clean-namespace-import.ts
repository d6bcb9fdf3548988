// expect: clean
import * as as from "@agent-surface/core";

export const toastContract = as.defineAgentComponentContract({
  type: "app.toasts",
  description: "Transient notifications in the bottom corner.",
  observations: {
    visible: as.observationContract({
      description: "Messages currently shown.",
      output: as.fromJsonSchema({
        type: "object",
        properties: { messages: { type: "array", items: { type: "string" }, maxItems: 5 } },
        required: ["messages"],
      }),
    }),
  },
  actions: {
    dismissAll: as.actionContract({ description: "Dismiss every message.", input: as.emptyObjectSchema, effect: "local-state" }),
  },
});

export const pingService = as.defineExternalAgentToolContract({
  id: "external:status.ping",
  description: "Check whether the status service answers.",
  input: as.emptyObjectSchema,
  effect: "read",
});
