export const PlanId = { enum: ["free", "team", "enterprise"] } as const;
