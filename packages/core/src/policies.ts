// Runtime policies (`AgentPolicy { name, onDiscovery?, authorize?, invoke? }`) as the engine
// has them (crates/engine/src/policy.rs). The engine composes them — registry policies
// outermost, then the component's, then the capability's; discovery short-circuits on the first
// hide — and calls each one here by the id this table gave it.
//
// Decision values:
//   onDiscovery(ctx)  synchronous: "expose" | "hide" | { disable: reason }
//   authorize(ctx)    before the input is looked at; may be async: "allow" | { deny: message }
//   invoke(ctx)       sees ctx.effectiveInput; may be async: "allow" | { deny: message } |
//                     "require-confirmation"
// A policy that throws, rejects or answers anything else fails closed: discovery hides,
// authorize/invoke deny. `undefined` from authorize/invoke means "allow" (a policy with nothing
// to say), from onDiscovery "expose".

import { AgentSurfaceDefinitionError } from "./errors.js";
import { isThenable } from "./invoke-bridge.js";
import type { AgentPolicy } from "./types.js";

/** What the engine is told about a policy: its id here, its name, the phases it takes part in. */
export interface PolicyRef {
  id: number;
  name: string;
  phases: Array<"discovery" | "authorize" | "invoke">;
}

type HostContext = () => Readonly<Record<string, unknown>>;

function encodeDiscovery(d: unknown): string {
  if (d === undefined || d === "expose") return '"expose"';
  if (d === "hide") return '"hide"';
  if (d !== null && typeof d === "object" && typeof (d as { disable?: unknown }).disable === "string") {
    return JSON.stringify({ disable: (d as { disable: string }).disable });
  }
  return '"hide"';
}

function encodeDecision(d: unknown, phase: string): string {
  if (d === undefined || d === "allow") return '"allow"';
  if (d === "require-confirmation" && phase === "invoke") return '"require-confirmation"';
  if (d !== null && typeof d === "object" && typeof (d as { deny?: unknown }).deny === "string") {
    return JSON.stringify({ deny: (d as { deny: string }).deny });
  }
  return JSON.stringify({ deny: "denied by policy" });
}

/** A malformed AgentPolicy (registry, component or capability scope): code "invalid-policy". */
function invalidPolicy(message: string, contract: string | null): AgentSurfaceDefinitionError {
  return new AgentSurfaceDefinitionError(message, { contract, code: "invalid-policy" });
}

/** One registry's policies, by identity: the same object attached twice is one id. */
export class PolicyTable {
  private ids = new Map<AgentPolicy, number>();
  private byId = new Map<number, AgentPolicy>();
  private next = 0;

  constructor(
    private readonly context: HostContext,
    private readonly development: boolean,
  ) {}

  /** The engine's view of `policies` (an array of AgentPolicy); throws for a malformed one. */
  refs(policies: unknown, where: string, contract: string | null = null): PolicyRef[] {
    if (policies === undefined) return [];
    if (!Array.isArray(policies)) throw invalidPolicy(`${where}: policies must be an array of AgentPolicy objects`, contract);
    return policies.map((p, i) => this.ref(p, `${where}: policies[${i}]`, contract));
  }

  private ref(p: unknown, where: string, contract: string | null): PolicyRef {
    if (p === null || typeof p !== "object") throw invalidPolicy(`${where} must be an AgentPolicy { name, onDiscovery?, authorize?, invoke? }`, contract);
    const policy = p as AgentPolicy;
    if (typeof policy.name !== "string" || policy.name === "") throw invalidPolicy(`${where}: a policy needs a non-empty name`, contract);
    const phases: PolicyRef["phases"] = [];
    for (const [key, phase] of [["onDiscovery", "discovery"], ["authorize", "authorize"], ["invoke", "invoke"]] as const) {
      const f = (policy as unknown as Record<string, unknown>)[key];
      if (f === undefined) continue;
      if (typeof f !== "function") throw invalidPolicy(`${where}: "${policy.name}".${key} must be a function`, contract);
      phases.push(phase);
    }
    let id = this.ids.get(policy);
    if (id === undefined) {
      id = ++this.next;
      this.ids.set(policy, id);
      this.byId.set(id, policy);
    }
    return { id, name: policy.name, phases };
  }

  private ctx(text: string): Record<string, unknown> {
    const ctx = JSON.parse(text) as Record<string, unknown>;
    let host: Readonly<Record<string, unknown>> = {};
    try {
      host = this.context();
    } catch (e) {
      if (this.development) console.error(`agent-surface: RegistryOptions.context threw: ${(e as Error).message}`);
    }
    ctx.host = host;
    return Object.freeze(ctx);
  }

  /** The engine's `discover(policy, ctx)`: synchronous, total. */
  discover(id: number, ctxText: string): string {
    const policy = this.byId.get(id);
    if (!policy?.onDiscovery) return '"expose"';
    try {
      const d = policy.onDiscovery(this.ctx(ctxText) as never);
      if (isThenable(d)) {
        if (this.development) console.error(`agent-surface: policy "${policy.name}": onDiscovery must be synchronous; a promise hides the capability`);
        return '"hide"';
      }
      return encodeDiscovery(d);
    } catch (e) {
      if (this.development) console.error(`agent-surface: policy "${policy.name}": onDiscovery threw (the capability is hidden): ${(e as Error).message}`);
      return '"hide"';
    }
  }

  /** The engine's `decide(policy, phase, ctx)`: JSON text or a promise of it; never throws. */
  decide(id: number, phase: string, ctxText: string): string | Promise<string> {
    const policy = this.byId.get(id);
    const f = phase === "authorize" ? policy?.authorize : policy?.invoke;
    if (!policy || !f) return '"allow"';
    const failed = (e: unknown) => {
      if (this.development) console.error(`agent-surface: policy "${policy.name}": ${phase} failed (denied): ${(e as Error)?.message ?? e}`);
      return JSON.stringify({ deny: "denied by policy" });
    };
    try {
      const d = f.call(policy, this.ctx(ctxText) as never);
      if (!isThenable(d)) return encodeDecision(d, phase);
      return Promise.resolve(d).then((v) => encodeDecision(v, phase), failed);
    } catch (e) {
      return failed(e);
    }
  }
}
