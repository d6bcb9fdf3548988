// Bindings (crates/engine/src/binding.rs): live handlers attached to a contract of the
// authority. What the runtime keeps of a `contract.bind(...)` result once `register` checked
// it: the verified manifest contract, and per capability the handlers (called through the
// user's binding object at call time: live references) and the runtime settings.

import { AgentSurfaceDefinitionError } from "../errors.js";
import { authoredDifference } from "../model/authored.js";
import { canonicalJson } from "../model/canonical.js";
import { rustKeys } from "../model/json.js";
import { checkInstanceId } from "../model/ids.js";
import type { VerifiedManifest } from "../model/verify.js";
import { standardValidatorOf } from "../schema.js";
import type {
  AgentActionContext,
  AgentConcurrency,
  AgentReadContext,
  JsonValue,
  ManifestComponentContract,
  ManifestContract,
  ManifestOperationContract,
  PreconditionFailure,
} from "../types.js";
import type { ValidationIssue } from "../validate/index.js";
import { isObject, isThenable, jsonCopy } from "./json.js";
import { checkPolicies, type Policy } from "./policy.js";

export type { HostContext } from "./policy.js";

/** `when()`: true/false, or undefined when it failed (threw, answered a promise): "when-error". */
export type WhenFn = () => boolean | undefined;

/** `unavailableReason`: fixed text, or a function evaluated when `when()` is false. */
export type UnavailableReason = string | (() => string);

/** Runtime additions to one observation. */
export interface ObservationBinding {
  /** Calls the user's `read` (this = the binding object). Returns what it returns; may throw. */
  read(ctx: AgentReadContext): unknown;
  when?: WhenFn;
  unavailableReason?: UnavailableReason;
  policies: readonly Policy[];
  timeoutMs?: number;
}

/** Runtime additions to one action or procedure reference (or an external tool). */
export interface ActionBinding {
  /** Calls the user's `execute` (this = the binding object). Returns what it returns; may throw. */
  execute(input: JsonValue, ctx: AgentActionContext): unknown;
  when?: WhenFn;
  unavailableReason?: UnavailableReason;
  /** The user's precondition, normalized: undefined to proceed, else the agent-safe failure. */
  precondition?: (input: JsonValue, ctx: AgentReadContext) => PreconditionFailure | undefined;
  /** A schema library's own validator (fromStandardSchema): undefined when valid, else the issues. */
  inputCheck?: (input: JsonValue) => ValidationIssue[] | undefined;
  policies: readonly Policy[];
  timeoutMs?: number;
  concurrency: AgentConcurrency;
  /** No local `execute`: a procedure bound so is forwarded to the procedure executor. */
  forwarded: boolean;
}

/** A procedure referenced by a registration, bound to its executor. */
export interface BoundProcedure {
  /** `domain:…` */
  readonly id: string;
  readonly contract: ManifestOperationContract;
  readonly binding: ActionBinding;
  /** Live text shown next to the description (`contextualNote`); undefined when none or it threw. */
  readonly describe?: () => string | undefined;
}

/** A component contract bound to its handlers, ready to register. */
export interface BoundComponent {
  readonly componentType: string;
  readonly instanceId: string;
  readonly contract: ManifestComponentContract;
  /** Observation and action names in code-point order (the Rust engine's BTreeMap order). */
  readonly observationNames: readonly string[];
  readonly actionNames: readonly string[];
  readonly observations: ReadonlyMap<string, ObservationBinding>;
  readonly actions: ReadonlyMap<string, ActionBinding>;
  readonly enabled: boolean;
  readonly parent?: { readonly type: string; readonly instanceId: string };
  readonly internal: Readonly<Record<string, unknown>>;
  readonly policies: readonly Policy[];
  readonly procedures: readonly BoundProcedure[];
}

/** The reason's text now ("unavailable" when a reason function throws or answers a non-string). */
export function evaluateReason(r: UnavailableReason): string {
  if (typeof r === "string") return r;
  try {
    const t = r();
    return typeof t === "string" ? t : "unavailable";
  } catch {
    return "unavailable";
  }
}


// ---------------------------------------------------------------------------------------------
// From `contract.bind(...)` to a bound component: the shape checks of the page, then the checks
// against the authority (crates/engine/src/binding.rs `build`, and what the page's facade did:
// provenance, hash, semantics, handler sets).

type AnyRecord = Record<string, unknown>;
type Fn = (...args: never[]) => unknown;

/** A `contract.bind(...)` result: `{ contract: { id, kind, definition, provenance }, handlers }`. */
export interface Binding {
  contract: AnyRecord & { id: string; kind: string; definition: AnyRecord };
  handlers: AnyRecord;
}

/** A `contract.bind(...)` result, or undefined. */
export function asBinding(v: unknown): Binding | undefined {
  if (!isObject(v) || !isObject(v.contract) || !isObject(v.handlers)) return undefined;
  const c = v.contract;
  if (typeof c.id !== "string" || typeof c.kind !== "string" || !isObject(c.definition)) return undefined;
  return v as unknown as Binding;
}

/** The compiler's `{ id, contractHash }` a contract carries (undefined: an inert contract). */
export function provenanceOf(contract: AnyRecord): { id: string; contractHash: string } | undefined {
  const p = contract.provenance;
  return isObject(p) && typeof p.id === "string" && typeof p.contractHash === "string" ? (p as { id: string; contractHash: string }) : undefined;
}

/** An AgentSurfaceDefinitionError with a machine-readable code. */
export function definitionError(code: string, contract: string | null, message: string): AgentSurfaceDefinitionError {
  return new AgentSurfaceDefinitionError(message, { contract, code });
}

/** A defect of a binding's shape. */
function defect(message: string, contract: string | null): AgentSurfaceDefinitionError {
  return definitionError("binding", contract, message);
}

const schemaOf = (s: unknown): unknown => (isObject(s) ? s.jsonSchema : undefined);

/** `keys` of `o`, in that order. */
const pick = (o: AnyRecord, keys: string) => Object.fromEntries(keys.split(" ").map((k) => [k, o[k]]));

/** An action's, procedure's or external tool's definition in the manifest's field names (schemas as JSON Schema). */
function authoredCapability(c: AnyRecord): AnyRecord {
  return {
    description: c.description,
    inputSchema: schemaOf(c.input),
    outputSchema: c.output === undefined ? undefined : schemaOf(c.output),
    ...pick(c, "effect idempotent reversible confirmation audit meta"),
  };
}

/** A component definition in the manifest's field names (the model's `authored`). */
function authoredComponent(def: AnyRecord): AnyRecord {
  const map = (m: unknown, f: (c: AnyRecord) => AnyRecord) => Object.fromEntries(Object.entries((m as AnyRecord | undefined) ?? {}).map(([n, c]) => [n, f(c as AnyRecord)]));
  return {
    ...pick(def, "type description meta origin priority policies tags"),
    observations: map(def.observations, (o) => ({ description: o.description, outputSchema: schemaOf(o.output), meta: o.meta })),
    actions: map(def.actions, authoredCapability),
  };
}

/** A procedure's or external tool's definition in the manifest's field names. */
export function authoredOperation(def: AnyRecord): AnyRecord {
  return { id: def.id, ...authoredCapability(def), policies: def.policies, tags: def.tags };
}

/**
 * The manifest contract a binding's contract names, checked: it carries provenance, for this
 * id, known to the authority, with the same hash, and the same semantics as authored.
 */
export function verifiedContract(verified: VerifiedManifest, id: string, provenance: { id: string; contractHash: string } | undefined, authored: AnyRecord): ManifestContract {
  if (!provenance) {
    throw definitionError(
      "inert-contract",
      id,
      `"${id}" is an inert contract: it carries no compiler provenance (the build did not compile this file, or the contract was created at run time)`,
    );
  }
  if (provenance.id !== id) throw definitionError("foreign-provenance", id, `"${id}" carries the provenance of "${provenance.id}"`);
  const compiled = verified.contracts.get(id);
  if (!compiled) throw definitionError("unknown-contract", id, `"${id}" is not in this registry's manifest`);
  if (compiled.contractHash !== provenance.contractHash) {
    throw definitionError(
      "hash-mismatch",
      id,
      `"${id}" was compiled as ${provenance.contractHash} but this registry's manifest has ${compiled.contractHash}: the manifest is stale or from another build`,
    );
  }
  let pointer: string | null;
  try {
    pointer = authoredDifference(compiled, jsonCopy(authored));
  } catch (e) {
    throw defect(`${id}: the contract is not JSON: ${(e as Error).message}`, id);
  }
  if (pointer !== null) throw definitionError("semantic-change", id, `"${id}" differs from its compiled contract at ${pointer || "/"}: recompile the manifest`);
  return compiled;
}

function timeoutOf(v: unknown, where: string, contract: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw defect(`${where}: timeoutMs must be a non-negative number`, contract);
  return Math.floor(v);
}

/** The spec's AgentConcurrency, checked (code "invalid-concurrency"). */
function concurrencyOf(v: unknown, name: string): AgentConcurrency {
  if (v === undefined || v === null) return { mode: "instance" };
  const bad = (why: string) => definitionError("invalid-concurrency", name, `"${name}": ${why}`);
  if (!isObject(v) || typeof v.mode !== "string") throw bad("concurrency: expected { mode, key?, max?, queueDepth? }");
  const q = v.queueDepth;
  if (q != null && !(typeof q === "number" && Number.isInteger(q) && q >= 0)) throw bad("concurrency: queueDepth must be a non-negative integer");
  const depth = q == null ? {} : { queueDepth: q as number };
  switch (v.mode) {
    case "instance":
    case "capability":
      return { mode: v.mode, ...depth };
    case "key":
      if (typeof v.key !== "string") throw bad("key concurrency needs a key");
      return { mode: "key", key: v.key, ...depth };
    case "parallel":
      if (!(typeof v.max === "number" && Number.isInteger(v.max) && v.max >= 1)) throw bad("parallel concurrency needs an integer max ≥ 1");
      return { mode: "parallel", max: v.max, ...depth };
    default:
      throw bad(`unknown concurrency mode "${v.mode}"`);
  }
}

/** A thrown or returned `PreconditionFailure`: a plain `{ message, details? }`, not an Error. */
export function asPreconditionFailure(v: unknown): { message: string; details?: unknown } | undefined {
  if (v === null || typeof v !== "object" || v instanceof Error) return undefined;
  const message = (v as { message?: unknown }).message;
  return typeof message === "string" ? { message, details: (v as { details?: unknown }).details } : undefined;
}

/** What every capability binding has: `when`, `unavailableReason`, `timeoutMs`, `policies`. */
interface Common {
  when?: WhenFn;
  unavailableReason?: UnavailableReason;
  timeoutMs?: number;
  policies: Policy[];
}

function common(b: AnyRecord, label: string, where: string, contract: string, development: boolean): Common {
  const reason = b.unavailableReason;
  if (reason !== undefined && typeof reason !== "string" && typeof reason !== "function") {
    throw defect(`${where}: unavailableReason must be a string or a function returning one`, contract);
  }
  const out: Common = { timeoutMs: timeoutOf(b.timeoutMs, where, contract), policies: checkPolicies(b.policies, where, contract) };
  if (out.timeoutMs === undefined) delete out.timeoutMs;
  if (typeof reason === "string") out.unavailableReason = reason;
  else if (typeof reason === "function") out.unavailableReason = () => (reason as () => string).call(b);
  const when = b.when;
  if (typeof when === "function") {
    out.when = () => {
      try {
        const v = (when as Fn).call(b);
        if (isThenable(v)) {
          if (development) console.warn(`agent-surface: when() of ${label} returned a promise; when must be synchronous (unavailable)`);
          return undefined;
        }
        return v !== false;
      } catch (e) {
        if (development) console.warn(`agent-surface: when() of ${label} threw (unavailable, "when-error"): ${(e as Error)?.message ?? e}`);
        return undefined;
      }
    };
  }
  return out;
}

function noLocalExecute(): never {
  throw new Error("no local execute");
}

/**
 * An action, procedure reference or external tool's binding from the user's handlers `b`
 * (`label`: `action "name"`; `input`: the contract definition's input AgentSchema, whose
 * schema library's validator, if any, runs after the JSON Schema's).
 */
export function actionBinding(b: AnyRecord, label: string, where: string, contract: string, name: string, input: unknown, development: boolean): ActionBinding {
  const c = common(b, label, where, contract, development);
  const execute = b.execute;
  const forwarded = typeof execute !== "function";
  const out: ActionBinding = {
    ...c,
    execute: forwarded ? noLocalExecute : (inp, ctx) => (execute as Fn).call(b, inp as never, ctx as never),
    concurrency: concurrencyOf(b.concurrency, name),
    forwarded,
  };
  const pre = b.precondition;
  if (typeof pre === "function") {
    out.precondition = (inp, ctx) => {
      let r: unknown;
      try {
        r = (pre as Fn).call(b, inp as never, ctx as never);
      } catch (thrown) {
        const p = asPreconditionFailure(thrown);
        if (!p && development) console.error(`agent-surface: the precondition of ${label} threw: ${(thrown as Error)?.message ?? thrown}`);
        r = p ?? { message: "the precondition check failed" };
      }
      // Details are copied (and, not JSON, dropped) where the failure is reported (PRECONDITION_FAILED).
      return r == null ? undefined : ((asPreconditionFailure(r) ?? { message: "precondition failed" }) as PreconditionFailure);
    };
  }
  const validate = standardValidatorOf(input);
  if (validate) {
    out.inputCheck = (inp) => {
      try {
        return validate(inp);
      } catch (e) {
        if (development) console.error(`agent-surface: the input schema of ${label} threw: ${(e as Error)?.message ?? e}`);
        return [{ path: "", keyword: "standard", message: "the schema library's validation failed" }];
      }
    };
  }
  return out;
}



/**
 * The bound component of a component binding, checked against the authority: every defect is an
 * AgentSurfaceDefinitionError with a `code` ("binding", "invalid-policy", "inert-contract",
 * "unknown-contract", "hash-mismatch", "semantic-change", "invalid-concurrency").
 */
export function bindComponent(binding: Binding, verified: VerifiedManifest, development: boolean): BoundComponent {
  const { contract, handlers } = binding;
  const id = contract.id;
  if (contract.kind !== "component") throw defect(`${id}: register takes a component binding; bind procedures into a component's "procedures"`, id);
  const def = contract.definition;
  // The page's shape checks first, in the order the handlers are written.
  const obs = new Map<string, Common & { b: AnyRecord }>();
  for (const [name, b] of Object.entries((handlers.observations as AnyRecord | undefined) ?? {})) {
    const label = `observation "${name}"`;
    obs.set(name, { ...common(b as AnyRecord, label, `${label} of "${id}"`, id, development), b: b as AnyRecord });
  }
  const acts = new Map<string, ActionBinding>();
  const defActions = (def.actions as AnyRecord | undefined) ?? {};
  for (const [name, b] of Object.entries((handlers.actions as AnyRecord | undefined) ?? {})) {
    const label = `action "${name}"`;
    acts.set(name, actionBinding(b as AnyRecord, label, `${label} of "${id}"`, id, name, (defActions[name] as AnyRecord | undefined)?.input, development));
  }
  const refs = handlers.procedures ?? [];
  if (!Array.isArray(refs)) throw defect(`${id}: procedures must be an array of procedure bindings`, id);
  const procs = refs.map((p, i) => {
    const pb = asBinding(p);
    if (!pb || pb.contract.kind !== "procedure") throw defect(`${id}: procedures[${i}] must be a procedure contract's bind(...) result`, id);
    const pid = pb.contract.id;
    const label = `procedure "${pid}"`;
    return { pb, binding: actionBinding(pb.handlers, label, `${label} of "${id}"`, pid, pid, pb.contract.definition.input, development) };
  });
  const parent = handlers.parent;
  if (parent !== undefined && !(isObject(parent) && typeof parent.type === "string" && (parent.instanceId === undefined || typeof parent.instanceId === "string"))) {
    throw defect(`${id}: parent must be { type, instanceId? }`, id);
  }
  if (handlers.meta !== undefined) {
    // Agent-visible metadata is the contract's (identity lives in the contract): a binding may only repeat it.
    let same = false;
    try {
      same = canonicalJson(handlers.meta) === canonicalJson(def.meta ?? {});
    } catch {
      // not JSON: differs
    }
    if (!same) throw defect(`${id}: bind({ meta }) differs from the contract's meta; agent-visible metadata is declared in the contract`, id);
  }
  const policies = checkPolicies(handlers.policies, id, id);
  const enabled = handlers.enabled;
  if (enabled !== undefined && typeof enabled !== "boolean") throw new TypeError(`register: ${id}: enabled must be a boolean`);

  // Then against the authority.
  const c = verifiedContract(verified, id, provenanceOf(contract), authoredComponent(def));
  if (c.kind !== "component") throw definitionError("unknown-contract", id, `the manifest has no component contract "${id.slice(5)}"`);
  const procedures: BoundProcedure[] = procs.map(({ pb, binding }) => {
    const pid = pb.contract.id;
    const pc = verifiedContract(verified, pid, provenanceOf(pb.contract), authoredOperation(pb.contract.definition));
    if (pc.kind !== "procedure") throw definitionError("unknown-contract", pid, `the manifest has no procedure contract "${pid}"`);
    const d = pb.handlers.describe;
    const describe =
      typeof d === "function"
        ? () => {
            try {
              const note = (d as Fn).call(pb.handlers);
              return typeof note === "string" ? note : undefined;
            } catch {
              return undefined;
            }
          }
        : undefined;
    return describe ? { id: pid, contract: pc, binding, describe } : { id: pid, contract: pc, binding };
  });

  // The handler sets against the contract (binding.rs `build`, in its order).
  const instanceId = handlers.instanceId === undefined ? "default" : handlers.instanceId;
  const idError = checkInstanceId(instanceId);
  if (idError !== null) throw defect(`invalid instance id: ${idError}`, id);
  for (const name of obs.keys()) if (!Object.hasOwn(c.observations, name)) throw defect(`"${id}" declares no observation "${name}"`, id);
  for (const name of acts.keys()) if (!Object.hasOwn(c.actions, name)) throw defect(`"${id}" declares no action "${name}"`, id);
  const observationNames = rustKeys(c.observations);
  const actionNames = rustKeys(c.actions);
  const observations = new Map<string, ObservationBinding>();
  for (const name of observationNames) {
    const o = obs.get(name);
    if (!o || typeof o.b.read !== "function") throw defect(`observation "${name}" of "${id}" has no read handler`, id);
    const { b, ...rest } = o;
    const read = b.read as Fn;
    observations.set(name, { ...rest, read: (ctx) => read.call(b, ctx as never) });
  }
  const actions = new Map<string, ActionBinding>();
  for (const name of actionNames) {
    const a = acts.get(name);
    if (!a || a.forwarded) throw defect(`action "${name}" of "${id}" has no execute handler`, id);
    actions.set(name, a);
  }
  const seen = new Set<string>();
  for (const p of procedures) {
    if (!p.id.startsWith("domain:")) throw defect(`"${id}" references "${p.id}", which is not a domain procedure (external tools are exposed through a gateway)`, id);
    if (seen.has(p.id)) throw defect(`"${id}" references the procedure "${p.id}" twice`, id);
    seen.add(p.id);
  }
  const bound: BoundComponent = {
    componentType: c.type,
    instanceId: instanceId as string,
    contract: c,
    observationNames,
    actionNames,
    observations,
    actions,
    enabled: enabled !== false,
    internal: isObject(handlers.internal) ? (handlers.internal as Readonly<AnyRecord>) : NO_INTERNAL,
    policies,
    procedures,
  };
  if (parent !== undefined) {
    const p = parent as AnyRecord;
    (bound as { parent?: BoundComponent["parent"] }).parent = Object.freeze({ type: p.type as string, instanceId: (p.instanceId as string | undefined) ?? "default" });
  }
  return bound;
}

/** The `internal` of a binding that declares none. */
const NO_INTERNAL: Readonly<AnyRecord> = Object.freeze({});
