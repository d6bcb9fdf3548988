// @agent-surface/orpc: domain procedures on an oRPC server. The executor (this entry) runs in the
// page; the contract generator (`@agent-surface/orpc/contracts` and the `agent-surface-orpc`
// CLI) runs at build time.
export { createORPCProcedureExecutor, defaultProcedurePath, ORPCProcedureError } from "./executor.js";
export type { ORPCProcedureExecutorOptions, ORPCProcedureFailure } from "./executor.js";
