// @agent-surface/core/explain: the developer projection. Deliberately not exported from the
// package root: an explanation shows hidden capabilities and the policies that hid them, which
// is never agent-facing (Policies and security §explain).

import { explainSurface as explain } from "./runtime/explain.js";
import { partsOf } from "./runtime/registry.js";
import { readSnapshotContext } from "./runtime/snapshot.js";
import type { AgentSurfaceRegistry, SnapshotContext, SurfaceExplanation } from "./types.js";

/**
 * Why each capability the registry holds is exposed, disabled or hidden for `ctx` (consumer and
 * scope honoured; includeUnavailable and budget ignored). Throws a TypeError on a registry this
 * package did not create, an Error on a disposed one.
 */
export function explainSurface(registry: AgentSurfaceRegistry, ctx?: SnapshotContext): SurfaceExplanation {
  const parts = partsOf(registry, "explainSurface");
  return explain(parts, readSnapshotContext(ctx, "explainSurface"));
}
