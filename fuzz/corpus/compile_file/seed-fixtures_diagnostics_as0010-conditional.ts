// expect: AS0010
import { defineAgentComponentContract } from "@agent-surface/core";

const isProduction = process.env.NODE_ENV === "production";

export const debugPanelContract = defineAgentComponentContract({
  type: "dev.debugPanel",
  description: "Developer panel with feature flags and request logs.",
  priority: isProduction ? -10 : 5,
});
