import { actionContract, defineAgentComponentContract, emptyObjectSchema } from "@agent-surface/core";

export const userMenuContract = defineAgentComponentContract({
  type: "app.userMenu",
  description: "The avatar menu in the top-right corner.",
  actions: {
    open: actionContract({ description: "Open the menu.", input: emptyObjectSchema, effect: "local-state" }),
  },
});

export function UserMenu() {
  return <button aria-haspopup="menu">Me</button>;
}
