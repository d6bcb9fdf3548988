// @agent-surface/react: the React bindings of agent-surface. See README.md and docs/react.md.
export { AgentSurfaceProvider, useAgentSurfaceRegistry } from "./provider.js";
export type { AgentSurfaceProviderProps } from "./provider.js";
export { useAgentComponent } from "./use-agent-component.js";
export type { AgentComponentState, AgentComponentStatus } from "./use-agent-component.js";
export { useAgentSurface } from "./use-agent-surface.js";
export { useAgentConfirmations } from "./use-agent-confirmations.js";
export type { AgentConfirmations } from "./use-agent-confirmations.js";
