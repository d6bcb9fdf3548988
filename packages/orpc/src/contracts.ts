// Procedure contracts from an oRPC contract router, at build time: the router (its procedures'
// input and output schemas, converted to JSON Schema by the schema library itself) becomes a
// TypeScript module of literal `defineAgentProcedureContract({...})` declarations, the form the
// compiler evaluates statically. The page binds those contracts; the compiler checks its
// references against them, and `--check` (or `checkProcedureContracts`) fails when the module
// no longer matches the router, so the page cannot drift from the server's schemas.
//
// Runs in Node (a build step, a test), never in the page: it imports nothing from oRPC and reads
// a contract router of oRPC 1.x (`~orpc.inputSchema`, `.outputSchema`, `.route`) or 2.x
// (`~orpc.inputSchemas`, `.outputSchemas`, `.meta`).

import type { AgentAudit, AgentConfirmation, AgentOperationEffect, CapabilityPolicyAttachment, JsonValue } from "@agent-surface/core";

/** What the page's contract says that oRPC's does not: the agent-facing governance of one procedure. */
export interface ORPCProcedureContractSpec {
  /** Default: `domain:` + the router path joined with dots (`devices.decommission`). */
  id?: string;
  /** Default: the oRPC contract's `route.description`, else `route.summary` (1.x); required when it has neither. */
  description?: string;
  effect: AgentOperationEffect;
  confirmation?: AgentConfirmation;
  idempotent?: boolean;
  reversible?: boolean;
  audit?: AgentAudit;
  policies?: CapabilityPolicyAttachment[];
  meta?: Record<string, JsonValue>;
  tags?: string[];
  /** The exported constant's name. Default: the router path in camelCase (`devicesDecommission`). */
  exportName?: string;
}

/** A JSON Schema converter for one schema: `io` is which side (the procedure's input or output). */
export type ORPCSchemaConverter = (schema: unknown, io: "input" | "output", procedurePath: readonly string[]) => Record<string, unknown>;

export interface ORPCProcedureContractsOptions {
  /** The oRPC contract router (`oc.router({...})`, or the plain object of procedure contracts). */
  router: unknown;
  /**
   * The procedures the page may reference, by router path (dotted: `"devices.decommission"`).
   * Only these are generated: an agent sees what is listed here, not the whole API.
   */
  procedures: Readonly<Record<string, ORPCProcedureContractSpec>>;
  /**
   * Converts a procedure's schema to JSON Schema. Default: the schema's Standard JSON Schema
   * interface (`schema["~standard"].jsonSchema.input/output({ target: "draft-2020-12" })`:
   * zod ≥ 4.2, ArkType ≥ 2.1.28, Valibot with `@valibot/to-json-schema`'s `toStandardJsonSchema`).
   */
  toJsonSchema?: ORPCSchemaConverter;
  /** Where the generated module says it came from (a comment), e.g. the command that makes it. */
  source?: string;
  /** The module that provides `defineAgentProcedureContract` and `fromJsonSchema`. Default `"@agent-surface/core"`. */
  coreModule?: string;
}

/** The `agent-surface-orpc` CLI's config module's default export. */
export interface ORPCContractsConfig extends ORPCProcedureContractsOptions {
  /** The generated module's path, relative to the config module (e.g. `"src/domain/procedures.ts"`). */
  output: string;
}

/** Types a config module for the `agent-surface-orpc` CLI (returns it unchanged). */
export function defineORPCContracts(config: ORPCContractsConfig): ORPCContractsConfig {
  return config;
}

/** An error in the router or the options, naming the procedure. */
export class ORPCContractsError extends Error {
  override readonly name = "ORPCContractsError";
}

const isObject = (v: unknown): v is Record<string, unknown> => (typeof v === "object" || typeof v === "function") && v !== null;

interface FoundProcedure {
  path: string[];
  inputSchema: unknown;
  outputSchema: unknown;
  description: string | undefined;
}

/** A procedure contract's definition (`~orpc`), 1.x or 2.x; undefined when `value` is not one. */
function procedureOf(value: unknown, path: string[]): FoundProcedure | undefined {
  if (!isObject(value)) return undefined;
  const def = value["~orpc"];
  if (!isObject(def) || !isObject(def.errorMap) || !isObject(def.meta)) return undefined;
  const one = (single: unknown, list: unknown, side: string): unknown => {
    if (list === undefined) return single;
    if (!Array.isArray(list)) throw new ORPCContractsError(`${path.join(".")}: ~orpc.${side}Schemas is not an array`);
    if (list.length > 1) throw new ORPCContractsError(`${path.join(".")}: ${list.length} ${side} schemas chained (.${side}() called ${list.length} times); one ${side} schema per procedure is supported`);
    return list[0];
  };
  const route = isObject(def.route) ? def.route : {};
  const text = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v : undefined);
  return {
    path,
    inputSchema: one(def.inputSchema, def.inputSchemas, "input"),
    outputSchema: one(def.outputSchema, def.outputSchemas, "output"),
    description: text(route.description) ?? text(route.summary),
  };
}

/** Every procedure contract of a contract router, by dotted path. Lazy routers are not followed (they are not contracts). */
export function listORPCProcedures(router: unknown): Map<string, FoundProcedure> {
  const found = new Map<string, FoundProcedure>();
  const walk = (value: unknown, path: string[], seen: Set<unknown>) => {
    const proc = procedureOf(value, path);
    if (proc) {
      if (path.length === 0) throw new ORPCContractsError("the router is a single procedure contract; pass a router object ({ name: contract })");
      found.set(path.join("."), proc);
      return;
    }
    if (!isObject(value) || seen.has(value)) return;
    seen.add(value);
    for (const key of Object.keys(value)) walk(value[key], [...path, key], seen);
  };
  walk(router, [], new Set());
  return found;
}

/** The default converter: the schema's Standard JSON Schema interface. */
export const standardJsonSchema: ORPCSchemaConverter = (schema, io, procedurePath) => {
  const std = isObject(schema) ? schema["~standard"] : undefined;
  const js = isObject(std) ? std.jsonSchema : undefined;
  const convert = isObject(js) ? js[io] : undefined;
  if (typeof convert !== "function") {
    const vendor = isObject(std) && typeof std.vendor === "string" ? ` (vendor ${std.vendor})` : "";
    throw new ORPCContractsError(
      `${procedurePath.join(".")}: the ${io} schema${vendor} has no Standard JSON Schema converter (~standard.jsonSchema.${io}); pass options.toJsonSchema (e.g. the library's own converter)`,
    );
  }
  const out = (convert as (o: { target: string }) => unknown).call(js, { target: "draft-2020-12" });
  if (!isObject(out) || Array.isArray(out)) throw new ORPCContractsError(`${procedurePath.join(".")}: the ${io} schema's converter did not return a JSON Schema object`);
  return out;
};

/** Key words a page contract does not carry: the dialect marker (the compiler assumes 2020-12). */
function clean(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

const camel = (path: readonly string[]) =>
  path
    .flatMap((p) => p.split(/[^A-Za-z0-9_$]+/).filter(Boolean))
    .map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1)))
    .join("")
    .replace(/^(?=[0-9])/, "_");

/** JSON as TypeScript source, indented to sit at `indent` (keys quoted only when they must be). */
function literal(value: unknown, indent: string): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    if (value.every((v) => v === null || typeof v !== "object")) {
      const flat = `[${value.map((v) => literal(v, indent)).join(", ")}]`;
      if (flat.length <= 80) return flat;
    }
    const inner = `${indent}  `;
    return `[\n${value.map((v) => `${inner}${literal(v, inner)},`).join("\n")}\n${indent}]`;
  }
  if (isObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return "{}";
    const inner = `${indent}  `;
    const key = (k: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : JSON.stringify(k));
    return `{\n${entries.map(([k, v]) => `${inner}${key(k)}: ${literal(v, inner)},`).join("\n")}\n${indent}}`;
  }
  if (typeof value === "number" && !Number.isFinite(value)) throw new ORPCContractsError(`a JSON Schema holds ${value}, which JSON cannot`);
  if (value === undefined || typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") {
    throw new ORPCContractsError(`a JSON Schema holds a ${typeof value}, which JSON cannot`);
  }
  return JSON.stringify(value);
}

/**
 * The TypeScript module declaring one `defineAgentProcedureContract` per listed procedure, its
 * input and output the server's schemas as literal JSON Schema (`fromJsonSchema({...})`).
 * Deterministic: the same router and options give the same text.
 */
export function procedureContractsSource(options: ORPCProcedureContractsOptions): string {
  if (!isObject(options)) throw new TypeError("procedureContractsSource: expected { router, procedures, toJsonSchema?, source?, coreModule? }");
  const convert = options.toJsonSchema ?? standardJsonSchema;
  const found = listORPCProcedures(options.router);
  if (found.size === 0) throw new ORPCContractsError("the router has no procedure contracts (~orpc)");
  if (!isObject(options.procedures) || Object.keys(options.procedures).length === 0) {
    throw new ORPCContractsError("options.procedures lists no procedure (by router path: { \"devices.decommission\": { effect } })");
  }
  const names = new Set<string>();
  const ids = new Set<string>();
  const blocks: string[] = [];
  for (const [path, spec] of Object.entries(options.procedures)) {
    const proc = found.get(path);
    if (!proc) {
      throw new ORPCContractsError(`options.procedures["${path}"]: the router has no procedure at ${path} (it has: ${[...found.keys()].join(", ")})`);
    }
    if (!isObject(spec) || typeof spec.effect !== "string") throw new ORPCContractsError(`options.procedures["${path}"]: expected { effect, ... }`);
    const id = spec.id ?? `domain:${proc.path.join(".")}`;
    if (ids.has(id)) throw new ORPCContractsError(`options.procedures["${path}"]: the id ${id} is already generated for another path`);
    ids.add(id);
    const description = spec.description ?? proc.description;
    if (description === undefined) {
      throw new ORPCContractsError(`options.procedures["${path}"]: no description (give one here, or in the oRPC contract's .route({ description }))`);
    }
    const name = spec.exportName ?? camel(proc.path);
    if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) throw new ORPCContractsError(`options.procedures["${path}"]: ${JSON.stringify(name)} is not an identifier (exportName)`);
    if (names.has(name)) throw new ORPCContractsError(`options.procedures["${path}"]: the export name ${name} is already used (exportName)`);
    names.add(name);
    const inputSchema =
      proc.inputSchema === undefined
        ? // oRPC without .input(): any input; the page's contract takes none.
          { type: "object", properties: {}, additionalProperties: false }
        : clean(convert(proc.inputSchema, "input", proc.path));
    const lines = [`  id: ${JSON.stringify(id)},`, `  description: ${JSON.stringify(description)},`, `  input: fromJsonSchema(${literal(inputSchema, "  ")}),`];
    if (proc.outputSchema !== undefined) lines.push(`  output: fromJsonSchema(${literal(clean(convert(proc.outputSchema, "output", proc.path)), "  ")}),`);
    for (const key of ["effect", "confirmation", "idempotent", "reversible", "audit", "policies", "meta", "tags"] as const) {
      if (spec[key] !== undefined) lines.push(`  ${key}: ${literal(spec[key], "  ")},`);
    }
    blocks.push(`/** ${description.replaceAll("*/", "*\\/")} (oRPC: ${proc.path.join(".")}) */\nexport const ${name} = defineAgentProcedureContract({\n${lines.join("\n")}\n});\n`);
  }
  const core = options.coreModule ?? "@agent-surface/core";
  const from = options.source ? ` by ${options.source}` : "";
  return [
    `// Generated${from} from the oRPC contract router (@agent-surface/orpc): do not edit.`,
    `// The inputs and outputs are the server's schemas as JSON Schema; regenerate when they change.`,
    `import { defineAgentProcedureContract, fromJsonSchema } from ${JSON.stringify(core)};`,
    "",
    blocks.join("\n"),
  ].join("\n");
}

/** Whether `current` (the module on disk) is what the router gives now; the first differing line when not. */
export function checkProcedureContracts(options: ORPCProcedureContractsOptions, current: string): { ok: true } | { ok: false; line: number; expected: string; actual: string } {
  const want = procedureContractsSource(options);
  if (want === current) return { ok: true };
  const a = want.split("\n");
  const b = current.split("\n");
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  return { ok: false, line: i + 1, expected: a[i] ?? "(end of file)", actual: b[i] ?? "(end of file)" };
}
