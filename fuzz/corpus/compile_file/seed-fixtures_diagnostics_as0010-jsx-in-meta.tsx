// expect: AS0010
import { defineAgentComponentContract } from "@agent-surface/core";
import { BellIcon } from "./icons";

export const notificationsContract = defineAgentComponentContract({
  type: "app.notifications",
  description: "The notification bell and its dropdown list.",
  meta: { icon: <BellIcon size={16} /> },
});

export function Notifications() {
  return <div className="notifications" />;
}
