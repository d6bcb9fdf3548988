import { createAgentSurfaceRegistry } from "@agent-surface/core";
import authority from "virtual:agent-surface/authority";

// One registry for the page, from the compiler's verified authority (the plugin's module).
export const registry = createAgentSurfaceRegistry({ authority, environment: process.env.NODE_ENV === "production" ? "production" : "development" });
export { authority };
