export default { enum: ["p0", "p1", "p2", "p3"], description: "Incident priority" } as const;
