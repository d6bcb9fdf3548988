// expect: clean
import * as zod from "zod/v4";
import { defineAgentProcedureContract, fromStandardSchema } from "@agent-surface/core";

const Tag = zod.string().min(1).max(32).describe("A tag");
const Filter = zod.object({
  tags: zod.array(Tag).max(10).default([]),
  status: zod.enum(["open", "closed"]).optional(),
  since: zod.iso.date().nullable(),
});

export const search = defineAgentProcedureContract({
  id: "domain:tickets.search",
  description: "Search tickets.",
  input: fromStandardSchema(Filter, { jsonSchema: zod.toJSONSchema(Filter, { io: "input" }) }),
  output: fromStandardSchema(zod.array(zod.uuid()), { jsonSchema: zod.toJSONSchema(zod.array(zod.uuid())) }),
  effect: "read",
});
