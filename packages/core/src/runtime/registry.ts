// The registry (crates/engine/src/registry/mod.rs, options.rs): live registrations of bound
// contracts, the surface version, tombstones, availability, snapshots and events. Construction
// requires a CapabilityAuthority; raw definitions, contracts the authority cannot vouch for and
// structurally broken bindings are refused. `invoke` hands the pipeline this registry's parts.

import { verifiedOf } from "../authority.js";
import { DEFAULT_LIMITS, resolveLimits } from "../model/limits.js";
import { firstViolation } from "../model/rules.js";
import type {
  AgentInvocation,
  AgentInvocationResult,
  AgentProcedureExecutor,
  AgentRegistrationHandle,
  AgentSurfaceEvent,
  AgentSurfaceLimits,
  AgentSurfaceRegistry,
  AgentSurfaceSnapshot,
  AuditRecord,
  InvokeOptions,
  RegistryOptions,
  SnapshotContext,
  Unsubscribe,
} from "../types.js";
import { asBinding, bindComponent, definitionError, type BoundComponent } from "./binding.js";
import { createConfirmations } from "./confirm/index.js";
import { base62, randomId } from "./entropy.js";
import { createHandle, detach, remove } from "./handle.js";
import { createInflight, invoke } from "./invoke/index.js";
import { isObject, isPlainObject } from "./json.js";
import type { Parts } from "./parts.js";
import { checkPolicies } from "./policy.js";
import { readSnapshotContext, snapshot } from "./snapshot.js";
import { regKey, regsInOrder, Surface, type AuditSinkLike, type Environment, type LogLevel, type Options, type Reg, type RegistrationStatus } from "./surface.js";

const OPTION_KEYS = ["environment", "context", "policies", "audit", "onRegister", "onDuplicateInstance", "duplicateSuffixPolicy", "route", "limits", "now", "authority"];

/** Registries created here → their parts (explainSurface, toolsets, the bridge and gateways reach them here). */
const registries = new WeakMap<object, Parts>();

/** @internal The parts of a registry created here; a TypeError for anything else. */
export function partsOf(registry: unknown, who: string): Parts {
  const parts = typeof registry === "object" && registry !== null ? registries.get(registry) : undefined;
  if (!parts) throw new TypeError(`${who}: not a registry created by createAgentSurfaceRegistry of this package`);
  return parts;
}

const WHO = "createAgentSurfaceRegistry";

function oneOf<T extends string>(o: Record<string, unknown>, key: string, allowed: readonly T[]): T {
  const v = o[key];
  if (v === undefined || v === null) return allowed[0]!;
  if (typeof v !== "string" || !(allowed as readonly string[]).includes(v)) {
    const list = allowed.map((a) => `"${a}"`);
    throw new TypeError(`${WHO}: ${key} must be ${list.slice(0, -1).join(", ")} or ${list[list.length - 1]}, not ${typeof v === "string" ? `"${v}"` : typeof v}`);
  }
  return v as T;
}

/** RegistryOptions checked and resolved. */
function readOptions(options: unknown): Options {
  if (!isPlainObject(options)) throw new TypeError(`${WHO}: pass { authority } (the CapabilityAuthority is mandatory)`);
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.includes(key)) throw new TypeError(`${WHO}: unknown option "${key}" (allowed: ${OPTION_KEYS.join(", ")})`);
  }
  const authority = options.authority;
  const o: Record<string, unknown> = { authority, verified: verifiedOf(authority, WHO) };
  // Function-valued options, absent or a function; anything else is misuse.
  for (const key of ["context", "now", "route", "onRegister"]) {
    const v = options[key];
    if (v !== undefined && typeof v !== "function") throw new TypeError(`${WHO}: options.${key} must be a function`);
    if (v) o[key] = v;
  }
  // Only an object is a Partial<AgentSurfaceLimits> (an array would be positional).
  if (options.limits !== undefined && !isPlainObject(options.limits)) throw new TypeError(`${WHO}: options.limits must be an object (Partial<AgentSurfaceLimits>)`);
  const a = options.audit;
  if (typeof a === "function") o.audit = { record: (r: AuditRecord) => (a as (r: AuditRecord) => void)(r) };
  else if (isObject(a) && typeof a.record === "function") o.audit = a as unknown as AuditSinkLike;
  else if (a !== undefined) throw new TypeError(`${WHO}: options.audit must be an AuditSink { record(record) }`);
  Object.assign(o, {
    policies: checkPolicies(options.policies, WHO),
    environment: oneOf<Environment>(options, "environment", ["production", "development", "test"]),
    onDuplicateInstance: oneOf(options, "onDuplicateInstance", ["reject", "replace"] as const),
    duplicateSuffixPolicy: oneOf(options, "duplicateSuffixPolicy", ["warn", "off", "error"] as const),
  });
  try {
    o.limits = resolveLimits(options.limits);
  } catch (e) {
    throw new TypeError(`${WHO}: ${(e as Error).message}`);
  }
  return o as unknown as Options;
}

const sameLimits = (a: Readonly<AgentSurfaceLimits>, b: Readonly<AgentSurfaceLimits>) =>
  (Object.keys(b) as (keyof AgentSurfaceLimits)[]).every((k) => a[k] === b[k]);

/**
 * The structural checks of `register` after the binding was built: this registry's limits (when
 * they differ from the authority's) and cross-plane suffix collisions. Returns the collisions
 * to warn about.
 */
function checkRegistrable(surface: Surface, bound: BoundComponent): Array<[string, string]> {
  const { limits, verified, duplicateSuffixPolicy } = surface.options;
  const viewId = `view:${bound.componentType}`;
  // The authority verified its contracts against the default limits; a registry configured
  // with other limits enforces those (oversize descriptions, meta, schemas).
  if (!sameLimits(limits, DEFAULT_LIMITS)) {
    for (const c of [bound.contract, ...bound.procedures.map((p) => p.contract)]) {
      const v = firstViolation(c, limits);
      if (v) throw definitionError("invalid", viewId, `"${c.id}" breaks the registry's limits at ${v.pointer}: ${v.message}`);
    }
  }
  // Cross-plane suffix collisions: a heuristic lint, not a security control.
  const collisions: Array<[string, string]> = [];
  if (duplicateSuffixPolicy !== "off") {
    for (const name of [...bound.observationNames, ...bound.actionNames]) {
      const domain = `domain:${bound.componentType}.${name}`;
      if (verified.contracts.get(domain)?.kind !== "procedure") continue;
      const view = `view:${bound.componentType}.${name}`;
      if (duplicateSuffixPolicy === "error") {
        throw definitionError("suffix-collision", viewId, `"${view}" collides with the domain procedure "${domain}" (duplicateSuffixPolicy: error)`);
      }
      collisions.push([view, domain]);
    }
  }
  return collisions;
}

/** `register(definition)`: see AgentSurfaceRegistry.register. */
function register(parts: Parts, definition: unknown): AgentRegistrationHandle {
  const surface = parts.surface;
  const { options } = surface;
  const binding = asBinding(definition);
  if (!binding) {
    if (isObject(definition) && typeof definition.type === "string") {
      throw definitionError(
        "raw-definition",
        `view:${definition.type}`,
        `"${definition.type}" is a raw definition without compiler provenance: bind a contract from the CapabilityAuthority instead`,
      );
    }
    throw definitionError("binding", null, "register: expected a contract binding (contract.bind({ observations, actions }))");
  }
  const bound = bindComponent(binding, options.verified, surface.development);
  const collisions = checkRegistrable(surface, bound);
  const { componentType: ty, instanceId } = bound;
  let guardRejects = false;
  if (options.onRegister) {
    const candidate = Object.freeze({ type: ty, instanceId, origin: bound.contract.origin, internal: bound.internal });
    try {
      guardRejects = options.onRegister(candidate) !== "accept";
    } catch (e) {
      if (surface.development) console.error(`agent-surface: RegistryOptions.onRegister threw (rejected): ${(e as Error)?.message ?? e}`);
      guardRejects = true;
    }
  }
  const st = surface.lock();
  if (st.disposed) throw definitionError("disposed", `view:${ty}`, "the registry was disposed");
  const id = `reg_${++st.seq}_${base62(8)}`;
  const key = regKey(ty, instanceId);
  // Log lines go out after the mutation: the log is user code.
  const logs: Array<[LogLevel, string]> = [];
  let cell: { status: RegistrationStatus } = { status: "active" };
  const reject = (reason: "duplicate" | "guard") => {
    cell = { status: "rejected" };
    surface.events.push({ type: "component-rejected", componentType: ty, instanceId, reason });
    if (surface.development) {
      const why = reason === "duplicate" ? "another registration of the same (type, instanceId) is live" : "the onRegister guard rejected it";
      logs.push(["error", `registration of "${ty}" (instance "${instanceId}") rejected: ${why}`]);
    }
  };
  const existing = st.keys.get(key);
  if (guardRejects) reject("guard");
  else if (existing !== undefined) {
    // A replace is one surface-affecting mutation: the registration below bumps the version.
    if (options.onDuplicateInstance === "reject") reject("duplicate");
    else detach(parts, st, existing);
  }
  if (cell.status === "active") {
    const reg: Reg = { id, bound, status: "active" };
    cell = reg;
    st.keys.set(key, id);
    st.regs.set(id, reg);
    st.dynamic.set(id, { enabled: bound.enabled, overrides: new Map() });
    st.version++;
    surface.events.push({ type: "component-registered", registrationId: id, componentType: ty, instanceId });
    for (const [view, domain] of collisions) {
      logs.push(["warn", `"${view}" looks like the domain procedure "${domain}" (duplicateSuffixPolicy: warn)`]);
      surface.events.push({ type: "collision-suspected", viewCapabilityId: view, domainProcedureId: domain });
    }
    surface.events.surfaceChanged();
  }
  for (const [level, message] of logs) surface.log(level, message);
  surface.flush();
  return createHandle(parts, id, cell);
}

/**
 * `createAgentSurfaceRegistry(options)`: the authority is mandatory (a genuine
 * CapabilityAuthority from `virtual:agent-surface/authority` or createCapabilityAuthority).
 */
export function createAgentSurfaceRegistry(options: RegistryOptions): AgentSurfaceRegistry {
  const surface = new Surface(readOptions(options), randomId("srf_", 22));
  const parts: Parts = { surface, inflight: createInflight(), confirmations: createConfirmations(surface) };
  const st = surface.state;
  const registry: AgentSurfaceRegistry = Object.freeze({
    surfaceId: surface.surfaceId,
    register: (definition: unknown) => register(parts, definition),
    snapshot(ctx?: SnapshotContext): AgentSurfaceSnapshot {
      return snapshot(surface, readSnapshotContext(ctx, "snapshot"));
    },
    /** Rejects (TypeError) only on misuse: a request or options not of their shape, a disposed registry. */
    invoke: (request: AgentInvocation, opts?: InvokeOptions): Promise<AgentInvocationResult> => invoke(parts, request, opts),
    subscribe(listener: (event: AgentSurfaceEvent) => void): Unsubscribe {
      if (typeof listener !== "function") throw new TypeError("subscribe: the listener must be a function");
      return surface.events.subscribe(listener);
    },
    confirmations: parts.confirmations.controller,
    /**
     * Procedures referenced without a local `execute` are forwarded to it (read at each
     * invocation). Installing or removing it changes their availability: a version step.
     */
    setProcedureExecutor(next: AgentProcedureExecutor | undefined) {
      if (next !== undefined && !(isObject(next) && typeof next.execute === "function")) {
        throw new TypeError("setProcedureExecutor: pass an AgentProcedureExecutor { execute(call) } or undefined");
      }
      // Every call is a surface-affecting mutation (forwarded procedures' availability depends
      // on it); a no-op on a disposed registry.
      if (st.disposed) return;
      surface.procedureExecutor = next;
      st.version++;
      surface.events.surfaceChanged();
      surface.flush();
    },
    getVersion: () => String(st.version),
    /**
     * Tears down: in-flight invocations settle CANCELLED, pending confirmations expire,
     * everything is unregistered and listeners are dropped. Idempotent.
     */
    dispose() {
      if (st.disposed) return;
      st.disposed = true;
      // In-flight work is cancelled by the disposal (CANCELLED, reason "disposed") before the
      // registrations go, so it is not mistaken for an unmount.
      parts.inflight.cancelAll();
      parts.confirmations.expireAll();
      for (const reg of regsInOrder(st)) remove(parts, st, reg.id);
      surface.flush();
      surface.events.clear(() => String(st.version));
    },
  });
  registries.set(registry, parts);
  return registry;
}

/**
 * The records of a registry's default audit sink (the newest 1,000, oldest first), frozen. Empty
 * when `RegistryOptions.audit` was given: the records went to that sink.
 */
export function readAuditRecords(registry: AgentSurfaceRegistry): readonly AuditRecord[] {
  const sink = partsOf(registry, "readAuditRecords").surface.defaultAudit;
  return Object.freeze(sink ? [...sink.records] : []);
}

