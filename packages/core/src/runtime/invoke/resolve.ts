// Step 2, resolve (crates/engine/src/invoke/admission.rs `resolve`, `Plan`): the capability,
// the instance, staleness and tombstones; then what the pipeline needs to know about its
// target, read once from contract and binding.

import type { AgentAudit, AgentConfirmation, AgentEffect, JsonSchema } from "../../types.js";
import type { ActionBinding, ObservationBinding, UnavailableReason, WhenFn } from "../binding.js";
import type { Policy } from "../policy.js";
import type { Reg, Surface } from "../surface.js";
import { fail, type Req } from "./request.js";

/** What the pipeline runs, read once from contract and binding. */
export interface Plan {
  readonly kind: "observation" | "action" | "procedure" | "external";
  /** The registration (an exposed external tool has none). */
  readonly reg?: Reg;
  /** Every policy that applies, outermost first: the registry's, the component's, the target's own. */
  readonly chain: readonly Policy[];
  /** An external tool's exposure id ("exp_…"): where a registration id would be. */
  readonly owner?: string;
  /** The observation's or action's name; a procedure's or external tool's id. */
  readonly name: string;
  readonly effect: AgentEffect;
  readonly audit: AgentAudit;
  readonly inputSchema?: JsonSchema;
  readonly outputSchema?: JsonSchema;
  readonly confirmation: AgentConfirmation;
  readonly description: string;
  /** The target's own policies (the registry's and the component's come before them). */
  readonly policies: readonly Policy[];
  readonly when?: WhenFn;
  readonly reason?: UnavailableReason;
  readonly observation?: ObservationBinding;
  /** An action's, procedure's or external tool's binding. */
  readonly binding?: ActionBinding;
  readonly timeoutMs?: number;
}

const notFound = (req: Req) => fail("CAPABILITY_NOT_FOUND", `no live capability ${req.capabilityId}`);
const stale = (message: string, live?: string) => fail("STALE_CAPABILITY", message, live === undefined ? undefined : { liveRegistrationId: live });

/** Step 2: the target of `req` on the live surface; throws a Fail. */
export function resolve(surface: Surface, req: Req): Plan {
  const st = surface.lock();
  if (req.surfaceId !== undefined && req.surfaceId !== surface.surfaceId) {
    throw fail("STALE_CAPABILITY", "the surface was reloaded since discovery; discover again", { reason: "surface-id-mismatch" });
  }
  const rid = req.registrationId;
  const tombstone = rid !== undefined && !st.regs.has(rid) ? surface.tombstone(st, rid) : undefined;
  const id = req.capabilityId;
  let type: string | undefined;
  let name = "";
  if (id.startsWith("view:")) {
    const dot = id.lastIndexOf(".");
    if (dot > 5) {
      type = id.slice(5, dot);
      name = id.slice(dot + 1);
    }
  }
  const domain = type === undefined && id.startsWith("domain:");
  let matching: Reg[] = [];
  if (type !== undefined || domain) {
    for (const r of st.regs.values()) {
      const b = r.bound;
      const hit = domain ? b.procedures.some((p) => p.id === id) : b.componentType === type && (Object.hasOwn(b.contract.observations, name) || Object.hasOwn(b.contract.actions, name));
      if (hit && (req.instanceId === undefined || b.instanceId === req.instanceId)) matching.push(r);
    }
  }
  if (rid !== undefined) {
    const live = matching.find((r) => r.id === rid);
    if (live) matching = [live];
    else if (tombstone) {
      // The tombstone variant is for an instance with no live registration; a remounted one
      // makes the old id stale, and the agent is told the live one.
      const again = matching.find((r) => r.bound.componentType === tombstone.componentType && r.bound.instanceId === tombstone.instanceId);
      throw again ? stale("the component was remounted since discovery; use the live registration or discover again", again.id) : fail("COMPONENT_UNMOUNTED", "the component was unmounted");
    } else if (matching.length === 1) throw stale("the registration changed since discovery; use the live one or discover again", matching[0]!.id);
    else if (matching.length === 0) throw notFound(req);
    else throw stale("the registration changed since discovery; discover again");
  }
  if (matching.length === 0) throw notFound(req);
  if (matching.length > 1) {
    const instances = matching.map((r) => r.bound.instanceId).sort();
    throw fail("AMBIGUOUS_INSTANCE", "several instances are live; name one with instanceId", { instances });
  }
  return planOf(surface, matching[0]!, domain ? id : name, domain);
}

/** Plans by registration and capability (a registration's contract and bindings never change). */
const plans = new WeakMap<Reg, Map<string, Plan>>();

function planOf(surface: Surface, reg: Reg, name: string, domain: boolean): Plan {
  let byName = plans.get(reg);
  if (!byName) plans.set(reg, (byName = new Map()));
  let plan = byName.get(name);
  if (plan) return plan;
  const b = reg.bound;
  const procedure = domain ? b.procedures.find((p) => p.id === name)! : undefined;
  const observation = !domain && Object.hasOwn(b.contract.observations, name);
  const binding: ObservationBinding | ActionBinding = procedure ? procedure.binding : observation ? b.observations.get(name)! : b.actions.get(name)!;
  plan = {
    kind: domain ? "procedure" : observation ? "observation" : "action",
    reg,
    name,
    ...(observation
      ? { effect: "read", audit: "metadata", outputSchema: b.contract.observations[name]!.outputSchema, confirmation: "never", description: "", observation: binding as ObservationBinding }
      : { ...operation(procedure ? procedure.contract : b.contract.actions[name]!), binding: binding as ActionBinding }),
    policies: binding.policies,
    chain: [...surface.options.policies, ...b.policies, ...binding.policies],
    when: binding.when,
    reason: binding.unavailableReason,
    timeoutMs: binding.timeoutMs,
  };
  byName.set(name, plan);
  return plan;
}

/** The governance of an action, procedure or external tool contract. */
export function operation(c: {
  effect: AgentEffect;
  audit: AgentAudit;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema | null;
  confirmation: AgentConfirmation;
  description: string;
}) {
  return {
    effect: c.effect,
    audit: c.audit,
    inputSchema: c.inputSchema,
    outputSchema: c.outputSchema ?? undefined,
    confirmation: c.confirmation,
    description: c.description,
  };
}

/** The surface version is enforced only for dangerous effects. */
export function checkVersion(surface: Surface, req: Req, effect: AgentEffect): void {
  if (req.surfaceVersion !== undefined && req.surfaceVersion !== String(surface.state.version) && (effect === "destructive" || effect === "external-side-effect")) {
    throw fail("STALE_CAPABILITY", "the surface changed since discovery; discover again before this operation", { reason: "surface-version-mismatch" });
  }
}
