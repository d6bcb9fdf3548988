// Bindings (crates/engine/src/binding.rs): live handlers attached to a contract of the
// authority. What the runtime keeps of a `contract.bind(...)` result once `register` checked
// it: the verified manifest contract, and per capability the handlers (called through the
// user's binding object at call time: live references) and the runtime settings.

import type {
  AgentActionContext,
  AgentConcurrency,
  AgentReadContext,
  JsonValue,
  ManifestComponentContract,
  ManifestOperationContract,
  PreconditionFailure,
} from "../types.js";
import type { ValidationIssue } from "../validate/index.js";
import type { Policy } from "./policy.js";

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
  /** Observation and action names in code-unit order (the Rust engine's BTreeMap order). */
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

/** Evaluates a `when`: true/false, undefined if it failed. */
export function evaluateWhen(w: WhenFn): boolean | undefined {
  return w();
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

/** Code-unit order (Rust's byte order on these ASCII names). */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
