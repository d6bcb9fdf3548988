const ServiceName = { type: "string", pattern: "^[a-z][a-z0-9-]*$" } as const;
export { ServiceName as Service };
