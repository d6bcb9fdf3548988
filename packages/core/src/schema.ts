// AgentSchema constructors. Validation is the runtime's validator (validate/, the port of
// crates/schema): the subset is checked when the schema is built, and `parse` validates, asserts
// formats and applies defaults exactly as the registry does for INVALID_INPUT.

import { AgentSchemaError, AgentSurfaceDefinitionError } from "./errors.js";
import { appendPointer, deepFreeze, isPlainObject, jsonCopy } from "./model/json.js";
import { SchemaCompileError, compileValidator, type Validator } from "./validate/index.js";
import type { AgentSchema, AgentSchemaIssue, JsonSchema, JsonValue, StandardSchemaV1 } from "./types.js";
import type { FromJsonSchema } from "./schema-types.js";

function schemaError(issues: AgentSchemaIssue[]): AgentSchemaError {
  const first = issues[0]!;
  const where = first.path === "" ? "" : `${first.path}: `;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? "s" : ""})` : "";
  return new AgentSchemaError(`invalid value: ${where}${first.message}${more}`, issues);
}

/** The deep-frozen copy and its compiled validator; AgentSurfaceDefinitionError outside the subset. */
function compile(schema: unknown, who: string): { jsonSchema: JsonSchema; validator: Validator } {
  if (!isPlainObject(schema)) throw new AgentSurfaceDefinitionError(`${who}: the JSON Schema must be a JSON object`);
  let jsonSchema: JsonSchema;
  try {
    jsonSchema = deepFreeze(jsonCopy(schema) as JsonSchema);
  } catch (e) {
    throw new AgentSurfaceDefinitionError(`${who}: the JSON Schema is not JSON: ${(e as Error).message}`);
  }
  try {
    return { jsonSchema, validator: compileValidator(jsonSchema) };
  } catch (e) {
    if (!(e instanceof SchemaCompileError)) throw e;
    const err = new AgentSurfaceDefinitionError(`${who}: ${e.message}`);
    err.violations = e.violations;
    throw err;
  }
}

/** Validates `value`: a fresh copy with defaults applied, or AgentSchemaError. */
function check(validator: Validator, value: unknown): unknown {
  const result = validator.validate(value);
  if (result.ok) return result.value;
  if (result.issues[0]!.keyword === "json") throw new AgentSchemaError("invalid value: not a JSON value", result.issues);
  throw schemaError(result.issues);
}

/**
 * An AgentSchema from a raw JSON Schema. The schema must be inside the supported subset
 * (AgentSurfaceDefinitionError, with every `violation`, otherwise). `parse` validates
 * and returns a copy of the value with `default`s applied; it throws AgentSchemaError
 * with `{ path, keyword, message }` issues. The value type is inferred from a literal schema
 * (`FromJsonSchema`, no `as const` needed); an explicit `fromJsonSchema<T>(schema)` wins. (The
 * indexed access keeps it from being inferred backwards from where the schema is used.)
 */
export function fromJsonSchema<T = never, const S extends JsonSchema = JsonSchema>(schema: S): AgentSchema<{ t: T; s: FromJsonSchema<S> }[[T] extends [never] ? "s" : "t"]>;
/**
 * A JSON Schema typed by a schema library as an interface (TypeBox's `TObject`, Valibot's
 * `JSONSchema7`): not a `Record<string, unknown>` to TypeScript, the same object at run time.
 * The value type is `T` (TypeBox: `fromJsonSchema<Static<typeof T>>(T)`).
 */
export function fromJsonSchema<T = JsonValue>(schema: object): AgentSchema<T>;
export function fromJsonSchema<T = JsonValue>(schema: object): AgentSchema<T> {
  const { jsonSchema, validator } = compile(schema, "fromJsonSchema");
  return Object.freeze({
    jsonSchema,
    parse(value: unknown): T {
      return check(validator, value) as T;
    },
  });
}

type StandardPathSegment = PropertyKey | { readonly key: PropertyKey };

function standardPath(path: unknown): string {
  if (!Array.isArray(path)) return "";
  return (path as StandardPathSegment[])
    .map((seg) => (seg !== null && typeof seg === "object" ? seg.key : seg))
    .reduce<string>((p, seg) => appendPointer(p, typeof seg === "symbol" ? (seg.description ?? "") : seg), "");
}

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

/**
 * zod-to-json-schema (zod 3's converter) writes draft-07's root `$schema`. The subset's keywords
 * mean the same in draft-07 and 2020-12, and the compiler drops that `$schema` from the manifest
 * (docs/schemas.md, "zod 3 with zod-to-json-schema"); the page drops it the same way, so the
 * JSON Schema it holds is the manifest's. Any other `$schema` is left to the subset check.
 */
function withoutDraft07Dialect(schema: unknown): unknown {
  if (!isPlainObject(schema) || schema.$schema !== DRAFT_07) return schema;
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/**
 * Wraps a Standard Schema (https://standardschema.dev): `parse` validates through
 * `schema["~standard"].validate` (synchronous results only) and checks the same value against
 * the explicit, agent-visible JSON Schema; it returns the library's output value.
 */
export function fromStandardSchema<T>(schema: StandardSchemaV1<unknown, T>, options: { jsonSchema: JsonSchema | object }): AgentSchema<T> {
  const std = (schema as Partial<StandardSchemaV1<unknown, T>> | null | undefined)?.["~standard"];
  if (std === null || typeof std !== "object" || typeof std.validate !== "function") {
    throw new AgentSurfaceDefinitionError('fromStandardSchema: not a Standard Schema (no "~standard".validate)');
  }
  if (options === null || typeof options !== "object" || !Object.hasOwn(options, "jsonSchema")) {
    throw new AgentSurfaceDefinitionError("fromStandardSchema: pass { jsonSchema } explicitly (core does not convert schemas)");
  }
  const { jsonSchema, validator } = compile(withoutDraft07Dialect(options.jsonSchema), "fromStandardSchema");
  const agentSchema: AgentSchema<T> = Object.freeze({
    jsonSchema,
    parse(value: unknown): T {
      const result = std.validate(value) as StandardSchemaV1.Result<T> | PromiseLike<unknown> | null | undefined;
      if (result !== null && typeof result === "object" && typeof (result as { then?: unknown }).then === "function") {
        throw new AgentSchemaError("invalid value: the schema validates asynchronously, which parse does not support", [
          { path: "", keyword: "standard", message: "asynchronous validation is not supported" },
        ]);
      }
      const settled = result as StandardSchemaV1.Result<T> | null | undefined;
      if (settled?.issues) {
        const issues: AgentSchemaIssue[] = Array.from(settled.issues, (i: StandardSchemaV1.Issue | undefined) => ({ path: standardPath(i?.path), keyword: "standard", message: String(i?.message ?? "invalid") }));
        if (issues.length === 0) issues.push({ path: "", keyword: "standard", message: "invalid" });
        throw schemaError(issues);
      }
      // The agent sees the JSON Schema: a value the library accepts must satisfy it too.
      check(validator, value);
      return (settled as StandardSchemaV1.SuccessResult<T>).value;
    },
  });
  standardValidators.set(agentSchema, (value) => {
    const result = std.validate(value) as StandardSchemaV1.Result<T> | PromiseLike<unknown> | null | undefined;
    if (result !== null && typeof result === "object" && typeof (result as { then?: unknown }).then === "function") {
      return [{ path: "", keyword: "standard", message: "the schema validates asynchronously, which is not supported" }];
    }
    const issues = (result as StandardSchemaV1.Result<T> | null | undefined)?.issues;
    if (!issues) return undefined;
    const out = Array.from(issues, (i: StandardSchemaV1.Issue | undefined) => ({ path: standardPath(i?.path), keyword: "standard", message: String(i?.message ?? "invalid") }));
    return out.length ? out : [{ path: "", keyword: "standard", message: "invalid" }];
  });
  return agentSchema;
}

/**
 * The schema library's own validation of the AgentSchemas fromStandardSchema made: the
 * registry runs it on the effective input right after the JSON Schema validation, so
 * both validators accept what a handler receives.
 */
const standardValidators = new WeakMap<object, (value: unknown) => AgentSchemaIssue[] | undefined>();

/** @internal The library validator of an AgentSchema from fromStandardSchema, if it is one. */
export function standardValidatorOf(schema: unknown): ((value: unknown) => AgentSchemaIssue[] | undefined) | undefined {
  return typeof schema === "object" && schema !== null ? standardValidators.get(schema) : undefined;
}

const EMPTY_OBJECT_SCHEMA = { type: "object", properties: {}, additionalProperties: false };

/** `{"type":"object","properties":{},"additionalProperties":false}`: accepts `{}` only. */
export const emptyObjectSchema: AgentSchema<Record<string, never>> = fromJsonSchema<Record<string, never>>(EMPTY_OBJECT_SCHEMA);
