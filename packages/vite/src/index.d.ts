import type { Plugin } from "vite";
import type { AgentSurfaceOptions, AgentSurfacePluginApi } from "@agent-surface/unplugin";

export type {
  AgentSurfaceOptions,
  AgentSurfacePluginApi,
  ServeDiagnostic,
  TransformEdit,
  ScanResult,
  ContractLocation,
  TransformResult,
  ServeHandshake,
  ServeClientOptions,
} from "@agent-surface/unplugin";
export {
  PROTOCOL,
  PROTOCOL_VERSION,
  VIRTUAL_AUTHORITY_ID,
  RESOLVED_AUTHORITY_ID,
  AgentSurfaceServeError,
  ServeClient,
  checkHandshake,
  resolveBinary,
  transformTarget,
  applyEdits,
  authorityModule,
  byteOffsetsToIndices,
  byteOffsetToIndex,
  codeFrame,
  formatDiagnostic,
} from "@agent-surface/unplugin";

export type AgentSurfacePlugin = Plugin & { api: AgentSurfacePluginApi };

/** The Vite plugin: provenance insertion, `virtual:agent-surface/authority`, diagnostics, HMR. */
export default function agentSurface(options?: AgentSurfaceOptions): AgentSurfacePlugin;
export { agentSurface };
