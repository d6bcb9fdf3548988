// Runtime policies (`AgentPolicy { name, onDiscovery?, authorize?, invoke? }`): checked at
// registry, component or capability scope and composed by the runtime (./runtime/policy.ts, a
// port of crates/engine/src/policy.rs). Internal: not exported from the package root.

export { checkPolicies, decide, evaluateDiscovery, vote, THREW } from "./runtime/policy.js";
export type { DiscoveryContext, Policy, PolicyContext, PolicyPhase, Vote } from "./runtime/policy.js";
