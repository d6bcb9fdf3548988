// The raw definition helpers of the spec: identity helpers that fix generics for record-literal
// authoring (`observation`, `action`) and `defineAgentComponent`. They build the runtime shapes
// for tooling and isolated construction and are inert: they carry no compiler provenance (a
// `provenance` field passed in is dropped), so a published registry rejects what they return.
// Each returns a frozen copy; the caller's object is neither frozen nor kept.

import { AgentSurfaceDefinitionError } from "./errors.js";
import type { AgentActionDefinition, AgentComponentDefinition, AgentObservationDefinition, JsonValue } from "./types.js";

/** A shallow copy of a definition object, without `provenance`. */
function copyOf<T extends object>(def: T, who: string): T {
  if (def === null || typeof def !== "object" || Array.isArray(def)) throw new AgentSurfaceDefinitionError(`${who}: expected a definition object`);
  const copy = { ...def } as Record<string, unknown>;
  delete copy["provenance"];
  return copy as T;
}

function frozenMap<V extends object>(map: Record<string, V> | undefined, who: string, field: string): Readonly<Record<string, V>> | undefined {
  if (map === undefined) return undefined;
  if (map === null || typeof map !== "object" || Array.isArray(map)) throw new AgentSurfaceDefinitionError(`${who}: ${field} must be an object keyed by capability name`);
  return Object.freeze({ ...map });
}

/** Identity helper for one observation (`{ description, output, read, ... }`): a frozen copy, inert. */
export function observation<TOut extends JsonValue>(def: AgentObservationDefinition<TOut>): AgentObservationDefinition<TOut> {
  return Object.freeze(copyOf(def, "observation"));
}

/** Identity helper for one action (`{ description, input, output?, effect, execute, ... }`): a frozen copy, inert. */
export function action<TIn extends JsonValue, TOut extends JsonValue | void = void>(def: AgentActionDefinition<TIn, TOut>): AgentActionDefinition<TIn, TOut> {
  return Object.freeze(copyOf(def, "action"));
}

/**
 * A raw component definition: a frozen copy (its `observations` and `actions` maps and its
 * `procedures` list copied and frozen too), without provenance. Inert: a published registry
 * refuses it; use a compiled contract's `.bind()` instead.
 */
export function defineAgentComponent(def: AgentComponentDefinition): AgentComponentDefinition {
  const copy = copyOf(def, "defineAgentComponent");
  const observations = frozenMap(copy.observations, "defineAgentComponent", "observations");
  const actions = frozenMap(copy.actions, "defineAgentComponent", "actions");
  if (observations !== undefined) copy.observations = observations;
  if (actions !== undefined) copy.actions = actions;
  if (copy.procedures !== undefined) {
    if (!Array.isArray(copy.procedures)) throw new AgentSurfaceDefinitionError("defineAgentComponent: procedures must be an array");
    copy.procedures = Object.freeze([...copy.procedures]) as AgentComponentDefinition["procedures"];
  }
  return Object.freeze(copy);
}
