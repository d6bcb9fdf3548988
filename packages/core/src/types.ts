// The public types of @agent-surface/core (../shared/spec/core-api.md). Types only: nothing here
// exists at run time.

/** JSON value constraint: every agent-crossing payload MUST be a JsonValue. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON Schema document restricted to the supported subset. */
export type JsonSchema = Record<string, unknown>;

// ---------------------------------------------------------------- errors

export interface AgentSchemaIssue {
  /** RFC 6901 JSON Pointer into the value ("" for the root). */
  path: string;
  /** The failed keyword (`type`, `required`, ...), `standard` for Standard Schema issues, `json` for non-JSON values. */
  keyword: string;
  message: string;
}

/** The kebab-case refusal kinds of the Rust runtime's `AuthorityError::kind()`, plus `not-an-authority`. */
export type CapabilityAuthorityErrorKind =
  | "not-json"
  | "unsupported-format-version"
  | "malformed"
  | "incomplete"
  | "count-mismatch"
  | "contract-hash-mismatch"
  | "duplicate-id"
  | "not-sorted"
  | "manifest-hash-mismatch"
  | "invalid-contract"
  /** JS only: assertCapabilityAuthority got an object createCapabilityAuthority did not mint. */
  | "not-an-authority";

// ---------------------------------------------------------------- schemas

export interface AgentSchema<T> {
  /** Agent-visible JSON Schema (draft 2020-12, restricted subset). Deeply frozen. */
  readonly jsonSchema: JsonSchema;
  /** Validates and returns a typed value; throws AgentSchemaError on invalid input. */
  parse(value: unknown): T;
}

/** The Standard Schema v1 interface (https://standardschema.dev), as much as core uses. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardSchemaV1.Result<Output> | Promise<StandardSchemaV1.Result<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

export declare namespace StandardSchemaV1 {
  type Result<Output> = SuccessResult<Output> | FailureResult;
  interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
  }
  type InferOutput<S extends StandardSchemaV1> = NonNullable<S["~standard"]["types"]>["output"];
}

// ---------------------------------------------------------------- definitions

export type AgentEffect = "read" | "local-state" | "navigation" | "mutation" | "destructive" | "external-side-effect";
export type AgentConfirmation = "never" | "optional" | "required";
export type AgentAudit = "none" | "metadata" | "full";

/** `{ name, ...options }`, stored in the manifest as written. */
export interface CapabilityPolicyAttachment {
  name: string;
  [option: string]: JsonValue;
}

/** What the compiler appends as the last argument of a compiled macro call. */
export interface ContractProvenance {
  readonly id: string;
  /** `blake3:<64 hex>` */
  readonly contractHash: string;
}

export interface AgentObservationContract<TOut extends JsonValue> {
  description: string;
  output: AgentSchema<TOut>;
  meta?: Record<string, JsonValue>;
}

export interface AgentActionContract<TIn extends JsonValue, TOut extends JsonValue | void = void> {
  description: string;
  input: AgentSchema<TIn>;
  output?: AgentSchema<Exclude<TOut, void>>;
  /** View actions: "local-state" | "navigation". */
  effect: "local-state" | "navigation";
  idempotent?: boolean;
  reversible?: boolean;
  confirmation?: AgentConfirmation;
  audit?: AgentAudit;
  meta?: Record<string, JsonValue>;
}

export interface AgentComponentContractDefinition<
  TObservations extends Record<string, AgentObservationContract<any>>,
  TActions extends Record<string, AgentActionContract<any, any>>,
> {
  type: string;
  description: string;
  meta?: Record<string, JsonValue>;
  origin?: string;
  priority?: number;
  policies?: CapabilityPolicyAttachment[];
  tags?: string[];
  observations?: TObservations;
  actions?: TActions;
}

export type AgentConcurrency =
  | { mode: "instance"; queueDepth?: number }
  | { mode: "capability"; queueDepth?: number }
  | { mode: "key"; key: string; queueDepth?: number }
  | { mode: "parallel"; max: number; queueDepth?: number };

/** Handler contexts are supplied by a registry (not part of this package). */
export interface AgentReadContext {
  capabilityId: string;
  registrationId: string;
  consumer: unknown;
  host: Readonly<Record<string, unknown>>;
}

export interface AgentActionContext extends AgentReadContext {
  invocationId: string;
  signal: AbortSignal;
  confirmation?: { id: string; approvedAt: string };
}

export interface PreconditionFailure {
  message: string;
  details?: Record<string, JsonValue>;
}

export interface ObservationBinding<TOut> {
  read(ctx: AgentReadContext): TOut | Promise<TOut>;
  when?: () => boolean;
  unavailableReason?: string | (() => string);
  policies?: unknown[];
  timeoutMs?: number;
}

export interface ActionBinding<TIn, TOut> {
  execute(input: TIn, ctx: AgentActionContext): TOut | Promise<TOut>;
  when?: () => boolean;
  unavailableReason?: string | (() => string);
  precondition?(input: TIn, ctx: AgentReadContext): void | PreconditionFailure;
  policies?: unknown[];
  timeoutMs?: number;
  concurrency?: AgentConcurrency;
}

type ObservationOutput<O> = O extends AgentObservationContract<infer T> ? T : never;
type ActionInput<A> = A extends AgentActionContract<infer I, any> ? I : never;
type ActionOutput<A> = A extends AgentActionContract<any, infer O> ? O : never;

type ObservationBindings<TObservations> = { [K in keyof TObservations]: ObservationBinding<ObservationOutput<TObservations[K]>> };
type ActionBindings<TActions> = { [K in keyof TActions]: ActionBinding<ActionInput<TActions[K]>, ActionOutput<TActions[K]>> };

/**
 * What `.bind()` takes: one `read` per declared observation, one `execute` per declared action
 * (the maps may be omitted when the contract declares none).
 */
export type AgentComponentHandlers<
  TObservations extends Record<string, AgentObservationContract<any>>,
  TActions extends Record<string, AgentActionContract<any, any>>,
> = {
  /** Defaults to "default"; `[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}`. */
  instanceId?: string;
  enabled?: boolean;
  parent?: { type: string; instanceId?: string };
  internal?: Record<string, unknown>;
  policies?: unknown[];
  procedures?: unknown[];
} & ({} extends TObservations ? { observations?: ObservationBindings<TObservations> } : { observations: ObservationBindings<TObservations> }) &
  ({} extends TActions ? { actions?: ActionBindings<TActions> } : { actions: ActionBindings<TActions> });

/** A contract with recorded handlers. `verified` is true iff the contract carries compiler provenance. */
export interface AgentContractBinding<C, H> {
  readonly contract: C;
  readonly handlers: Readonly<H>;
  readonly verified: boolean;
}

export interface AgentComponentContract<
  TObservations extends Record<string, AgentObservationContract<any>>,
  TActions extends Record<string, AgentActionContract<any, any>>,
> {
  readonly kind: "component";
  /** `view:<type>` */
  readonly id: string;
  readonly definition: Readonly<AgentComponentContractDefinition<TObservations, TActions>>;
  /** undefined when the compiler did not inject (valid) provenance: the contract is inert. */
  readonly provenance: ContractProvenance | undefined;
  bind(
    handlers: AgentComponentHandlers<TObservations, TActions>,
  ): AgentContractBinding<AgentComponentContract<TObservations, TActions>, AgentComponentHandlers<TObservations, TActions>>;
}

/** `defineAgentProcedureContract` / `defineExternalAgentToolContract` definition. */
export interface AgentOperationContractDefinition<TIn extends JsonValue, TOut extends JsonValue | void = void> {
  /** `domain:…` for procedures, `external:…` for external tools. */
  id: string;
  description: string;
  input: AgentSchema<TIn>;
  output?: AgentSchema<Exclude<TOut, void>>;
  effect: "read" | "mutation" | "destructive" | "external-side-effect";
  confirmation?: AgentConfirmation;
  idempotent?: boolean;
  reversible?: boolean;
  audit?: AgentAudit;
  policies?: CapabilityPolicyAttachment[];
  meta?: Record<string, JsonValue>;
  tags?: string[];
}

export interface AgentOperationHandlers<TIn, TOut> extends ActionBinding<TIn, TOut> {
  /** Live text shown next to the stable description (contextualNote). */
  describe?: () => string | undefined;
}

export interface AgentOperationContract<K extends "procedure" | "external-tool", TIn extends JsonValue, TOut extends JsonValue | void> {
  readonly kind: K;
  readonly id: string;
  readonly definition: Readonly<AgentOperationContractDefinition<TIn, TOut>>;
  readonly provenance: ContractProvenance | undefined;
  bind(handlers: AgentOperationHandlers<TIn, TOut>): AgentContractBinding<AgentOperationContract<K, TIn, TOut>, AgentOperationHandlers<TIn, TOut>>;
}

export type AgentProcedureContract<TIn extends JsonValue, TOut extends JsonValue | void = void> = AgentOperationContract<"procedure", TIn, TOut>;
export type ExternalAgentToolContract<TIn extends JsonValue, TOut extends JsonValue | void = void> = AgentOperationContract<"external-tool", TIn, TOut>;

// ---------------------------------------------------------------- manifest + authority

export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

export interface ManifestObservationContract {
  readonly description: string;
  readonly outputSchema: JsonSchema;
  readonly meta: Readonly<Record<string, JsonValue>>;
}

export interface ManifestActionContract {
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema | null;
  readonly effect: AgentEffect;
  readonly idempotent: boolean;
  readonly reversible: boolean;
  readonly confirmation: AgentConfirmation;
  readonly audit: AgentAudit;
  readonly meta: Readonly<Record<string, JsonValue>>;
}

export interface ManifestComponentContract {
  readonly kind: "component";
  readonly id: string;
  readonly type: string;
  readonly description: string;
  readonly meta: Readonly<Record<string, JsonValue>>;
  readonly origin: string;
  readonly priority: number;
  readonly policies: readonly JsonValue[];
  readonly tags: readonly string[];
  readonly observations: Readonly<Record<string, ManifestObservationContract>>;
  readonly actions: Readonly<Record<string, ManifestActionContract>>;
  readonly source: SourceLocation;
  readonly contractHash: string;
}

export interface ManifestOperationContract {
  readonly kind: "procedure" | "external-tool";
  readonly id: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema | null;
  readonly effect: AgentEffect;
  readonly idempotent: boolean;
  readonly reversible: boolean;
  readonly confirmation: AgentConfirmation;
  readonly audit: AgentAudit;
  readonly policies: readonly JsonValue[];
  readonly meta: Readonly<Record<string, JsonValue>>;
  readonly tags: readonly string[];
  readonly source: SourceLocation;
  readonly contractHash: string;
}

export type ManifestContract = ManifestComponentContract | ManifestOperationContract;

/** The compiler's output (docs/manifest.md). */
export interface CapabilityContractManifest {
  readonly formatVersion: 1;
  readonly generator: { readonly name: string; readonly version: string };
  readonly completeness: { readonly status: "complete" | "incomplete"; readonly contracts: number; readonly failed: number };
  readonly contracts: readonly ManifestContract[];
  readonly manifestHash: string;
}

declare const authorityBrand: unique symbol;

/** A verified, deeply frozen manifest. Only objects minted by createCapabilityAuthority are genuine. */
export interface CapabilityAuthority {
  readonly manifest: CapabilityContractManifest;
  /** The verified contract with this id, or undefined. */
  contract(id: string): ManifestContract | undefined;
  readonly [authorityBrand]: true;
}
