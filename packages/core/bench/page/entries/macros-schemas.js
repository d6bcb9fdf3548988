// entries/macros-only.js with its schemas built by fromJsonSchema and emptyObjectSchema: the
// macros plus the schema constructor, which checks the schema against the subset and compiles
// its validator (parse), so the validator comes with it.
import { actionContract, defineAgentComponentContract, defineAgentProcedureContract, defineExternalAgentToolContract, emptyObjectSchema, fromJsonSchema, observationContract } from "@agent-surface/core";

const count = fromJsonSchema({ type: "object", properties: { value: { type: "integer", minimum: 0 } }, required: ["value"], additionalProperties: false });
export const counter = defineAgentComponentContract({
  type: "demo.counter",
  description: "A counter on the page",
  observations: { value: observationContract({ description: "The current value", output: count }) },
  actions: { increment: actionContract({ description: "Adds one to the counter", input: emptyObjectSchema, effect: "local-state" }) },
});
export const reset = defineAgentProcedureContract({ id: "domain:demo.reset", description: "Resets every counter", input: emptyObjectSchema, effect: "mutation" });
export const report = defineExternalAgentToolContract({ id: "external:demo.report", description: "Sends a report", input: count, effect: "external-side-effect" });
