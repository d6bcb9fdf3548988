// Events and their dispatch (crates/engine/src/events.rs). Guarantees: a total order of
// mutations; dispatch after the mutation; a throwing listener is isolated; events raised by
// listeners (re-entrant mutations) are queued and dispatched after the current one;
// `surface-changed` is coalesced per microtask, carrying the version current when it goes out.

import type { AgentSurfaceEvent } from "../types.js";

export type Listener = (event: AgentSurfaceEvent) => void;

/** The registry's event bus. */
export class Dispatcher {
  listeners: Listener[] = [];
  private queue: AgentSurfaceEvent[] = [];
  private changed = false;
  private dispatching = false;
  private scheduled = false;

  subscribe(l: Listener): () => void {
    // A copy, so a dispatch in progress keeps the list it started with.
    this.listeners = [...this.listeners, l];
    return () => {
      this.listeners = this.listeners.filter((x) => x !== l);
    };
  }

  /**
   * Drops the listeners (dispose). A `surface-changed` still owed to them (the coalescing
   * microtask has not run yet) goes out first, as the native dispatcher's does: every
   * unregistration is announced, dispose's too.
   */
  clear(version: () => string): void {
    if (this.scheduled && this.listeners.length > 0) this.deliver(Object.freeze({ type: "surface-changed", surfaceVersion: version() }));
    this.listeners = [];
    this.queue = [];
  }

  /** Queues an event (while mutating; `flush` delivers it). Dropped when nobody listens. */
  push(e: AgentSurfaceEvent): void {
    if (this.listeners.length > 0) this.queue.push(Object.freeze(e));
  }

  /** Marks the surface changed: one `surface-changed` goes out per microtask. */
  surfaceChanged(): void {
    this.changed = true;
  }

  /**
   * Delivers queued events, unless a dispatch is already running further up the stack (a
   * listener mutating the registry): that one delivers them, in order.
   */
  flush(version: () => string): void {
    if (this.changed) {
      this.changed = false;
      if (!this.scheduled && this.listeners.length > 0) {
        this.scheduled = true;
        queueMicrotask(() => {
          this.scheduled = false;
          this.deliver(Object.freeze({ type: "surface-changed", surfaceVersion: version() }));
        });
      }
    }
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      for (let e = this.queue.shift(); e !== undefined; e = this.queue.shift()) this.deliver(e);
    } finally {
      this.dispatching = false;
    }
  }

  private deliver(event: AgentSurfaceEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (e) {
        // Listener isolation: one failing listener does not stop the others.
        console.error(`agent-surface: a registry listener threw on "${event.type}": ${(e as Error)?.message ?? e}`);
      }
    }
  }
}
