// expect: AS0502
import { actionContract, defineAgentComponentContract, fromJsonSchema, observationContract } from "@agent-surface/core";

const Zoom = fromJsonSchema({
  type: "object",
  properties: { percent: { type: "integer", minimum: 10, maximum: 400 } },
  required: ["percent"],
  additionalProperties: false,
});

export const pdfViewerContract = defineAgentComponentContract({
  type: "docs.pdfViewer",
  description: "The PDF viewer of the open attachment.",
  observations: {
    zoom: observationContract({ description: "The current zoom level.", output: Zoom }),
  },
  actions: {
    zoom: actionContract({ description: "Set the zoom level.", input: Zoom, effect: "local-state" }),
  },
});
