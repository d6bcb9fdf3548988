// expect: clean
import { actionContract, defineAgentComponentContract, fromJsonSchema } from "@agent-surface/core";
import * as schemas from "./schemas";
import { DistanceUnit } from "./schemas";

export const storeMapContract = defineAgentComponentContract({
  type: "stores.map",
  description: "Map of nearby stores.",
  actions: {
    centerOn: actionContract({
      description: "Center the map on a point.",
      input: fromJsonSchema({
        type: "object",
        properties: { point: schemas.LatLng, radius: { type: "number", minimum: 0 }, unit: DistanceUnit },
        required: ["point"],
        additionalProperties: false,
      }),
      effect: "local-state",
    }),
  },
});
