export const DistanceUnit = { enum: ["km", "mi"], default: "km" } as const;
