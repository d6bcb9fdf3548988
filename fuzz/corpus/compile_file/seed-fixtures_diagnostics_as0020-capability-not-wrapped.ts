// expect: AS0020
import { defineAgentComponentContract, fromJsonSchema } from "@agent-surface/core";

export const playerContract = defineAgentComponentContract({
  type: "media.player",
  description: "The audio player docked at the bottom of the page.",
  observations: {
    nowPlaying: {
      description: "The track currently playing and its position.",
      output: fromJsonSchema({
        type: "object",
        properties: { title: { type: "string" }, positionSec: { type: "number", minimum: 0 } },
        required: ["title", "positionSec"],
        additionalProperties: false,
      }),
    },
  },
});
