// createAgentExposureGateway: the same ceiling as the registry, at provider / MCP assembly. Only
// tools bound from external tool contracts this authority's manifest compiled (same id, same
// hash, same authored semantics) are exposed; anything else throws AgentSurfaceDefinitionError.
// The tools run through the invocation pipeline (./runtime/gateway.ts): dedupe by consumer and
// tool-call id, availability and policies, the input, the precondition, a pending confirmation
// asked through `confirm` (none: CONFIRMATION_DENIED), the binding's concurrency, the timeout
// and the caller's signal, the output checks, events and audit.

export { createAgentExposureGateway } from "./runtime/gateway.js";
export type { AgentExposureGateway, ExposeOptions, ExposedTools } from "./runtime/gateway.js";
