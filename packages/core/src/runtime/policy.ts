// Runtime policies (crates/engine/src/policy.rs) over the page's `AgentPolicy` objects
// `{ name, onDiscovery?, authorize?, invoke? }`. Attached at registry, component or capability
// scope; the registry's are outermost. Decision values:
//   onDiscovery(ctx)  synchronous: "expose" | "hide" | { disable: reason }
//   authorize(ctx)    before the input is looked at; may be async: "allow" | { deny: message }
//   invoke(ctx)       sees ctx.effectiveInput; may be async: "allow" | { deny: message } |
//                     "require-confirmation"
// A policy that throws, rejects or answers anything else fails closed: discovery hides,
// authorize/invoke deny. `undefined` from authorize/invoke means "allow", from onDiscovery
// "expose".

import { AgentSurfaceDefinitionError } from "../errors.js";
import type { AgentConsumer, AgentPolicy, DiscoveryDecision, JsonValue, PolicyDecision } from "../types.js";
import { isThenable } from "./json.js";

export type PolicyPhase = "discovery" | "authorize" | "invoke";

/** A checked policy: the user's object, its name and the phases it takes part in. */
export interface Policy {
  readonly name: string;
  readonly phases: readonly PolicyPhase[];
  readonly policy: AgentPolicy;
}

export type HostContext = Readonly<Record<string, unknown>>;

/** What `onDiscovery` sees. */
export interface DiscoveryContext {
  readonly capabilityId: string;
  readonly componentType: string;
  readonly instanceId: string;
  readonly consumer: AgentConsumer;
  readonly host: HostContext;
}

/** What `authorize` (no `effectiveInput`) and `invoke` see. */
export interface PolicyContext {
  readonly capabilityId: string;
  readonly registrationId: string;
  readonly consumer: AgentConsumer;
  readonly host: HostContext;
  readonly effectiveInput?: JsonValue;
}

/** A discovery vote, or THREW when `onDiscovery` threw (explain reports it; it counts as hide). */
export const THREW = 0;
export type Vote = DiscoveryDecision | typeof THREW;

const PHASES = [
  ["onDiscovery", "discovery"],
  ["authorize", "authorize"],
  ["invoke", "invoke"],
] as const;

/** A malformed AgentPolicy (registry, component or capability scope): code "invalid-policy". */
function invalidPolicy(message: string, contract: string | null): AgentSurfaceDefinitionError {
  return new AgentSurfaceDefinitionError(message, { contract, code: "invalid-policy" });
}

/** Checks `policies` (an array of AgentPolicy, or undefined); throws for a malformed one. */
export function checkPolicies(policies: unknown, where: string, contract: string | null = null): Policy[] {
  if (policies === undefined) return [];
  if (!Array.isArray(policies)) throw invalidPolicy(`${where}: policies must be an array of AgentPolicy objects`, contract);
  return policies.map((p, i) => {
    const at = `${where}: policies[${i}]`;
    if (p === null || typeof p !== "object") throw invalidPolicy(`${at} must be an AgentPolicy { name, onDiscovery?, authorize?, invoke? }`, contract);
    const policy = p as AgentPolicy;
    if (typeof policy.name !== "string" || policy.name === "") throw invalidPolicy(`${at}: a policy needs a non-empty name`, contract);
    const phases: PolicyPhase[] = [];
    for (const [key, phase] of PHASES) {
      const f = (policy as unknown as Record<string, unknown>)[key];
      if (f === undefined) continue;
      if (typeof f !== "function") throw invalidPolicy(`${at}: "${policy.name}".${key} must be a function`, contract);
      phases.push(phase);
    }
    return { name: policy.name, phases, policy };
  });
}

/** One policy's discovery vote (`"expose"` when it has no onDiscovery). */
export function vote(p: Policy, ctx: DiscoveryContext, development: boolean): Vote {
  const f = p.policy.onDiscovery;
  if (!f) return "expose";
  let d: unknown;
  try {
    d = f.call(p.policy, ctx);
  } catch (e) {
    if (development) console.error(`agent-surface: policy "${p.name}": onDiscovery threw (the capability is hidden): ${(e as Error)?.message ?? e}`);
    return THREW;
  }
  if (d === undefined || d === "expose") return "expose";
  if (d !== null && typeof d === "object" && typeof (d as { disable?: unknown }).disable === "string") {
    return { disable: (d as { disable: string }).disable };
  }
  if (isThenable(d) && development) {
    console.error(`agent-surface: policy "${p.name}": onDiscovery must be synchronous; a promise hides the capability`);
  }
  return "hide";
}

/**
 * Composes discovery votes: the first hide wins (a throwing policy counts as hide: fail closed),
 * else the first disable's reason, else expose.
 */
export function evaluateDiscovery(policies: Iterable<Policy>, ctx: DiscoveryContext, development: boolean): DiscoveryDecision {
  let disabled: { disable: string } | undefined;
  for (const p of policies) {
    if (!p.phases.includes("discovery")) continue;
    const v = vote(p, ctx, development);
    if (v === "hide" || v === THREW) return "hide";
    if (typeof v === "object") disabled ??= v;
  }
  return disabled ?? "expose";
}

function decision(d: unknown, phase: "authorize" | "invoke"): PolicyDecision {
  if (d === undefined || d === "allow") return "allow";
  if (d === "require-confirmation" && phase === "invoke") return d;
  if (d !== null && typeof d === "object" && typeof (d as { deny?: unknown }).deny === "string") {
    return { deny: (d as { deny: string }).deny };
  }
  return { deny: "denied by policy" };
}

/**
 * A policy's `authorize` or `invoke` verdict: synchronous when the policy answered
 * synchronously, else a promise that never rejects. A policy without that phase allows; one that
 * throws, rejects or answers anything else denies (so does `require-confirmation` in the
 * authorize phase: only `invoke` sees the input a confirmation is bound to).
 */
export function decide(p: Policy, phase: "authorize" | "invoke", ctx: PolicyContext, development: boolean): PolicyDecision | Promise<PolicyDecision> {
  const f = phase === "authorize" ? p.policy.authorize : p.policy.invoke;
  if (!f) return "allow";
  const failed = (e: unknown): PolicyDecision => {
    if (development) console.error(`agent-surface: policy "${p.name}": ${phase} failed (denied): ${(e as Error)?.message ?? e}`);
    return { deny: "denied by policy" };
  };
  try {
    const d = (f as (c: unknown) => unknown).call(p.policy, ctx);
    if (!isThenable(d)) return decision(d, phase);
    return Promise.resolve(d).then((v) => decision(v, phase), failed);
  } catch (e) {
    return failed(e);
  }
}
