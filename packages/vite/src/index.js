// @agent-surface/vite: the Vite plugin, the Vite entry of @agent-surface/unplugin (the one plugin
// core of every bundler). See README.md.

import { unplugin } from "@agent-surface/unplugin";

export {
  AgentSurfaceServeError,
  PROTOCOL,
  PROTOCOL_VERSION,
  RESOLVED_AUTHORITY_ID,
  ServeClient,
  VIRTUAL_AUTHORITY_ID,
  applyEdits,
  authorityModule,
  byteOffsetToIndex,
  byteOffsetsToIndices,
  checkHandshake,
  codeFrame,
  formatDiagnostic,
  resolveBinary,
  transformTarget,
} from "@agent-surface/unplugin";

/**
 * The Vite plugin.
 * @param {import("./index.d.ts").AgentSurfaceOptions} [options]
 * @returns {import("./index.d.ts").AgentSurfacePlugin}
 */
export default function agentSurface(options = {}) {
  return unplugin.vite(options);
}

export { agentSurface };
