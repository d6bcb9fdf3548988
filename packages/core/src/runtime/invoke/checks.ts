// Steps 3 to 7 (crates/engine/src/invoke/admission.rs): availability, pre-input authorization,
// the effective input, the precondition and the input-aware policies, the confirmation gate.
// Each throws a Fail to settle the invocation.

import type { AgentConsumer, JsonValue } from "../../types.js";
import { canonicalJson } from "../../model/canonical.js";
import { fnv1a64 } from "../../model/hash.js";
import { evaluateReason } from "../binding.js";
import type { Evidence } from "../confirm/index.js";
import { deepFreeze, jsonCopy } from "../json.js";
import type { Parts } from "../parts.js";
import { NO_EXECUTOR } from "../surface.js";
import { decide, evaluateDiscovery, type HostContext, type Policy, type PolicyContext } from "../policy.js";
import type { ValidationIssue } from "../../validate/index.js";
import type { Plan } from "./resolve.js";
import { Fail, fail, type Req } from "./request.js";

/** Who asks, about what: the part of every context that does not change during a run. */
export interface Asking {
  readonly req: Req;
  readonly plan: Plan;
  readonly registrationId: string;
  readonly consumer: AgentConsumer;
  readonly key: string;
  readonly host: HostContext;
}

const notAvailable = (reason: string) => fail("CAPABILITY_NOT_AVAILABLE", "the capability is not available now", { reason });

/**
 * Step 3, availability: enabled, pushed overrides, `when()`, discovery policies; for a procedure
 * referenced without a local `execute`, an installed executor.
 */
const takesPart = (policies: readonly Policy[], phase: "discovery" | "authorize" | "invoke") => policies.length > 0 && policies.some((p) => p.phases.includes(phase));

export function checkAvailable(parts: Parts, a: Asking, policies: readonly Policy[]): void {
  const { surface } = parts;
  const { plan, req } = a;
  const reg = plan.reg;
  // Read in the same turn as step 2 (no await between them): the registration's pushed state.
  const dynamic = reg ? (surface.state.dynamic.get(reg.id) ?? { enabled: false, overrides: new Map() }) : undefined;
  const discovers = takesPart(policies, "discovery");
  if (reg && (plan.kind === "observation" || plan.kind === "action")) {
    // Without a discovery policy, availability is the state's alone (no context to build).
    const v = discovers
      ? surface.availability(reg, dynamic!, req.capabilityId, plan.name, plan.policies, plan.when, plan.reason, surface.scope(a.consumer, a.host))
      : surface.baseAvailability(dynamic!, plan.name, plan.when, plan.reason, req.capabilityId);
    if (!v) throw fail("CAPABILITY_NOT_FOUND", `no live capability ${req.capabilityId}`);
    if (!v[0]) throw notAvailable(v[1] ?? "unavailable");
    return;
  }
  // A procedure reference, or an external tool (no component: its discovery context names none).
  if (discovers) {
    const ctx = Object.freeze({ capabilityId: req.capabilityId, componentType: reg ? reg.bound.componentType : "", instanceId: reg ? reg.bound.instanceId : "", consumer: a.consumer, host: a.host });
    const d = evaluateDiscovery(policies, ctx, surface.development);
    if (d === "hide") throw fail("CAPABILITY_NOT_FOUND", `no live capability ${req.capabilityId}`);
    if (typeof d === "object") throw notAvailable(d.disable);
  }
  if (dynamic && !dynamic.enabled) throw notAvailable("component-disabled");
  if (plan.when) {
    const w = plan.when();
    if (w === false) throw notAvailable(plan.reason === undefined ? "unavailable" : evaluateReason(plan.reason));
    if (w !== true) throw notAvailable("when-error");
  }
  if (plan.binding?.forwarded && !surface.procedureExecutor) throw notAvailable(NO_EXECUTOR);
}

function policyContext(a: Asking, input?: JsonValue): PolicyContext {
  const ctx: { -readonly [K in keyof PolicyContext]: PolicyContext[K] } = { capabilityId: a.req.capabilityId, registrationId: a.registrationId, consumer: a.consumer, host: a.host };
  if (input !== undefined) ctx.effectiveInput = input;
  return Object.freeze(ctx);
}

/** Runs one phase of every policy that takes part in it, in order; true: one asked for a confirmation. */
async function phase(parts: Parts, a: Asking, policies: readonly Policy[], which: "authorize" | "invoke", input?: JsonValue): Promise<boolean> {
  let asked = false;
  for (const p of policies) {
    if (!p.phases.includes(which)) continue;
    let d = decide(p, which, policyContext(a, input), parts.surface.development);
    if (typeof d === "object" && "then" in d) d = await d;
    if (typeof d === "object") throw fail("POLICY_DENIED", d.deny, { policy: p.name });
    if (d === "require-confirmation") asked = true;
  }
  return asked;
}

/** Step 4, pre-input authorization (no input seen yet). Synchronous (undefined) when no policy authorizes. */
export function authorize(parts: Parts, a: Asking, policies: readonly Policy[]): Promise<boolean> | undefined {
  return takesPart(policies, "authorize") ? phase(parts, a, policies, "authorize") : undefined;
}

/** Step 5, effective input: the input validated against the schema, with its defaults (deep-frozen). */
export function effectiveInput(parts: Parts, req: Req, plan: Plan): JsonValue | undefined {
  const schema = plan.inputSchema;
  if (!schema) return undefined;
  const v = parts.inflight.validator(parts.surface, schema);
  if (!v) throw fail("EXECUTION_FAILED", "the capability's input schema cannot be used");
  const r = v.validate(req.input ?? {});
  if (!r.ok) throw fail("INVALID_INPUT", "the input does not match the capability's input schema", { issues: r.issues as unknown as JsonValue });
  return deepFreeze(r.value);
}

/**
 * Step 6, the schema library's own check, the precondition and the input-aware policies; true
 * when a policy asks for a confirmation. Synchronous (a boolean) when no policy takes part.
 */
export function checkInput(parts: Parts, a: Asking, input: JsonValue | undefined, policies: readonly Policy[]): boolean | Promise<boolean> {
  const b = a.plan.binding;
  if (!b || input === undefined) return false;
  if (b.inputCheck) {
    let issues: ValidationIssue[] | undefined;
    try {
      issues = b.inputCheck(input);
    } catch {
      issues = [];
    }
    if (issues) throw fail("INVALID_INPUT", "the input does not match the capability's input schema", { issues: issues as unknown as JsonValue });
  }
  if (b.precondition) {
    let f;
    try {
      f = b.precondition(input, readContext(a));
    } catch {
      throw fail("PRECONDITION_FAILED", "the precondition failed");
    }
    if (f) throw preconditionFailed(parts, f, `the precondition of ${label(a.plan)}`);
  }
  return takesPart(policies, "invoke") ? phase(parts, a, policies, "invoke", input) : false;
}

/** PRECONDITION_FAILED from a failure `{ message, details? }` (details that are not a JSON object are dropped; in development, reported). */
export function preconditionFailed(parts: Parts, f: { message: string; details?: unknown }, what: string) {
  let details: Record<string, JsonValue> | undefined;
  if (f.details !== undefined) {
    try {
      const d = jsonCopy<{ details: JsonValue }>({ details: f.details }).details;
      if (typeof d === "object" && d !== null && !Array.isArray(d)) details = d;
    } catch (e) {
      if (parts.surface.development) console.error(`agent-surface: ${what}: the precondition failure's details are not JSON: ${(e as Error).message}`);
    }
  }
  return fail("PRECONDITION_FAILED", f.message, details);
}

/** `observation "name"`, `action "name"`, `procedure "id"`, `external tool "id"`. */
export const label = (plan: Plan): string => `${plan.kind === "external" ? "external tool" : plan.kind} "${plan.name}"`;

/** What `read` and a precondition see. */
export function readContext(a: Asking) {
  return Object.freeze({ capabilityId: a.req.capabilityId, registrationId: a.registrationId, consumer: a.consumer, host: a.host });
}

/** Step 7, the confirmation gate (observations skip it): the evidence presented, if any. */
export function confirmationGate(parts: Parts, a: Asking, input: JsonValue | undefined, needed: boolean): Evidence | undefined {
  const { req, plan } = a;
  if (!plan.binding || !(needed || req.confirmationId !== undefined)) return undefined;
  const value = input ?? null;
  const r = parts.confirmations.check(
    {
      capabilityId: req.capabilityId,
      confirmationId: req.confirmationId,
      registrationId: a.registrationId,
      consumerKey: a.key,
      effect: plan.effect,
      description: plan.description,
      input: value,
      inputFp: fnv1a64(canonicalJson(value)),
    },
    needed,
  );
  if (r instanceof Fail) throw r;
  return r;
}

/**
 * How step 7 answers a request that needs a confirmation and presents none: "return"
 * CONFIRMATION_REQUIRED (the consumer retries with the evidence: a registry), or a function that
 * answers for the gateway (./ask.ts: denied when nobody can be asked, else asked while pending).
 */
export type Confirmer = "return" | ((parts: Parts, a: Asking, input: JsonValue | undefined, signal?: AbortSignal) => Evidence | Promise<Evidence>);

/** Step 7 by the confirmer's rule. */
export function confirmStep(parts: Parts, a: Asking, input: JsonValue | undefined, needed: boolean, confirmer: Confirmer, signal?: AbortSignal): Evidence | undefined | Promise<Evidence> {
  if (confirmer === "return" || !needed || a.req.confirmationId !== undefined || !a.plan.binding) return confirmationGate(parts, a, input, needed);
  return confirmer(parts, a, input, signal);
}
