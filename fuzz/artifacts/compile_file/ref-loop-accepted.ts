import { defineAgentProcedureContract, fromJsonSchema } from "@agent-surface/core";

export const loop = defineAgentProcedureContract({
  id: "domain:demo.loop",
  description: "A procedure whose input schema refers to itself forever.",
  input: fromJsonSchema({ $defs: { a: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" }),
  effect: "mutation",
});
