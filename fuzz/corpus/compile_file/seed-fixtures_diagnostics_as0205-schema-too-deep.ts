// expect: AS0205
import { defineAgentComponentContract, fromJsonSchema, observationContract } from "@agent-surface/core";

// org → departments → teams → members → roles
export const orgChartContract = defineAgentComponentContract({
  type: "org.chart",
  description: "The organisation chart.",
  observations: {
    readTree: observationContract({
      description: "The whole organisation tree.",
      output: fromJsonSchema({
        type: "object",
        properties: {
          departments: {
            type: "array",
            items: {
              type: "object",
              properties: {
                teams: {
                  type: "array",
                  items: {
                    type: "object",
                    properties: {
                      members: {
                        type: "array",
                        items: {
                          type: "object",
                          properties: { name: { type: "string" }, roles: { type: "array", items: { type: "string" } } },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      }),
    }),
  },
});
