// expect: AS0010
import { defineAgentComponentContract } from "@agent-surface/core";
import { t } from "./i18n";

export const cartContract = defineAgentComponentContract({
  type: "shop.cart",
  description: t("cart.agentDescription"),
});
