// expect: AS0101
import { defineAgentComponentContract } from "@agent-surface/core";

export const kanbanContract = defineAgentComponentContract({
  type: "projects.kanbanBoard.Column",
  description: "One column of the project kanban board.",
});
