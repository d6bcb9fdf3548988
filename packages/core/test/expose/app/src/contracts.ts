// Contracts for the differential test of the provider renderings (test/expose/providers.test.js):
// ids longer than 64 characters, ids that collide once sanitized, and schemas that exercise every
// adaptation (optional and nullable properties, enums, const, defaults, length limits, nested
// objects, arrays, anyOf, $defs/$ref), and an input that is not an object. The test compiles this folder with `agent-surface compile`.
import {
  actionContract,
  defineAgentComponentContract,
  defineAgentProcedureContract,
  defineExternalAgentToolContract,
  emptyObjectSchema,
  fromJsonSchema,
  observationContract,
} from "@agent-surface/core";

const rich = fromJsonSchema({
  type: "object",
  properties: {
    ids: { type: "array", items: { type: "string", pattern: "^n_" }, minItems: 1, maxItems: 20, uniqueItems: true },
    reason: { type: "string", minLength: 1, maxLength: 200, description: "Why" },
    mode: { enum: ["fast", "safe"], default: "safe" },
    level: { type: "integer", minimum: 0, maximum: 5, enum: [1, 2, 3] },
    kind: { const: "note" },
    when: { type: ["string", "null"], format: "date-time" },
    target: { $ref: "#/$defs/Target" },
    either: { anyOf: [{ type: "string" }, { type: "integer" }, { type: "null" }] },
    nested: {
      type: "object",
      properties: { flag: { type: "boolean", default: false }, tags: { type: "array", items: { type: "string" } } },
      required: ["flag"],
      additionalProperties: false,
    },
  },
  required: ["ids", "kind"],
  additionalProperties: false,
  $defs: { Target: { type: "object", properties: { id: { type: "string" }, ratio: { type: "number", multipleOf: 0.5 } }, required: ["id"], additionalProperties: false } },
});

const item = fromJsonSchema({ type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false });

export const long = defineAgentComponentContract({
  type: "fixture.averyveryveryverylongsegmentname.second",
  description: "A component whose capability ids are longer than 64 characters",
  observations: {
    selectionOfTheLongComponent: observationContract({ description: "The selection", output: item }),
    countOfTheLongComponent: observationContract({ description: "A count", output: fromJsonSchema({ type: "integer" }) }),
  },
  actions: {
    applyTheRichInput: actionContract({ description: "Applies everything", input: rich, output: item, effect: "local-state" }),
    // Not an object root: Anthropic refuses the catalog (the error is compared too).
    label: actionContract({ description: "Sets the label", input: fromJsonSchema({ type: "string", maxLength: 40 }), effect: "local-state", idempotent: true }),
  },
});

export const left = defineAgentComponentContract({
  type: "ab.c_d",
  description: "Collides with ab_c.d once sanitized",
  actions: { read: actionContract({ description: "Reads left", input: emptyObjectSchema, effect: "local-state", idempotent: true }) },
});

export const right = defineAgentComponentContract({
  type: "ab_c.d",
  description: "Collides with ab.c_d once sanitized",
  actions: { read: actionContract({ description: "Reads right", input: emptyObjectSchema, effect: "navigation" }) },
});

export const first = defineAgentProcedureContract({
  id: "domain:x.y_z",
  description: "Collides with domain:x_y.z",
  input: rich,
  effect: "mutation",
  reversible: true,
});

export const second = defineAgentProcedureContract({
  id: "domain:x_y.z",
  description: "Collides with domain:x.y_z",
  input: item,
  output: item,
  effect: "destructive",
});

export const send = defineExternalAgentToolContract({
  id: "external:mail.send",
  description: "Sends a mail",
  input: fromJsonSchema({ type: "object", properties: { to: { type: "string", format: "email" }, body: { type: "string", maxLength: 1000 } }, required: ["to"], additionalProperties: false }),
  effect: "external-side-effect",
  reversible: true,
});
