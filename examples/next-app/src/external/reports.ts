import { defineExternalAgentToolContract, fromJsonSchema, fromStandardSchema } from "@agent-surface/core";
import { z } from "zod";
import { reportFormats } from "@/schemas";
import { ExportJob } from "@/schemas/zod";

export const exportReport = defineExternalAgentToolContract({
  id: "external:reports.export",
  description: "Export the devices report and email it to the signed-in user.",
  input: fromJsonSchema({
    type: "object",
    properties: {
      format: { enum: [...reportFormats], default: "csv" },
      since: { type: "string", format: "date" },
    },
    additionalProperties: false,
  }),
  output: fromStandardSchema(ExportJob, { jsonSchema: z.toJSONSchema(ExportJob) }),
  effect: "external-side-effect",
  confirmation: "required",
});
