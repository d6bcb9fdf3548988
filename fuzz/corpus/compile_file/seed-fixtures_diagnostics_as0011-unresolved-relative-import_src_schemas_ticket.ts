export const TicketPriority = { enum: ["low", "normal", "urgent"] } as const;
