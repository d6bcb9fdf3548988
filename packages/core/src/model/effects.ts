// Planes, effects and governance defaults (DECISIONS §3, crates/model/src/effects.rs). The kind
// of a capability bounds the effects it may declare; defaults are materialized in the manifest.

import type { AgentAudit, AgentConfirmation, AgentEffect } from "../types.js";

export const EFFECTS: readonly AgentEffect[] = ["read", "local-state", "navigation", "mutation", "destructive", "external-side-effect"];
export const CONFIRMATIONS: readonly AgentConfirmation[] = ["never", "optional", "required"];
export const AUDITS: readonly AgentAudit[] = ["none", "metadata", "full"];

/** The four kinds of capability; each fixes a plane and the effects it may declare. */
export type CapabilityKind = "observation" | "view-action" | "domain-procedure" | "external-tool";
export type Plane = "view" | "domain" | "external";

export const planeOf = (kind: CapabilityKind): Plane =>
  kind === "domain-procedure" ? "domain" : kind === "external-tool" ? "external" : "view";

const OPERATION_EFFECTS: readonly AgentEffect[] = ["read", "mutation", "destructive", "external-side-effect"];

export const allowedEffects = (kind: CapabilityKind): readonly AgentEffect[] =>
  kind === "observation" ? ["read"] : kind === "view-action" ? ["local-state", "navigation"] : OPERATION_EFFECTS;

/** The governance fields every capability carries, all explicit in the manifest. */
export interface Governance {
  effect: AgentEffect;
  idempotent: boolean;
  reversible: boolean;
  confirmation: AgentConfirmation;
  audit: AgentAudit;
}

/**
 * The defaults of DECISIONS §3 for a capability of `kind` declaring `effect` (kept as given even
 * when the kind does not allow it: checkEffect reports that).
 */
export function defaultGovernance(kind: CapabilityKind, effect: AgentEffect): Governance {
  const operation = kind === "domain-procedure" || kind === "external-tool";
  const dangerous = operation && (effect === "destructive" || effect === "external-side-effect");
  return {
    effect,
    idempotent: kind === "observation" || (operation && effect === "read"),
    reversible: !dangerous,
    confirmation: dangerous ? "required" : "never",
    audit: "metadata",
  };
}

/** A plane rule broken, with the help that tells the author the fix. */
export interface PlaneError {
  message: string;
  help: string;
}

const quotedList = (effects: readonly string[]) => {
  const q = effects.map((e) => `"${e}"`);
  return q.length > 1 ? `${q.slice(0, -1).join(", ")} or ${q[q.length - 1]}` : (q[0] ?? "");
};

const NOUNS: Record<CapabilityKind, [string, string]> = {
  observation: ["an observation", "observations"],
  "view-action": ["a view action", "view actions"],
  "domain-procedure": ["a domain procedure", "domain procedures"],
  "external-tool": ["an external tool", "external tools"],
};

/** Why an effect is outside the kind's plane (e.g. a view action that mutates domain data), or null. */
export const effectError = (kind: CapabilityKind, effect: AgentEffect): string | null =>
  allowedEffects(kind).includes(effect) ? null : `effect "${effect}" is not allowed on ${NOUNS[kind][0]} (${planeOf(kind)} plane)`;

/** The help of effectError: what the author declares instead. */
export function effectHelp(kind: CapabilityKind, effect: AgentEffect): string {
  const may = `${NOUNS[kind][1]} may only be ${quotedList(allowedEffects(kind))}`;
  return kind === "observation"
    ? `observations are always "read"; declare an action (actionContract) or a domain procedure (defineAgentProcedureContract) for "${effect}"`
    : kind === "view-action"
      ? effect === "read"
        ? `${may}; expose state for reading as an observation (observationContract)`
        : `${may}; move "${effect}" into a domain procedure (defineAgentProcedureContract)`
      : `${may}; UI state changes and navigation belong in a view action (actionContract) of a component contract`;
}

/** Refuses an effect outside the kind's plane, with its help. */
export function checkEffect(kind: CapabilityKind, effect: AgentEffect): PlaneError | null {
  const message = effectError(kind, effect);
  return message === null ? null : { message, help: effectHelp(kind, effect) };
}

/** Refuses `confirmation: "never"` on a destructive effect (irreversible data loss must be confirmable), or null. */
export const confirmationError = (effect: AgentEffect, confirmation: AgentConfirmation): string | null =>
  effect === "destructive" && confirmation === "never" ? `confirmation "never" is not allowed for a "destructive" effect` : null;

export const CONFIRMATION_HELP = `use confirmation: "required" (the default for destructive effects) or "optional"`;

/** confirmationError with its help. */
export function checkConfirmation(effect: AgentEffect, confirmation: AgentConfirmation): PlaneError | null {
  const message = confirmationError(effect, confirmation);
  return message === null ? null : { message, help: CONFIRMATION_HELP };
}
