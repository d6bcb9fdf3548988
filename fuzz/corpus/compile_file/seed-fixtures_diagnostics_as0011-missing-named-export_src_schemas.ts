export const ProjectRef = {
  type: "object",
  properties: { id: { type: "string" }, name: { type: "string" } },
  required: ["id"],
  additionalProperties: false,
} as const;
