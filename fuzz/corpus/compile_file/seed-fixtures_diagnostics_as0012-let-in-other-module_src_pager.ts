// expect: AS0012
import { actionContract, defineAgentComponentContract, fromJsonSchema } from "@agent-surface/core";
import { MAX_PAGE, PAGE_SIZE } from "./limits";

export const pagerContract = defineAgentComponentContract({
  type: "list.pager",
  description: "Pagination controls below the results list.",
  actions: {
    goToPage: actionContract({
      description: `Jump to a page of ${PAGE_SIZE} results.`,
      input: fromJsonSchema({
        type: "object",
        properties: { page: { type: "integer", minimum: 1, maximum: MAX_PAGE } },
        required: ["page"],
        additionalProperties: false,
      }),
      effect: "navigation",
    }),
  },
});
