// Two procedures whose schemas come from other schema libraries than zod (issue 29), each
// written the way that library documents it; the compiler evaluates both statically.
import { defineAgentProcedureContract as defineProcedure, fromJsonSchema, fromStandardSchema } from "@agent-surface/core";
import { toJsonSchema } from "@valibot/to-json-schema";
import Type, { type Static } from "typebox";
import * as v from "valibot";

// Valibot: validated at run time by Valibot, converted by @valibot/to-json-schema (the compiler
// computes the same JSON Schema). Inputs convert with typeMode "input".
export const RenameInput = v.strictObject({
  id: v.pipe(v.string(), v.regex(/^dev_[a-z0-9]{6,}$/), v.description("A device id such as dev_8f3k2a")),
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(120), v.description("The new display name")),
});

export const renameDevice = defineProcedure({
  id: "domain:devices.rename",
  description: "Rename a device. Only its display name changes.",
  input: fromStandardSchema(RenameInput, { jsonSchema: toJsonSchema(RenameInput, { target: "draft-2020-12", typeMode: "input" }) }),
  effect: "mutation",
  tags: ["devices"],
});

// TypeBox: the builders are JSON Schema, passed to fromJsonSchema as they are.
export const PingInput = Type.Object(
  {
    ids: Type.Array(Type.String({ pattern: "^dev_[a-z0-9]{6,}$" }), { minItems: 1, maxItems: 50 }),
    attempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, default: 1 })),
  },
  { additionalProperties: false },
);

export const PingOutput = Type.Object(
  { reachable: Type.Array(Type.String()), unreachable: Type.Array(Type.String()) },
  { additionalProperties: false },
);

export const pingDevices = defineProcedure({
  id: "domain:devices.ping",
  description: "Check which devices answer on the network right now.",
  input: fromJsonSchema<Static<typeof PingInput>>(PingInput),
  output: fromJsonSchema<Static<typeof PingOutput>>(PingOutput),
  effect: "read",
  tags: ["devices"],
});
