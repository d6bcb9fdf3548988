// Shared schemas (no contract here).
export const Server = {
  type: "object",
  properties: {
    name: { type: "string" },
    address: { type: "string", format: "ipv4" },
  },
  required: ["name", "address"],
  additionalProperties: false,
} as const;
