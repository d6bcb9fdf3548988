// expect: AS0001
import { defineAgentComponentContract, observationContract, fromJsonSchema } from "@agent-surface/core";

export const inboxContract = defineAgentComponentContract({
  type: "mail.inbox",
  description: "The inbox: unread count and the visible threads.",
  observations: {
    readUnread: observationContract({
      description: "Number of unread threads.",
      output: fromJsonSchema({ type: "object", properties: { unread: { type: "integer" } } }),
    }),
  ,
});
