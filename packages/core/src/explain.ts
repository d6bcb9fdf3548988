// @agent-surface/core/explain: the developer projection. Deliberately not exported from the
// package root: an explanation shows hidden capabilities and the policies that hid them, which
// is never agent-facing (Policies and security §explain).

import { engineError } from "./engine.js";
import { deepFreeze, jsonText } from "./json.js";
import { engineOf } from "./registry.js";
import type { AgentSurfaceRegistry, SnapshotContext, SurfaceExplanation } from "./types.js";

/**
 * Why each capability the registry holds is exposed, disabled or hidden for `ctx` (consumer and
 * scope honoured; includeUnavailable and budget ignored). Throws on a registry this package did
 * not create, or a disposed one.
 */
export function explainSurface(registry: AgentSurfaceRegistry, ctx?: SnapshotContext): SurfaceExplanation {
  const engine = engineOf(registry, "explainSurface");
  let text: string;
  try {
    text = engine.explain(jsonText(ctx ?? {}));
  } catch (thrown) {
    if (thrown instanceof TypeError) throw thrown;
    throw new Error(`explainSurface: ${engineError(thrown).message}`);
  }
  return deepFreeze(JSON.parse(text) as SurfaceExplanation);
}
