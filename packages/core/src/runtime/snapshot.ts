// The snapshot (crates/engine/src/snapshot.rs, registry/catalog.rs): what a consumer may call
// right now. Synchronous and side-effect free (no `read` runs), deep-frozen plain JSON, never
// containing internal metadata; components ordered by (priority desc, type, instanceId);
// procedures at the top level with a link to their component; budgets say what they dropped.

import { canonicalJson } from "../model/canonical.js";
import type {
  AgentComponentDescriptor,
  AgentConsumer,
  AgentProcedureDescriptor,
  AgentRouteInfo,
  AgentSurfaceSnapshot,
  ManifestActionContract,
  ManifestComponentContract,
  ManifestObservationContract,
  ManifestOperationContract,
} from "../types.js";
import { byCodePoint, utf8Length } from "../model/json.js";
import { readConsumer } from "./consumer.js";
import { isPlainObject, jsonCopy } from "./json.js";
import type { Availability, DiscoveryScope, Dynamic, Reg, Surface } from "./surface.js";

/** What to snapshot (or explain): `SnapshotContext` checked, with its defaults. */
export interface SnapshotCtx {
  consumer: AgentConsumer;
  /** Component-type prefixes to include (whole segments). */
  scope: readonly string[] | undefined;
  includeUnavailable: boolean;
  budget: { maxComponents?: number; maxBytes?: number } | undefined;
}

const count = (v: unknown) => typeof v === "number" && Number.isInteger(v) && v >= 0;

/** A caller's `SnapshotContext`, checked (TypeError naming the field, from `who`). */
export function readSnapshotContext(ctx: unknown, who: string): SnapshotCtx {
  if (ctx === undefined) ctx = {};
  if (!isPlainObject(ctx)) throw new TypeError(`${who}: the context must be an object { consumer?, scope?, includeUnavailable?, budget? }`);
  const { consumer, scope, includeUnavailable, budget } = ctx;
  if (scope != null && !(Array.isArray(scope) && scope.every((p) => typeof p === "string"))) throw new TypeError(`${who}: scope must be an array of component-type prefixes (strings)`);
  if (includeUnavailable != null && typeof includeUnavailable !== "boolean") throw new TypeError(`${who}: includeUnavailable must be a boolean`);
  let b: SnapshotCtx["budget"];
  if (budget != null) {
    const bad = () => new TypeError(`${who}: budget must be an object { maxComponents?, maxBytes? } of non-negative integers`);
    if (!isPlainObject(budget)) throw bad();
    b = {};
    for (const k of ["maxComponents", "maxBytes"] as const) {
      const v = budget[k];
      if (v == null) continue;
      if (!count(v)) throw bad();
      b[k] = v as number;
    }
  }
  return {
    consumer: readConsumer(consumer, who),
    scope: scope == null ? undefined : [...(scope as string[])],
    includeUnavailable: includeUnavailable !== false,
    budget: b,
  };
}

/** Whether `ty` is within the scope prefix `prefix` (whole segments). */
export function inScope(ty: string, prefix: string): boolean {
  return ty === prefix || (ty.startsWith(prefix) && ty.charCodeAt(prefix.length) === 46 /* . */);
}

/** ISO-8601 UTC text of a millisecond timestamp. */
export function iso8601(ms: number): string {
  return new Date(ms).toISOString();
}

/** The snapshot's route: the host's `route()`, when it answers `{ path, params? }` (JSON). */
function routeOf(surface: Surface): AgentRouteInfo | undefined {
  const f = surface.options.route;
  if (!f) return undefined;
  try {
    const r = jsonCopy<unknown>(f());
    if (!isPlainObject(r) || typeof r.path !== "string") return undefined;
    return isPlainObject(r.params) ? { path: r.path, params: r.params as Record<string, string> } : { path: r.path };
  } catch (e) {
    if (surface.development) console.error(`agent-surface: RegistryOptions.route threw: ${(e as Error)?.message ?? e}`);
    return undefined;
  }
}

const isEmpty = (o: object) => Object.keys(o).length === 0;

/** Builds the snapshot from the live surface. */
export function snapshot(surface: Surface, ctx: SnapshotCtx): AgentSurfaceSnapshot {
  const st = surface.lock();
  const regs: Array<[Reg, Dynamic]> = [];
  for (const r of st.regs.values()) regs.push([r, st.dynamic.get(r.id) ?? { enabled: false, overrides: new Map() }]);
  // (priority desc, type, instanceId, registrationId): a total order.
  regs.sort(([a], [b]) => {
    const pa = a.bound.contract.priority;
    const pb = b.bound.contract.priority;
    return pb - pa || byCodePoint(a.bound.componentType, b.bound.componentType) || byCodePoint(a.bound.instanceId, b.bound.instanceId) || byCodePoint(a.id, b.id);
  });
  const discovery = surface.scope(ctx.consumer);
  const components: AgentComponentDescriptor[] = [];
  const procedures: AgentProcedureDescriptor[] = [];
  for (const [reg, dynamic] of regs) {
    if (ctx.scope && !ctx.scope.some((p) => inScope(reg.bound.componentType, p))) continue;
    components.push(describe(surface, reg, dynamic, ctx, discovery, procedures));
  }
  procedures.sort((a, b) => byCodePoint(a.capabilityId, b.capabilityId) || byCodePoint(a.registrationId, b.registrationId));
  const s: AgentSurfaceSnapshot = {
    surfaceId: surface.surfaceId,
    surfaceVersion: String(st.version),
    capturedAt: iso8601(surface.now()),
    components,
    procedures,
  };
  const route = routeOf(surface);
  if (route) s.route = Object.freeze(route);
  if (ctx.budget) applyBudget(s, ctx.budget);
  Object.freeze(s.components);
  Object.freeze(s.procedures);
  return Object.freeze(s);
}

/** One component's descriptor; its procedures go to `procedures`. */
function describe(surface: Surface, reg: Reg, dynamic: Dynamic, ctx: SnapshotCtx, discovery: DiscoveryScope, procedures: AgentProcedureDescriptor[]): AgentComponentDescriptor {
  const b = reg.bound;
  const c = b.contract;
  const ty = b.componentType;
  const d = { type: ty, instanceId: b.instanceId, registrationId: reg.id, description: c.description } as AgentComponentDescriptor;
  if (b.parent) d.parent = b.parent as AgentComponentDescriptor["parent"];
  if (!isEmpty(c.meta)) d.meta = c.meta as AgentComponentDescriptor["meta"];
  for (const plane of ["observations", "actions"] as const) {
    const list: object[] = [];
    const action = plane === "actions";
    for (const name of action ? b.actionNames : b.observationNames) {
      const binding = (action ? b.actions : b.observations).get(name)!;
      const cc = c[plane][name]!;
      const capabilityId = `view:${ty}.${name}`;
      const a = surface.availability(reg, dynamic, capabilityId, name, binding.policies, binding.when, binding.unavailableReason, discovery);
      if (!a || (!a[0] && !ctx.includeUnavailable)) continue;
      const make = () => descriptor({ capabilityId, name }, cc, action, a, isEmpty(cc.meta) ? undefined : { meta: cc.meta });
      list.push(a[0] ? shared(c, name, action, make) : make());
    }
    (d as unknown as Record<string, unknown>)[plane] = Object.freeze(list);
  }
  const component = Object.freeze({ type: ty, instanceId: b.instanceId });
  b.procedures.forEach((p, index) => {
    // `when()` counts for procedures too (it is re-checked at invocation).
    const a = surface.procedureAvailability(reg, dynamic, index, discovery);
    if (!a || (!a[0] && !ctx.includeUnavailable)) return;
    const note = p.describe?.();
    procedures.push(descriptor({ capabilityId: p.id }, p.contract, true, a, { registrationId: reg.id, component, ...(note !== undefined && { contextualNote: note }) }) as AgentProcedureDescriptor);
  });
  return Object.freeze(d);
}

/**
 * The descriptors of available capabilities, shared by every snapshot (frozen, they depend on
 * the contract alone): by contract, then name (observations and actions apart).
 */
const available = new WeakMap<object, Map<string, object>>();

function shared<T extends object>(c: ManifestComponentContract, name: string, isAction: boolean, make: () => T): T {
  let m = available.get(c);
  if (!m) available.set(c, (m = new Map()));
  const key = isAction ? `a:${name}` : `o:${name}`;
  let d = m.get(key);
  if (!d) m.set(key, (d = make()));
  return d as T;
}

type CapabilityContract = ManifestObservationContract | ManifestActionContract | ManifestOperationContract;

/**
 * A capability's descriptor (frozen): `head`, the description, an observation's output schema or
 * an operation's schemas and governance, the availability, then `tail`.
 */
function descriptor(head: object, cc: CapabilityContract, operation: boolean, [available, reason]: Availability, tail?: object): object {
  const d: Record<string, unknown> = { ...head, description: cc.description };
  if (operation) {
    const op = cc as ManifestOperationContract;
    d.inputSchema = op.inputSchema;
    if (op.outputSchema !== null) d.outputSchema = op.outputSchema;
    d.effect = op.effect;
    d.idempotent = op.idempotent;
    d.reversible = op.reversible;
    d.confirmation = op.confirmation;
  } else d.outputSchema = cc.outputSchema;
  d.available = available;
  if (reason !== undefined) d.unavailableReason = reason;
  return Object.freeze(Object.assign(d, tail));
}

/**
 * Drops lowest-priority components (from the end of the ordering) until the budget holds, and
 * says so in `truncated`: no silent truncation. The byte budget is measured on the snapshot as
 * returned (canonical JSON, UTF-8): without the dropped components' procedures, with the marker.
 */
function applyBudget(s: AgentSurfaceSnapshot, budget: NonNullable<SnapshotCtx["budget"]>): void {
  let dropped = 0;
  const dropLast = () => {
    const c = s.components.pop();
    if (!c) return;
    s.procedures = s.procedures.filter((p) => p.registrationId !== c.registrationId);
    dropped++;
    s.truncated = Object.freeze({ droppedComponents: dropped });
  };
  const { maxComponents, maxBytes } = budget;
  if (maxComponents !== undefined) while (s.components.length > maxComponents) dropLast();
  if (maxBytes !== undefined) while (s.components.length > 0 && utf8Length(canonicalJson(s)) > maxBytes) dropLast();
}
