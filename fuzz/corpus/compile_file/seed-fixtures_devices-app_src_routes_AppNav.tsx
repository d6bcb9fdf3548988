import * as agent from "@agent-surface/core";
import { NavigateInput } from "@/schemas/routes";

export const appNavContract = agent.defineAgentComponentContract({
  type: "app.nav",
  description: "The application's main navigation.",
  observations: {
    currentRoute: agent.observationContract({
      description: "The route currently shown.",
      output: agent.fromJsonSchema({
        type: "object",
        properties: { path: { type: "string" } },
        required: ["path"],
        additionalProperties: false,
      }),
    }),
  },
  actions: {
    navigate: agent.actionContract({
      description: "Open a page of the app.",
      input: agent.fromJsonSchema(NavigateInput),
      effect: "navigation",
    }),
  },
});

export function AppNav() {
  return (
    <nav>
      <a href="/devices">Devices</a>
      <a href="/reports">Reports</a>
    </nav>
  );
}
