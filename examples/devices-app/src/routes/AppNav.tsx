import * as agent from "@agent-surface/core";
import { useAgentComponent } from "@agent-surface/react";
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

export function AppNav({ path, navigate }: { path: string; navigate: (to: string) => void }) {
  useAgentComponent(appNavContract, {
    instanceId: "main",
    observations: { currentRoute: { read: () => ({ path }) } },
    actions: {
      navigate: {
        execute: ({ to, params }) => navigate(to === "/devices/:id" ? `/devices/${params?.id ?? ""}` : to),
      },
    },
  });
  const link = (to: string, label: string) => (
    <a
      href={to}
      aria-current={path === to ? "page" : undefined}
      onClick={(e) => {
        e.preventDefault();
        navigate(to);
      }}
    >
      {label}
    </a>
  );
  return (
    <nav>
      <strong>Fleet</strong>
      {link("/devices", "Devices")}
      {link("/reports", "Reports")}
      {link("/settings", "Settings")}
    </nav>
  );
}
