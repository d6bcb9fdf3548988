// useAgentSurface(ctx?): the registry's snapshot as React state, through useSyncExternalStore.
// The store is the surface version: getSnapshot returns the cached snapshot while the version
// (and the context) is unchanged, so it is stable between renders, and a fresh one after a
// `surface-changed` event (coalesced per microtask by the registry) or any render that sees the
// version moved. What does not move the version does not re-render: a `when()` drift nobody
// pushed (useAgentComponent pushes its components'), a route change without a registration
// change, `capturedAt`.

import { useCallback, useRef, useSyncExternalStore } from "react";
import type { AgentSurfaceRegistry, AgentSurfaceSnapshot, SnapshotContext } from "@agent-surface/core";
import { useAgentSurfaceRegistry } from "./provider.js";

interface Cached {
  registry: AgentSurfaceRegistry;
  version: string;
  key: string;
  snapshot: AgentSurfaceSnapshot;
}

/** The snapshot the agent would see for `ctx` (consumer, scope, includeUnavailable, budget). */
export function useAgentSurface(ctx?: SnapshotContext): AgentSurfaceSnapshot {
  const registry = useAgentSurfaceRegistry();
  // Callers pass literals: the context is compared by value.
  const key = ctx === undefined ? "" : JSON.stringify(ctx);
  const cache = useRef<Cached | null>(null);

  const subscribe = useCallback(
    (onChange: () => void) =>
      registry.subscribe((event) => {
        if (event.type === "surface-changed") onChange();
      }),
    [registry],
  );
  const getSnapshot = useCallback(() => {
    const version = registry.getVersion();
    const c = cache.current;
    if (c !== null && c.registry === registry && c.version === version && c.key === key) return c.snapshot;
    const snapshot = registry.snapshot(ctx);
    cache.current = { registry, version, key, snapshot };
    return snapshot;
    // `ctx` is read through `key`: a new object with the same value is the same context.
  }, [registry, key]);

  return useSyncExternalStore(subscribe, getSnapshot, getSnapshot);
}
