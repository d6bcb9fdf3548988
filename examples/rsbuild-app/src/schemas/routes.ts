export const ROUTES = ["/devices", "/devices/:id", "/reports", "/settings"] as const;

export const NavigateInput = {
  type: "object",
  properties: {
    to: { enum: [...ROUTES], description: "Route to open" },
    params: {
      type: "object",
      properties: { id: { type: "string" } },
      additionalProperties: false,
    },
  },
  required: ["to"],
  additionalProperties: false,
} as const;
