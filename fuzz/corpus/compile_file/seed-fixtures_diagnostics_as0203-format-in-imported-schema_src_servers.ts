// expect: AS0203
import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";
import { Server } from "./schemas";

export const registerServer = defineAgentProcedureContract({
  id: "domain:infra.registerServer",
  description: "Add a server to the monitoring inventory.",
  input: fromJsonSchema(Server),
  effect: "mutation",
});
