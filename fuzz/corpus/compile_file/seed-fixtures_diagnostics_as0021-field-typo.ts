// expect: AS0021
import { defineAgentComponentContract } from "@agent-surface/core";

export const mapContract = defineAgentComponentContract({
  type: "maps.viewport",
  description: "The interactive map showing store locations.",
  tag: ["maps"],
});
