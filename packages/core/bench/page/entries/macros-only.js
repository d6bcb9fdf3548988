// A component file that imports only the contract macros (what every file declaring a contract
// pays): no registry, no pipeline, no hashing may come with it.
import { actionContract, defineAgentComponentContract, emptyObjectSchema, fromJsonSchema, observationContract } from "@agent-surface/core";

const count = fromJsonSchema({ type: "object", properties: { value: { type: "integer", minimum: 0 } }, required: ["value"], additionalProperties: false });
export const counter = defineAgentComponentContract({
  type: "demo.counter",
  description: "A counter on the page",
  observations: { value: observationContract({ description: "The current value", output: count }) },
  actions: { increment: actionContract({ description: "Adds one to the counter", input: emptyObjectSchema, effect: "local-state" }) },
});
