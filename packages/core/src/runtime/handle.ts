// What `register` hands out (crates/engine/src/registry/handle.rs): the registration handle
// (update, invalidate, unregister), and the unregistration both it and the registry use.

import { AgentSurfaceDefinitionError } from "../errors.js";
import type { AgentRegistrationHandle } from "../types.js";
import { isPlainObject } from "./json.js";
import type { Parts } from "./parts.js";
import { regKey, Surface, type AvailabilityOverride, type Dynamic, type RegistrationStatus, type State } from "./surface.js";

/**
 * Removes a live registration without bumping the version (a replace is one mutation):
 * tombstone, status, in-flight work settled COMPONENT_UNMOUNTED, `component-unregistered`.
 * Returns whether a live registration was removed.
 */
export function detach(parts: Parts, st: State, id: string): boolean {
  const reg = st.regs.get(id);
  if (!reg) return false;
  const surface = parts.surface;
  st.regs.delete(id);
  st.dynamic.delete(id);
  const { componentType, instanceId } = reg.bound;
  const key = regKey(componentType, instanceId);
  if (st.keys.get(key) === id) st.keys.delete(key);
  reg.status = "unregistered";
  const now = surface.now();
  st.tombstones.push({ registrationId: id, componentType, instanceId, atMs: now });
  Surface.trimTombstones(st, surface.options.limits, now);
  parts.inflight.unmounted(id);
  surface.events.push({ type: "component-unregistered", registrationId: id, componentType, instanceId });
  return true;
}

/** Unregisters: `detach`, then a version step and `surface-changed`. */
export function remove(parts: Parts, st: State, id: string): void {
  if (detach(parts, st, id)) {
    st.version++;
    parts.surface.events.surfaceChanged();
  }
}

type Patch = { enabled?: boolean; availability?: Map<string, AvailabilityOverride> };

/** `update`'s argument, checked (TypeError naming the field; not-updatable for structural fields). */
function readPatch(patch: unknown): Patch {
  if (!isPlainObject(patch)) throw new TypeError("update: pass { enabled?, availability? }");
  for (const key of Object.keys(patch)) {
    if (key !== "enabled" && key !== "availability") {
      throw new AgentSurfaceDefinitionError(`update: "${key}" is not updatable (only enabled and availability; structural changes need unregister + register)`, {
        code: "not-updatable",
      });
    }
  }
  const out: Patch = {};
  const { enabled, availability } = patch;
  if (enabled != null) {
    if (typeof enabled !== "boolean") throw new TypeError("update: enabled must be a boolean");
    out.enabled = enabled;
  }
  if (availability != null) {
    const bad = () => new TypeError("update: availability must be an object keyed by capability name of { available: boolean, reason?: string }");
    if (!isPlainObject(availability)) throw bad();
    out.availability = new Map();
    for (const [name, o] of Object.entries(availability)) {
      if (!isPlainObject(o) || typeof o.available !== "boolean" || (o.reason != null && typeof o.reason !== "string")) throw bad();
      out.availability.set(name, o.reason == null ? { available: o.available } : { available: o.available, reason: o.reason as string });
    }
  }
  return out;
}

/** The handle of a registration (`cell`: the live `Reg`, or a rejected registration's status). */
export function createHandle(parts: Parts, registrationId: string, cell: { status: RegistrationStatus }): AgentRegistrationHandle {
  const surface = parts.surface;
  /** Whether the handle may act; a development warning when not. */
  const live = (): boolean => {
    if (cell.status === "active") return true;
    if (surface.development) surface.log("warn", `${registrationId} is not active: the call is ignored`);
    return false;
  };
  return Object.freeze({
    registrationId,
    get status() {
      return cell.status;
    },
    /**
     * Pushes `enabled` and availability overrides; bumps the version and emits
     * `availability-changed` for each capability whose pushed availability changed.
     */
    update(patch: unknown) {
      const p = readPatch(patch);
      if (!live()) return;
      const st = surface.lock();
      const reg = st.regs.get(registrationId);
      const before = st.dynamic.get(registrationId);
      if (!reg || !before) return;
      const c = reg.bound.contract;
      const after: Dynamic = { enabled: p.enabled ?? before.enabled, overrides: new Map(before.overrides) };
      const unknown: string[] = [];
      for (const [name, o] of p.availability ?? []) {
        // Overrides name this component's observations and actions; anything else would never match.
        if (Object.hasOwn(c.observations, name) || Object.hasOwn(c.actions, name)) (after.overrides as Map<string, AvailabilityOverride>).set(name, o);
        else unknown.push(name);
      }
      const pushed = (d: Dynamic, name: string) => d.enabled && (d.overrides.get(name)?.available ?? true);
      const ty = reg.bound.componentType;
      const changes: Array<[string, string]> = [...reg.bound.observationNames, ...reg.bound.actionNames].map((n) => [n, `view:${ty}.${n}`]);
      // Procedures follow `enabled` (no override can name them).
      for (const proc of reg.bound.procedures) changes.push([proc.id, proc.id]);
      for (const [name, capabilityId] of changes) {
        const available = pushed(after, name);
        if (available !== pushed(before, name)) surface.events.push({ type: "availability-changed", registrationId, capabilityId, available });
      }
      st.dynamic.set(registrationId, after);
      st.version++;
      surface.events.surfaceChanged();
      for (const name of unknown) {
        surface.log("warn", `update of ${registrationId}: "${name}" is not an observation or action of this component; the override is ignored`);
      }
      surface.flush();
    },
    /** Bumps the surface version without changing anything. */
    invalidate() {
      if (!live()) return;
      surface.lock().version++;
      surface.events.surfaceChanged();
      surface.flush();
    },
    /** Unregisters (a no-op, with a development warning, when not active). */
    unregister() {
      if (!live()) return;
      remove(parts, surface.lock(), registrationId);
      surface.flush();
    },
  }) as AgentRegistrationHandle;
}
