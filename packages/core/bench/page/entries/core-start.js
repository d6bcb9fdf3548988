// Start-up of the governance layer: import @agent-surface/core, verify the example app's
// manifest, create the registry and take a snapshot (what a page does before its tools exist).
import { createAgentSurfaceRegistry, createCapabilityAuthority } from "@agent-surface/core";
import manifest from "../../../../../examples/devices-app/agent-surface.manifest.json";

export function start() {
  const registry = createAgentSurfaceRegistry({ authority: createCapabilityAuthority(manifest) });
  return registry.snapshot().surfaceVersion;
}
