// useAgentConfirmations(): the pending confirmations, for the app's own dialog, and the two
// answers. One store per registry, shared by every component that renders it: it listens to
// registry.confirmations while anyone renders the list and keeps the array it last received, so
// getSnapshot is stable (pending() would return a fresh array on every call).
//
// Approval is the user's: the registry's pipeline holds the call (wait-mode toolsets) or refuses
// it with CONFIRMATION_REQUIRED (two-phase) until approve(id) — no agent-facing tool can approve.

import { useCallback, useMemo, useSyncExternalStore } from "react";
import type { AgentSurfaceRegistry, PendingConfirmation } from "@agent-surface/core";
import { useAgentSurfaceRegistry } from "./provider.js";

export interface AgentConfirmations {
  /** Oldest first; the same array until the list changes. */
  pending: readonly PendingConfirmation[];
  /** The user approved: the held call runs (once). Throws for an unknown or settled id. */
  approve(confirmationId: string): void;
  /** The user declined: the call settles CONFIRMATION_DENIED, with `reason` as its `details.reason`. */
  deny(confirmationId: string, reason?: string): void;
}

class Store {
  value: readonly PendingConfirmation[];
  private key: string;
  private readonly listeners = new Set<() => void>();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly registry: AgentSurfaceRegistry) {
    this.value = registry.confirmations.pending();
    this.key = keyOf(this.value);
  }

  /** Keeps the current array when the list is the same (a record never changes under its id). */
  private set(list: readonly PendingConfirmation[]): boolean {
    const key = keyOf(list);
    if (key === this.key) return false;
    this.key = key;
    this.value = list;
    return true;
  }

  read(): readonly PendingConfirmation[] {
    // Nobody listens (the first render): the cache may be old.
    if (this.listeners.size === 0) this.set(this.registry.confirmations.pending());
    return this.value;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    if (this.unsubscribe === undefined) {
      this.unsubscribe = this.registry.confirmations.subscribe((list) => {
        if (this.set(list)) for (const l of [...this.listeners]) l();
      });
      // A request that arrived between the render and this subscription.
      if (this.set(this.registry.confirmations.pending())) listener();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.unsubscribe !== undefined) {
        this.unsubscribe();
        this.unsubscribe = undefined;
      }
    };
  }
}

function keyOf(list: readonly PendingConfirmation[]): string {
  return list.map((c) => c.confirmationId).join(" ");
}

const stores = new WeakMap<AgentSurfaceRegistry, Store>();

function storeOf(registry: AgentSurfaceRegistry): Store {
  let store = stores.get(registry);
  if (store === undefined) {
    store = new Store(registry);
    stores.set(registry, store);
  }
  return store;
}

/** `{ pending, approve(id), deny(id, reason) }` over the provider's registry.confirmations. */
export function useAgentConfirmations(): AgentConfirmations {
  const registry = useAgentSurfaceRegistry();
  const store = storeOf(registry);
  const subscribe = useCallback((onChange: () => void) => store.subscribe(onChange), [store]);
  const read = useCallback(() => store.read(), [store]);
  const pending = useSyncExternalStore(subscribe, read, read);
  const approve = useCallback((id: string) => registry.confirmations.resolve(id, { approved: true }), [registry]);
  const deny = useCallback(
    (id: string, reason?: string) => registry.confirmations.resolve(id, reason === undefined ? { approved: false } : { approved: false, reason }),
    [registry],
  );
  return useMemo(() => ({ pending, approve, deny }), [pending, approve, deny]);
}
