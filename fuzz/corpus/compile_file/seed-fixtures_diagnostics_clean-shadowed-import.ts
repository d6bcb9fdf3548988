// expect: clean
import { defineAgentProcedureContract, emptyObjectSchema } from "@agent-surface/core";

export const refreshFeed = defineAgentProcedureContract({
  id: "domain:feed.refresh",
  description: "Reload the activity feed.",
  input: emptyObjectSchema,
  effect: "read",
});

// A registry test double: the parameter shadows the import, so these calls are not contracts.
export function withFakeMacro(defineAgentProcedureContract: (d: unknown) => unknown) {
  return defineAgentProcedureContract({ id: "whatever", effect: "delete", when: () => true });
}

export function inBlock() {
  const defineAgentProcedureContract = (d: unknown) => d;
  return defineAgentProcedureContract({ id: 42 });
}
