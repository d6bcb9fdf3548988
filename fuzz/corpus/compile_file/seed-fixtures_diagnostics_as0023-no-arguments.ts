// expect: AS0023
import { defineExternalAgentToolContract } from "@agent-surface/core";

export const postToSlack = defineExternalAgentToolContract();
