// Types for `virtual:agent-surface/authority`. Reference them from your app:
//   /// <reference types="@agent-surface/unplugin/client" />
// or add "@agent-surface/unplugin/client" to compilerOptions.types in tsconfig.json.

declare module "virtual:agent-surface/authority" {
  import type { CapabilityAuthority } from "@agent-surface/core";
  /** The project's manifest, verified (every contractHash and the manifestHash) and deeply frozen. */
  const authority: CapabilityAuthority;
  export default authority;
}
