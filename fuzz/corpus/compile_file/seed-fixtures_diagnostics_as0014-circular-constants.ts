// expect: AS0014
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";

// A category tree: each node lists its children... which are nodes.
const CategoryNode = {
  type: "object",
  properties: {
    name: { type: "string" },
    children: { type: "array", items: CategoryNode },
  },
} as const;

export const moveCategory = defineAgentProcedureContract({
  id: "domain:catalog.moveCategory",
  description: "Move a category (with its subtree) under another parent.",
  input: fromJsonSchema({
    type: "object",
    properties: { category: CategoryNode, newParent: { type: "string" } },
    required: ["category", "newParent"],
  }),
  effect: "mutation",
});
