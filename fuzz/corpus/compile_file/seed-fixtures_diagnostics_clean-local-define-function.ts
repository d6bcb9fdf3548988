// expect: clean
import { fromJsonSchema } from "@agent-surface/core";

// A test helper with the same name as the macro: not a contract, never evaluated.
function defineAgentComponentContract<T>(definition: T): T {
  return { ...definition, registeredAt: Date.now() };
}

export const fakeContract = defineAgentComponentContract({
  type: "NOT A VALID TYPE",
  description: computeDescription(),
  execute: () => fetch("/api"),
});

export const Shared = fromJsonSchema({ type: "object", properties: { id: { type: "string" } } });

function computeDescription() {
  return "built at run time";
}
