import { createAgentSurfaceRegistry } from "@agent-surface/core";
import authority from "@agent-surface/next/authority";

// One registry for the page, from the compiler's verified authority (the module
// withAgentSurface generates and keeps current).
export const registry = createAgentSurfaceRegistry({ authority, environment: process.env.NODE_ENV === "production" ? "production" : "development" });
