import { defineAgentComponentContract } from "@agent-surface/core";
export const X = () => <a:b.c />;
