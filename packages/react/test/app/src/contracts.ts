// The contracts the hooks' tests bind, written as an app writes them. The tests import this file
// through Vite with @agent-surface/vite (vitest.config.ts), which compiles it with the real
// compiler and injects each macro call's provenance; `agent-surface compile` here writes
// agent-surface.manifest.json, which test/fixture.test.ts keeps equal to what the plugin serves.
import {
  actionContract,
  defineAgentComponentContract,
  defineAgentProcedureContract,
  emptyObjectSchema,
  fromJsonSchema,
  observationContract,
} from "@agent-surface/core";

const count = fromJsonSchema<{ value: number }>({
  type: "object",
  properties: { value: { type: "integer", minimum: 0 } },
  required: ["value"],
  additionalProperties: false,
});

export const counterContract = defineAgentComponentContract({
  type: "demo.counter",
  description: "A counter on the page",
  observations: {
    value: observationContract({ description: "The current value", output: count }),
  },
  actions: {
    increment: actionContract({ description: "Adds one to the counter", input: emptyObjectSchema, output: count, effect: "local-state" }),
    setTo: actionContract({ description: "Sets the counter to a value", input: count, output: count, effect: "local-state", idempotent: true }),
    slow: actionContract({ description: "Takes its time, until cancelled", input: emptyObjectSchema, effect: "local-state" }),
  },
});

export const itemContract = defineAgentComponentContract({
  type: "demo.item",
  description: "One item of a list, one instance per item id",
  observations: {
    label: observationContract({
      description: "The item's label",
      output: fromJsonSchema<{ label: string }>({
        type: "object",
        properties: { label: { type: "string" } },
        required: ["label"],
        additionalProperties: false,
      }),
    }),
  },
});

export const resetProcedure = defineAgentProcedureContract({
  id: "domain:demo.reset",
  description: "Resets the counter on the server",
  input: emptyObjectSchema,
  output: count,
  effect: "destructive",
  confirmation: "required",
});
