// @agent-surface/core: what compiled app code imports. See README.md.
export { AgentSurfaceDefinitionError, AgentSchemaError, CapabilityAuthorityError } from "./errors.js";
export type { SchemaViolation } from "./errors.js";
export { canonicalJson, blake3Hex } from "./hashing.js";
export { fromJsonSchema, fromStandardSchema, emptyObjectSchema } from "./schema.js";
export {
  defineAgentComponentContract,
  observationContract,
  actionContract,
  defineAgentProcedureContract,
  defineExternalAgentToolContract,
} from "./contracts.js";
export { defineAgentComponent, observation, action } from "./definitions.js";
export { createFetchProcedureExecutor } from "./fetch-executor.js";
export type { FetchProcedureExecutorOptions } from "./fetch-executor.js";
export { createAgentSurfaceRegistry, readAuditRecords } from "./registry.js";
export { createAgentToolset } from "./toolset.js";
export { createAgentExposureGateway } from "./gateway.js";
export type { AgentExposureGateway, ExposeOptions, ExposedTools } from "./gateway.js";
export { createCapabilityAuthority, assertCapabilityAuthority, isCapabilityAuthority } from "./authority.js";
export type * from "./types.js";
export type { FromJsonSchema } from "./schema-types.js";
