// The exposure gateway (crates/engine/src/expose/gateway.rs): standalone provider tools
// (external tools) under the same authority model as the registry. `expose` accepts only tools
// bound from external tool contracts of this authority (same id, same hash, same authored
// semantics), given once; raw tools and tools compiled against another manifest fail closed.
//
// The accepted tools run through the registry's invocation pipeline, on a private surface per
// exposure that holds no registrations: dedupe by consumer and tool-call id with the
// fingerprint rule, availability (`when`, discovery policies), authorize and invoke policies,
// the effective input, the precondition, a pending confirmation (asked through `confirm`, or
// resolved by the host through `confirmations`), admission (the binding's concurrency), the
// timeout and the caller's signal, the output schema and `maxOutputBytes`, `invocation-*`
// events, an audit record and the dedupe record.

import { verifiedOf } from "../authority.js";
import { AgentSurfaceDefinitionError } from "../errors.js";
import { catalogFromManifest } from "../expose/catalog.js";
import { toolBlock, withTraits, type ToolProvider } from "../expose/providers.js";
import { resolveLimits } from "../model/limits.js";
import type {
  AgentConsumer,
  AgentInvocationResult,
  AgentPolicy,
  AgentSurfaceEvent,
  AgentSurfaceLimits,
  AgentTool,
  AuditRecord,
  CapabilityAuthority,
  ConfirmationController,
  JsonValue,
  ManifestOperationContract,
  Unsubscribe,
} from "../types.js";
import { actionBinding, asBinding, authoredOperation, definitionError, evaluateReason, provenanceOf, verifiedContract, type ActionBinding } from "./binding.js";
import { createConfirmations } from "./confirm/index.js";
import { readConsumer } from "./consumer.js";
import { randomId } from "./entropy.js";
import { asking } from "./invoke/ask.js";
import { createInflight, invoke, resolve, type Route } from "./invoke/index.js";
import { operation, type Plan } from "./invoke/resolve.js";
import { fail } from "./invoke/request.js";
import { deepFreeze, isObject, isPlainObject } from "./json.js";
import type { Parts } from "./parts.js";
import { checkPolicies, evaluateDiscovery } from "./policy.js";
import { Surface, type AuditSinkLike, type Environment, type Options } from "./surface.js";

export interface ExposeOptions {
  /** Who calls the tools, and whose view `tools()` is (default embedded:anonymous). */
  consumer?: AgentConsumer;
  /**
   * Asks the user (capability id, effective input) while a call that needs a confirmation is
   * pending: only `true` approves. Without it such calls are CONFIRMATION_DENIED.
   */
  confirm?: (capabilityId: string, input: JsonValue) => boolean | Promise<boolean>;
  /** Host context handed to the tools' handlers and policies as ctx.host. */
  context?: () => Record<string, unknown>;
  environment?: "development" | "production" | "test";
  /** Policies around every tool (outermost, then each binding's own). */
  policies?: AgentPolicy[];
  /** Where the calls' audit records go (default: a bounded in-memory sink, `auditRecords()`). */
  audit?: { record(record: AuditRecord): void } | ((record: AuditRecord) => void);
  limits?: Partial<AgentSurfaceLimits>;
  /** The clock of audit records, confirmations and the dedupe window (default Date.now). */
  now?: () => number;
}

export interface ExposedTools {
  /** "exp_" + random: where a registration id would be (pending confirmations, audit, ctx.registrationId). */
  readonly id: string;
  /** The tools as the consumer may discover them (a hidden one is left out; `state` is live). */
  tools(): AgentTool[];
  /** The tools as a provider's tool block ("openai" | "anthropic" | "gemini" | "mcp"). */
  toolBlock(provider: "openai" | "anthropic" | "gemini" | "mcp"): unknown[];
  /** `invocation-*` and `confirmation-*` events of these tools' calls. */
  subscribe(listener: (event: AgentSurfaceEvent) => void): Unsubscribe;
  /** The pending confirmations of these tools (a host UI may resolve them; the first answer stands). */
  readonly confirmations: ConfirmationController;
  /** The default audit sink's records, oldest first (empty when `audit` was given). */
  auditRecords(): readonly AuditRecord[];
}

export interface AgentExposureGateway {
  expose(tools: unknown[], options?: ExposeOptions): ExposedTools;
}

const WHO = "gateway.expose";
const OPTION_KEYS = ["consumer", "confirm", "context", "environment", "policies", "audit", "limits", "now"];

/** The exposure's options, checked (TypeError naming the field), as a private surface's. */
type Ask = (capabilityId: string, input: JsonValue) => unknown;

function readOptions(authority: CapabilityAuthority, o: unknown): Options & { consumer: AgentConsumer; confirm?: Ask } {
  if (o === undefined) o = {};
  if (!isPlainObject(o)) throw new TypeError(`${WHO}: the options must be an object { consumer?, confirm?, context?, environment?, policies?, audit?, limits?, now? }`);
  for (const k of Object.keys(o)) if (!OPTION_KEYS.includes(k)) throw new TypeError(`${WHO}: unknown option "${k}" (allowed: ${OPTION_KEYS.join(", ")})`);
  const fn = (k: string) => {
    const v = o[k];
    if (v !== undefined && typeof v !== "function") throw new TypeError(`${WHO}: options.${k} must be a function`);
    return v as ((...a: never[]) => unknown) | undefined;
  };
  const env = o.environment ?? "production";
  if (env !== "production" && env !== "development" && env !== "test") throw new TypeError(`${WHO}: options.environment must be "production", "development" or "test"`);
  let audit: AuditSinkLike | undefined;
  const a = o.audit;
  if (typeof a === "function") audit = { record: (r) => (a as (r: AuditRecord) => void)(r) };
  else if (isObject(a) && typeof a.record === "function") audit = a as unknown as AuditSinkLike;
  else if (a !== undefined) throw new TypeError(`${WHO}: options.audit must be an AuditSink { record(record) }`);
  if (o.limits !== undefined && !isPlainObject(o.limits)) throw new TypeError(`${WHO}: options.limits must be an object (Partial<AgentSurfaceLimits>)`);
  let limits: Readonly<AgentSurfaceLimits>;
  try {
    limits = resolveLimits(o.limits);
  } catch (e) {
    throw new TypeError(`${WHO}: ${(e as Error).message}`);
  }
  const confirm = fn("confirm");
  const out: Options & { consumer: AgentConsumer; confirm?: Ask } = {
    authority,
    verified: verifiedOf(authority, "createAgentExposureGateway"),
    environment: env as Environment,
    policies: checkPolicies(o.policies, WHO),
    onDuplicateInstance: "reject",
    duplicateSuffixPolicy: "off",
    limits,
    consumer: readConsumer(o.consumer, WHO),
  };
  const context = fn("context");
  const now = fn("now");
  return Object.assign(out, context && { context }, now && { now }, audit && { audit }, confirm && { confirm: confirm as Ask });
}

/** An accepted tool: its manifest contract and its binding. */
interface Exposed {
  readonly id: string;
  readonly contract: ManifestOperationContract;
  readonly binding: ActionBinding;
  readonly describe?: () => unknown;
  readonly handlers: Record<string, unknown>;
}

/** `gateway.expose: …` with the refusal's code and contract. */
function refused(e: unknown): never {
  if (e instanceof AgentSurfaceDefinitionError) throw definitionError(e.code ?? "binding", e.contract, `${WHO}: ${e.message}`);
  throw e;
}

/** The tools of one `expose`: checked against the manifest (all or none), in wire-name order. */
function accept(tools: unknown[], options: Options): Exposed[] {
  const verified = options.verified;
  const bindings = tools.map((t) => {
    const b = asBinding(t);
    if (b && b.contract.kind !== "external-tool") throw definitionError("wrong-kind", b.contract.id, `${WHO}: "${b.contract.id}" is not an external tool contract`);
    return b;
  });
  const out: Exposed[] = [];
  const seen = new Set<string>();
  bindings.forEach((b, i) => {
    if (!b) {
      const t = tools[i];
      const name = isObject(t) && typeof t.name === "string" ? t.name : `tools[${i}]`;
      throw definitionError("raw-tool", name, `${WHO}: "${name}" is a raw tool without compiler provenance`);
    }
    const id = b.contract.id;
    try {
      const c = verifiedContract(verified, id, provenanceOf(b.contract), authoredOperation(b.contract.definition));
      if (c.kind !== "external-tool") throw definitionError("wrong-kind", id, `the manifest has no external tool contract "${id}"`);
      if (seen.has(id)) throw definitionError("duplicate", id, `"${id}" is given twice`);
      seen.add(id);
      const label = `external tool "${id}"`;
      const binding = actionBinding(b.handlers, label, label, id, id, b.contract.definition.input, options.environment === "development");
      const d = b.handlers.describe;
      out.push({ id, contract: c as ManifestOperationContract, binding, handlers: b.handlers, ...(typeof d === "function" && { describe: d as () => unknown }) });
    } catch (e) {
      refused(e);
    }
  });
  return out;
}

/** `createAgentExposureGateway(authority)`: the same ceiling as the registry, at provider / MCP assembly. */
export function createAgentExposureGateway(authority: CapabilityAuthority): AgentExposureGateway {
  verifiedOf(authority, "createAgentExposureGateway");
  return Object.freeze({
    expose(given: unknown[], options?: ExposeOptions): ExposedTools {
      if (!Array.isArray(given)) throw new TypeError(`${WHO}: pass an array of bound external tools`);
      const o = readOptions(authority, options);
      const accepted = accept(given, o);
      const surface = new Surface(o, randomId("srf_", 22));
      const parts: Parts = { surface, inflight: createInflight(), confirmations: createConfirmations(surface) };
      const exposureId = randomId("exp_", 16);
      const byId = new Map(accepted.map((t) => [t.id, t]));
      const catalog = catalogFromManifest({ contracts: accepted.map((t) => t.contract) });
      const consumer = o.consumer;

      const plans = new Map<string, Plan>(
        accepted.map((t) => {
          const b = t.binding;
          const plan: Plan = {
            kind: "external",
            owner: exposureId,
            name: t.id,
            ...operation(t.contract),
            policies: b.policies,
            chain: [...o.policies, ...b.policies],
            when: b.when,
            reason: b.unavailableReason,
            binding: b,
            timeoutMs: b.timeoutMs,
          };
          return [t.id, plan];
        }),
      );

      // Step 2: an `external:` id is one of these tools; anything else finds no registration.
      const route: Route = {
        confirmer: asking(o.confirm),
        resolve(s, req): Plan {
          if (req.surfaceId !== undefined && req.surfaceId !== s.surfaceId) {
            throw fail("STALE_CAPABILITY", "the surface was reloaded since discovery; discover again", { reason: "surface-id-mismatch" });
          }
          if (!req.capabilityId.startsWith("external:")) return resolve(s, req);
          const plan = plans.get(req.capabilityId);
          if (!plan) throw fail("CAPABILITY_NOT_FOUND", `no exposed tool ${req.capabilityId}`);
          if (req.registrationId !== undefined && req.registrationId !== exposureId) {
            throw fail("STALE_CAPABILITY", "the tools were exposed again since discovery", { liveRegistrationId: exposureId });
          }
          return plan;
        },
      };

      // `tool.execute(input, { toolCallId?, signal?, timeoutMs? })`: the tool-call id is the
      // invocation id (the dedupe key, with the consumer); `timeoutMs` overrides the binding's.
      const call = (id: string): AgentTool["execute"] => (input, c) => {
        const { toolCallId, signal, timeoutMs } = (isObject(c) ? c : {}) as { toolCallId?: unknown; signal?: unknown; timeoutMs?: unknown };
        const callId = typeof toolCallId === "string" ? toolCallId : undefined;
        const request = callId === undefined ? { capabilityId: id, input } : { capabilityId: id, input, invocationId: callId };
        // Never rejects: input that is not JSON (or a call of the wrong shape) is an envelope.
        return invoke(parts, request, { consumer, signal, timeoutMs }, route).catch((e: Error) => {
          const m = String(e?.message ?? e).replace(/^invoke: /, "");
          return deepFreeze({
            status: "error",
            invocationId: callId ?? "",
            capabilityId: id,
            error: { code: "INVALID_INPUT", message: m.includes('"/input') ? `the input is not JSON: ${m}` : m, retry: "with-changes" },
            surfaceVersion: String(surface.state.version),
          }) as AgentInvocationResult;
        });
      };
      const executes = new Map(accepted.map((t) => [t.id, call(t.id)]));

      // The tools as `consumer` may discover them: hidden by a discovery policy → left out;
      // `state` from `when()` and a policy's `disable`; `note` from `describe()`.
      const tools = (): AgentTool[] => {
        const host = surface.host();
        const list: AgentTool[] = [];
        for (const ct of catalog) {
          const id = ct.route!.capabilityId;
          const t = byId.get(id)!;
          const b = t.binding;
          const state: AgentTool["state"] = { available: true };
          const chain = plans.get(id)!.chain;
          if (chain.some((p) => p.phases.includes("discovery"))) {
            const d = evaluateDiscovery(chain, Object.freeze({ capabilityId: id, componentType: "", instanceId: "", consumer, host }), surface.development);
            if (d === "hide") continue;
            if (typeof d === "object") {
              state.available = false;
              state.unavailableReason = d.disable;
            }
          }
          if (b.when) {
            const w = b.when();
            if (w !== true) {
              state.available = false;
              state.unavailableReason = w === false ? (b.unavailableReason === undefined ? "unavailable" : evaluateReason(b.unavailableReason)) : "when-error";
            }
          }
          if (t.describe) {
            try {
              const note = t.describe.call(t.handlers);
              if (typeof note === "string") state.note = note;
            } catch {
              // no note
            }
          }
          const { route: _r, traits, ...shown } = ct;
          list.push(withTraits(Object.freeze({ ...deepFreeze({ ...shown, state }), execute: executes.get(id)! }), traits));
        }
        return list;
      };

      return Object.freeze({
        id: exposureId,
        tools,
        toolBlock(provider: ToolProvider): unknown[] {
          try {
            return deepFreeze(toolBlock(tools(), provider));
          } catch (e) {
            throw new TypeError(`toolBlock: ${(e as Error).message}`);
          }
        },
        subscribe(listener: (event: AgentSurfaceEvent) => void): Unsubscribe {
          if (typeof listener !== "function") throw new TypeError("subscribe: the listener must be a function");
          return surface.events.subscribe(listener);
        },
        confirmations: parts.confirmations.controller,
        auditRecords: () => Object.freeze(surface.defaultAudit ? [...surface.defaultAudit.records] : []),
      });
    },
  });
}

