// The contracts of the engine's behavioural scenarios (conformance/scenarios/*.json), run
// natively (crates/engine/tests/it/scenarios.rs) and through the JavaScript API on wasm
// (packages/core/test/scenarios.test.ts). `agent-surface compile` here writes ../manifest.json;
// the root test `scenario_manifest_is_compiled_from_the_app` keeps the two in step.
import {
  actionContract,
  defineAgentComponentContract,
  defineAgentProcedureContract,
  defineExternalAgentToolContract,
  emptyObjectSchema,
  fromJsonSchema,
  observationContract,
} from "@agent-surface/core";

const count = fromJsonSchema({
  type: "object",
  properties: { value: { type: "integer", minimum: 0 } },
  required: ["value"],
  additionalProperties: false,
});

export const counter = defineAgentComponentContract({
  type: "demo.counter",
  description: "A counter on the page",
  observations: {
    value: observationContract({ description: "The current value", output: count }),
  },
  actions: {
    increment: actionContract({ description: "Adds one to the counter", input: emptyObjectSchema, effect: "local-state" }),
    setTo: actionContract({ description: "Sets the counter to a value", input: count, output: count, effect: "local-state", idempotent: true }),
    slow: actionContract({ description: "Takes its time", input: emptyObjectSchema, effect: "local-state" }),
  },
});

export const nav = defineAgentComponentContract({
  type: "demo.nav",
  description: "The app's navigation",
  actions: {
    go: actionContract({
      description: "Navigates to a path",
      input: fromJsonSchema({ type: "object", properties: { path: { type: "string", minLength: 1 } }, required: ["path"], additionalProperties: false }),
      effect: "navigation",
    }),
  },
});

export const reset = defineAgentProcedureContract({
  id: "domain:demo.reset",
  description: "Resets every counter to zero",
  input: emptyObjectSchema,
  effect: "destructive",
});

export const lookup = defineAgentProcedureContract({
  id: "domain:demo.lookup",
  description: "Looks a counter up on the server",
  input: fromJsonSchema({ type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false }),
  output: count,
  effect: "read",
});

export const exportCounts = defineExternalAgentToolContract({
  id: "external:demo.export",
  description: "Exports the counts to a file",
  input: emptyObjectSchema,
  effect: "external-side-effect",
});
