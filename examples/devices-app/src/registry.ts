/// <reference types="@agent-surface/vite/client" />
import { createAgentExposureGateway, createAgentSurfaceRegistry, createAgentToolset } from "@agent-surface/core";
import authority from "virtual:agent-surface/authority";

// One registry for the page, from the compiler's verified authority.
export const registry = createAgentSurfaceRegistry({ authority, environment: import.meta.env.DEV ? "development" : "production" });

// The assistant's toolset: embedded, so a confirmation waits for the page's dialog
// (confirmations: "wait"); the model never sees CONFIRMATION_REQUIRED and cannot approve.
export const toolset = createAgentToolset(registry, {
  consumer: { id: "assistant", kind: "embedded" },
  topology: "embedded",
});

// External tools (here: the report export) go through the exposure gateway, under the same
// authority: only tools this manifest compiled are exposed.
export const gateway = createAgentExposureGateway(authority);
