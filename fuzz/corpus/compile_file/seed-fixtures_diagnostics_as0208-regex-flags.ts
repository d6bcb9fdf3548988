// expect: AS0208
import { z } from "zod";
import { defineAgentProcedureContract, fromStandardSchema } from "@agent-surface/core";

const RenameInput = z.object({ slug: z.string().regex(/^[a-z-]+$/i) });

export const rename = defineAgentProcedureContract({
  id: "domain:pages.rename",
  description: "Rename a page.",
  input: fromStandardSchema(RenameInput, { jsonSchema: z.toJSONSchema(RenameInput, { io: "input" }) }),
  effect: "mutation",
});
