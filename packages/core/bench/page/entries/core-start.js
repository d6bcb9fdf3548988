// Start-up of the governance layer: import @agent-surface/core, verify the example app's
// manifest, create the registry and take a snapshot (what a page does before its tools exist).
// The manifest arrives as the bundler plugins' authority module hands it over: JSON text given to
// JSON.parse (packages/unplugin `authorityModule`).
import { createAgentSurfaceRegistry, createCapabilityAuthority } from "@agent-surface/core";
import manifestText from "../../../../../examples/devices-app/agent-surface.manifest.json" with { type: "text" };

export function start() {
  const registry = createAgentSurfaceRegistry({ authority: createCapabilityAuthority(JSON.parse(manifestText)) });
  return registry.snapshot().surfaceVersion;
}
