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

const BINDING_KEYS = ["instanceId", "observations", "actions", "enabled", "parent", "meta", "internal", "policies", "procedures"];
const OBSERVATION_BINDING_KEYS = ["read", "when", "unavailableReason", "policies", "timeoutMs"];
const ACTION_BINDING_KEYS = ["execute", "when", "unavailableReason", "precondition", "policies", "timeoutMs", "concurrency"];
const OPERATION_BINDING_KEYS = [...ACTION_BINDING_KEYS, "describe"];
const CONCURRENCY_MODES = ["instance", "capability", "key", "parallel"];

function defect(message: string, contract: string | null = null): AgentSurfaceDefinitionError {
  return new AgentSurfaceDefinitionError(message, { contract });
}

function isObject(v: unknown): v is AnyRecord {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function isAgentSchema(v: unknown): boolean {
  return isObject(v) && isObject(v.jsonSchema) && typeof v.parse === "function";
}

/**
 * The provenance the compiler injected, if it has the right shape and names this contract:
 * a frozen `{ id, contractHash }`; otherwise undefined (the contract is inert).
 */
function readProvenance(provenance: unknown, id: string): ContractProvenance | undefined {
  if (!isObject(provenance)) return undefined;
  let pid: unknown;
  let hash: unknown;
  try {
    pid = provenance.id;
    hash = provenance.contractHash;
  } catch {
    return undefined;
  }
  if (typeof pid !== "string" || pid !== id || typeof hash !== "string" || !HASH.test(hash)) return undefined;
  return Object.freeze({ id: pid, contractHash: hash });
}

function checkKeys(obj: AnyRecord, allowed: readonly string[], what: string, contract: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) throw defect(`${what}: unknown field "${key}" (allowed: ${allowed.join(", ")})`, contract);
  }
}

function checkConcurrency(c: unknown, name: string, contract: string): void {
  if (c === undefined) return;
  if (!isObject(c) || !CONCURRENCY_MODES.includes(c["mode"] as string)) {
    throw defect(`"${name}" of "${contract}": concurrency.mode must be one of ${CONCURRENCY_MODES.join(", ")}`, contract);
  }
  if (c["mode"] === "parallel" && !(Number.isInteger(c["max"]) && (c["max"] as number) >= 1)) {
    throw defect(`action "${name}": parallel concurrency needs an integer max ≥ 1`, contract);
  }
  if (c["mode"] === "key" && typeof c["key"] !== "string") throw defect(`"${name}" of "${contract}": key concurrency needs a string key`, contract);
  if (c["queueDepth"] !== undefined && !(Number.isInteger(c["queueDepth"]) && (c["queueDepth"] as number) >= 0)) {
    throw defect(`"${name}" of "${contract}": concurrency.queueDepth must be a non-negative integer`, contract);
  }
}

function checkOptionalFunction(obj: AnyRecord, key: string, what: string, contract: string): void {
  if (obj[key] !== undefined && typeof obj[key] !== "function") throw defect(`${what}: "${key}" must be a function`, contract);
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
  if (!isObject(contract)) throw defect("observationContract: expected an object { description, output }");
  if (!isAgentSchema((contract as unknown as AnyRecord)["output"])) throw defect("observationContract: output must be an AgentSchema ({ jsonSchema, parse })");
  return Object.freeze({ ...contract });
}

/** Identity helper for one action of a component contract (`{ description, input, output?, effect, ... }`). */
export function actionContract<TIn extends JsonValue, TOut extends JsonValue | void = void>(
  contract: AgentActionContract<TIn, TOut>,
): AgentActionContract<TIn, TOut> {
  if (!isObject(contract)) throw defect("actionContract: expected an object { description, input, effect }");
  if (!isAgentSchema((contract as unknown as AnyRecord)["input"])) throw defect("actionContract: input must be an AgentSchema ({ jsonSchema, parse })");
  if (contract.output !== undefined && !isAgentSchema(contract.output)) throw defect("actionContract: output must be an AgentSchema when given");
  return Object.freeze({ ...contract });
}

/** `defineAgentComponentContract(definition)`; the compiler adds the provenance argument. */
export function defineAgentComponentContract<
  TObservations extends Record<string, AgentObservationContract<any>> = {},
  TActions extends Record<string, AgentActionContract<any, any>> = {},
>(definition: AgentComponentContractDefinition<TObservations, TActions>, provenance?: ContractProvenance): AgentComponentContract<TObservations, TActions> {
  if (!isObject(definition)) throw defect("defineAgentComponentContract: expected a definition object { type, description, ... }");
  const typeError = checkComponentType((definition as AnyRecord)["type"]);
  if (typeError) throw defect(`defineAgentComponentContract: ${typeError}`);
  const id = `view:${definition.type}`;
  const maps: { observations: AnyRecord; actions: AnyRecord } = { observations: {}, actions: {} };
  for (const field of ["observations", "actions"] as const) {
    const map: unknown = (definition as AnyRecord)[field] ?? {};
    if (!isObject(map)) throw defect(`${id}: ${field} must be an object keyed by capability name`, id);
    for (const [name, cap] of Object.entries(map)) {
      const nameError = checkCapabilityName(name);
      if (nameError) throw defect(`${id}: ${field}: ${nameError}`, id);
      if (!isObject(cap)) throw defect(`${id}: ${field}.${name} must be an object (use ${field === "actions" ? "actionContract" : "observationContract"})`, id);
    }
    maps[field] = map;
  }
  for (const name of Object.keys(maps.actions)) {
    if (Object.hasOwn(maps.observations, name)) throw defect(`${id}: "${name}" is both an observation and an action; both would be "view:${definition.type}.${name}"`, id);
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
      if (!isObject(handlers)) throw defect(`${id}: bind expects { observations, actions }`, id);
      checkKeys(handlers, BINDING_KEYS, `${id}: bind`, id);
      const instanceId = handlers["instanceId"] ?? "default";
      const instanceError = checkInstanceId(instanceId);
      if (instanceError) throw defect(`invalid instance id: ${instanceError}`, id);
      const observations: unknown = handlers["observations"] ?? {};
      const actions: unknown = handlers["actions"] ?? {};
      if (!isObject(observations)) throw defect(`${id}: bind: observations must be an object`, id);
      if (!isObject(actions)) throw defect(`${id}: bind: actions must be an object`, id);
      // The same order as runtime/src/binding.rs ComponentBinder::build.
      for (const name of Object.keys(observations)) {
        if (!Object.hasOwn(maps.observations, name)) throw defect(`"${id}" declares no observation "${name}"`, id);
      }
      for (const name of Object.keys(actions)) {
        if (!Object.hasOwn(maps.actions, name)) throw defect(`"${id}" declares no action "${name}"`, id);
      }
      for (const name of Object.keys(maps.observations)) {
        const b = observations[name];
        if (!isObject(b) || typeof b["read"] !== "function") throw defect(`observation "${name}" of "${id}" has no read handler`, id);
        checkKeys(b, OBSERVATION_BINDING_KEYS, `observation "${name}" of "${id}"`, id);
        checkOptionalFunction(b, "when", `observation "${name}" of "${id}"`, id);
      }
      for (const [name, b] of Object.entries(actions)) {
        if (isObject(b)) checkConcurrency(b["concurrency"], name, id);
      }
      for (const name of Object.keys(maps.actions)) {
        const b = actions[name];
        if (!isObject(b) || typeof b["execute"] !== "function") throw defect(`action "${name}" of "${id}" has no execute handler`, id);
        checkKeys(b, ACTION_BINDING_KEYS, `action "${name}" of "${id}"`, id);
        checkOptionalFunction(b, "when", `action "${name}" of "${id}"`, id);
        checkOptionalFunction(b, "precondition", `action "${name}" of "${id}"`, id);
      }
      const recorded = Object.freeze({ ...handlers, instanceId, observations: freezeMap(observations), actions: freezeMap(actions) });
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
  if (!isObject(definition)) throw defect(`${macro}: expected a definition object { id, description, input, effect, ... }`);
  const idError = checkId((definition as AnyRecord)["id"]);
  if (idError) throw defect(`${macro}: ${idError}`);
  const id = definition.id;
  if (!isAgentSchema((definition as AnyRecord)["input"])) throw defect(`${id}: input must be an AgentSchema ({ jsonSchema, parse })`, id);
  if (definition.output !== undefined && !isAgentSchema(definition.output)) throw defect(`${id}: output must be an AgentSchema when given`, id);
  type Contract = AgentOperationContract<K, TIn, TOut>;
  type Handlers = AgentOperationHandlers<TIn, TOut>;
  const contract: Contract = Object.freeze({
    kind,
    id,
    definition: Object.freeze({ ...definition }),
    provenance: readProvenance(provenance, id),
    /** Records the executor: `{ execute, when?, unavailableReason?, precondition?, policies?, timeoutMs?, concurrency?, describe? }`. */
    bind(handlers: Handlers): AgentContractBinding<Contract, Handlers> {
      if (!isObject(handlers)) throw defect(`"${id}": bind expects { execute, ... }`, id);
      // A procedure without a local execute is forwarded to the registry's procedure executor.
      if (handlers["execute"] === undefined ? kind !== "procedure" : typeof handlers["execute"] !== "function") {
        throw defect(`"${id}" has no execute handler`, id);
      }
      checkKeys(handlers, OPERATION_BINDING_KEYS, `${id}: bind`, id);
      checkConcurrency(handlers["concurrency"], id, id);
      for (const key of ["when", "precondition", "describe"]) checkOptionalFunction(handlers, key, `${id}: bind`, id);
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
