// A registry's parts as the pipeline and the confirmation controller see them
// (crates/engine/src/invoke/mod.rs `Parts`): the live surface, what is in flight, the pending
// confirmations — nothing else.

import type { Confirmations } from "./confirm/index.js";
import type { Inflight } from "./invoke/index.js";
import type { Surface } from "./surface.js";

export interface Parts {
  readonly surface: Surface;
  readonly inflight: Inflight;
  readonly confirmations: Confirmations;
}
