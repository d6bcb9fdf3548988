// expect: AS0011
import { actionContract, defineAgentComponentContract, fromJsonSchema } from "@agent-surface/core";

const Fields = {
  email: { type: "string", format: "email" },
  displayName: { type: "string", maxLength: 80 },
} as const;

export const profileFormContract = defineAgentComponentContract({
  type: "account.profileForm",
  description: "The profile form of the signed-in user.",
  actions: {
    fillEmail: actionContract({
      description: "Type an email address into the form (not saved yet).",
      input: fromJsonSchema({
        type: "object",
        properties: { email: Fields.emailAddress },
        required: ["email"],
        additionalProperties: false,
      }),
      effect: "local-state",
    }),
  },
});
