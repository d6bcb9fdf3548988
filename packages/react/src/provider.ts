// <AgentSurfaceProvider registry> and useAgentSurfaceRegistry(): the registry every hook below
// the provider uses. The provider does not own the registry (it never disposes it): the app
// creates it once, with its authority, and may share it with non-React code (adapters, tests).

import { createContext, createElement, useContext, type ReactElement, type ReactNode } from "react";
import type { AgentSurfaceRegistry } from "@agent-surface/core";

const RegistryContext = createContext<AgentSurfaceRegistry | null>(null);
RegistryContext.displayName = "AgentSurfaceRegistry";

export interface AgentSurfaceProviderProps {
  /** From `createAgentSurfaceRegistry({ authority })`. */
  registry: AgentSurfaceRegistry;
  children?: ReactNode;
}

/** Makes `registry` the one the hooks below it register into and read from. */
export function AgentSurfaceProvider({ registry, children }: AgentSurfaceProviderProps): ReactElement {
  if (registry === null || typeof registry !== "object" || typeof registry.register !== "function") {
    throw new TypeError("AgentSurfaceProvider: pass registry={createAgentSurfaceRegistry({ authority })}");
  }
  return createElement(RegistryContext.Provider, { value: registry }, children);
}

/** The registry of the nearest `<AgentSurfaceProvider>`; throws when there is none. */
export function useAgentSurfaceRegistry(): AgentSurfaceRegistry {
  const registry = useContext(RegistryContext);
  if (registry === null) {
    throw new Error("useAgentSurfaceRegistry: no <AgentSurfaceProvider registry={…}> above this component");
  }
  return registry;
}
