// A component file that imports only the contract macros (what every file declaring a contract
// pays): no registry, no pipeline, no hashing, no validator may come with it. Its schemas are
// AgentSchema objects built here with a tiny literal (an app would import them from a shared
// module); entries/macros-schemas.js is the same file building them with fromJsonSchema.
import { actionContract, defineAgentComponentContract, defineAgentProcedureContract, defineExternalAgentToolContract, observationContract } from "@agent-surface/core";

const schema = (jsonSchema) => ({ jsonSchema, parse: (v) => v });
const count = schema({ type: "object", properties: { value: { type: "integer", minimum: 0 } }, required: ["value"], additionalProperties: false });
const empty = schema({ type: "object", properties: {}, additionalProperties: false });
export const counter = defineAgentComponentContract({
  type: "demo.counter",
  description: "A counter on the page",
  observations: { value: observationContract({ description: "The current value", output: count }) },
  actions: { increment: actionContract({ description: "Adds one to the counter", input: empty, effect: "local-state" }) },
});
export const reset = defineAgentProcedureContract({ id: "domain:demo.reset", description: "Resets every counter", input: empty, effect: "mutation" });
export const report = defineExternalAgentToolContract({ id: "external:demo.report", description: "Sends a report", input: count, effect: "external-side-effect" });
