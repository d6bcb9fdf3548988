// createAgentSurfaceRegistry and readAuditRecords: the registry of the page runtime
// (./runtime/registry.ts, a port of crates/engine/src/registry). See docs/runtime-js.md.

export { createAgentSurfaceRegistry, readAuditRecords } from "./runtime/registry.js";
