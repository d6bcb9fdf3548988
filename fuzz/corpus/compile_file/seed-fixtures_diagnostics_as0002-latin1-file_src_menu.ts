// expect: AS0002 AS0010
// The locale file is outside `include`: only this import reads it.
import { defineAgentComponentContract } from "@agent-surface/core";
import { MENU_TITLE } from "../locales/fr";

export const menuContract = defineAgentComponentContract({
  type: "restaurant.menu",
  description: MENU_TITLE,
});
