// The definition rules (crates/model/src/definition.rs and rules/*): id grammar, sizes, planes,
// schema subset and uniqueness, applied to a manifest contract in the Rust walk order: a
// component's type and id, description, meta, then each observation (by name: name, description,
// meta, output schema), each action (by name: name, description, meta, effect/confirmation, input
// schema, output schema), and last the names shared by an observation and an action; a procedure
// or external tool's id, description, meta, effect/confirmation, input and output schema.
//
// The page reads only the first violation's pointer and message (firstViolation); the helps the
// Rust model gives with them (validateContract) are built by a separate table, which a page that
// never asks for them does not carry.

import type { AgentEffect, AgentSurfaceLimits, ManifestContract } from "../types.js";
import { canonicalText } from "./canonical.js";
import { CONFIRMATION_HELP, confirmationError, effectError, effectHelp, type CapabilityKind } from "./effects.js";
import { checkCapabilityName, checkComponentType, checkExternalToolId, checkProcedureId } from "./ids.js";
import { appendPointer, rustKeys, utf8Length } from "./json.js";
import { schemaViolations } from "./subset.js";

/** One violation: a JSON pointer into the contract's manifest JSON, the message and a help text. */
export interface DefinitionViolation {
  pointer: string;
  message: string;
  help: string | null;
}

type Obj = Record<string, unknown>;
type Limits = Pick<AgentSurfaceLimits, "maxComponentDescription" | "maxCapabilityDescription" | "maxMetaBytes" | "maxSchemaBytes" | "maxSchemaDepth">;
/** The help of a rule (`why`: which one; for `effect`, the capability's kind and effect). */
type Helps = (why: string, kind?: CapabilityKind, effect?: AgentEffect) => string | null;

/** The Rust model's help of each rule. */
const HELPS: Record<string, string> = {
  "component type": `component types look like "devices.table"`,
  "capability name": `capability names look like "readState" or "select_rows"`,
  "procedure id": `procedure ids look like "domain:devices.delete"`,
  "external tool id": `external tool ids look like "external:crm.export"`,
  empty: "say what it is for: agents choose capabilities by their descriptions",
  long: "shorten it; put details in the schemas' property descriptions",
  meta: "keep meta to small identifiers; look larger data up at run time",
  confirmation: CONFIRMATION_HELP,
  shared: "rename the observation or the action",
};

/** The rules' walk; each violation's help from `help` (null without it). */
function violations(contract: ManifestContract, limits: Limits, help?: Helps): DefinitionViolation[] {
  const out: DefinitionViolation[] = [];
  const push = (pointer: string, message: string, why: string | null, kind?: CapabilityKind, effect?: AgentEffect) =>
    out.push({ pointer, message, help: why !== null && help ? help(why, kind, effect) : null });
  /** An id grammar's message (`why` names the grammar for its help). */
  const id = (pointer: string, message: string | null, why: string) => message !== null && push(pointer, message, why);
  const description = (base: string, text: string, max: number) => {
    const pointer = `${base}/description`;
    if (/^\p{White_Space}*$/u.test(text)) push(pointer, "description is empty", "empty");
    else if (text.length > max) push(pointer, `description is ${text.length} characters long (UTF-16 code units); at most ${max} are allowed`, "long");
  };
  const meta = (base: string, value: unknown) => {
    const bytes = utf8Length(canonicalText(value));
    if (bytes > limits.maxMetaBytes) push(`${base}/meta`, `meta is ${bytes} bytes as canonical JSON; at most ${limits.maxMetaBytes} are allowed`, "meta");
  };
  const schema = (base: string, field: string, value: unknown) => {
    for (const v of schemaViolations(value, limits)) out.push({ ...v, pointer: `${base}/${field}${v.pointer}` });
  };
  const governance = (base: string, kind: CapabilityKind, c: Obj) => {
    const effect = c.effect as AgentEffect;
    const e = effectError(kind, effect);
    const f = e ? null : confirmationError(effect, c.confirmation as never);
    if (e) push(`${base}/effect`, e, "effect", kind, effect);
    else if (f) push(`${base}/confirmation`, f, "confirmation");
  };
  /** An action's, procedure's or tool's: the input schema, and the output schema unless null. */
  const schemas = (base: string, c: Obj) => {
    schema(base, "inputSchema", c.inputSchema);
    if (c.outputSchema !== null) schema(base, "outputSchema", c.outputSchema);
  };
  const max = limits.maxCapabilityDescription;
  if (contract.kind === "component") {
    const c = contract as unknown as Obj & { type: string; id: string; observations: Record<string, Obj>; actions: Record<string, Obj> };
    id("/type", checkComponentType(c.type), "component type");
    if (c.id !== `view:${c.type}`) push("/id", `component contract id "${c.id}" does not match its type; expected "view:${c.type}"`, null);
    description("", c.description as string, limits.maxComponentDescription);
    meta("", c.meta);
    for (const plane of ["observations", "actions"] as const) {
      for (const name of rustKeys(c[plane])) {
        const cap = c[plane][name]!;
        const base = appendPointer(`/${plane}`, name);
        id(base, checkCapabilityName(name), "capability name");
        description(base, cap.description as string, max);
        meta(base, cap.meta);
        if (plane === "actions") (governance(base, "view-action", cap), schemas(base, cap));
        else schema(base, "outputSchema", cap.outputSchema);
      }
    }
    for (const name of rustKeys(c.actions)) {
      if (Object.hasOwn(c.observations, name)) {
        push(appendPointer("/actions", name), `"${name}" is both an observation and an action; both would be "view:${c.type}.${name}"`, "shared");
      }
    }
  } else {
    const o = contract as unknown as Obj;
    const external = contract.kind === "external-tool";
    id("/id", (external ? checkExternalToolId : checkProcedureId)(o.id), external ? "external tool id" : "procedure id");
    description("", o.description as string, max);
    meta("", o.meta);
    governance("", external ? "external-tool" : "domain-procedure", o);
    schemas("", o);
  }
  return out;
}

/**
 * Every violation of one manifest contract against the definition rules and `limits`, in the
 * Rust order, with the Rust helps; empty means valid. Descriptions are counted in UTF-16 code
 * units, meta and schemas in bytes of canonical JSON.
 */
export const validateContract = (contract: ManifestContract, limits: Limits): DefinitionViolation[] =>
  violations(contract, limits, (why, kind, effect) => (why === "effect" ? effectHelp(kind!, effect!) : HELPS[why]!));

/** The first violation of validateContract, without its help; undefined when the contract is valid. */
export const firstViolation = (contract: ManifestContract, limits: Limits): DefinitionViolation | undefined => violations(contract, limits)[0];
