// The live surface (crates/engine/src/registry/state.rs): registrations with their pushed
// state, the surface version, tombstones, the event bus, the validator cache, audit, log and
// availability. The registry mutates it; the invocation pipeline and the confirmation store
// read it (they get this, through `Parts`, not the registry).
//
// The page is single-threaded: there is no lock. `lock()` returns the state, for code ported
// from the Rust engine; a mutation is whatever runs between two awaits. User code (`when`,
// policies, listeners) runs outside mutations: events are pushed while mutating and delivered
// by `flush()` afterwards.

import { canonicalJson } from "../model/canonical.js";
import { deepFreeze } from "../model/json.js";
import type { VerifiedManifest } from "../model/verify.js";
import type {
  AgentConsumer,
  AgentProcedureExecutor,
  AgentSurfaceLimits,
  AuditRecord,
  CapabilityAuthority,
  JsonSchema,
  RegistrationCandidate,
  AgentRouteInfo,
} from "../types.js";
import { compileValidator, type Validator } from "../validate/index.js";
import { MemoryAuditSink } from "./audit.js";
import { evaluateReason, type BoundComponent, type UnavailableReason, type WhenFn } from "./binding.js";
import { Dispatcher } from "./events.js";
import { evaluateDiscovery, type DiscoveryContext, type HostContext, type Policy } from "./policy.js";

export type { HostContext } from "./policy.js";

export type Environment = "development" | "production" | "test";
export type RegistrationStatus = "active" | "rejected" | "unregistered";
export type LogLevel = "info" | "warn" | "error";

/** A log line from the registry (dev warnings, late settlements, audit lines in development). */
export interface LogRecord {
  level: LogLevel;
  message: string;
  /** A record a host may act on: "late-settlement" (a handler settled after its invocation did), "audit". */
  kind?: "late-settlement" | "audit";
  invocationId?: string;
  capabilityId?: string;
}

/** A pushed availability override. */
export interface AvailabilityOverride {
  available: boolean;
  reason?: string;
}

/** A live registration. `status` is shared with its handle. */
export interface Reg {
  readonly id: string;
  readonly bound: BoundComponent;
  status: RegistrationStatus;
}

/** The pushed state of a registration (`handle.update`). */
export interface Dynamic {
  enabled: boolean;
  /** By capability name (observations and actions only). */
  overrides: ReadonlyMap<string, AvailabilityOverride>;
}

/** A removed registration, remembered for COMPONENT_UNMOUNTED / STALE_CAPABILITY. */
export interface Tombstone {
  readonly registrationId: string;
  readonly componentType: string;
  readonly instanceId: string;
  readonly atMs: number;
}

export interface State {
  version: number;
  seq: number;
  /** By registration id (iterate with `regsInOrder` for the engine's id order). */
  regs: Map<string, Reg>;
  dynamic: Map<string, Dynamic>;
  /** `type + "\n" + instanceId` → registration id (see `regKey`). */
  keys: Map<string, string>;
  /** Oldest first. */
  tombstones: Tombstone[];
  disposed: boolean;
}

/** The key of `keys`: (type, instanceId). Neither contains a newline (id grammar). */
export function regKey(componentType: string, instanceId: string): string {
  return `${componentType}\n${instanceId}`;
}

/** The registrations in registration-id order (the Rust engine's BTreeMap order). */
export function regsInOrder(st: State): Reg[] {
  return [...st.regs.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Where audit records go (`RegistryOptions.audit`, normalized to `{ record }`). */
export interface AuditSinkLike {
  record(r: AuditRecord): void;
}

/** `RegistryOptions` checked and resolved (crates/engine/src/registry/options.rs). */
export interface Options {
  readonly authority: CapabilityAuthority;
  readonly verified: VerifiedManifest;
  readonly environment: Environment;
  readonly context?: () => Record<string, unknown>;
  readonly policies: readonly Policy[];
  readonly audit?: AuditSinkLike;
  readonly onRegister?: (candidate: RegistrationCandidate) => unknown;
  readonly onDuplicateInstance: "reject" | "replace";
  readonly duplicateSuffixPolicy: "off" | "warn" | "error";
  readonly route?: () => AgentRouteInfo | undefined;
  readonly limits: Readonly<AgentSurfaceLimits>;
  readonly now?: () => number;
  /** Where log records go; default the console (info only in development). */
  readonly log?: (record: LogRecord) => void;
}

/** (available, reason) — the engine's `(bool, Option<String>)`. */
export type Availability = readonly [available: boolean, reason: string | undefined];

/**
 * The discovery context of one snapshot, explanation or invocation: who asks, and the host
 * context, read the first time a discovery policy needs it and then kept for all of its
 * capabilities (a surface without discovery policies never calls `RegistryOptions.context`).
 */
export interface DiscoveryScope {
  readonly consumer: AgentConsumer;
  readonly host: HostContext;
}

const EMPTY: HostContext = Object.freeze({});

/** The registry's state that its parts share. See the module documentation. */
export class Surface {
  readonly state: State = { version: 0, seq: 0, regs: new Map(), dynamic: new Map(), keys: new Map(), tombstones: [], disposed: false };
  readonly events = new Dispatcher();
  readonly validators = new Map<string, Validator | null>();
  /** The bounded in-memory sink used when `options.audit` is not given. */
  readonly defaultAudit: MemoryAuditSink | undefined;
  /** `setProcedureExecutor`: where procedures without a local `execute` go. */
  procedureExecutor: AgentProcedureExecutor | undefined;
  readonly development: boolean;

  constructor(
    readonly options: Options,
    readonly surfaceId: string,
  ) {
    this.defaultAudit = options.audit ? undefined : new MemoryAuditSink();
    this.development = options.environment === "development";
  }

  lock(): State {
    return this.state;
  }

  /** Milliseconds since the epoch: `options.now()`, else `Date.now()` (also when now() fails). */
  now(): number {
    const f = this.options.now;
    if (f) {
      try {
        const ms = f();
        if (typeof ms === "number" && Number.isFinite(ms) && ms >= 0) return Math.floor(ms);
      } catch {
        // fall through to the real clock
      }
    }
    return Date.now();
  }

  /** The host context (`RegistryOptions.context()`, frozen copy), `{}` when absent or it threw. */
  host(): HostContext {
    const f = this.options.context;
    if (!f) return EMPTY;
    try {
      return Object.freeze({ ...f() });
    } catch (e) {
      if (this.development) console.error(`agent-surface: RegistryOptions.context threw: ${(e as Error)?.message ?? e}`);
      return EMPTY;
    }
  }

  log(level: LogLevel, message: string): void {
    this.logRecord({ level, message });
  }

  logRecord(rec: LogRecord): void {
    if (this.options.log) {
      try {
        this.options.log(rec);
      } catch {
        // a log hook must not break the registry
      }
      return;
    }
    if (rec.level === "info" && !this.development) return;
    console[rec.level](`agent-surface: ${rec.message}`);
  }

  /**
   * Hands a record to the audit sink: the one given, else the default in-memory ring (and, in
   * development, a log record of kind `audit`). The record is deep-frozen; a throwing sink is
   * logged.
   */
  audit(record: AuditRecord): void {
    deepFreeze(record);
    const sink = this.options.audit;
    if (sink) {
      try {
        sink.record(record);
      } catch (e) {
        console.error(`agent-surface: the audit sink threw: ${(e as Error)?.message ?? e}`);
      }
      return;
    }
    if (this.development) {
      const code = record.code ? ` ${record.code}` : "";
      this.logRecord({
        level: "info",
        message: `audit: ${record.invocationId} ${record.capabilityId} ${record.consumerKey} ${record.status}${code}`,
        kind: "audit",
        invocationId: record.invocationId,
        capabilityId: record.capabilityId,
      });
    }
    this.defaultAudit?.record(record);
  }

  /** Delivers the queued events (call after a mutation). */
  flush(): void {
    this.events.flush(() => String(this.state.version));
  }

  static trimTombstones(st: State, limits: Readonly<AgentSurfaceLimits>, now: number): void {
    const t = st.tombstones;
    let drop = Math.max(0, t.length - limits.tombstoneSize);
    while (drop < t.length && now - t[drop]!.atMs > limits.tombstoneTtlMs) drop++;
    if (drop > 0) t.splice(0, drop);
  }

  /** The tombstone of a registration id, if still remembered. */
  tombstone(st: State, id: string): Tombstone | undefined {
    Surface.trimTombstones(st, this.options.limits, this.now());
    return st.tombstones.find((t) => t.registrationId === id);
  }

  /** The discovery scope of one snapshot, explanation or invocation (`host`: already read, if so). */
  scope(consumer: AgentConsumer, host?: HostContext): DiscoveryScope {
    const surface = this;
    return {
      consumer,
      get host() {
        return (host ??= surface.host());
      },
    };
  }

  /**
   * Availability of one capability for a consumer (enabled, pushed override, `when()`, then the
   * discovery policies of registry, component and capability). undefined: hidden by policy.
   */
  availability(
    reg: Reg,
    dynamic: Dynamic,
    capabilityId: string,
    name: string,
    capabilityPolicies: readonly Policy[],
    when: WhenFn | undefined,
    reason: UnavailableReason | undefined,
    discovery: DiscoveryScope,
    forwarded = false,
  ): Availability | undefined {
    const outer = this.options.policies;
    const component = reg.bound.policies;
    // Most capabilities have no discovery policy: then no context is needed at all.
    let decision: ReturnType<typeof evaluateDiscovery> = "expose";
    if (hasDiscovery(outer) || hasDiscovery(component) || hasDiscovery(capabilityPolicies)) {
      const chain = [...outer, ...component, ...capabilityPolicies];
      const ctx: DiscoveryContext = Object.freeze({
        capabilityId,
        componentType: reg.bound.componentType,
        instanceId: reg.bound.instanceId,
        consumer: discovery.consumer,
        host: discovery.host,
      });
      decision = evaluateDiscovery(chain, ctx, this.development);
    }
    if (decision === "hide") return undefined;
    const base = this.baseAvailability(dynamic, name, when, reason, capabilityId, forwarded);
    if (!base[0]) return base;
    if (typeof decision === "object") return [false, decision.disable];
    return [true, undefined];
  }

  /**
   * Availability of the `index`-th procedure a registration references (same formula; pushed
   * overrides name observations and actions only, and a procedure id never matches one). A
   * procedure without a local `execute` is unavailable ("no-procedure-executor") while no
   * executor is installed.
   */
  procedureAvailability(reg: Reg, dynamic: Dynamic, index: number, discovery: DiscoveryScope): Availability | undefined {
    const p = reg.bound.procedures[index]!;
    const b = p.binding;
    return this.availability(reg, dynamic, p.id, p.id, b.policies, b.when, b.unavailableReason, discovery, b.forwarded);
  }

  /**
   * Availability from state alone (enabled, pushed override, `when()`, and for a procedure
   * referenced without a local `execute` (`forwarded`) an installed procedure executor), without
   * policies: what `explainSurface` reports apart from policy votes.
   */
  baseAvailability(dynamic: Dynamic, name: string, when: WhenFn | undefined, reason: UnavailableReason | undefined, capabilityId: string, forwarded = false): Availability {
    if (!dynamic.enabled) return [false, "component-disabled"];
    const o = dynamic.overrides.get(name);
    if (o && !o.available) return [false, o.reason ?? "unavailable"];
    if (when) {
      const w = when();
      if (w === false) return [false, reason === undefined ? "unavailable" : evaluateReason(reason)];
      if (w === undefined) {
        if (this.development) this.log("warn", `when() of ${capabilityId} failed`);
        return [false, "when-error"];
      }
    }
    if (forwarded && !this.procedureExecutor) return [false, NO_EXECUTOR];
    return [true, undefined];
  }

  /** A compiled validator for a schema, cached by its canonical text; undefined when it cannot compile. */
  validator(schema: JsonSchema): Validator | undefined {
    const key = canonicalJson(schema);
    let v = this.validators.get(key);
    if (v === undefined) {
      try {
        v = compileValidator(schema, this.options.limits);
      } catch {
        v = null;
      }
      this.validators.set(key, v);
    }
    return v ?? undefined;
  }
}

const hasDiscovery = (policies: readonly Policy[]): boolean => policies.some((p) => p.phases.includes("discovery"));

/** The reason a forwarded procedure is unavailable while no procedure executor is installed. */
export const NO_EXECUTOR = "no-procedure-executor";
