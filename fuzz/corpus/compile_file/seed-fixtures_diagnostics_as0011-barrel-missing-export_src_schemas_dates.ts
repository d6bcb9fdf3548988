export const IsoDate = { type: "string", format: "date" } as const;
