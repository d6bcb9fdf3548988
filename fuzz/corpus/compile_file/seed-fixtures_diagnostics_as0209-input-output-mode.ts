// expect: AS0209
import { z } from "zod";
import { actionContract, defineAgentComponentContract, fromStandardSchema } from "@agent-surface/core";

const SelectRows = z.object({
  ids: z.array(z.string()).min(1).describe("Row ids to select"),
  mode: z.enum(["replace", "add", "remove"]).default("replace"),
});

export const gridContract = defineAgentComponentContract({
  type: "reports.grid",
  description: "The report grid with selectable rows.",
  actions: {
    selectRows: actionContract({
      description: "Select rows by id.",
      input: fromStandardSchema(SelectRows, { jsonSchema: z.toJSONSchema(SelectRows) }),
      effect: "local-state",
    }),
  },
});
