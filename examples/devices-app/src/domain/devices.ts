import { defineAgentProcedureContract as defineProcedure, fromJsonSchema, fromStandardSchema } from "@agent-surface/core";
import * as z from "zod";
import { RebootInput } from "../schemas/zod";
import { LabelInput } from "../schemas/arktype";
import { TagInput } from "../schemas/zod3";
import { zodToJsonSchema } from "zod-to-json-schema";

export const rebootDevices = defineProcedure({
  id: "domain:devices.reboot",
  description: "Reboot devices. They are offline for about a minute.",
  input: fromStandardSchema(RebootInput, { jsonSchema: z.toJSONSchema(RebootInput, { io: "input" }) }),
  output: fromJsonSchema({
    type: "object",
    properties: { scheduled: { type: "integer", minimum: 0 } },
    required: ["scheduled"],
    additionalProperties: false,
  }),
  effect: "mutation",
  tags: ["devices"],
});

// domain:devices.decommission is the oRPC server's procedure: its contract is generated from the
// server's contract router (./procedures.ts, `npm run contracts`), and the registry forwards it
// there (../registry.ts).

// Schemas from two more libraries, each converted by the compiler as the library does.
export const tagDevices = defineProcedure({
  id: "domain:devices.tag",
  description: "Add a tag to devices.",
  input: fromStandardSchema(TagInput, { jsonSchema: zodToJsonSchema(TagInput) }),
  effect: "mutation",
  tags: ["devices"],
});

export const labelDevice = defineProcedure({
  id: "domain:devices.label",
  description: "Set the label printed on one device.",
  // ArkType's JsonSchema type has no index signature; the value is a plain JSON Schema object.
  input: fromStandardSchema(LabelInput, { jsonSchema: LabelInput.toJsonSchema() as Record<string, unknown> }),
  effect: "mutation",
  tags: ["devices"],
});
