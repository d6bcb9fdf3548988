// The tool catalog (crates/engine/src/expose/catalog.rs): what a model is shown, built from a
// snapshot (or from a manifest alone) without any live state. The live toolset that executes
// calls is ./toolset.ts.

import { blake3Base32 } from "../model/hash.js";
import type { AgentActionDescriptor, AgentObservationDescriptor, AgentSurfaceSnapshot, JsonSchema } from "../types.js";
import type { ToolTraits } from "./providers.js";

/** Where a direct tool's calls go (private to the catalog it came from). */
export interface Route {
  capabilityId: string;
  instanceId?: string;
  registrationId?: string;
  surfaceVersion: string;
}

export interface ToolState {
  available: boolean;
  unavailableReason?: string;
  note?: string;
}

/** A catalog entry: the spec's AgentTool without `execute`, with what stays private to it. */
export interface CatalogTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  state: ToolState;
  /** Absent for the meta tools. */
  traits?: ToolTraits;
  /** Absent for the meta tools. */
  route?: Route;
}

/**
 * `[A-Za-z0-9_-]{1,64}`: the capability id with every other character mapped to `_`; a longer
 * one is cut to 55 characters and ends with `_` + 8 base32 characters of the blake3 of the full id.
 */
export function wireName(id: string): string {
  let mapped = "";
  for (const c of id) mapped += /[A-Za-z0-9_-]/.test(c) ? c : "_";
  return mapped.length <= 64 && mapped !== "" ? mapped : `${mapped.slice(0, 55)}_${blake3Base32(id, 8)}`;
}

const prefix = (plane: string, effect: string, confirmation: string) => `[${plane} · ${effect} · ${confirmation}] `;

const EMPTY_INPUT: JsonSchema = Object.freeze({ type: "object", properties: Object.freeze({}), additionalProperties: false });

const state = (available: boolean, unavailableReason?: string, note?: string): ToolState => ({
  available,
  ...(unavailableReason != null && { unavailableReason }),
  ...(note != null && { note }),
});

/**
 * What a wire name is made from: the capability id, or (`"unprefixed"`) the id after its plane
 * (`view:`, `domain:`, `external:`).
 */
const nameSource = (id: string, names: "prefixed" | "unprefixed"): string => {
  const colon = id.indexOf(":");
  return names === "unprefixed" && colon >= 0 ? id.slice(colon + 1) : id;
};

/**
 * The direct catalog of a snapshot: one tool per capability (per instance while a type has
 * several live instances), one per procedure, sorted by name. `names: "unprefixed"` drops the
 * plane from every name (`devices_table_readState`); uniqueness and the 64-character rule hold
 * as for the prefixed names.
 */
export function directTools(snap: AgentSurfaceSnapshot, names: "prefixed" | "unprefixed" = "prefixed"): CatalogTool[] {
  const perType = new Map<string, number>();
  for (const c of snap.components) perType.set(c.type, (perType.get(c.type) ?? 0) + 1);
  const tools: CatalogTool[] = [];
  const surfaceVersion = snap.surfaceVersion;
  for (const c of snap.components) {
    const several = perType.get(c.type)! > 1;
    const naming = (cap: string) => wireName(several ? `${nameSource(cap, names)}__${c.instanceId}` : nameSource(cap, names));
    const text = (d: string) => (several ? `(instance "${c.instanceId}") ${d}` : d);
    const route = (capabilityId: string): Route => ({ capabilityId, instanceId: c.instanceId, registrationId: c.registrationId, surfaceVersion });
    for (const d of [...c.observations, ...c.actions] as Array<Partial<AgentActionDescriptor> & AgentObservationDescriptor>) {
      const { effect = "read", confirmation = "never", idempotent = true, reversible = true } = d;
      tools.push({
        name: naming(d.capabilityId),
        description: prefix("view", effect, confirmation) + text(d.description),
        inputSchema: d.inputSchema ?? EMPTY_INPUT,
        ...(d.outputSchema != null && { outputSchema: d.outputSchema }),
        state: state(d.available, d.unavailableReason),
        traits: { plane: "view", effect, idempotent, reversible, confirmation },
        route: route(d.capabilityId),
      });
    }
  }
  // Procedures: one tool per id, routed through the first referencing registration in snapshot order.
  const seen = new Set<string>();
  for (const p of snap.procedures) {
    if (seen.has(p.capabilityId)) continue;
    seen.add(p.capabilityId);
    tools.push({
      name: wireName(nameSource(p.capabilityId, names)),
      description: prefix("domain", p.effect, p.confirmation) + p.description,
      inputSchema: p.inputSchema,
      ...(p.outputSchema != null && { outputSchema: p.outputSchema }),
      state: state(p.available, p.unavailableReason, p.contextualNote),
      traits: { plane: "domain", effect: p.effect, idempotent: p.idempotent, reversible: p.reversible, confirmation: p.confirmation },
      route: { capabilityId: p.capabilityId, registrationId: p.registrationId, surfaceVersion },
    });
  }
  // Unique names: every tool of a colliding name gets a hashed one (so the result does not depend on order).
  const counts = new Map<string, number>();
  for (const t of tools) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
  for (const t of tools) {
    if (counts.get(t.name)! > 1) {
      const full = t.name + "_".repeat(64);
      t.name = wireName(`${full.slice(0, 60)}~${t.route!.capabilityId}#${t.route!.instanceId ?? ""}`);
    }
  }
  return tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const str = (description: string) => ({ type: "string", description });
const target = (withInput: boolean): JsonSchema => ({
  type: "object",
  properties: {
    capabilityId: str("A capabilityId from surface_discover"),
    instanceId: str("Required when several instances are live"),
    registrationId: str("The registrationId from surface_discover (staleness check)"),
    surfaceVersion: str("The surfaceVersion from surface_discover"),
    ...(withInput && {
      input: { type: "object", description: "The capability's input, per its inputSchema" },
      confirmationId: str("After the user confirmed: the confirmationId of CONFIRMATION_REQUIRED"),
    }),
  },
  required: ["capabilityId"],
  additionalProperties: false,
});
const meta = (name: string, description: string, inputSchema: JsonSchema): CatalogTool => ({
  name,
  description: `[experimental] ${description}`,
  inputSchema,
  state: { available: true },
});

/** The three meta tools (experimental), in name order. */
export function metaTools(): CatalogTool[] {
  return [
    meta(
      "surface_discover",
      "List what can be read and done on the current screen: components with their observations and actions, and domain procedures, each with capabilityId, schemas and availability.",
      {
        type: "object",
        properties: { scope: { type: "array", items: { type: "string" }, description: 'Component-type prefixes to narrow discovery, e.g. ["devices"]' } },
        additionalProperties: false,
      },
    ),
    meta("surface_invoke", "Invoke an action or a domain procedure found with surface_discover.", target(true)),
    meta("surface_read", "Read an observation found with surface_discover.", target(false)),
  ];
}

type Contract = Record<string, any>;

/**
 * A catalog from a manifest alone (what `agent-surface tools` previews): every component as one
 * live instance, every capability available; external tools on the `external` plane.
 */
export function catalogFromManifest(manifest: { contracts: readonly Contract[] }, mode: "direct" | "meta" = "direct"): CatalogTool[] {
  if (mode === "meta") return metaTools();
  const snap: AgentSurfaceSnapshot = { surfaceId: "preview", surfaceVersion: "0", capturedAt: "", components: [], procedures: [] };
  const operation = (o: Contract) => ({
    description: o.description,
    inputSchema: o.inputSchema,
    ...(o.outputSchema != null && { outputSchema: o.outputSchema }),
    effect: o.effect,
    idempotent: o.idempotent,
    reversible: o.reversible,
    confirmation: o.confirmation,
    available: true,
  });
  for (const c of manifest.contracts) {
    if (c.kind === "component") {
      const entries = (m: Contract) => Object.entries(m ?? {});
      snap.components.push({
        type: c.type,
        instanceId: "default",
        registrationId: "preview",
        description: c.description,
        observations: entries(c.observations).map(([name, o]) => ({
          capabilityId: `view:${c.type}.${name}`,
          name,
          description: o.description,
          outputSchema: o.outputSchema,
          available: true,
        })),
        actions: entries(c.actions).map(([name, a]) => ({ capabilityId: `view:${c.type}.${name}`, name, ...operation(a) })),
      });
    } else {
      snap.procedures.push({ capabilityId: c.id, ...operation(c), registrationId: "preview", component: { type: "", instanceId: "" } });
    }
  }
  const tools = directTools(snap);
  for (const t of tools) {
    if (t.route!.capabilityId.startsWith("external:")) {
      t.traits!.plane = "external";
      t.description = t.description.replace("[domain ·", "[external ·");
    }
  }
  return tools;
}
