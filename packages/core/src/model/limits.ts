// AgentSurfaceLimits (spec: Limits and defaults; crates/model/src/limits.rs): every default once,
// and a partial override read as the Rust registry reads `RegistryOptions.limits`.

import type { AgentSurfaceLimits } from "../types.js";
import { checkInteger, isPlainObject, oneOf, rustKeys } from "./json.js";

export const DEFAULT_LIMITS: Readonly<AgentSurfaceLimits> = Object.freeze({
  maxComponentDescription: 500,
  maxCapabilityDescription: 300,
  maxMetaBytes: 2048,
  maxOutputBytes: 32_768,
  maxSchemaBytes: 16_384,
  maxSchemaDepth: 8,
  observationTimeoutMs: 5_000,
  actionTimeoutMs: 10_000,
  procedureTimeoutMs: 30_000,
  actionQueueDepth: 2,
  maxConcurrentObservationsPerConsumer: 8,
  maxConcurrentObservationsTotal: 32,
  maxQueuedObservationsPerConsumer: 8,
  dedupeCacheSize: 200,
  dedupeCacheTtlMs: 600_000,
  tombstoneSize: 100,
  tombstoneTtlMs: 300_000,
  confirmationTtlMs: 120_000,
  maxPendingConfirmations: 32,
});

/**
 * A `Partial<AgentSurfaceLimits>` over the defaults (undefined or null: the defaults), frozen.
 * Throws a TypeError for anything else, as the Rust registry refuses it: not an object, an
 * unknown field (a typo), or a value that is not a non-negative integer (`…Ms` fields are u64,
 * the others usize), with serde's wording, the first one in key order.
 */
export function resolveLimits(partial?: unknown): Readonly<AgentSurfaceLimits> {
  if (partial == null) return DEFAULT_LIMITS;
  if (!isPlainObject(partial)) throw new TypeError("limits must be an object (Partial<AgentSurfaceLimits>)");
  const out: Record<string, unknown> = { ...DEFAULT_LIMITS };
  for (const key of rustKeys(partial)) {
    const v = partial[key];
    if (v === undefined) continue;
    const e = !Object.hasOwn(DEFAULT_LIMITS, key)
      ? `unknown field \`${key}\`, expected ${oneOf(Object.keys(DEFAULT_LIMITS))}`
      : checkInteger(v, key.endsWith("Ms") ? "u64" : "usize");
    if (e) throw new TypeError(`limits: ${e}`);
    out[key] = v;
  }
  return Object.freeze(out) as unknown as AgentSurfaceLimits;
}
