// expect: AS0022
import { defineAgentComponentContract } from "@agent-surface/core";

export const breadcrumbsContract = defineAgentComponentContract({
  description: "Breadcrumb trail of the current page.",
  tags: ["navigation"],
});
