// expect: AS0021
import { defineAgentProcedureContract, emptyObjectSchema } from "@agent-surface/core";

export const syncMailbox = defineAgentProcedureContract({
  id: "domain:mail.syncMailbox",
  description: "Fetch new mail from the server now.",
  input: emptyObjectSchema,
  effect: "read",
  timeoutMs: 30_000,
});
