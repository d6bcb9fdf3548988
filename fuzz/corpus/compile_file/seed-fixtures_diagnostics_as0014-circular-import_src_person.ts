import { Team } from "./team";

export const Person = {
  type: "object",
  properties: { name: { type: "string" }, team: Team },
} as const;
