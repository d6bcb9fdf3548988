// docs/react.md's example, quoted there verbatim below this comment (test/docs.test.tsx checks
// the quote and runs the page and the agent).
/// <reference types="@agent-surface/vite/client" />
import { createAgentSurfaceRegistry } from "@agent-surface/core";
import authority from "virtual:agent-surface/authority";

export const registry = createAgentSurfaceRegistry({ authority });
