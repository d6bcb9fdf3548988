// useAgentComponent(contract, binding): one registration per mounted component, bound to the
// component's latest render.
//
// The registry freezes a registration's descriptor at register() and reads handlers through the
// binding it was given, so the hook binds *trampolines* once: stable functions that call the
// handler of the latest committed render (kept in a ref). A new closure every render therefore
// costs nothing: no re-registration, no version bump, the same registrationId. What does change
// the registration:
//   - `instanceId`, `parent`, the set of capabilities and which optional handlers they have
//     (when, unavailableReason, precondition, describe), timeouts, concurrency, the shape of the
//     policies, the procedures referenced, the contract, the registry: a new registration
//     (unregister + register: a new registrationId; the old one becomes a tombstone);
//   - `enabled`: pushed with handle.update({ enabled }) when it changed;
//   - `when()` of an observation or action: re-evaluated after every render and pushed with
//     handle.update({ availability }) when its result (or the reason) changed, so the surface
//     version moves and consumers re-discover. A procedure's `when()` cannot be pushed (overrides
//     name observations and actions only); its change bumps the version with handle.invalidate().
// An action's (or procedure's) handler runs inside react-dom's flushSync, as React runs a click
// handler: the state updates it makes synchronously are committed before the engine starts the
// component's next queued call, which therefore sees them.
// Registration happens in the commit (a layout effect; never during render): it is in the
// registry before any passive effect of the same commit runs, so an agent loop started from a
// sibling's useEffect on the new page already sees it. Unmount unregisters, so calls in flight
// settle COMPONENT_UNMOUNTED; a subtree Suspense hides behind a fallback is unregistered while
// hidden (React destroys its layout effects). StrictMode's simulated unmount unregisters the
// first registration before the second is made: there is never a duplicate, and the hook reports
// the live one.

import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { flushSync } from "react-dom";
import type {
  AgentActionContract,
  AgentComponentContract,
  AgentComponentHandlers,
  AgentObservationContract,
  AgentRegistrationHandle,
  AgentSurfaceRegistry,
} from "@agent-surface/core";
import { useAgentSurfaceRegistry } from "./provider.js";

/** `"pending"` until the first commit registered the component, then the live handle's status. */
export type AgentComponentStatus = "pending" | AgentRegistrationHandle["status"];

export interface AgentComponentState {
  status: AgentComponentStatus;
  /** The live registration's id (`"reg_…"`), the staleness token agents carry; undefined while pending. */
  registrationId: string | undefined;
}

type AnyRecord = Record<string, unknown>;
type Loose = AnyRecord & {
  instanceId?: unknown;
  enabled?: unknown;
  observations?: unknown;
  actions?: unknown;
  procedures?: unknown;
  policies?: unknown;
};
interface Pushed {
  available: boolean;
  reason?: string;
}
interface Live {
  handle: AgentRegistrationHandle;
  enabled: boolean;
  /** capability name -> what its when() said last (only capabilities with a when). */
  availability: Map<string, Pushed>;
  /** procedure id -> what its when() said last. */
  procedures: Map<string, Pushed>;
}

const PENDING: AgentComponentState = Object.freeze({ status: "pending", registrationId: undefined });

// Layout effects run in the commit, before any passive effect; React 18 warns about
// useLayoutEffect during server rendering, where no effect runs anyway.
const useCommitEffect = typeof document === "undefined" ? useEffect : useLayoutEffect;

function isObject(v: unknown): v is AnyRecord {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

// ------------------------------------------------------------------------------------------
// Structure: what, when it changes, needs a new registration

/** 0 absent, 1 a function, 2 something else (a defect bind() reports). */
const fn = (v: unknown) => (v === undefined ? 0 : typeof v === "function" ? 1 : 2);

function policyShape(list: unknown): unknown {
  if (!Array.isArray(list)) return list === undefined ? null : "invalid";
  return list.map((p) => (isObject(p) ? [p.name, fn(p.onDiscovery), fn(p.authorize), fn(p.invoke)] : "invalid"));
}

function capabilityShape(b: unknown, main: string): unknown {
  if (!isObject(b)) return "invalid";
  return [
    fn(b[main]),
    fn(b.when),
    b.unavailableReason === undefined ? 0 : 1,
    fn(b.precondition),
    fn(b.describe),
    b.timeoutMs ?? null,
    b.concurrency ?? null,
    policyShape(b.policies),
  ];
}

function mapShape(map: unknown, main: string): unknown {
  if (!isObject(map)) return map === undefined ? null : "invalid";
  return Object.keys(map)
    .sort()
    .map((name) => [name, capabilityShape(map[name], main)]);
}

function procedureShape(list: unknown): unknown {
  if (!Array.isArray(list)) return list === undefined ? null : "invalid";
  return list.map((p) => {
    if (!isObject(p) || !isObject(p.contract)) return "invalid";
    const provenance = p.contract.provenance;
    return [p.contract.id, isObject(provenance) ? provenance.contractHash : null, capabilityShape(p.handlers, "execute")];
  });
}

let unstable = 0;

/** The registration-relevant structure of a binding, as a string (compared between renders). */
function structureOf(b: Loose): string {
  try {
    return JSON.stringify([
      b.instanceId ?? "default",
      b.parent ?? null,
      policyShape(b.policies),
      mapShape(b.observations, "read"),
      mapShape(b.actions, "execute"),
      procedureShape(b.procedures),
    ]);
  } catch {
    // Not JSON (a cyclic parent, say): bind or register will say what is wrong.
    return `unstable:${++unstable}`;
  }
}

// ------------------------------------------------------------------------------------------
// Trampolines: stable handlers that call the latest render's

type Current = () => unknown;

function call(current: Current, key: string, args: unknown[], what: string): unknown {
  const h = current();
  const f = isObject(h) ? h[key] : undefined;
  if (typeof f !== "function") throw new TypeError(`${what}: the latest render has no ${key} handler`);
  return (f as (...a: unknown[]) => unknown).apply(h, args);
}

/**
 * Runs an action's handler the way React runs a click handler: the state updates it makes
 * synchronously are rendered and committed before it returns. The engine starts the next queued
 * call of the component as soon as this one settles; without this, that call would run the
 * closure of a render that has not seen the first call's update (three parallel `add`s of a
 * counter would each read the same count).
 */
function committed<T>(run: () => T): T {
  let out!: T;
  flushSync(() => {
    out = run();
  });
  return out;
}

/** One capability's settings with every handler replaced by a trampoline to `current()`'s. */
function liveCapability(b: AnyRecord, current: Current, what: string): AnyRecord {
  const out: AnyRecord = { ...b };
  for (const key of ["read", "when", "precondition", "describe"]) {
    if (typeof b[key] === "function") out[key] = (...args: unknown[]) => call(current, key, args, what);
  }
  if (typeof b.execute === "function") out.execute = (...args: unknown[]) => committed(() => call(current, "execute", args, what));
  if (b.unavailableReason !== undefined) {
    out.unavailableReason = () => {
      const h = current();
      const r = isObject(h) ? h.unavailableReason : undefined;
      return typeof r === "function" ? (r as () => unknown).call(h) : r;
    };
  }
  return out;
}

function liveMap(map: unknown, field: "observations" | "actions", latest: { current: Loose }, type: string): unknown {
  if (!isObject(map)) return map;
  const out: AnyRecord = {};
  for (const [name, b] of Object.entries(map)) {
    const current = () => {
      const m = latest.current[field];
      return isObject(m) ? m[name] : undefined;
    };
    out[name] = isObject(b) ? liveCapability(b, current, `${field === "actions" ? "action" : "observation"} "${name}" of "${type}"`) : b;
  }
  return out;
}

function procedureHandlers(latest: { current: Loose }, id: string): unknown {
  const list = latest.current.procedures;
  if (!Array.isArray(list)) return undefined;
  const p = list.find((q) => isObject(q) && isObject(q.contract) && q.contract.id === id) as AnyRecord | undefined;
  return p?.handlers;
}

/** The handlers given to contract.bind(): the first render's settings, live handlers. */
function liveHandlers(first: Loose, latest: { current: Loose }, type: string): Loose {
  const out: Loose = { ...first };
  if (first.observations !== undefined) out.observations = liveMap(first.observations, "observations", latest, type);
  if (first.actions !== undefined) out.actions = liveMap(first.actions, "actions", latest, type);
  if (Array.isArray(first.procedures)) {
    out.procedures = first.procedures.map((p) => {
      if (!isObject(p) || !isObject(p.contract) || !isObject(p.handlers) || typeof p.contract.bind !== "function") return p;
      const id = p.contract.id as string;
      const handlers = liveCapability(p.handlers, () => procedureHandlers(latest, id), `procedure "${id}"`);
      return (p.contract.bind as (h: AnyRecord) => unknown)(handlers);
    });
  }
  return out;
}

// ------------------------------------------------------------------------------------------
// Availability: when() after each render

function evaluate(b: AnyRecord): Pushed {
  let v: unknown;
  try {
    v = (b.when as () => unknown).call(b);
  } catch {
    return { available: false, reason: "when-error" };
  }
  if (v !== null && typeof v === "object" && typeof (v as { then?: unknown }).then === "function") {
    return { available: false, reason: "when-error" };
  }
  if (v !== false) return { available: true };
  let reason: unknown = b.unavailableReason;
  try {
    if (typeof reason === "function") reason = (reason as () => unknown).call(b);
  } catch {
    reason = undefined;
  }
  return typeof reason === "string" ? { available: false, reason } : { available: false };
}

function availabilityOf(b: Loose): Map<string, Pushed> {
  const out = new Map<string, Pushed>();
  for (const map of [b.observations, b.actions]) {
    if (!isObject(map)) continue;
    for (const [name, c] of Object.entries(map)) {
      if (isObject(c) && typeof c.when === "function") out.set(name, evaluate(c));
    }
  }
  return out;
}

function procedureAvailabilityOf(b: Loose): Map<string, Pushed> {
  const out = new Map<string, Pushed>();
  if (!Array.isArray(b.procedures)) return out;
  for (const p of b.procedures) {
    if (isObject(p) && isObject(p.contract) && isObject(p.handlers) && typeof p.handlers.when === "function") {
      out.set(String(p.contract.id), evaluate(p.handlers));
    }
  }
  return out;
}

const same = (a: Pushed | undefined, b: Pushed) => a !== undefined && a.available === b.available && a.reason === b.reason;

/** After a render: push what changed since the last push (one update, so one version bump). */
function push(live: Live | null, b: Loose): void {
  if (!live || live.handle.status !== "active") return;
  const patch: { enabled?: boolean; availability?: Record<string, Pushed> } = {};
  const enabled = b.enabled !== false;
  if (enabled !== live.enabled) patch.enabled = enabled;
  const availability = availabilityOf(b);
  const changed: Record<string, Pushed> = {};
  let any = false;
  for (const [name, a] of availability) {
    if (!same(live.availability.get(name), a)) {
      changed[name] = a;
      any = true;
    }
  }
  if (any) patch.availability = changed;
  const procedures = procedureAvailabilityOf(b);
  let proceduresChanged = false;
  for (const [id, a] of procedures) if (!same(live.procedures.get(id), a)) proceduresChanged = true;
  live.enabled = enabled;
  live.availability = availability;
  live.procedures = procedures;
  if (patch.enabled !== undefined || any) live.handle.update(patch);
  else if (proceduresChanged) live.handle.invalidate();
}

// ------------------------------------------------------------------------------------------
// One registry listener for every mounted component (not one each): registrationId -> refresh

const watchers = new WeakMap<AgentSurfaceRegistry, { byId: Map<string, () => void>; unsubscribe: () => void }>();

function watchUnregistered(registry: AgentSurfaceRegistry, registrationId: string, onUnregistered: () => void): () => void {
  let w = watchers.get(registry);
  if (w === undefined) {
    const byId = new Map<string, () => void>();
    const unsubscribe = registry.subscribe((e) => {
      if (e.type === "component-unregistered") byId.get(e.registrationId)?.();
    });
    w = { byId, unsubscribe };
    watchers.set(registry, w);
  }
  const watcher = w;
  watcher.byId.set(registrationId, onUnregistered);
  return () => {
    watcher.byId.delete(registrationId);
    if (watcher.byId.size === 0) {
      watcher.unsubscribe();
      watchers.delete(registry);
    }
  };
}

// ------------------------------------------------------------------------------------------

/**
 * Registers `contract` bound to `binding` while the component is mounted, in the registry of the
 * nearest `<AgentSurfaceProvider>`. Pass the same binding `contract.bind()` takes, with inline
 * closures over the component's state: they are live references (the latest committed render's
 * run). Derive `instanceId` from data (an entity id), never from render order.
 */
export function useAgentComponent<
  TObservations extends Record<string, AgentObservationContract<any>>,
  TActions extends Record<string, AgentActionContract<any, any>>,
>(contract: AgentComponentContract<TObservations, TActions>, binding: AgentComponentHandlers<TObservations, TActions>): AgentComponentState {
  const registry = useAgentSurfaceRegistry();
  const latest = useRef(binding as unknown as Loose);
  const live = useRef<Live | null>(null);
  const [state, setState] = useState<AgentComponentState>(PENDING);
  const structure = structureOf(binding as unknown as Loose);
  // A binding the contract refuses throws here, in render, where error boundaries and stack
  // traces point at the component (the effect binds the same structure again, with trampolines).
  useMemo(() => contract.bind(binding), [contract, structure]);

  // The trampolines read this: the committed render's binding (never an abandoned render's).
  useCommitEffect(() => {
    latest.current = binding as unknown as Loose;
  });

  useCommitEffect(() => {
    const first = latest.current;
    const bound = contract.bind(liveHandlers(first, latest, contract.id) as unknown as AgentComponentHandlers<TObservations, TActions>);
    const handle = registry.register(bound);
    const entry: Live = {
      handle,
      enabled: first.enabled !== false,
      availability: availabilityOf(first),
      procedures: procedureAvailabilityOf(first),
    };
    live.current = entry;
    const refresh = () =>
      setState((s) =>
        s.status === handle.status && s.registrationId === handle.registrationId ? s : { status: handle.status, registrationId: handle.registrationId },
      );
    refresh();
    // Replaced (onDuplicateInstance: "replace") or unregistered by someone else: say so.
    const unsubscribe = handle.status === "active" ? watchUnregistered(registry, handle.registrationId, refresh) : () => {};
    return () => {
      unsubscribe();
      if (live.current === entry) live.current = null;
      if (handle.status === "active") handle.unregister();
    };
  }, [registry, contract, structure]);

  useCommitEffect(() => {
    push(live.current, latest.current);
  });

  return state;
}
