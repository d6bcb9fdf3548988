// expect: AS0501
// Copied from components/UserMenu.tsx for the mobile layout; the type was not renamed.
import { actionContract, defineAgentComponentContract, emptyObjectSchema } from "@agent-surface/core";

export const mobileUserMenuContract = defineAgentComponentContract({
  type: "app.userMenu",
  description: "The user menu in the mobile drawer.",
  actions: {
    open: actionContract({ description: "Open the drawer.", input: emptyObjectSchema, effect: "local-state" }),
  },
});

export function MobileUserMenu() {
  return <nav className="drawer" />;
}
