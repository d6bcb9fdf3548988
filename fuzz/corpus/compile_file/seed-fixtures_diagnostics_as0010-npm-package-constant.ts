// expect: AS0010
import { actionContract, defineAgentComponentContract, fromJsonSchema } from "@agent-surface/core";
import { ORDER_STATUSES } from "@acme/order-model";

export const ordersFilterContract = defineAgentComponentContract({
  type: "orders.filter",
  description: "Filter controls above the orders list.",
  actions: {
    filterByStatus: actionContract({
      description: "Show only orders with the given status.",
      input: fromJsonSchema({
        type: "object",
        properties: { status: { enum: ORDER_STATUSES } },
        required: ["status"],
        additionalProperties: false,
      }),
      effect: "local-state",
    }),
  },
});
