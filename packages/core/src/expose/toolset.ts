// createAgentToolset (crates/engine/src/expose/toolset.rs) over the public API of a registry:
// direct tools (one per capability, wire-safe names) or the three meta tools; `wait` or
// `two-phase` confirmations (two-phase remembers a CONFIRMATION_REQUIRED per tool, canonical
// input and consumer and attaches it when the model repeats the call, so a model never handles
// confirmation ids). A tool executes as it was in the catalog it came from (its registrationId and
// surfaceVersion go with the call) while that catalog is one of the 32 kept, and never throws.

import { canonicalJson } from "../model/canonical.js";
import { deepFreeze as freeze, isPlainObject as isPlain, jsonCopy } from "../model/json.js";
import type {
  AgentConsumer,
  AgentInvocation,
  AgentInvocationResult,
  AgentSurfaceRegistry,
  AgentTool,
  AgentToolset,
  AgentToolsetOptions,
  JsonValue,
  SnapshotContext,
  Unsubscribe,
} from "../types.js";
import { KINDS } from "../runtime/consumer.js";
import { inScope } from "../runtime/snapshot.js";
import { type CatalogTool, type Route, directTools, metaTools } from "./catalog.js";
import { type ToolProvider, toolBlock, withTraits } from "./providers.js";

const OPTION_KEYS = ["consumer", "mode", "topology", "confirmations", "scope", "budget", "names"];
/** How many catalogs `tools()` built are kept for their tools' `execute`. */
const KEPT_CATALOGS = 32;
/** Entries of each confirmation memory (by input, by call) before the oldest go. */
const CONFIRM_MEMORY = 256;

type Obj = Record<string, unknown>;
type Result = AgentInvocationResult;
type Budget = { maxComponents?: number; maxBytes?: number };

/** The id of the catalog each `tools()` array came from (the MCP bridge sends it with every call). */
const catalogIds = new WeakMap<readonly AgentTool[], number>();
/** Catalog ids are unique across toolsets. */
let catalogSerial = 0;

/**
 * @internal The id of the catalog a `tools()` array came from: the same id while every tool
 * routes to the same registration and surface version, a new one when a route moved.
 */
export function catalogIdOf(tools: readonly AgentTool[]): number | undefined {
  return catalogIds.get(tools);
}

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Deep equality of JSON values (and of catalog entries). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Obj)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Obj)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && same((a as Obj)[k], (b as Obj)[k]));
}

/** Whether two catalogs show the same (routes aside, or with them). */
const sameCatalog = (a: CatalogTool[], b: CatalogTool[], routes: boolean) =>
  a.length === b.length && a.every((x, i) => same(routes ? x : { ...x, route: undefined }, routes ? b[i] : { ...b[i], route: undefined }));

const RETRY: Record<string, string> = { CAPABILITY_NOT_FOUND: "with-changes", INVALID_INPUT: "with-changes", CANCELLED: "never", EXECUTION_FAILED: "never" };

function failure(invocationId: string | undefined, capabilityId: string, code: string, message: string, surfaceVersion: string): Result {
  return freeze({ status: "error", invocationId: invocationId ?? "", capabilityId, error: { code, message, retry: RETRY[code] }, surfaceVersion }) as Result;
}

const confirmationIdOf = (r: Result): string | undefined => {
  const id = r.status === "error" ? r.error.details?.confirmationId : undefined;
  return typeof id === "string" ? id : undefined;
};
const codeOf = (r: Result) => (r.status === "error" ? r.error.code : undefined);

interface Options {
  consumer: AgentConsumer;
  meta: boolean;
  wait: boolean;
  scope?: string[];
  budget?: Budget;
  unprefixed: boolean;
}

function readOptions(options: unknown): Options {
  const fail = (m: string): never => {
    throw new TypeError(`createAgentToolset: ${m}`);
  };
  if (!isPlain(options)) fail("pass { consumer, topology | confirmations, mode? }");
  const o = options as Obj;
  for (const key of Object.keys(o)) {
    if (!OPTION_KEYS.includes(key)) fail(`unknown option "${key}" (allowed: ${OPTION_KEYS.join(", ")})`);
  }
  const shown = (v: unknown) =>
    typeof v === "string" ? `"${v}"` : typeof v === "number" ? String(v) : Array.isArray(v) ? "an array" : v === null ? "null" : typeof v;
  const oneOf = (key: string, values: string[]): string | undefined => {
    const v = o[key];
    if (v == null) return undefined;
    if (!values.includes(v as string)) fail(`${key} must be ${values.map((x) => `"${x}"`).join(" or ")}, not ${shown(v)}`);
    return v as string;
  };
  const strings = (v: unknown, what: string): string[] => {
    if (!Array.isArray(v) || !v.every((s) => typeof s === "string")) fail(`${what} must be an array of strings, not ${shown(v)}`);
    return [...(v as string[])];
  };

  const c = o.consumer;
  if (!isPlain(c)) fail(`consumer must be an object { id, kind, grants? }, not ${shown(c)}`);
  const { id, kind, grants } = c as Obj;
  if (typeof id !== "string") fail(`consumer.id must be a string, not ${shown(id)}`);
  if (!KINDS.includes(kind as string)) fail(`consumer.kind must be one of ${KINDS.map((k) => `"${k}"`).join(", ")}, not ${shown(kind)}`);
  const g = grants == null ? [] : strings(grants, "consumer.grants");
  const consumer = { id, kind, ...(g.length > 0 && { grants: g }) } as AgentConsumer;

  const mode = oneOf("mode", ["direct", "meta"]);
  const topology = oneOf("topology", ["embedded", "remote"]);
  const confirmations = oneOf("confirmations", ["wait", "two-phase"]);
  const names = oneOf("names", ["prefixed", "unprefixed"]);
  const scope = o.scope == null ? undefined : strings(o.scope, "scope");
  let budget: Budget | undefined;
  if (o.budget != null) {
    if (!isPlain(o.budget)) fail(`budget must be an object { maxComponents?, maxBytes? }, not ${shown(o.budget)}`);
    budget = {};
    for (const key of ["maxComponents", "maxBytes"] as const) {
      const v = (o.budget as Obj)[key];
      if (v == null) continue;
      if (!Number.isSafeInteger(v) || (v as number) < 0) fail(`budget.${key} must be a non-negative integer, not ${shown(v)}`);
      budget[key] = v as number;
    }
  }
  if (confirmations === undefined && topology === undefined) fail("a toolset needs `topology` or `confirmations`: there is no ambiguous global default");
  if (mode !== "meta" && budget) fail("`budget` is meta-mode only: in direct mode truncation would drop tools silently");
  return {
    consumer: freeze(consumer),
    meta: mode === "meta",
    wait: (confirmations ?? (topology === "embedded" ? "wait" : "two-phase")) === "wait",
    scope,
    budget,
    unprefixed: names === "unprefixed",
  };
}

/** A toolset without `toolBlock`, and its current catalog (`catalog()`: what `toolBlock` renders). */
export type BareToolset = Omit<AgentToolset, "toolBlock"> & { catalog(): CatalogTool[] };

/**
 * @internal A toolset without the provider tool blocks (the WebMCP adapter reads the MCP
 * annotations itself, so a page publishing to WebMCP does not carry the providers' adapters).
 */
export function bareToolset(registry: AgentSurfaceRegistry, options: AgentToolsetOptions): BareToolset {
  const r = registry as unknown as Obj;
  // A registry of this package is frozen and has the public API: a copy of one is refused.
  if (!isObj(r) || !Object.isFrozen(r) || !["snapshot", "invoke", "subscribe", "getVersion"].every((m) => typeof r[m] === "function") || !isObj(r.confirmations)) {
    throw new TypeError("createAgentToolset: not a registry created by createAgentSurfaceRegistry of this package");
  }
  const o = readOptions(options);

  let last: CatalogTool[] = [];
  let wireNames = new Map<string, string>();
  const kept: Array<{ id: number; tools: CatalogTool[] }> = [];
  const listeners = new Set<(tools: AgentTool[]) => void>();
  // Two-phase (and wait-mode redelivery) memory: confirmation ids by canonical call, by tool-call id.
  const byInput = new Map<string, string>();
  const byCall = new Map<string, string>();
  const order: Array<[boolean, string]> = [];
  const remember = (call: boolean, key: string, cid: string) => {
    const map = call ? byCall : byInput;
    if (!map.has(key)) order.push([call, key]);
    map.set(key, cid);
    while (order.length > 2 * CONFIRM_MEMORY) {
      const [c, k] = order.shift()!;
      (c ? byCall : byInput).delete(k);
    }
  };

  const version = () => {
    try {
      return registry.getVersion();
    } catch {
      return "";
    }
  };
  const snapshot = (scope: string[] | undefined, budget?: Budget) =>
    registry.snapshot({ consumer: o.consumer, includeUnavailable: true, ...(scope && { scope }), ...(budget && { budget }) } as SnapshotContext);

  /** The current catalog (it becomes the last one: wireNameMap, calls by name). */
  const build = (): CatalogTool[] => {
    const tools = o.meta ? metaTools() : directTools(snapshot(o.scope), o.unprefixed ? "unprefixed" : "prefixed");
    last = tools;
    wireNames = new Map(tools.flatMap((t) => (t.route ? [[t.name, t.route.capabilityId]] : [])));
    return tools;
  };

  /** Keeps a catalog (the newest one's id while nothing a call carries changed) and gives the host its tools. */
  const materialize = (tools: CatalogTool[]): AgentTool[] => {
    let catalog = kept.at(-1);
    if (!catalog || !sameCatalog(catalog.tools, tools, true)) {
      catalog = { id: ++catalogSerial, tools };
      kept.push(catalog);
      if (kept.length > KEPT_CATALOGS) kept.shift();
    }
    const id = catalog.id;
    const out = Object.freeze(
      tools.map((t) => {
        const { name, description, inputSchema, outputSchema, state } = t;
        const tool = {
          name,
          description,
          inputSchema,
          ...(outputSchema !== undefined && { outputSchema }),
          state,
          execute: (input: JsonValue, call?: { toolCallId?: string; signal?: AbortSignal }) => execute(id, name, input, call),
        };
        return withTraits(freeze(tool), t.traits);
      }),
    ) as AgentTool[];
    catalogIds.set(out, id);
    return out;
  };

  const execute = async (catalog: number, name: string, input: unknown, call?: { toolCallId?: string; signal?: AbortSignal }): Promise<Result> => {
    const toolCallId = typeof call?.toolCallId === "string" ? call.toolCallId : undefined;
    const signal = isObj(call?.signal) ? call.signal : undefined;
    let value: JsonValue;
    try {
      value = jsonCopy(input ?? {}) as JsonValue;
    } catch (e) {
      return failure(toolCallId, name, "INVALID_INPUT", `the input is not JSON: ${(e as Error).message}`, version());
    }
    const route = kept.find((c) => c.id === catalog)?.tools.find((t) => t.name === name)?.route;
    try {
      return await (route ? invokeDirect(route, value, toolCallId, signal) : executeByName(name, value, toolCallId, signal));
    } catch {
      // A throw through the pipeline (a bug, or a registry that broke its promise).
      return failure(toolCallId, route?.capabilityId ?? name, "EXECUTION_FAILED", "the operation failed", "");
    }
  };

  const executeByName = (name: string, input: JsonValue, id: string | undefined, signal: AbortSignal | undefined): Promise<Result> => {
    if (last.length === 0) build();
    const notFound = (m: string) => Promise.resolve(failure(id, name, "CAPABILITY_NOT_FOUND", m, version()));
    if (!o.meta) {
      const route = last.find((t) => t.name === name)?.route;
      return route ? invokeDirect(route, input, id, signal) : notFound(`no tool named ${name}`);
    }
    const i = isObj(input) ? input : {};
    const text = (k: string) => (typeof i[k] === "string" ? (i[k] as string) : undefined);
    if (name === "surface_discover") return Promise.resolve(discover(i, id));
    if (name !== "surface_invoke" && name !== "surface_read") return notFound(`no tool named ${name}`);
    const capabilityId = text("capabilityId");
    if (capabilityId === undefined) return notFound("capabilityId is required");
    if (!inFloor(capabilityId)) return notFound(`no live capability ${capabilityId}`);
    const inv: AgentInvocation = { capabilityId };
    if (id !== undefined) inv.invocationId = id;
    for (const k of ["instanceId", "registrationId", "surfaceVersion"] as const) if (text(k) !== undefined) inv[k] = text(k);
    if (name === "surface_invoke") {
      if (text("confirmationId") !== undefined) inv.confirmationId = text("confirmationId");
      inv.input = "input" in i ? (i.input as JsonValue) : {};
    }
    return invoke(inv, signal);
  };

  /** A direct tool's call: its catalog's route, and in two-phase mode the remembered confirmation of an identical call. */
  const invokeDirect = async (route: Route, input: JsonValue, id: string | undefined, signal: AbortSignal | undefined): Promise<Result> => {
    const inv: AgentInvocation = { capabilityId: route.capabilityId };
    if (id !== undefined) inv.invocationId = id;
    if (route.instanceId !== undefined) inv.instanceId = route.instanceId;
    if (route.registrationId !== undefined) inv.registrationId = route.registrationId;
    inv.surfaceVersion = route.surfaceVersion;
    const key = canonicalJson({ capabilityId: route.capabilityId, instanceId: route.instanceId ?? null, input });
    const attached = o.wait ? undefined : ((id !== undefined ? byCall.get(id) : undefined) ?? byInput.get(key));
    if (attached !== undefined) inv.confirmationId = attached;
    inv.input = input;
    let result = await invoke(inv, signal);
    if (o.wait) return result;
    const code = codeOf(result);
    if (code === "CONFIRMATION_REQUIRED") {
      // The model cannot pass a confirmationId to a direct tool: tell it what works.
      const r = result as Extract<Result, { status: "error" }>;
      result = freeze({ ...r, error: { ...r.error, message: "the user must confirm this operation; once they approved, repeat this call with the same arguments" } });
      const cid = confirmationIdOf(result);
      if (cid !== undefined) remember(false, key, cid);
    } else if (attached !== undefined && (code === undefined || code === "CONFIRMATION_DENIED" || code === "CONFIRMATION_EXPIRED")) {
      // Settled: used, denied or expired. The next identical call starts a fresh confirmation.
      byInput.delete(key);
    }
    if (id !== undefined && attached !== undefined) remember(true, id, attached);
    return result;
  };

  const inFloor = (capabilityId: string): boolean => {
    if (!o.scope || !capabilityId.startsWith("view:")) return true;
    const rest = capabilityId.slice(5);
    const dot = rest.lastIndexOf(".");
    // Procedures belong to the component that references them: visible through its discovery.
    return dot < 0 || o.scope.some((f) => inScope(rest.slice(0, dot), f));
  };

  /** Invokes, and in `wait` mode turns a CONFIRMATION_REQUIRED into the final result. */
  const invoke = async (inv: AgentInvocation, signal: AbortSignal | undefined): Promise<Result> => {
    const opts = { consumer: o.consumer, ...(signal && { signal }) };
    const disposed = () => failure(inv.invocationId, inv.capabilityId, "CANCELLED", "the surface was disposed", "");
    if (o.wait && inv.confirmationId === undefined && inv.invocationId !== undefined) {
      // A redelivery of a call that waited for, and got, a confirmation: the same request as its
      // retry, so the idempotency window answers it (not INVOCATION_CONFLICT).
      const cid = byCall.get(inv.invocationId);
      if (cid !== undefined) inv = { ...inv, confirmationId: cid };
    }
    let first: Result;
    try {
      first = await registry.invoke(inv, opts);
    } catch {
      return disposed();
    }
    const cid = o.wait && codeOf(first) === "CONFIRMATION_REQUIRED" ? confirmationIdOf(first) : undefined;
    if (cid === undefined) return first;
    // Approved, denied or expired (or the caller cancelled): the retry with the evidence gives
    // the one final result (the pipeline answers DENIED / EXPIRED itself).
    await registry.confirmations.waitFor(cid, signal ? { signal } : undefined).catch(() => undefined);
    if (signal?.aborted) {
      // Nobody waits for the answer any more: close the request (the page's dialog goes away).
      try {
        registry.confirmations.resolve(cid, { approved: false, reason: "the call was cancelled while waiting" });
      } catch {
        // already settled
      }
      return freeze({
        ...first,
        error: { code: "CANCELLED", message: "the call was cancelled while waiting for the user's confirmation", retry: "never" },
      }) as Result;
    }
    if (inv.invocationId !== undefined) remember(true, first.invocationId, cid);
    try {
      return await registry.invoke({ ...inv, invocationId: first.invocationId, confirmationId: cid }, opts);
    } catch {
      return disposed();
    }
  };

  const discover = (input: Obj, id: string | undefined): Result => {
    const requested = Array.isArray(input.scope) ? input.scope.filter((s): s is string => typeof s === "string") : undefined;
    const floor = o.scope;
    let scope = floor ?? requested;
    const rejected: string[] = [];
    if (floor && requested) {
      scope = [];
      for (const p of requested) (floor.some((f) => inScope(p, f)) ? scope : rejected).push(p);
    }
    let snap = snapshot(scope, o.budget);
    if (rejected.length > 0) snap = { ...snap, scopeRejected: { prefixes: rejected } };
    return freeze({ status: "ok", invocationId: id ?? "", capabilityId: "surface_discover", output: snap as unknown as JsonValue, surfaceVersion: snap.surfaceVersion });
  };

  // Catalog changes (state-only ones included) are announced; meta mode never fires.
  let stop: Unsubscribe | undefined;
  if (!o.meta) {
    stop = registry.subscribe((e) => {
      if (e.type !== "surface-changed" && e.type !== "availability-changed") return;
      const before = last;
      const after = build();
      // Routes move on every version bump; only what a host can render is announced.
      if (sameCatalog(before, after, false) || listeners.size === 0) return;
      const tools = materialize(after);
      for (const listener of [...listeners]) {
        try {
          listener(tools);
        } catch (e) {
          console.error(`agent-surface: a toolset listener threw: ${(e as Error)?.message ?? e}`);
        }
      }
    });
  }

  return {
    tools: () => materialize(build()),
    wireNameMap: (): ReadonlyMap<string, string> => new Map(wireNames),
    subscribe(listener: (tools: AgentTool[]) => void): Unsubscribe {
      if (typeof listener !== "function") throw new TypeError("toolset.subscribe: the listener must be a function");
      if (o.meta) return () => {};
      if (last.length === 0) build();
      const l = (tools: AgentTool[]) => listener(tools);
      listeners.add(l);
      return () => void listeners.delete(l);
    },
    catalog: build,
    dispose() {
      listeners.clear();
      kept.length = 0;
      stop?.();
      stop = undefined;
    },
  };
}

/** `createAgentToolset(registry, options)`; throws a TypeError for misuse (no topology or confirmations, a budget in direct mode, a bad option). */
export function createAgentToolset(registry: AgentSurfaceRegistry, options: AgentToolsetOptions): AgentToolset {
  const { catalog, ...toolset } = bareToolset(registry, options);
  return Object.freeze({
    ...toolset,
    /**
     * The current catalog as a provider's tool block ("openai" | "anthropic" | "gemini" | "mcp"):
     * strict-mode schemas, MCP annotations. A TypeError when the provider cannot take it.
     */
    toolBlock(provider: ToolProvider): unknown[] {
      try {
        toolBlock([], provider);
        return freeze(toolBlock(catalog(), provider));
      } catch (e) {
        throw new TypeError(`toolset.toolBlock: ${(e as Error).message}`);
      }
    },
  });
}
