// The public types of @agent-surface/core (the specification's Core API page). Types only: nothing here
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

// ---------------------------------------------------------------- effects and labels

/** Every effect (DECISIONS §3). View actions take the view effects, procedures and external tools the operation effects. */
export type AgentEffect = "read" | "local-state" | "navigation" | "mutation" | "destructive" | "external-side-effect";
/** The effects a view action may declare (plane rule). */
export type AgentViewEffect = "local-state" | "navigation";
/** The effects a domain procedure or an external tool may declare. */
export type AgentOperationEffect = "read" | "mutation" | "destructive" | "external-side-effect";
export type AgentConfirmation = "never" | "optional" | "required";
/** `none`: no audit record; `metadata`: who, what, when, outcome; `full`: also input and output. */
export type AgentAudit = "none" | "metadata" | "full";
/** `RegistryOptions.environment`. */
export type AgentEnvironment = "development" | "production" | "test";

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

// ---------------------------------------------------------------- compiled contracts

/** One observation of a component contract (`observationContract`): identity and governance only. */
export interface AgentObservationContract<TOut extends JsonValue> {
  description: string;
  output: AgentSchema<TOut>;
  meta?: Record<string, JsonValue>;
}

/** One action of a component contract (`actionContract`): identity and governance only. */
export interface AgentActionContract<TIn extends JsonValue, TOut extends JsonValue | void = void> {
  description: string;
  input: AgentSchema<TIn>;
  output?: AgentSchema<Exclude<TOut, void>>;
  /** View actions: "local-state" | "navigation". */
  effect: AgentViewEffect;
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

/** `defineAgentProcedureContract` / `defineExternalAgentToolContract` definition (the same shape, DECISIONS §3). */
export interface AgentOperationContractDefinition<TIn extends JsonValue, TOut extends JsonValue | void = void> {
  /** `domain:…` for procedures, `external:…` for external tools. */
  id: string;
  description: string;
  input: AgentSchema<TIn>;
  output?: AgentSchema<Exclude<TOut, void>>;
  effect: AgentOperationEffect;
  confirmation?: AgentConfirmation;
  idempotent?: boolean;
  reversible?: boolean;
  audit?: AgentAudit;
  policies?: CapabilityPolicyAttachment[];
  meta?: Record<string, JsonValue>;
  tags?: string[];
}

/** `defineAgentProcedureContract`'s definition (`id: "domain:…"`). */
export type AgentProcedureContractDefinition<TIn extends JsonValue, TOut extends JsonValue | void = void> = AgentOperationContractDefinition<TIn, TOut>;
/** `defineExternalAgentToolContract`'s definition (`id: "external:…"`). */
export type ExternalAgentToolContractDefinition<TIn extends JsonValue, TOut extends JsonValue | void = void> = AgentOperationContractDefinition<TIn, TOut>;

// ---------------------------------------------------------------- bindings (contract.bind)

/**
 * The runtime settings of one observation in `contract.bind({ observations })`. The return of
 * `read` is checked against the contract's `output` schema (NoInfer: the schema is the source of
 * truth).
 */
export interface ObservationBinding<TOut> {
  read: (ctx: AgentReadContext) => NoInfer<TOut> | Promise<NoInfer<TOut>>;
  /** Availability predicate, re-evaluated at snapshot and at invocation. Synchronous. */
  when?: () => boolean;
  unavailableReason?: string | (() => string);
  /** Default `limits.observationTimeoutMs` (5000). */
  timeoutMs?: number;
  policies?: AgentPolicy[];
}

/**
 * The runtime settings of one action in `contract.bind({ actions })`. `execute` receives the
 * effective input typed by the contract's `input` schema; its return is checked against the
 * `output` schema (nothing, for an action without one).
 */
export interface ActionBinding<TIn, TOut> {
  execute: (input: TIn, ctx: AgentActionContext) => NoInfer<TOut> | Promise<NoInfer<TOut>>;
  /** Input-aware validation beyond the schema: return (or throw) a PreconditionFailure to fail with PRECONDITION_FAILED. */
  precondition?: (input: TIn, ctx: AgentReadContext) => void | PreconditionFailure;
  when?: () => boolean;
  unavailableReason?: string | (() => string);
  /** Default `limits.actionTimeoutMs` (10000); procedures `limits.procedureTimeoutMs` (30000). */
  timeoutMs?: number;
  /** Default `{ mode: "instance" }`. */
  concurrency?: AgentConcurrency;
  policies?: AgentPolicy[];
}

type ObservationOutput<O> = O extends AgentObservationContract<infer T> ? T : never;
type ActionInput<A> = A extends AgentActionContract<infer I, any> ? I : never;
type ActionOutput<A> = A extends AgentActionContract<any, infer O> ? O : never;

type ObservationBindings<TObservations> = { [K in keyof TObservations]: ObservationBinding<ObservationOutput<TObservations[K]>> };
type ActionBindings<TActions> = { [K in keyof TActions]: ActionBinding<ActionInput<TActions[K]>, ActionOutput<TActions[K]>> };

/**
 * What a component contract's `.bind()` takes: one `read` per declared observation, one
 * `execute` per declared action, nothing the contract does not declare (the maps may be omitted
 * when the contract declares none). Runtime settings only: identity and governance (type,
 * descriptions, schemas, effects, confirmation, audit) are the contract's.
 */
export type AgentComponentHandlers<
  TObservations extends Record<string, AgentObservationContract<any>>,
  TActions extends Record<string, AgentActionContract<any, any>>,
> = {
  /** Defaults to "default"; `[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}`. Derive it from data, never render order. */
  instanceId?: string;
  /** `false`: every capability is visible-disabled ("component-disabled"). */
  enabled?: boolean;
  parent?: { type: string; instanceId?: string };
  /**
   * Agent-visible metadata is the contract's (identity and what the agent reads are declared
   * there): when given, it must equal the contract's `meta`, else register throws.
   */
  meta?: Record<string, JsonValue>;
  /** For policies and audit sinks; never in a snapshot or any agent-facing payload. */
  internal?: Record<string, unknown>;
  /** Runtime policies applied to every capability of this component. */
  policies?: AgentPolicy[];
  /** Domain procedures this component references: `procedureContract.bind({ execute })`. */
  procedures?: AgentProcedureBinding<any, any>[];
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
  bind(handlers: AgentComponentHandlers<TObservations, TActions>): AgentComponentBinding<TObservations, TActions>;
}

/** What `componentContract.bind()` returns; `registry.register` takes it. */
export type AgentComponentBinding<
  TObservations extends Record<string, AgentObservationContract<any>> = Record<string, AgentObservationContract<any>>,
  TActions extends Record<string, AgentActionContract<any, any>> = Record<string, AgentActionContract<any, any>>,
> = AgentContractBinding<AgentComponentContract<TObservations, TActions>, AgentComponentHandlers<TObservations, TActions>>;

/** What a procedure's or external tool's `.bind()` takes. */
export interface AgentOperationHandlers<TIn, TOut> extends ActionBinding<TIn, TOut> {
  /** Live text shown next to the stable description (`contextualNote`), never inside it. */
  describe?: () => string | undefined;
}

export interface AgentOperationContract<K extends "procedure" | "external-tool", TIn extends JsonValue, TOut extends JsonValue | void> {
  readonly kind: K;
  readonly id: string;
  readonly definition: Readonly<AgentOperationContractDefinition<TIn, TOut>>;
  readonly provenance: ContractProvenance | undefined;
  /**
   * A procedure may be bound without `execute`: the registry then forwards its calls to the
   * procedure executor (`registry.setProcedureExecutor`) after the whole pipeline ran here.
   * External tools always need `execute`.
   */
  bind(
    handlers: K extends "procedure" ? AgentForwardedProcedureHandlers<TIn, TOut> : AgentOperationHandlers<TIn, TOut>,
  ): AgentContractBinding<AgentOperationContract<K, TIn, TOut>, AgentOperationHandlers<TIn, TOut>>;
}

/** A procedure reference's settings, `execute` optional (absent: forwarded to the procedure executor). */
export type AgentForwardedProcedureHandlers<TIn, TOut> = Omit<AgentOperationHandlers<TIn, TOut>, "execute"> &
  Partial<Pick<AgentOperationHandlers<TIn, TOut>, "execute">>;

export type AgentProcedureContract<TIn extends JsonValue, TOut extends JsonValue | void = void> = AgentOperationContract<"procedure", TIn, TOut>;
export type ExternalAgentToolContract<TIn extends JsonValue, TOut extends JsonValue | void = void> = AgentOperationContract<"external-tool", TIn, TOut>;

/** A bound domain procedure (`procedureContract.bind({ execute })`), referenced by a component binding's `procedures`. */
export type AgentProcedureBinding<TIn extends JsonValue, TOut extends JsonValue | void = void> = AgentContractBinding<
  AgentProcedureContract<TIn, TOut>,
  AgentOperationHandlers<TIn, TOut>
>;

/** A bound external tool (`externalToolContract.bind({ execute })`), what `gateway.expose` takes. */
export type ExternalAgentToolBinding<TIn extends JsonValue, TOut extends JsonValue | void = void> = AgentContractBinding<
  ExternalAgentToolContract<TIn, TOut>,
  AgentOperationHandlers<TIn, TOut>
>;

// ---------------------------------------------------------------- raw runtime definitions

/**
 * The bound shape of a component, as the spec describes it for low-level integrations. The raw
 * helpers `defineAgentComponent`, `observation` and `action` build it for tooling and isolated
 * construction; it carries no compiler proof, and a published registry rejects it.
 */
export interface AgentComponentDefinition {
  /** Component type, e.g. "devices.table". MUST match the id grammar. */
  type: string;
  /**
   * Distinguishes simultaneous mounts of the same type. Defaults to "default".
   * MUST be derived from data (entity id, semantic slot), never render order.
   */
  instanceId?: string;
  /** Agent-visible description, ≤ 500 chars. Required, non-empty. */
  description: string;
  /** Optional containment link for hierarchy-aware consumers. */
  parent?: { type: string; instanceId?: string };
  /** Agent-visible metadata. JsonValue, ≤ 2 kB serialized. */
  meta?: Record<string, JsonValue>;
  /** Internal metadata for policies/audit sinks. NEVER serialized into snapshots or agent-facing payloads. */
  internal?: Record<string, unknown>;
  /** Policies applied to every capability of this component. */
  policies?: AgentPolicy[];
  /** Registrant trust label; default "first-party". */
  origin?: string;
  /** Snapshot ordering/budget priority; higher survives budgets longer. Default 0. */
  priority?: number;
  /**
   * Master switch. false ⇒ all capabilities are visible-disabled (reason "component-disabled")
   * and invocations fail CAPABILITY_NOT_AVAILABLE.
   */
  enabled?: boolean;
  observations?: Record<string, AgentObservationDefinition<any>>;
  actions?: Record<string, AgentActionDefinition<any, any>>;
  /** Domain references; normally added via @agent-surface/orpc. */
  procedures?: AgentProcedureBinding<any, any>[];
}

export interface AgentObservationDefinition<TOut extends JsonValue> {
  /** Agent-visible description, ≤ 300 chars. */
  description: string;
  output: AgentSchema<TOut>;
  /**
   * Reads current semantic state. MUST be side-effect free. SHOULD be synchronous; MAY return a
   * promise (subject to observation timeout). NoInfer: `TOut` comes from `output` only (for any
   * `TOut` the same type as the spec's `TOut | Promise<TOut>`).
   */
  read(ctx: AgentReadContext): NoInfer<TOut> | Promise<NoInfer<TOut>>;
  /** Availability predicate, re-evaluated at snapshot and at invocation. */
  when?: () => boolean;
  unavailableReason?: string | (() => string);
  policies?: AgentPolicy[];
  meta?: Record<string, JsonValue>;
  /** Default limits.observationTimeoutMs (5000). */
  timeoutMs?: number;
}

export interface AgentActionDefinition<TIn extends JsonValue, TOut extends JsonValue | void = void> {
  description: string;
  input: AgentSchema<TIn>;
  output?: AgentSchema<Exclude<TOut, void>>;
  /** View actions MUST be "local-state" | "navigation" (plane rule). */
  effect: AgentViewEffect;
  /** Default false. */
  idempotent?: boolean;
  /** Default true. */
  reversible?: boolean;
  /** Default "never". */
  confirmation?: AgentConfirmation;
  /** Default "metadata". */
  audit?: AgentAudit;
  when?: () => boolean;
  unavailableReason?: string | (() => string);
  /**
   * Input-aware validation beyond the schema (e.g. "ids must exist in the current dataset").
   * Return void to pass; return/throw PreconditionFailure to fail with PRECONDITION_FAILED.
   */
  precondition?(input: TIn, ctx: AgentReadContext): void | PreconditionFailure;
  /**
   * TOut is inferred from `output` only (NoInfer, TS ≥ 5.4): the schema is the source of truth
   * and the handler's return is checked against it, never the other way around.
   */
  execute(input: TIn, ctx: AgentActionContext): NoInfer<TOut> | Promise<NoInfer<TOut>>;
  /** Declared per action; default `{ mode: "instance" }`. */
  concurrency?: AgentConcurrency;
  policies?: AgentPolicy[];
  meta?: Record<string, JsonValue>;
  /** Default limits.actionTimeoutMs (10000). */
  timeoutMs?: number;
}

export interface PreconditionFailure {
  /** Agent-safe. */
  message: string;
  /** Agent-safe. */
  details?: Record<string, JsonValue>;
}

// ---------------------------------------------------------------- handler contexts

export interface AgentReadContext {
  capabilityId: string;
  registrationId: string;
  consumer: AgentConsumer;
  /** Host context (user, tenant, env…) from RegistryOptions.context(). */
  host: Readonly<Record<string, unknown>>;
}

export interface AgentActionContext extends AgentReadContext {
  invocationId: string;
  /** Aborted on timeout, external cancellation, or unmount. Cooperative. */
  signal: AbortSignal;
  /** Present iff this invocation carries approved confirmation evidence. */
  confirmation?: { id: string; approvedAt: string };
}

// ---------------------------------------------------------------- concurrency

/**
 * Per action (binding `concurrency`) or per procedure reference. Default `{ mode: "instance" }`:
 * two actions on the same component never interleave. `parallel` needs an integer `max` ≥ 1;
 * `queueDepth` overrides `limits.actionQueueDepth` for that group. Not model-visible.
 */
export type AgentConcurrency =
  | { mode: "instance"; queueDepth?: number }
  | { mode: "capability"; queueDepth?: number }
  | { mode: "key"; key: string; queueDepth?: number }
  | { mode: "parallel"; max: number; queueDepth?: number };

// ---------------------------------------------------------------- policies

/**
 * A discovery vote (`onDiscovery`), the engine's `DiscoveryDecision`:
 * - `"expose"`: the capability is listed, available as far as this policy is concerned;
 * - `{ disable: reason }`: listed but unavailable, with `reason` as its `unavailableReason`
 *   (an invocation fails CAPABILITY_NOT_AVAILABLE);
 * - `"hide"`: absent from the snapshot (an invocation fails CAPABILITY_NOT_FOUND).
 *
 * Composition over every policy of the chain (registry, component, capability): the first
 * `"hide"` wins; else the first `disable`'s reason; else `"expose"`. A throwing `onDiscovery`
 * counts as `"hide"` (fail closed).
 */
export type DiscoveryDecision = "expose" | "hide" | { disable: string };

/**
 * An `invoke` verdict, the engine's `PolicyDecision`:
 * - `"allow"`;
 * - `{ deny: message }`: the invocation fails POLICY_DENIED with this agent-safe message
 *   (`details.policy` names the policy);
 * - `"require-confirmation"`: the call proceeds only with the user's confirmation
 *   (CONFIRMATION_REQUIRED first), whatever the contract's `confirmation` says.
 *
 * A throwing or rejecting `authorize`/`invoke` denies ("a policy could not decide").
 */
export type PolicyDecision = "allow" | { deny: string } | "require-confirmation";

/**
 * An `authorize` verdict: `"allow"` or `{ deny: message }`. Authorization runs before the input
 * is validated, and a confirmation is bound to the effective input, so only `invoke` can ask for
 * one (the engine ignores a confirmation request in this phase; the type does not offer it).
 */
export type AuthorizeDecision = Exclude<PolicyDecision, "require-confirmation">;

/** What `onDiscovery` sees (at snapshot, and again at invocation). */
export interface AgentDiscoveryContext {
  capabilityId: string;
  componentType: string;
  instanceId: string;
  consumer: AgentConsumer;
  host: Readonly<Record<string, unknown>>;
}

/** What `authorize` sees: no input yet. */
export interface AgentPolicyContext {
  capabilityId: string;
  registrationId: string;
  consumer: AgentConsumer;
  host: Readonly<Record<string, unknown>>;
}

/** What `invoke` sees: also the effective input (validated, defaults applied), never the raw agent input. */
export interface AgentPolicyInvokeContext extends AgentPolicyContext {
  effectiveInput: JsonValue;
}

/**
 * A runtime policy, attached at registry (`RegistryOptions.policies`, outermost), component
 * (binding `policies`) or capability scope. It takes part in the phases whose method it has:
 * - `onDiscovery` (snapshot and invocation step 3): MUST be synchronous, cheap and side-effect
 *   free (it is re-run by `explainSurface`);
 * - `authorize` (step 4, before the input is looked at): may be async;
 * - `invoke` (step 6, with the effective input): may be async; may escalate to a confirmation.
 */
export interface AgentPolicy {
  /** Shown in POLICY_DENIED `details.policy` and by `explainSurface`. */
  readonly name: string;
  onDiscovery?(ctx: AgentDiscoveryContext): DiscoveryDecision;
  authorize?(ctx: AgentPolicyContext): AuthorizeDecision | Promise<AuthorizeDecision>;
  invoke?(ctx: AgentPolicyInvokeContext): PolicyDecision | Promise<PolicyDecision>;
}

// ---------------------------------------------------------------- audit

/**
 * One settled invocation (the engine's `AuditRecord`), honouring the capability's `audit` level:
 * `none` writes no record, `metadata` this record without `input`/`output`, `full` with them.
 */
export interface AuditRecord {
  invocationId: string;
  capabilityId: string;
  /** null when the invocation never resolved to a registration (e.g. CAPABILITY_NOT_FOUND). */
  registrationId: string | null;
  /** `kind + ":" + id` of the consumer. */
  consumerKey: string;
  /**
   * "confirmation-required" for a CONFIRMATION_REQUIRED step: the request waits for the user,
   * which is not a failure (`code` is still "CONFIRMATION_REQUIRED").
   */
  status: "ok" | "error" | "confirmation-required";
  /** null when ok. */
  code: AgentCapabilityErrorCode | null;
  /** ISO-8601. */
  startedAt: string;
  durationMs: number;
  /** Only with `audit: "full"`. */
  input?: JsonValue;
  /** Only with `audit: "full"`. */
  output?: JsonValue;
}

/** Where audit records go. Default: a bounded in-memory sink (the newest 1,000), plus the console in development. */
export interface AuditSink {
  record(record: AuditRecord): void;
}

// ---------------------------------------------------------------- manifest + authority

/** Where a contract is written (the locations sidecar, docs/manifest.md; never in the manifest). */
export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/**
 * The locations sidecar `agent-surface compile` writes beside the manifest: where each contract
 * is written, by contract id. No hash covers it; an edit that only moves a contract changes it
 * and nothing else.
 */
export interface ContractLocations {
  readonly formatVersion: 1;
  readonly manifestHash: string;
  readonly locations: Readonly<Record<string, SourceLocation>>;
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
  readonly contractHash: string;
}

export type ManifestContract = ManifestComponentContract | ManifestOperationContract;

/** The compiler's output (docs/manifest.md). Format 2: contracts carry no source location. */
export interface CapabilityContractManifest {
  readonly formatVersion: 2;
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

// ---------------------------------------------------------------- registry

export interface RegistryOptions {
  /** "development" | "production" | "test". Default: "production". */
  environment?: AgentEnvironment;
  /**
   * Host context provider, called lazily per policy evaluation / handler context. MUST be
   * synchronous and cheap (read from stores, don't fetch).
   */
  context?: () => Record<string, unknown>;
  /** Global policies, outermost layer of every chain. */
  policies?: AgentPolicy[];
  /** Audit sink; default: bounded in-memory sink (+ console in development). */
  audit?: AuditSink;
  /** Guard invoked before accepting a registration (trust filtering). */
  onRegister?: (candidate: RegistrationCandidate) => "accept" | "reject";
  /** Collision handling for duplicate (type, instanceId). Default "reject". */
  onDuplicateInstance?: "reject" | "replace";
  /** Suffix-collision diagnostics vs known domain ids. Default "warn". */
  duplicateSuffixPolicy?: "off" | "warn" | "error";
  /** Route descriptor for snapshots (host wires its router here). */
  route?: () => AgentRouteInfo | undefined;
  limits?: Partial<AgentSurfaceLimits>;
  /** Injectable clock for deterministic policy, timeout, and TTL tests. Default `Date.now`. */
  now?: () => number;
  /**
   * Compiler-generated source of truth. Runtime-mandatory: optional in the type only for the
   * repository's non-exported test seam; a published registry without one throws.
   */
  authority?: CapabilityAuthority;
}

export interface AgentRouteInfo {
  path: string;
  params?: Record<string, string>;
}

/** What `RegistryOptions.onRegister` sees. */
export interface RegistrationCandidate {
  /** The component type (what the engine and the spec's brief call `type`; events say `componentType`). */
  type: string;
  instanceId: string;
  /** The contract's trust label (default "first-party"). */
  origin: string;
  internal: Readonly<Record<string, unknown>>;
}

export type Unsubscribe = () => void;

export interface AgentSurfaceRegistry {
  /** "srf_" + 22 random base62 chars, per instance. */
  readonly surfaceId: string;
  /**
   * Registers a bound component (`contract.bind(...)`). Throws AgentSurfaceDefinitionError (with
   * a `code`) for structural defects and for raw (`defineAgentComponent`), inert, unknown,
   * other-manifest, hash-mismatched or semantically changed bindings, in every environment;
   * duplicates and guard rejections return a `"rejected"` handle.
   */
  register(definition: AgentComponentBinding<any, any> | AgentComponentDefinition): AgentRegistrationHandle;
  /** Synchronous and side-effect free: runs no `read`. */
  snapshot(context?: SnapshotContext): AgentSurfaceSnapshot;
  /** Rejects only on misuse (e.g. after dispose); every agent-facing outcome is a result. */
  invoke(request: AgentInvocation, options?: InvokeOptions): Promise<AgentInvocationResult>;
  subscribe(listener: (event: AgentSurfaceEvent) => void): Unsubscribe;
  /** Confirmation lifecycle. */
  confirmations: ConfirmationController;
  /** Register a domain-procedure executor (installed by @agent-surface/orpc, or createFetchProcedureExecutor). */
  setProcedureExecutor(executor: AgentProcedureExecutor | undefined): void;
  getVersion(): string;
  /** Tears down: aborts in-flight invocations (CANCELLED), clears listeners. */
  dispose(): void;
}

export interface AgentRegistrationHandle {
  /** "reg_" + monotonic + random. */
  readonly registrationId: string;
  readonly status: "active" | "rejected" | "unregistered";
  /**
   * Push dynamic updates. ONLY these fields are updatable; anything structural requires
   * unregister + register, producing a new registrationId.
   */
  update(patch: {
    enabled?: boolean;
    /** Per-capability availability overrides, keyed by capability name. */
    availability?: Record<string, { available: boolean; reason?: string }>;
  }): void;
  /** Bumps the surface version without changing anything (rarely needed). */
  invalidate(): void;
  unregister(): void;
}

// ---------------------------------------------------------------- snapshot

export interface SnapshotContext {
  /** Default: `{ id: "anonymous", kind: "embedded" }`. */
  consumer?: AgentConsumer;
  /** Component-type prefixes to include, e.g. ["devices"]. Default: all. */
  scope?: string[];
  /** Include visible-disabled capabilities. Default true. */
  includeUnavailable?: boolean;
  /** [Experimental] Truncation budget. */
  budget?: { maxComponents?: number; maxBytes?: number };
}

export interface AgentConsumer {
  id: string;
  kind: "embedded" | "webmcp" | "mcp-bridge" | "test" | "other";
  /** Free-form grant strings interpreted by host policies. */
  grants?: string[];
}

export interface AgentSurfaceSnapshot {
  surfaceId: string;
  surfaceVersion: string;
  /** ISO-8601. */
  capturedAt: string;
  route?: AgentRouteInfo;
  components: AgentComponentDescriptor[];
  /** Domain references, top-level (planes are not nested into each other). */
  procedures: AgentProcedureDescriptor[];
  /** [Experimental] Present iff a budget truncated the snapshot. */
  truncated?: { droppedComponents: number };
  /** [Experimental] Present when a scope floor refused requested prefixes. */
  scopeRejected?: { prefixes: string[] };
}

export interface AgentComponentDescriptor {
  type: string;
  instanceId: string;
  registrationId: string;
  description: string;
  parent?: { type: string; instanceId: string };
  meta?: Record<string, JsonValue>;
  observations: AgentObservationDescriptor[];
  actions: AgentActionDescriptor[];
}

export interface AgentObservationDescriptor {
  /** "view:devices.table.readState" */
  capabilityId: string;
  /** "readState" */
  name: string;
  description: string;
  outputSchema: JsonSchema;
  available: boolean;
  unavailableReason?: string;
  meta?: Record<string, JsonValue>;
}

export interface AgentActionDescriptor {
  capabilityId: string;
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  effect: AgentViewEffect;
  idempotent: boolean;
  reversible: boolean;
  confirmation: AgentConfirmation;
  available: boolean;
  unavailableReason?: string;
  meta?: Record<string, JsonValue>;
}

/** A domain procedure referenced by a registration (the engine's `AgentProcedureDescriptor`), with a link to that component. */
export interface AgentProcedureDescriptor {
  /** "domain:devices.reboot" */
  capabilityId: string;
  /** The manifest's, immutable. */
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  effect: AgentOperationEffect;
  idempotent: boolean;
  reversible: boolean;
  confirmation: AgentConfirmation;
  available: boolean;
  unavailableReason?: string;
  /** The registration that references it. */
  registrationId: string;
  component: { type: string; instanceId: string };
  /** Live text from the binding's `describe()`; the description stays the manifest's. */
  contextualNote?: string;
}

// ---------------------------------------------------------------- invocation

export interface AgentInvocation {
  /** Idempotency key. Adapters SHOULD pass their tool-call id. Generated if absent. */
  invocationId?: string;
  /** "view:..." or "domain:..." */
  capabilityId: string;
  /** Required when >1 live instance of the target component exists. */
  instanceId?: string;
  /** Staleness token from discovery. Adapters SHOULD always send it. */
  registrationId?: string;
  /** A surface presented under another surfaceId is stale (STALE_CAPABILITY). The toolset always sends it. */
  surfaceId?: string;
  /** Version hint; enforced only for destructive/external effects. */
  surfaceVersion?: string;
  input?: JsonValue;
  /** Evidence from a resolved confirmation. */
  confirmationId?: string;
}

export interface InvokeOptions {
  consumer?: AgentConsumer;
  /** External cancellation → CANCELLED. */
  signal?: AbortSignal;
  /** Overrides capability/limits default. */
  timeoutMs?: number;
}

export type AgentInvocationResult =
  | {
      status: "ok";
      invocationId: string;
      capabilityId: string;
      /** Validated against outputSchema if declared. */
      output?: JsonValue;
      /** Current version at settle time. */
      surfaceVersion: string;
      /** Set when the surface changed during execution (agent should re-discover). */
      surfaceChanged?: boolean;
    }
  | {
      status: "error";
      invocationId: string;
      capabilityId: string;
      error: AgentCapabilityErrorPayload;
      surfaceVersion: string;
      surfaceChanged?: boolean;
    };

/** The error codes (DECISIONS §6; the model's `ErrorCode`). */
export type AgentCapabilityErrorCode =
  | "CAPABILITY_NOT_FOUND"
  | "CAPABILITY_NOT_AVAILABLE"
  | "AMBIGUOUS_INSTANCE"
  | "STALE_CAPABILITY"
  | "COMPONENT_UNMOUNTED"
  | "INVALID_INPUT"
  | "PRECONDITION_FAILED"
  | "POLICY_DENIED"
  | "CONFIRMATION_REQUIRED"
  | "CONFIRMATION_DENIED"
  | "CONFIRMATION_EXPIRED"
  | "RATE_LIMITED"
  | "TIMEOUT"
  | "CANCELLED"
  | "EXECUTION_FAILED"
  | "INVOCATION_CONFLICT";

/**
 * What the agent may do next; fixed per code: `with-changes` (NOT_FOUND, AMBIGUOUS_INSTANCE,
 * STALE_CAPABILITY, COMPONENT_UNMOUNTED, INVALID_INPUT, PRECONDITION_FAILED, CONFIRMATION_EXPIRED,
 * INVOCATION_CONFLICT), `after-delay` (NOT_AVAILABLE, RATE_LIMITED, TIMEOUT), `never`
 * (POLICY_DENIED, CONFIRMATION_DENIED, CANCELLED, EXECUTION_FAILED), `after-confirmation`
 * (CONFIRMATION_REQUIRED).
 */
export type AgentRetry = "never" | "after-delay" | "with-changes" | "after-confirmation";

/** The agent-facing error (the model's `AgentCapabilityError`). Messages are agent-safe. */
export interface AgentCapabilityErrorPayload {
  code: AgentCapabilityErrorCode;
  message: string;
  retry: AgentRetry;
  /**
   * Structured, agent-safe details, e.g. `reason` (CAPABILITY_NOT_AVAILABLE, RATE_LIMITED
   * `"queue-full"`, EXECUTION_FAILED `"output-too-large"`), `instances` (AMBIGUOUS_INSTANCE),
   * `liveRegistrationId` (STALE_CAPABILITY), `issues` (INVALID_INPUT), `policy` (POLICY_DENIED),
   * `confirmationId`/`expiresAt`/`summary` (CONFIRMATION_REQUIRED), `retryAfterMs`.
   */
  details?: Record<string, JsonValue>;
}

// ---------------------------------------------------------------- events

export type AgentSurfaceEvent =
  /** Coalesced per microtask. */
  | { type: "surface-changed"; surfaceVersion: string }
  | { type: "component-registered"; registrationId: string; componentType: string; instanceId: string }
  | { type: "component-unregistered"; registrationId: string; componentType: string; instanceId: string }
  | { type: "component-rejected"; componentType: string; instanceId: string; reason: "duplicate" | "guard" }
  | { type: "availability-changed"; registrationId: string; capabilityId: string; available: boolean }
  | { type: "collision-suspected"; viewCapabilityId: string; domainProcedureId: string }
  | { type: "invocation-started"; invocationId: string; capabilityId: string; consumerId: string }
  /** `code` is absent when ok. */
  | { type: "invocation-settled"; invocationId: string; capabilityId: string; status: "ok" | "error"; code?: AgentCapabilityErrorCode; durationMs: number }
  | { type: "confirmation-requested"; confirmationId: string; capabilityId: string; expiresAt: string }
  | { type: "confirmation-resolved"; confirmationId: string; outcome: "approved" | "denied" | "expired" };

// ---------------------------------------------------------------- confirmations

export interface ConfirmationController {
  /** Pending requests, for host UI rendering. */
  pending(): PendingConfirmation[];
  resolve(confirmationId: string, resolution: { approved: boolean; reason?: string }): void;
  /** Resolves when the given confirmation settles (approved/denied/expired). */
  waitFor(confirmationId: string, opts?: { signal?: AbortSignal }): Promise<"approved" | "denied" | "expired">;
  /** Called with the new pending list whenever it changes (including expiry at the TTL). */
  subscribe(listener: (pending: PendingConfirmation[]) => void): Unsubscribe;
}

export interface PendingConfirmation {
  /** "cnf_" + random */
  confirmationId: string;
  capabilityId: string;
  registrationId: string;
  /** Normalized consumer identity: `kind + ":" + id`. */
  consumerKey: string;
  /** Effect of the operation being approved (host dialogs render it). */
  effect: AgentEffect;
  /** Human-readable summary composed from description + effective input. */
  summary: string;
  /** The exact effective input (bound + agent-supplied) being approved. */
  input: JsonValue;
  requestedAt: string;
  /** Default TTL 120 s. */
  expiresAt: string;
}

// ---------------------------------------------------------------- domain procedures

/** What a forwarded procedure call carries. */
export interface AgentProcedureCall {
  /** "domain:…" */
  procedureId: string;
  /** The effective input (validated, defaults applied). */
  input: JsonValue;
  invocationId: string;
  /** Aborted on timeout, cancellation or unmount. Cooperative. */
  signal: AbortSignal;
}

/**
 * Executes domain procedures a registration references, after the whole pipeline (availability,
 * policies, input, confirmation, admission) ran in the page; timeout, cancellation and output
 * checks apply to its answer as to any handler's. A rejection settles EXECUTION_FAILED.
 */
export interface AgentProcedureExecutor {
  execute(call: AgentProcedureCall): Promise<JsonValue>;
}

// ---------------------------------------------------------------- toolset

export interface AgentToolsetOptions {
  consumer: AgentConsumer;
  /**
   * "direct": one tool per capability. "meta": three fixed tools with lazy discovery
   * ([Experimental] verb envelope). Default "direct".
   */
  mode?: "direct" | "meta";
  /**
   * Loop topology; determines the confirmation-mode default: "embedded" → "wait", "remote" →
   * "two-phase". One of `topology` or `confirmations` MUST be provided; omitting both throws.
   */
  topology?: "embedded" | "remote";
  /**
   * "wait": on CONFIRMATION_REQUIRED, await user resolution (up to TTL) and auto-retry.
   * "two-phase": surface CONFIRMATION_REQUIRED to the model, which retries (the toolset attaches
   * the confirmation when the same call is repeated).
   */
  confirmations?: "wait" | "two-phase";
  /** Component-type prefixes this consumer may discover (a floor; not an authority boundary). */
  scope?: string[];
  /** [Experimental] Snapshot truncation budget for `surface_discover`; "meta" mode only (throws in "direct"). */
  budget?: { maxComponents?: number; maxBytes?: number };
  /**
   * How direct tools are named. "prefixed" (default): the capability id's wire name, plane first
   * (`view_devices_table_readState`, `domain_devices_reboot`). "unprefixed": the same without the
   * plane (`devices_table_readState`, `devices_reboot`), for hosts that expect fixed tool names.
   * Either way names are unique (a name two capabilities share gets the hashed form) and at most
   * 64 characters; `wireNameMap()` maps them back. The meta tools keep their names.
   */
  names?: "prefixed" | "unprefixed";
}

export interface AgentTool {
  /** Wire-safe name, ≤ 64 chars, unique in this catalog. */
  name: string;
  /** Plane + effect + confirmation prefix, then the authored description. No live state. */
  description: string;
  inputSchema: JsonSchema;
  /** Volatile: re-derived on every snapshot; render it outside the tool block. */
  state: {
    available: boolean;
    unavailableReason?: string;
    /** Live text contributed by a contextual binding's describe(). */
    note?: string;
  };
  /**
   * Fills invocationId from toolCallId; never throws — returns the result envelope. `signal`
   * is external cancellation (the engine's `ToolCall.signal`): aborting it settles `CANCELLED`,
   * also while a `wait`-mode confirmation is pending.
   */
  execute(input: JsonValue, call: { toolCallId?: string; signal?: AbortSignal; timeoutMs?: number }): Promise<AgentInvocationResult>;
}

export interface AgentToolset {
  /** Recomputed per surface version. */
  tools(): AgentTool[];
  /** wireName → canonical capability id, for the catalog tools() last built. Empty in "meta" mode. */
  wireNameMap(): ReadonlyMap<string, string>;
  /** Fires when tools() would return a different catalog (including `state`). Never in "meta" mode. */
  subscribe(listener: (tools: AgentTool[]) => void): Unsubscribe;
  /**
   * The current catalog as a provider's tool block, rendered by the engine: strict-mode schemas
   * for "openai", MCP annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
   * `openWorldHint`) for "mcp". Throws a TypeError when the provider cannot take the catalog.
   */
  toolBlock(provider: "openai" | "anthropic" | "gemini" | "mcp"): unknown[];
  dispose(): void;
}

// ---------------------------------------------------------------- limits

export interface AgentSurfaceLimits {
  /** 500 chars */
  maxComponentDescription: number;
  /** 300 chars */
  maxCapabilityDescription: number;
  /** 2048 */
  maxMetaBytes: number;
  /** 32_768 */
  maxOutputBytes: number;
  /** 16_384 */
  maxSchemaBytes: number;
  /** 8 */
  maxSchemaDepth: number;
  /** 5_000 */
  observationTimeoutMs: number;
  /** 10_000 */
  actionTimeoutMs: number;
  /** 30_000 */
  procedureTimeoutMs: number;
  /** 2 */
  actionQueueDepth: number;
  /** 8 */
  maxConcurrentObservationsPerConsumer: number;
  /** 32 */
  maxConcurrentObservationsTotal: number;
  /** 8 */
  maxQueuedObservationsPerConsumer: number;
  /** 200 entries */
  dedupeCacheSize: number;
  /** 600_000 */
  dedupeCacheTtlMs: number;
  /** 100 entries */
  tombstoneSize: number;
  /** 300_000 */
  tombstoneTtlMs: number;
  /** 120_000 */
  confirmationTtlMs: number;
  /** 32; overflow fails RATE_LIMITED, no record created */
  maxPendingConfirmations: number;
}

// ---------------------------------------------------------------- explain (@agent-surface/core/explain)

/** `explainSurface(registry, ctx?)`: why the snapshot looks as it does. Developer-facing, never agent-facing. */
export interface SurfaceExplanation {
  surfaceId: string;
  surfaceVersion: string;
  capabilities: CapabilityExplanation[];
}

export interface CapabilityExplanation {
  capabilityId: string;
  kind: "observation" | "action" | "procedure";
  plane: "view" | "domain";
  /** Hidden capabilities have no snapshot entry to read it from. */
  description: string;
  registrationId: string;
  component: { type: string; instanceId: string };
  /** "hide" ⇒ absent from snapshot(). */
  outcome: "expose" | "disable" | "hide";
  reason?: string;
  policies: Array<{
    /** AgentPolicy.name */
    name: string;
    scope: "registry" | "component" | "capability";
    phases: Array<"discovery" | "authorize" | "invoke">;
    /** This policy's own vote. */
    discovery?: DiscoveryDecision;
    /** onDiscovery threw; discovery failed closed. */
    threw?: boolean;
    confirmationEscalation?: boolean;
  }>;
  /** `when()`, kept apart from policy. */
  availability: { available: boolean; reason?: string };
}
