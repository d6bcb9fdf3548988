import { defineExternalAgentToolContract, fromJsonSchema } from "@agent-surface/core";

// Non-ASCII before the contract: the compiler's byte offsets are not string indices — Zürich, 東京 🚀
export const exportReport = defineExternalAgentToolContract({
  id: "external:reports.export",
  description: "Export the devices report and email it to the signed-in user.",
  input: fromJsonSchema({
    type: "object",
    properties: { format: { enum: ["csv", "pdf"], default: "csv" } },
    additionalProperties: false,
  }),
  effect: "external-side-effect",
  confirmation: "required",
});
