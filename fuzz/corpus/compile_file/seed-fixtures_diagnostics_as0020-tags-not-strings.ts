// expect: AS0020
import { defineAgentComponentContract } from "@agent-surface/core";

const RELEASE = 3;

export const changelogContract = defineAgentComponentContract({
  type: "app.changelog",
  description: "The \"What's new\" dialog listing recent changes.",
  tags: ["help", RELEASE],
});
