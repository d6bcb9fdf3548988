// Shared by the tests: a registry over the fixture app's authority (served by @agent-surface/vite
// from the real compile of test/app), a provider wrapper, and an event recorder.
import { createAgentSurfaceRegistry, type AgentSurfaceEvent, type AgentSurfaceRegistry, type RegistryOptions } from "@agent-surface/core";
import { act, render } from "@testing-library/react";
import { StrictMode, version as reactVersion, type ReactElement, type ReactNode } from "react";
import authority from "virtual:agent-surface/authority";
import { AgentSurfaceProvider } from "../dist/index.js";

export { authority, reactVersion };

export function createRegistry(options: Omit<RegistryOptions, "authority"> = {}): AgentSurfaceRegistry {
  return createAgentSurfaceRegistry({ authority, environment: "test", ...options });
}

/** Every event the registry dispatches, in order. */
export function record(registry: AgentSurfaceRegistry): AgentSurfaceEvent[] {
  const events: AgentSurfaceEvent[] = [];
  registry.subscribe((e) => events.push(e));
  return events;
}

/**
 * Renders `ui` under a provider of `registry` (and <StrictMode> at the root when `strict`);
 * `rerender` wraps the same way. StrictMode goes in the tree itself, not in RTL's `wrapper`:
 * React 19 does not replay the mount effects of a StrictMode rendered inside the wrapper.
 */
export function renderWith(registry: AgentSurfaceRegistry, ui: ReactElement, { strict = false }: { strict?: boolean } = {}) {
  const wrap = (node: ReactNode) => {
    const inner = <AgentSurfaceProvider registry={registry}>{node}</AgentSurfaceProvider>;
    return strict ? <StrictMode>{inner}</StrictMode> : inner;
  };
  const result = render(wrap(ui));
  return { ...result, rerender: (next: ReactElement) => result.rerender(wrap(next)) };
}

/** Lets the registry's coalesced `surface-changed` (a microtask) reach React. */
export async function flush(): Promise<void> {
  await act(async () => {
    await Promise.resolve();
  });
}

export const components = (registry: AgentSurfaceRegistry, type?: string) =>
  registry.snapshot().components.filter((c) => type === undefined || c.type === type);
