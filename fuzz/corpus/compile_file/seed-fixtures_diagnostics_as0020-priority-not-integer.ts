// expect: AS0020
import { defineAgentComponentContract } from "@agent-surface/core";

export const searchBarContract = defineAgentComponentContract({
  type: "app.searchBar",
  description: "The global search box in the header.",
  priority: 2.5,
});
