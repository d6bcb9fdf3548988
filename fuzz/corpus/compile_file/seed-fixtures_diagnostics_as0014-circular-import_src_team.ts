import { Person } from "./person";

export const Team = {
  type: "object",
  properties: { name: { type: "string" }, lead: Person },
} as const;
