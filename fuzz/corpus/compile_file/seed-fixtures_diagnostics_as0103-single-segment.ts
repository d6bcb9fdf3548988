// expect: AS0103
import { defineAgentProcedureContract, emptyObjectSchema } from "@agent-surface/core";

export const logout = defineAgentProcedureContract({
  id: "domain:logout",
  description: "Sign the current user out on every device.",
  input: emptyObjectSchema,
  effect: "mutation",
});
