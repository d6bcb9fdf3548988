// `explainSurface` (crates/engine/src/explain.rs): the developer projection that says *why* a
// snapshot looks as it does. It reports every capability the registry holds (hidden ones
// included, ignoring includeUnavailable and budgets), honours scope and consumer, keeps
// availability (state) apart from policy votes, and its composed outcome equals what
// `snapshot` did. Never agent-facing.

import type { CapabilityExplanation, SurfaceExplanation } from "../types.js";
import type { Parts } from "./parts.js";
import { THREW, vote, type DiscoveryContext, type Policy } from "./policy.js";
import { inScope, type SnapshotCtx } from "./snapshot.js";
import { regsInOrder, type Availability, type DiscoveryScope, type Dynamic, type Reg, type Surface } from "./surface.js";
import type { UnavailableReason, WhenFn } from "./binding.js";

type PolicyVote = CapabilityExplanation["policies"][number];
type Scope = PolicyVote["scope"];

/**
 * Each policy's own vote, by scope (every onDiscovery re-run: a hide does not stop the others).
 * `confirmable`: the capability passes the confirmation step (an action or a procedure), so an
 * invoke phase may escalate it to a confirmation.
 */
function votes(scoped: ReadonlyArray<readonly [Scope, Policy]>, ctx: DiscoveryContext, confirmable: boolean, development: boolean): PolicyVote[] {
  return scoped.map(([scope, p]) => {
    const v: PolicyVote = { name: p.name, scope, phases: [...p.phases] };
    if (p.phases.includes("discovery")) {
      const d = vote(p, ctx, development);
      // A policy that threw counted as hide (fail closed).
      v.discovery = d === THREW ? "hide" : typeof d === "object" ? Object.freeze({ ...d }) : d;
      if (d === THREW) v.threw = true;
    }
    if (confirmable && p.phases.includes("invoke")) v.confirmationEscalation = true;
    Object.freeze(v.phases);
    return Object.freeze(v);
  });
}

/** Explains the surface for `ctx` (consumer and scope honoured). Throws on a disposed registry. */
export function explainSurface(parts: Parts, ctx: SnapshotCtx): SurfaceExplanation {
  const surface = parts.surface;
  const st = surface.lock();
  if (st.disposed) throw new Error("explainSurface: the registry was disposed");
  const version = String(st.version);
  const regs = regsInOrder(st).map((r): [Reg, Dynamic] => [r, st.dynamic.get(r.id) ?? { enabled: false, overrides: new Map() }]);
  const discovery = surface.scope(ctx.consumer);
  const out: CapabilityExplanation[] = [];
  for (const [reg, dynamic] of regs) {
    if (ctx.scope && !ctx.scope.some((p) => inScope(reg.bound.componentType, p))) continue;
    explainRegistration(surface, reg, dynamic, discovery, out);
  }
  return Object.freeze({ surfaceId: surface.surfaceId, surfaceVersion: version, capabilities: Object.freeze(out) as CapabilityExplanation[] });
}

/** The explanations of one registration's observations, actions and procedures. */
function explainRegistration(surface: Surface, reg: Reg, dynamic: Dynamic, discovery: DiscoveryScope, out: CapabilityExplanation[]): void {
  const b = reg.bound;
  const ty = b.componentType;
  const component = Object.freeze({ type: ty, instanceId: b.instanceId });
  const explain = (
    capabilityId: string,
    kind: CapabilityExplanation["kind"],
    description: string,
    capPolicies: readonly Policy[],
    composed: Availability | undefined,
    [available, areason]: Availability,
  ) => {
    const ctx: DiscoveryContext = Object.freeze({ capabilityId, componentType: ty, instanceId: b.instanceId, consumer: discovery.consumer, host: discovery.host });
    const scoped: Array<readonly [Scope, Policy]> = [
      ...surface.options.policies.map((p) => ["registry", p] as const),
      ...b.policies.map((p) => ["component", p] as const),
      ...capPolicies.map((p) => ["capability", p] as const),
    ];
    const e: CapabilityExplanation = {
      capabilityId,
      kind,
      plane: kind === "procedure" ? "domain" : "view",
      description,
      registrationId: reg.id,
      component,
      outcome: !composed ? "hide" : composed[0] ? "expose" : "disable",
      policies: Object.freeze(votes(scoped, ctx, kind !== "observation", surface.development)) as PolicyVote[],
      availability: Object.freeze(areason === undefined ? { available } : { available, reason: areason }),
    };
    const reason = !composed ? "hidden by policy" : composed[1];
    if (reason !== undefined && e.outcome !== "expose") e.reason = reason;
    out.push(Object.freeze(e));
  };
  const capability = (name: string, kind: "observation" | "action", description: string, x: { policies: readonly Policy[]; when?: WhenFn; unavailableReason?: UnavailableReason }) => {
    const capabilityId = `view:${ty}.${name}`;
    const composed = surface.availability(reg, dynamic, capabilityId, name, x.policies, x.when, x.unavailableReason, discovery);
    const base = surface.baseAvailability(dynamic, name, x.when, x.unavailableReason, capabilityId);
    explain(capabilityId, kind, description, x.policies, composed, base);
  };
  for (const name of b.observationNames) capability(name, "observation", b.contract.observations[name]!.description, b.observations.get(name)!);
  for (const name of b.actionNames) capability(name, "action", b.contract.actions[name]!.description, b.actions.get(name)!);
  // Procedures the registration references: the snapshot lists them (top level), so the explanation must too.
  b.procedures.forEach((p, index) => {
    const pb = p.binding;
    const composed = surface.procedureAvailability(reg, dynamic, index, discovery);
    const base = surface.baseAvailability(dynamic, p.id, pb.when, pb.unavailableReason, p.id, pb.forwarded);
    explain(p.id, "procedure", p.contract.description, pb.policies, composed, base);
  });
}
