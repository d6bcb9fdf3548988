// The definition macros. The compiler (agent-surface) reads the call sites statically and, for
// every contract it compiled, appends `{"contractHash":"blake3:…","id":"…"}` as an extra last
// argument. At run time these functions only record what they were given: the objects they
// return are frozen and inert. A contract without (valid) provenance can be bound, but the
// binding says `verified: false` and every registry/gateway refuses it.

import { checkCapabilityName, checkComponentType, checkExternalToolId, checkInstanceId, checkProcedureId, type IdCheck } from "./model/ids.js";
import { AgentSurfaceDefinitionError } from "./errors.js";
import type {
  AgentActionContract,
  AgentComponentContract,
  AgentComponentContractDefinition,
  AgentComponentHandlers,
  AgentContractBinding,
  AgentObservationContract,
  AgentOperationContract,
  AgentOperationContractDefinition,
  AgentOperationHandlers,
  AgentProcedureContract,
  ContractProvenance,
  ExternalAgentToolContract,
  JsonValue,
} from "./types.js";

type AnyRecord = Record<string, unknown>;

const HASH = /^blake3:[0-9a-f]{64}$/;

const BINDING_KEYS = "instanceId observations actions enabled parent meta internal policies procedures".split(" ");
const OBSERVATION_BINDING_KEYS = "read when unavailableReason policies timeoutMs".split(" ");
const ACTION_BINDING_KEYS = "execute when unavailableReason precondition policies timeoutMs concurrency".split(" ");
const OPERATION_BINDING_KEYS = [...ACTION_BINDING_KEYS, "describe"];
const CONCURRENCY_MODES = ["instance", "capability", "key", "parallel"];

const defect = (message: string, contract: string | null = null) => new AgentSurfaceDefinitionError(message, { contract });

const isObject = (v: unknown): v is AnyRecord => v !== null && typeof v === "object" && !Array.isArray(v);

const isAgentSchema = (v: unknown) => isObject(v) && isObject(v.jsonSchema) && typeof v.parse === "function";

/** Throws `message` (about `contract`) unless `ok`. */
function expect(ok: unknown, message: string, contract: string | null = null): asserts ok {
  if (!ok) throw defect(message, contract);
}

/**
 * The provenance the compiler injected, if it has the right shape and names this contract:
 * a frozen `{ id, contractHash }`; otherwise undefined (the contract is inert).
 */
function readProvenance(provenance: unknown, id: string): ContractProvenance | undefined {
  try {
    if (isObject(provenance)) {
      const { id: pid, contractHash } = provenance;
      if (pid === id && typeof contractHash === "string" && HASH.test(contractHash)) return Object.freeze({ id, contractHash });
    }
  } catch {
    // a throwing getter: inert
  }
  return undefined;
}

/**
 * A handler object's own checks: only `allowed` fields, and each of `fns` a function when
 * present (`what` names it).
 */
function checkHandlers(obj: AnyRecord, allowed: readonly string[], fns: readonly string[], what: string, contract: string): void {
  for (const key of Object.keys(obj)) expect(allowed.includes(key), `${what}: unknown field "${key}" (allowed: ${allowed.join(", ")})`, contract);
  for (const key of fns) expect(obj[key] === undefined || typeof obj[key] === "function", `${what}: "${key}" must be a function`, contract);
}

function checkConcurrency(c: unknown, name: string, contract: string): void {
  if (c === undefined) return;
  const at = `"${name}" of "${contract}": `;
  expect(isObject(c) && CONCURRENCY_MODES.includes(c.mode as string), `${at}concurrency.mode must be one of ${CONCURRENCY_MODES.join(", ")}`, contract);
  const { mode, max, key, queueDepth } = c as AnyRecord;
  expect(mode !== "parallel" || (Number.isInteger(max) && (max as number) >= 1), `action "${name}": parallel concurrency needs an integer max ≥ 1`, contract);
  expect(mode !== "key" || typeof key === "string", `${at}key concurrency needs a string key`, contract);
  expect(queueDepth === undefined || (Number.isInteger(queueDepth) && (queueDepth as number) >= 0), `${at}concurrency.queueDepth must be a non-negative integer`, contract);
}

function freezeMap(map: AnyRecord): Readonly<Record<string, Readonly<AnyRecord>>> {
  const out: Record<string, Readonly<AnyRecord>> = {};
  for (const [k, v] of Object.entries(map)) out[k] = Object.freeze({ ...(v as AnyRecord) });
  return Object.freeze(out);
}

function binding<C extends { readonly provenance: ContractProvenance | undefined }, H>(contract: C, handlers: H): AgentContractBinding<C, H> {
  return Object.freeze({ contract, handlers, verified: contract.provenance !== undefined });
}

/** Identity helper for one observation of a component contract (`{ description, output, ... }`). */
export function observationContract<TOut extends JsonValue>(contract: AgentObservationContract<TOut>): AgentObservationContract<TOut> {
  expect(isObject(contract), "observationContract: expected an object { description, output }");
  expect(isAgentSchema((contract as unknown as AnyRecord).output), "observationContract: output must be an AgentSchema ({ jsonSchema, parse })");
  return Object.freeze({ ...contract });
}

/** Identity helper for one action of a component contract (`{ description, input, output?, effect, ... }`). */
export function actionContract<TIn extends JsonValue, TOut extends JsonValue | void = void>(
  contract: AgentActionContract<TIn, TOut>,
): AgentActionContract<TIn, TOut> {
  expect(isObject(contract), "actionContract: expected an object { description, input, effect }");
  expect(isAgentSchema((contract as unknown as AnyRecord).input), "actionContract: input must be an AgentSchema ({ jsonSchema, parse })");
  expect(contract.output === undefined || isAgentSchema(contract.output), "actionContract: output must be an AgentSchema when given");
  return Object.freeze({ ...contract });
}

/** `defineAgentComponentContract(definition)`; the compiler adds the provenance argument. */
export function defineAgentComponentContract<
  TObservations extends Record<string, AgentObservationContract<any>> = {},
  TActions extends Record<string, AgentActionContract<any, any>> = {},
>(definition: AgentComponentContractDefinition<TObservations, TActions>, provenance?: ContractProvenance): AgentComponentContract<TObservations, TActions> {
  expect(isObject(definition), "defineAgentComponentContract: expected a definition object { type, description, ... }");
  const typeError = checkComponentType((definition as AnyRecord).type);
  expect(!typeError, `defineAgentComponentContract: ${typeError}`);
  const id = `view:${definition.type}`;
  const maps: { observations: AnyRecord; actions: AnyRecord } = { observations: {}, actions: {} };
  for (const field of ["observations", "actions"] as const) {
    const map: unknown = (definition as AnyRecord)[field] ?? {};
    expect(isObject(map), `${id}: ${field} must be an object keyed by capability name`, id);
    for (const [name, cap] of Object.entries(map as AnyRecord)) {
      const nameError = checkCapabilityName(name);
      expect(!nameError, `${id}: ${field}: ${nameError}`, id);
      expect(isObject(cap), `${id}: ${field}.${name} must be an object (use ${field === "actions" ? "actionContract" : "observationContract"})`, id);
    }
    maps[field] = map as AnyRecord;
  }
  for (const name of Object.keys(maps.actions)) {
    expect(!Object.hasOwn(maps.observations, name), `${id}: "${name}" is both an observation and an action; both would be "view:${definition.type}.${name}"`, id);
  }
  const frozenDefinition = Object.freeze({ ...definition, observations: Object.freeze({ ...maps.observations }), actions: Object.freeze({ ...maps.actions }) });
  type Contract = AgentComponentContract<TObservations, TActions>;
  type Handlers = AgentComponentHandlers<TObservations, TActions>;
  const contract: Contract = Object.freeze({
    kind: "component" as const,
    id,
    definition: frozenDefinition as Contract["definition"],
    provenance: readProvenance(provenance, id),
    /**
     * Records the handlers: `{ instanceId?, observations: { name: { read } }, actions: { name:
     * { execute } }, enabled?, parent?, meta?, internal?, policies?, procedures? }`. Every observation
     * needs `read`, every action `execute`; names the contract does not declare are refused.
     */
    bind(handlers: Handlers): AgentContractBinding<Contract, Handlers> {
      expect(isObject(handlers), `${id}: bind expects { observations, actions }`, id);
      checkHandlers(handlers, BINDING_KEYS, [], `${id}: bind`, id);
      const instanceId = (handlers as AnyRecord).instanceId ?? "default";
      const instanceError = checkInstanceId(instanceId);
      expect(!instanceError, `invalid instance id: ${instanceError}`, id);
      const bound = { observations: (handlers as AnyRecord).observations ?? {}, actions: (handlers as AnyRecord).actions ?? {} };
      // The same order as the Rust binder (crates/engine/src/binding.rs): unknown names, then
      // each observation's handlers, the actions' concurrency, each action's handlers.
      for (const field of ["observations", "actions"] as const) {
        expect(isObject(bound[field]), `${id}: bind: ${field} must be an object`, id);
      }
      for (const field of ["observations", "actions"] as const) {
        for (const name of Object.keys(bound[field])) expect(Object.hasOwn(maps[field], name), `"${id}" declares no ${field.slice(0, -1)} "${name}"`, id);
      }
      for (const field of ["observations", "actions"] as const) {
        const handlerSet = bound[field] as AnyRecord;
        const action = field === "actions";
        if (action) for (const [name, b] of Object.entries(handlerSet)) if (isObject(b)) checkConcurrency(b.concurrency, name, id);
        for (const name of Object.keys(maps[field])) {
          const b = handlerSet[name];
          const what = `${field.slice(0, -1)} "${name}" of "${id}"`;
          const main = action ? "execute" : "read";
          expect(isObject(b) && typeof b[main] === "function", `${what} has no ${main} handler`, id);
          checkHandlers(b as AnyRecord, action ? ACTION_BINDING_KEYS : OBSERVATION_BINDING_KEYS, action ? ["when", "precondition"] : ["when"], what, id);
        }
      }
      const recorded = Object.freeze({ ...handlers, instanceId, observations: freezeMap(bound.observations as AnyRecord), actions: freezeMap(bound.actions as AnyRecord) });
      return binding(contract, recorded as unknown as Handlers);
    },
  });
  return contract;
}

function defineOperation<K extends "procedure" | "external-tool", TIn extends JsonValue, TOut extends JsonValue | void>(
  kind: K,
  macro: string,
  checkId: IdCheck,
  definition: AgentOperationContractDefinition<TIn, TOut>,
  provenance: unknown,
): AgentOperationContract<K, TIn, TOut> {
  expect(isObject(definition), `${macro}: expected a definition object { id, description, input, effect, ... }`);
  const idError = checkId((definition as AnyRecord).id);
  expect(!idError, `${macro}: ${idError}`);
  const id = definition.id;
  expect(isAgentSchema((definition as AnyRecord).input), `${id}: input must be an AgentSchema ({ jsonSchema, parse })`, id);
  expect(definition.output === undefined || isAgentSchema(definition.output), `${id}: output must be an AgentSchema when given`, id);
  type Contract = AgentOperationContract<K, TIn, TOut>;
  type Handlers = AgentOperationHandlers<TIn, TOut>;
  const contract: Contract = Object.freeze({
    kind,
    id,
    definition: Object.freeze({ ...definition }),
    provenance: readProvenance(provenance, id),
    /** Records the executor: `{ execute, when?, unavailableReason?, precondition?, policies?, timeoutMs?, concurrency?, describe? }`. */
    bind(handlers: Handlers): AgentContractBinding<Contract, Handlers> {
      expect(isObject(handlers), `"${id}": bind expects { execute, ... }`, id);
      const execute = (handlers as AnyRecord).execute;
      // A procedure without a local execute is forwarded to the registry's procedure executor.
      expect(execute === undefined ? kind === "procedure" : typeof execute === "function", `"${id}" has no execute handler`, id);
      checkHandlers(handlers as AnyRecord, OPERATION_BINDING_KEYS, [], `${id}: bind`, id);
      checkConcurrency((handlers as AnyRecord).concurrency, id, id);
      checkHandlers(handlers as AnyRecord, OPERATION_BINDING_KEYS, ["when", "precondition", "describe"], `${id}: bind`, id);
      return binding(contract, Object.freeze({ ...handlers }) as Handlers);
    },
  });
  return contract;
}

/** `defineAgentProcedureContract({ id: "domain:…", ... })`; the compiler adds the provenance argument. */
export function defineAgentProcedureContract<TIn extends JsonValue, TOut extends JsonValue | void = void>(
  definition: AgentOperationContractDefinition<TIn, TOut>,
  provenance?: ContractProvenance,
): AgentProcedureContract<TIn, TOut> {
  return defineOperation("procedure", "defineAgentProcedureContract", checkProcedureId, definition, provenance);
}

/** `defineExternalAgentToolContract({ id: "external:…", ... })`; the compiler adds the provenance argument. */
export function defineExternalAgentToolContract<TIn extends JsonValue, TOut extends JsonValue | void = void>(
  definition: AgentOperationContractDefinition<TIn, TOut>,
  provenance?: ContractProvenance,
): ExternalAgentToolContract<TIn, TOut> {
  return defineOperation("external-tool", "defineExternalAgentToolContract", checkExternalToolId, definition, provenance);
}
