// expect: AS0013
import * as v from "valibot";
import { toJsonSchema } from "@valibot/to-json-schema";
import { defineAgentProcedureContract, fromStandardSchema } from "@agent-surface/core";

const ArchiveInput = v.object({ ids: v.array(v.string()) });

export const archive = defineAgentProcedureContract({
  id: "domain:tickets.archive",
  description: "Archive tickets.",
  input: fromStandardSchema(ArchiveInput, { jsonSchema: toJsonSchema(ArchiveInput) }),
  effect: "mutation",
});
