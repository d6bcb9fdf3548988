export const Amount = { type: "integer", minimum: 0, description: "Amount in cents" } as const;
export const Currency = { enum: ["EUR", "USD", "GBP"] } as const;
