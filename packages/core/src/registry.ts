// createAgentSurfaceRegistry: the engine's AgentSurfaceRegistry (crates/engine through
// crates/wasm) behind the spec's JavaScript API. The engine decides everything — verification
// of bindings against the authority, availability, versioning, the invocation pipeline,
// confirmations, audit, events; this module keeps what must be JavaScript: the handlers (live
// references, called through the binding host), the policies (by id), the listeners,
// microtask coalescing of `surface-changed`, AbortSignals and the deep-frozen results.

import { Cancel, Registry as EngineRegistry, type Handle as EngineHandle } from "../wasm/agent_surface_wasm.js";
import { engineAuthority } from "./authority.js";
import { engineError } from "./engine.js";
import { AgentSurfaceDefinitionError } from "./errors.js";
import { abortCall, answer, answerCall, asPreconditionFailure, callSignal, isThenable, withSignal } from "./invoke-bridge.js";
import { deepFreeze, isPlainObject, jsonText } from "./json.js";
import { PolicyTable } from "./policies.js";
import type {
  AgentInvocation,
  AgentInvocationResult,
  AgentProcedureExecutor,
  AgentRegistrationHandle,
  AgentSurfaceEvent,
  AgentSurfaceRegistry,
  AgentSurfaceSnapshot,
  ConfirmationController,
  InvokeOptions,
  PendingConfirmation,
  RegistryOptions,
  SnapshotContext,
  Unsubscribe,
} from "./types.js";

const OPTION_KEYS = new Set([
  "environment",
  "context",
  "policies",
  "audit",
  "onRegister",
  "onDuplicateInstance",
  "duplicateSuffixPolicy",
  "route",
  "limits",
  "now",
  "authority",
]);

/** The `internal` an onRegister guard sees for a binding that declares none. */
const NO_INTERNAL: Readonly<Record<string, unknown>> = Object.freeze({});

/** Registries this module created -> their engine (explainSurface, toolsets and the MCP bridge reach it here). */
const engines = new WeakMap<object, EngineRegistry>();

/** @internal The engine behind a registry created here; a TypeError for anything else. */
export function engineOf(registry: unknown, who: string): EngineRegistry {
  const engine = typeof registry === "object" && registry !== null ? engines.get(registry) : undefined;
  if (!engine) throw new TypeError(`${who}: not a registry created by createAgentSurfaceRegistry of this package`);
  return engine;
}

type AnyRecord = Record<string, unknown>;
type Fn = (...args: never[]) => unknown;

function isObject(v: unknown): v is AnyRecord {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A definition defect thrown by the engine, as the package's error class. */
function definitionError(thrown: unknown): Error {
  const e = engineError(thrown);
  const err = new AgentSurfaceDefinitionError(e.message, { contract: (e.contract as string | undefined) || null });
  (err as unknown as { code: string }).code = (e.code as string | undefined) ?? e.kind;
  return err;
}

function misuse(thrown: unknown, who: string): Error {
  try {
    return new TypeError(`${who}: ${engineError(thrown).message}`);
  } catch {
    return thrown as Error;
  }
}

function textOf(value: unknown, who: string): string {
  try {
    return jsonText(value);
  } catch (e) {
    throw new TypeError(`${who}: ${(e as Error).message}`);
  }
}

/** A function-valued option, or undefined; anything else is misuse. */
function fnOption<T extends Fn>(options: AnyRecord, key: string): T | undefined {
  const v = options[key];
  if (v === undefined) return undefined;
  if (typeof v !== "function") throw new TypeError(`createAgentSurfaceRegistry: options.${key} must be a function`);
  return v as T;
}

// ---------------------------------------------------------------------------------------------
// Definitions -> what the engine is told

/** @internal The compiler's `{ id, contractHash }` a contract carries (undefined: an inert contract). */
export function provenanceOf(contract: AnyRecord): unknown {
  return isObject(contract.provenance) ? contract.provenance : undefined;
}

function schemaOf(s: unknown): unknown {
  return isObject(s) ? s.jsonSchema : undefined;
}

/** A component contract's definition in the manifest's field names (model `authored`). */
function authoredComponent(def: AnyRecord): AnyRecord {
  const observations: AnyRecord = {};
  for (const [name, o] of Object.entries((def.observations as AnyRecord | undefined) ?? {})) {
    const oc = o as AnyRecord;
    observations[name] = { description: oc.description, outputSchema: schemaOf(oc.output), meta: oc.meta };
  }
  const actions: AnyRecord = {};
  for (const [name, a] of Object.entries((def.actions as AnyRecord | undefined) ?? {})) {
    actions[name] = authoredCapability(a as AnyRecord);
  }
  const { type, description, meta, origin, priority, policies, tags } = def;
  return { type, description, meta, origin, priority, policies, tags, observations, actions };
}

function authoredCapability(c: AnyRecord): AnyRecord {
  const { description, effect, idempotent, reversible, confirmation, audit, meta } = c;
  return {
    description,
    inputSchema: schemaOf(c.input),
    outputSchema: c.output === undefined ? undefined : schemaOf(c.output),
    effect,
    idempotent,
    reversible,
    confirmation,
    audit,
    meta,
  };
}

/** @internal */
export function authoredOperation(def: AnyRecord): AnyRecord {
  return { id: def.id, ...authoredCapability(def), policies: def.policies, tags: def.tags };
}

/** @internal */
export interface Binding {
  contract: AnyRecord & { id: string; kind: string; definition: AnyRecord };
  handlers: AnyRecord;
}

/** @internal A `contract.bind(...)` result. */
export function asBinding(v: unknown): Binding | undefined {
  if (!isObject(v) || !isObject(v.contract) || !isObject(v.handlers)) return undefined;
  const c = v.contract;
  if (typeof c.id !== "string" || typeof c.kind !== "string" || !isObject(c.definition)) return undefined;
  return v as unknown as Binding;
}

/** A defect of a binding's shape found here (the engine's code for binding defects is "binding" too). */
function bindingDefect(message: string, contract: string | null): AgentSurfaceDefinitionError {
  return new AgentSurfaceDefinitionError(message, { contract, code: "binding" });
}

function timeoutOf(v: unknown, where: string, contract: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw bindingDefect(`${where}: timeoutMs must be a non-negative number`, contract);
  return v;
}

function capabilitySettings(b: AnyRecord, where: string, policies: PolicyTable, contract: string): AnyRecord {
  const reason = b.unavailableReason;
  if (reason !== undefined && typeof reason !== "string" && typeof reason !== "function") {
    throw bindingDefect(`${where}: unavailableReason must be a string or a function returning one`, contract);
  }
  return {
    hasWhen: typeof b.when === "function",
    unavailableReason: typeof reason === "string" ? reason : undefined,
    reasonFn: typeof reason === "function",
    hasPrecondition: typeof b.precondition === "function",
    timeoutMs: timeoutOf(b.timeoutMs, where, contract),
    concurrency: b.concurrency,
    policies: policies.refs(b.policies, where, contract),
  };
}

/** The JSON the engine's `register` reads (crates/wasm/src/registry.rs `DefinitionWire`). */
function definitionWire(binding: Binding, policies: PolicyTable): string {
  const { contract, handlers } = binding;
  if (contract.kind !== "component") {
    throw bindingDefect(`${contract.id}: register takes a component binding; bind procedures into a component's "procedures"`, contract.id);
  }
  const def = contract.definition;
  const where = contract.id;
  const observations: AnyRecord = {};
  for (const [name, b] of Object.entries((handlers.observations as AnyRecord | undefined) ?? {})) {
    observations[name] = capabilitySettings(b as AnyRecord, `observation "${name}" of "${where}"`, policies, where);
  }
  const actions: AnyRecord = {};
  for (const [name, b] of Object.entries((handlers.actions as AnyRecord | undefined) ?? {})) {
    actions[name] = capabilitySettings(b as AnyRecord, `action "${name}" of "${where}"`, policies, where);
  }
  const procedures = ((handlers.procedures as unknown[] | undefined) ?? []).map((p, i) => {
    const pb = asBinding(p);
    if (!pb || pb.contract.kind !== "procedure") {
      throw bindingDefect(`${where}: procedures[${i}] must be a procedure contract's bind(...) result`, where);
    }
    return {
      id: pb.contract.id,
      provenance: provenanceOf(pb.contract) ?? null,
      authored: authoredOperation(pb.contract.definition),
      hasExecute: typeof pb.handlers.execute === "function",
      hasDescribe: typeof pb.handlers.describe === "function",
      ...capabilitySettings(pb.handlers, `procedure "${pb.contract.id}" of "${where}"`, policies, pb.contract.id),
    };
  });
  const parent = handlers.parent;
  if (parent !== undefined && !(isObject(parent) && typeof parent.type === "string")) {
    throw bindingDefect(`${where}: parent must be { type, instanceId? }`, where);
  }
  if (handlers.meta !== undefined) {
    // Agent-visible metadata is the contract's (identity lives in the contract): a binding may
    // only repeat it.
    if (jsonText(handlers.meta) !== jsonText(def.meta ?? {})) {
      throw bindingDefect(`${where}: bind({ meta }) differs from the contract's meta; agent-visible metadata is declared in the contract`, where);
    }
  }
  let authored: string;
  try {
    authored = jsonText(authoredComponent(def));
  } catch (e) {
    throw bindingDefect(`${where}: the contract is not JSON: ${(e as Error).message}`, where);
  }
  const wire = {
    type: def.type,
    instanceId: handlers.instanceId,
    provenance: provenanceOf(contract) ?? null,
    enabled: handlers.enabled,
    parent,
    policies: policies.refs(handlers.policies, where, where),
    observations,
    actions,
    procedures,
  };
  const text = textOf(wire, "register");
  return `${text.slice(0, -1)},"authored":${authored}}`;
}

/** A raw `defineAgentComponent` definition: the engine refuses it (no compiler proof). */
function rawWire(def: AnyRecord): string {
  const names = (m: unknown) => Object.fromEntries(Object.keys(isObject(m) ? m : {}).map((k) => [k, {}]));
  return textOf(
    {
      raw: true,
      type: String(def.type ?? ""),
      instanceId: typeof def.instanceId === "string" ? def.instanceId : undefined,
      description: typeof def.description === "string" ? def.description : "",
      observations: names(def.observations),
      actions: names(def.actions),
    },
    "register",
  );
}

// ---------------------------------------------------------------------------------------------
// The hosts the engine calls

type Lookup = (target: string, name: string) => AnyRecord | undefined;

/** The binding host of one registration: handlers are looked up at call time (live references). */
function bindingHost(binding: Binding, context: () => Readonly<AnyRecord>, development: boolean) {
  const handlers = binding.handlers;
  const procedures = new Map<string, AnyRecord>();
  for (const p of (handlers.procedures as unknown[] | undefined) ?? []) {
    const pb = asBinding(p);
    if (pb) procedures.set(pb.contract.id, pb.handlers);
  }
  const lookup: Lookup = (target, name) => {
    if (target === "procedure") return procedures.get(name);
    const map = (target === "observation" ? handlers.observations : handlers.actions) as AnyRecord | undefined;
    return map?.[name] as AnyRecord | undefined;
  };
  return handlerHost(lookup, context, development);
}

/** Host context for a handler: RegistryOptions.context(), read at call time. */
function hostContext(context: () => Readonly<AnyRecord>, development: boolean): Readonly<AnyRecord> {
  try {
    return context();
  } catch (e) {
    if (development) console.error(`agent-surface: RegistryOptions.context threw: ${(e as Error).message}`);
    return {};
  }
}

/** @internal Handler calls for one set of bindings (a registration's, or the gateway's tools). */
export function handlerHost(lookup: Lookup, context: () => Readonly<AnyRecord>, development: boolean) {
  const label = (target: string, name: string) => `${target} "${name}"`;
  return {
    read(name: string, ctxText: string) {
      const b = lookup("observation", name);
      const ctx = Object.freeze({ ...(JSON.parse(ctxText) as AnyRecord), host: hostContext(context, development) });
      return answer(() => (b!.read as Fn).call(b, ctx as never), `the read of ${label("observation", name)}`, development);
    },
    execute(target: string, name: string, inputText: string, ctxText: string, serial: number) {
      const b = lookup(target, name);
      const { signal, settle } = callSignal(serial);
      const ctx = withSignal({ ...(JSON.parse(ctxText) as AnyRecord), host: hostContext(context, development) }, signal);
      const input = JSON.parse(inputText);
      return answerCall(() => (b!.execute as Fn).call(b, input as never, ctx as never), `the execute of ${label(target, name)}`, development, settle);
    },
    abort(serial: number, reason: string) {
      abortCall(serial, reason);
    },
    when(target: string, name: string) {
      const b = lookup(target, name);
      try {
        const v = (b!.when as Fn).call(b);
        if (isThenable(v)) {
          if (development) console.warn(`agent-surface: when() of ${label(target, name)} returned a promise; when must be synchronous (unavailable)`);
          return undefined;
        }
        return v !== false;
      } catch (e) {
        if (development) console.warn(`agent-surface: when() of ${label(target, name)} threw (unavailable, "when-error"): ${(e as Error).message}`);
        return undefined;
      }
    },
    reason(target: string, name: string) {
      const b = lookup(target, name);
      try {
        const r = (b!.unavailableReason as Fn).call(b);
        return typeof r === "string" ? r : "unavailable";
      } catch {
        return "unavailable";
      }
    },
    precondition(target: string, name: string, inputText: string, ctxText: string) {
      const b = lookup(target, name);
      const ctx = Object.freeze({ ...(JSON.parse(ctxText) as AnyRecord), host: hostContext(context, development) });
      let r: unknown;
      try {
        r = (b!.precondition as Fn).call(b, JSON.parse(inputText) as never, ctx as never);
      } catch (thrown) {
        r = asPreconditionFailure(thrown) ?? { message: "the precondition check failed" };
        if (!asPreconditionFailure(thrown) && development) console.error(`agent-surface: the precondition of ${label(target, name)} threw: ${(thrown as Error)?.message}`);
      }
      if (r === undefined || r === null) return undefined;
      const p = asPreconditionFailure(r) ?? { message: "precondition failed" };
      try {
        return jsonText(p);
      } catch (e) {
        // The failure still reaches the agent (its message); the details that are not JSON are
        // dropped, and reported in development like any other defect (naming the JSON pointer).
        if (development) console.error(`agent-surface: the precondition of ${label(target, name)} failed with details that are not JSON: ${(e as Error).message}`);
        return JSON.stringify({ message: p.message });
      }
    },
    describe(id: string) {
      const b = lookup("procedure", id);
      try {
        const note = (b!.describe as Fn).call(b);
        return typeof note === "string" ? note : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The registry

function freezeParsed<T>(text: string): T {
  return deepFreeze(JSON.parse(text) as T);
}

/**
 * `createAgentSurfaceRegistry(options)`: the authority is mandatory (a genuine
 * CapabilityAuthority from `virtual:agent-surface/authority` or createCapabilityAuthority).
 */
export function createAgentSurfaceRegistry(options: RegistryOptions): AgentSurfaceRegistry {
  if (!isObject(options)) throw new TypeError("createAgentSurfaceRegistry: pass { authority } (the CapabilityAuthority is mandatory)");
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) throw new TypeError(`createAgentSurfaceRegistry: unknown option "${key}" (allowed: ${[...OPTION_KEYS].join(", ")})`);
  }
  const o = options as unknown as AnyRecord;
  const authority = engineAuthority(o.authority, "createAgentSurfaceRegistry");
  const development = o.environment === "development";
  const contextFn = fnOption<() => AnyRecord>(o, "context");
  const context = () => Object.freeze({ ...(contextFn ? contextFn() : {}) });
  const now = fnOption<() => number>(o, "now");
  const route = fnOption<() => unknown>(o, "route");
  const onRegister = fnOption<(c: unknown) => unknown>(o, "onRegister");
  // The engine reads a JSON array as a struct's fields in order: `limits: [5]` would set
  // maxComponentDescription. Only an object is a Partial<AgentSurfaceLimits>.
  if (o.limits !== undefined && !isPlainObject(o.limits)) throw new TypeError("createAgentSurfaceRegistry: options.limits must be an object (Partial<AgentSurfaceLimits>)");
  const audit = o.audit;
  if (audit !== undefined && !(isObject(audit) && typeof audit.record === "function") && typeof audit !== "function") {
    throw new TypeError("createAgentSurfaceRegistry: options.audit must be an AuditSink { record(record) }");
  }
  const policies = new PolicyTable(context, development);
  const listeners = new Set<(e: AgentSurfaceEvent) => void>();
  let executor: AgentProcedureExecutor | undefined;
  let registeringInternal: unknown;
  let surfaceChangePending = false;
  let latestVersion = "0";

  const dispatch = (event: AgentSurfaceEvent) => {
    for (const l of [...listeners]) {
      try {
        l(event);
      } catch (e) {
        // Listener isolation: one failing listener does not stop the others.
        console.error(`agent-surface: a registry listener threw on "${event.type}": ${(e as Error)?.message ?? e}`);
      }
    }
  };

  const registryHost = {
    now: () => (now ? now() : Date.now()),
    route() {
      if (!route) return undefined;
      try {
        const r = route();
        return r === undefined ? undefined : jsonText(r);
      } catch (e) {
        if (development) console.error(`agent-surface: RegistryOptions.route threw: ${(e as Error).message}`);
        return undefined;
      }
    },
    onRegister(candidateText: string) {
      if (!onRegister) return true;
      // `internal` is always an object (the type promises one): `{}` for a binding without it.
      const candidate = Object.freeze({ ...(JSON.parse(candidateText) as AnyRecord), internal: registeringInternal ?? NO_INTERNAL });
      try {
        return onRegister(candidate) === "accept";
      } catch (e) {
        if (development) console.error(`agent-surface: RegistryOptions.onRegister threw (rejected): ${(e as Error).message}`);
        return false;
      }
    },
    log(recordText: string) {
      const r = JSON.parse(recordText) as { level: "info" | "warn" | "error"; message: string };
      if (r.level === "info" && !development) return;
      console[r.level](`agent-surface: ${r.message}`);
    },
    audit(recordText: string) {
      const record = freezeParsed(recordText);
      try {
        if (typeof audit === "function") (audit as (r: unknown) => void)(record);
        else (audit as { record(r: unknown): void }).record(record);
      } catch (e) {
        console.error(`agent-surface: the audit sink threw: ${(e as Error)?.message ?? e}`);
      }
    },
    event(eventText: string) {
      const event = freezeParsed<AgentSurfaceEvent>(eventText);
      if (event.type === "surface-changed") {
        // Coalesced per microtask: a burst of registrations is one event, with the latest version.
        latestVersion = event.surfaceVersion;
        if (!surfaceChangePending) {
          surfaceChangePending = true;
          queueMicrotask(() => {
            surfaceChangePending = false;
            dispatch(Object.freeze({ type: "surface-changed", surfaceVersion: latestVersion }) as AgentSurfaceEvent);
          });
        }
        return;
      }
      dispatch(event);
    },
    discover: (id: number, ctxText: string) => policies.discover(id, ctxText),
    decide: (id: number, phase: string, ctxText: string) => policies.decide(id, phase, ctxText),
    executeProcedure(callText: string, serial: number) {
      const call = JSON.parse(callText) as AnyRecord;
      const { signal, settle } = callSignal(serial);
      const current = executor;
      return answerCall(
        () => {
          if (!current) throw new Error("no procedure executor is installed");
          return current.execute(withSignal({ ...call }, signal) as never);
        },
        `the procedure executor for "${String(call.procedureId)}"`,
        development,
        settle,
      );
    },
    abortProcedure(serial: number, reason: string) {
      abortCall(serial, reason);
    },
  };

  const settings = {
    environment: o.environment,
    onDuplicateInstance: o.onDuplicateInstance,
    duplicateSuffixPolicy: o.duplicateSuffixPolicy,
    limits: o.limits,
    hasRoute: route !== undefined,
    hasOnRegister: onRegister !== undefined,
    hasAudit: audit !== undefined,
    policies: policies.refs(o.policies, "createAgentSurfaceRegistry"),
  };
  let engine: EngineRegistry;
  try {
    engine = new EngineRegistry(authority, textOf(settings, "createAgentSurfaceRegistry"), registryHost as never);
  } catch (thrown) {
    throw misuse(thrown, "createAgentSurfaceRegistry");
  }
  const surfaceId = engine.surfaceId;

  const confirmations: ConfirmationController = Object.freeze({
    pending(): PendingConfirmation[] {
      return freezeParsed(engine.pendingConfirmations());
    },
    resolve(confirmationId: string, resolution: { approved: boolean; reason?: string }) {
      if (typeof confirmationId !== "string") throw new TypeError("confirmations.resolve: confirmationId must be a string");
      if (!isObject(resolution) || typeof resolution.approved !== "boolean") {
        throw new TypeError("confirmations.resolve: pass { approved: boolean, reason?: string }");
      }
      if (resolution.reason !== undefined && typeof resolution.reason !== "string") throw new TypeError("confirmations.resolve: reason must be a string");
      try {
        engine.resolveConfirmation(confirmationId, resolution.approved, resolution.reason);
      } catch (thrown) {
        const e = engineError(thrown);
        throw Object.assign(new Error(`confirmations.resolve: ${e.message}`), { code: e.kind });
      }
    },
    waitFor(confirmationId: string, opts?: { signal?: AbortSignal }) {
      const signal = opts?.signal;
      const cancel = signal ? new Cancel() : undefined;
      const onAbort = () => cancel?.abort();
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
      return (engine.waitForConfirmation(String(confirmationId), cancel?.handle()) as Promise<string>).finally(() =>
        signal?.removeEventListener("abort", onAbort),
      ) as Promise<"approved" | "denied" | "expired">;
    },
    subscribe(listener: (pending: PendingConfirmation[]) => void): Unsubscribe {
      if (typeof listener !== "function") throw new TypeError("confirmations.subscribe: the listener must be a function");
      const id = engine.subscribeConfirmations((text: string) => {
        try {
          listener(freezeParsed(text));
        } catch (e) {
          console.error(`agent-surface: a confirmations listener threw: ${(e as Error)?.message ?? e}`);
        }
      });
      return () => engine.unsubscribeConfirmations(id);
    },
  });

  const registry: AgentSurfaceRegistry = Object.freeze({
    surfaceId,
    register(definition: unknown): AgentRegistrationHandle {
      const binding = asBinding(definition);
      let wire: string;
      let host: ReturnType<typeof bindingHost> | Record<string, never>;
      if (binding) {
        wire = definitionWire(binding, policies);
        host = bindingHost(binding, context, development);
      } else if (isObject(definition) && typeof definition.type === "string") {
        wire = rawWire(definition);
        host = {};
      } else {
        throw bindingDefect("register: expected a contract binding (contract.bind({ observations, actions }))", null);
      }
      registeringInternal = binding?.handlers.internal;
      let handle: EngineHandle;
      try {
        handle = engine.register(wire, host as never);
      } catch (thrown) {
        const e = engineError(thrown);
        if (e.kind === "misuse") throw new TypeError(`register: ${e.message}`);
        throw definitionError(thrown);
      } finally {
        registeringInternal = undefined;
      }
      return wrapHandle(handle, development);
    },
    snapshot(ctx?: SnapshotContext): AgentSurfaceSnapshot {
      if (ctx !== undefined && !isPlainObject(ctx as unknown)) throw new TypeError("snapshot: the context must be an object { consumer?, scope?, includeUnavailable?, budget? }");
      try {
        return freezeParsed(engine.snapshot(textOf(ctx ?? {}, "snapshot")));
      } catch (thrown) {
        if (thrown instanceof TypeError) throw thrown;
        throw misuse(thrown, "snapshot");
      }
    },
    invoke(request: AgentInvocation, opts?: InvokeOptions): Promise<AgentInvocationResult> {
      if (!isObject(request) || typeof request.capabilityId !== "string") {
        return Promise.reject(new TypeError("invoke: the request needs a capabilityId"));
      }
      if (opts !== undefined && !isPlainObject(opts as unknown)) return Promise.reject(new TypeError("invoke: the options must be an object { consumer?, signal?, timeoutMs? }"));
      let requestText: string;
      let optionsText: string;
      try {
        requestText = textOf(request, "invoke");
        optionsText = textOf({ consumer: opts?.consumer, timeoutMs: opts?.timeoutMs }, "invoke");
      } catch (e) {
        return Promise.reject(e);
      }
      const signal = opts?.signal;
      const cancel = signal ? new Cancel() : undefined;
      const onAbort = () => cancel?.abort();
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
      return (engine.invoke(requestText, optionsText, cancel?.handle()) as Promise<string>).then(
        (text) => {
          signal?.removeEventListener("abort", onAbort);
          return freezeParsed<AgentInvocationResult>(text);
        },
        (thrown) => {
          signal?.removeEventListener("abort", onAbort);
          throw misuse(thrown, "invoke");
        },
      );
    },
    subscribe(listener: (event: AgentSurfaceEvent) => void): Unsubscribe {
      if (typeof listener !== "function") throw new TypeError("subscribe: the listener must be a function");
      listeners.add(listener);
      engine.setEventsWanted(true);
      return () => {
        listeners.delete(listener);
        engine.setEventsWanted(listeners.size > 0);
      };
    },
    confirmations,
    setProcedureExecutor(next: AgentProcedureExecutor | undefined) {
      if (next !== undefined && !(isObject(next) && typeof next.execute === "function")) {
        throw new TypeError("setProcedureExecutor: pass an AgentProcedureExecutor { execute(call) } or undefined");
      }
      executor = next;
      engine.setProcedureExecutor(next !== undefined);
    },
    getVersion: () => engine.getVersion(),
    dispose() {
      engine.dispose();
      listeners.clear();
      engine.setEventsWanted(false);
    },
  });
  engines.set(registry, engine);
  return registry;
}

function wrapHandle(handle: EngineHandle, development: boolean): AgentRegistrationHandle {
  const registrationId = handle.registrationId;
  return Object.freeze({
    registrationId,
    get status() {
      return handle.status as AgentRegistrationHandle["status"];
    },
    update(patch: { enabled?: boolean; availability?: Record<string, { available: boolean; reason?: string }> }) {
      if (!isPlainObject(patch)) throw new TypeError("update: pass { enabled?, availability? }");
      for (const key of Object.keys(patch)) {
        if (key !== "enabled" && key !== "availability") {
          throw new AgentSurfaceDefinitionError(
            `update: "${key}" is not updatable (only enabled and availability; structural changes need unregister + register)`,
            { code: "not-updatable" },
          );
        }
      }
      if (development && handle.status !== "active") console.warn(`agent-surface: update on ${registrationId} (${handle.status}) does nothing`);
      try {
        handle.update(textOf(patch, "update"));
      } catch (thrown) {
        if (thrown instanceof TypeError) throw thrown;
        throw misuse(thrown, "update");
      }
    },
    invalidate: () => handle.invalidate(),
    unregister: () => handle.unregister(),
  }) as AgentRegistrationHandle;
}
