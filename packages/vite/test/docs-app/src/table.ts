// src/table.ts
import { actionContract, defineAgentComponentContract, fromJsonSchema } from "@agent-surface/core";

export const table = defineAgentComponentContract({
  type: "demo.table",
  description: "A table of rows",
  actions: {
    select: actionContract({
      description: "Select rows",
      input: fromJsonSchema({
        type: "object",
        properties: { ids: { type: "array", items: { type: "string" } }, mode: { enum: ["replace", "add"], default: "replace" } },
        required: ["ids"],
        additionalProperties: false,
      }),
      effect: "local-state",
    }),
  },
});

let selection: string[] = [];
table.bind({
  actions: {
    // input: { ids: string[]; mode: "replace" | "add" }
    select: { execute: (input) => void (selection = input.mode === "add" ? [...selection, ...input.ids] : input.ids) },
  },
});
