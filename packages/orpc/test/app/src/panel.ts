// The fixture page's component: a devices panel whose three procedures are the oRPC server's
// (./procedures.ts, generated from ../contract.js by ../orpc.config.js). Compiled by the
// agent-surface compiler into ../agent-surface.manifest.json (committed; test/app.test.js checks
// it is current).
import { defineAgentComponentContract, fromJsonSchema, observationContract } from "@agent-surface/core";

export const devicesPanelContract = defineAgentComponentContract({
  type: "devices.panel",
  description: "The devices panel: the devices the user manages, by id.",
  observations: {
    readDevices: observationContract({
      description: "The ids of the devices shown.",
      output: fromJsonSchema({
        type: "object",
        properties: { ids: { type: "array", items: { type: "string" }, maxItems: 100 } },
        required: ["ids"],
        additionalProperties: false,
      }),
    }),
  },
});
