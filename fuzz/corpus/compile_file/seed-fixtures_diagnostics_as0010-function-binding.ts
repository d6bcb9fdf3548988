// expect: AS0010
import { defineAgentComponentContract } from "@agent-surface/core";

function describeCalendar() {
  return "The month calendar with the user's events.";
}

export const calendarContract = defineAgentComponentContract({
  type: "calendar.month",
  description: describeCalendar,
});
