// expect: AS0012
import { actionContract, defineAgentComponentContract, fromJsonSchema } from "@agent-surface/core";

let MAX_UPLOADS = 10;

export const uploaderContract = defineAgentComponentContract({
  type: "files.uploader",
  description: "The drop zone for attaching files to the current document.",
  actions: {
    removeQueued: actionContract({
      description: "Remove files from the upload queue before they are sent.",
      input: fromJsonSchema({
        type: "object",
        properties: { names: { type: "array", items: { type: "string" }, maxItems: MAX_UPLOADS } },
        required: ["names"],
        additionalProperties: false,
      }),
      effect: "local-state",
    }),
  },
});
