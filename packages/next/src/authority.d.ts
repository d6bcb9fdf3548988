import type { CapabilityAuthority } from "@agent-surface/core";
/** The project's manifest, verified (every contractHash and the manifestHash) and deeply frozen. */
declare const authority: CapabilityAuthority;
export default authority;
