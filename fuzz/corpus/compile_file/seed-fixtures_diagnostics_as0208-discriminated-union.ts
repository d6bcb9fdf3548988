// expect: AS0208
import { z } from "zod";
import { defineAgentProcedureContract, fromStandardSchema } from "@agent-surface/core";

const Shape = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("circle"), radius: z.number() }),
  z.object({ kind: z.literal("square"), side: z.number() }),
]);
const DrawInput = z.object({ shape: Shape });

export const draw = defineAgentProcedureContract({
  id: "domain:canvas.draw",
  description: "Draw a shape on the canvas.",
  input: fromStandardSchema(DrawInput, { jsonSchema: z.toJSONSchema(DrawInput, { io: "input" }) }),
  effect: "mutation",
});
