// AgentSchema constructors. Validation is the engine's (crates/schema through the wasm): the
// subset is checked when the schema is built, and `parse` validates, asserts formats and applies
// defaults exactly as the registry does for INVALID_INPUT.

import { SchemaValidator, engineError } from "./engine.js";
import { AgentSchemaError, AgentSurfaceDefinitionError } from "./errors.js";
import { deepFreeze, isPlainObject, jsonText } from "./json.js";

function appendPointer(path, seg) {
  return `${path}/${String(seg).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

function schemaError(issues) {
  const first = issues[0];
  const where = first.path === "" ? "" : `${first.path}: `;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? "s" : ""})` : "";
  return new AgentSchemaError(`invalid value: ${where}${first.message}${more}`, issues);
}

/** The deep-frozen copy and the engine's compiled validator; AgentSurfaceDefinitionError outside the subset. */
function compile(schema, who) {
  if (!isPlainObject(schema)) throw new AgentSurfaceDefinitionError(`${who}: the JSON Schema must be a JSON object`);
  let text;
  try {
    text = jsonText(schema);
  } catch (e) {
    throw new AgentSurfaceDefinitionError(`${who}: the JSON Schema is not JSON: ${e.message}`);
  }
  let validator;
  try {
    validator = new SchemaValidator(text);
  } catch (thrown) {
    const e = engineError(thrown);
    const err = new AgentSurfaceDefinitionError(`${who}: ${e.message}`);
    err.violations = e.violations ?? [];
    throw err;
  }
  return { jsonSchema: deepFreeze(JSON.parse(text)), validator };
}

/** Validates `value` with the engine: the value with defaults applied (a fresh copy), or AgentSchemaError. */
function check(validator, value) {
  let text;
  try {
    text = jsonText(value);
  } catch {
    throw new AgentSchemaError("invalid value: not a JSON value", [{ path: "", keyword: "json", message: "must be a JSON value" }]);
  }
  const result = JSON.parse(validator.validate(text));
  if (!result.ok) throw schemaError(result.issues);
  return Object.hasOwn(result, "value") ? result.value : JSON.parse(text);
}

/**
 * An AgentSchema from a raw JSON Schema. The schema must be inside the supported subset
 * (AgentSurfaceDefinitionError, with the engine's `violations`, otherwise). `parse` validates with
 * the engine and returns a copy of the value with `default`s applied; it throws AgentSchemaError
 * with `{ path, keyword, message }` issues.
 */
export function fromJsonSchema(schema) {
  const { jsonSchema, validator } = compile(schema, "fromJsonSchema");
  return Object.freeze({
    jsonSchema,
    parse(value) {
      return check(validator, value);
    },
  });
}

function standardPath(path) {
  if (!Array.isArray(path)) return "";
  return path.map((seg) => (seg !== null && typeof seg === "object" ? seg.key : seg)).reduce((p, seg) => appendPointer(p, typeof seg === "symbol" ? seg.description ?? "" : seg), "");
}

/**
 * Wraps a Standard Schema (https://standardschema.dev): `parse` validates through
 * `schema["~standard"].validate` (synchronous results only) and checks the same value against
 * the explicit, agent-visible JSON Schema with the engine; it returns the library's output value.
 */
export function fromStandardSchema(schema, options) {
  const std = schema?.["~standard"];
  if (std === null || typeof std !== "object" || typeof std.validate !== "function") {
    throw new AgentSurfaceDefinitionError('fromStandardSchema: not a Standard Schema (no "~standard".validate)');
  }
  if (options === null || typeof options !== "object" || !Object.hasOwn(options, "jsonSchema")) {
    throw new AgentSurfaceDefinitionError("fromStandardSchema: pass { jsonSchema } explicitly (core does not convert schemas)");
  }
  const { jsonSchema, validator } = compile(options.jsonSchema, "fromStandardSchema");
  return Object.freeze({
    jsonSchema,
    parse(value) {
      const result = std.validate(value);
      if (result !== null && typeof result === "object" && typeof result.then === "function") {
        throw new AgentSchemaError("invalid value: the schema validates asynchronously, which parse does not support", [
          { path: "", keyword: "standard", message: "asynchronous validation is not supported" },
        ]);
      }
      if (result?.issues) {
        const issues = Array.from(result.issues, (i) => ({ path: standardPath(i?.path), keyword: "standard", message: String(i?.message ?? "invalid") }));
        if (issues.length === 0) issues.push({ path: "", keyword: "standard", message: "invalid" });
        throw schemaError(issues);
      }
      // The agent sees the JSON Schema: a value the library accepts must satisfy it too.
      check(validator, value);
      return result.value;
    },
  });
}

const EMPTY_OBJECT_SCHEMA = { type: "object", properties: {}, additionalProperties: false };

/** `{"type":"object","properties":{},"additionalProperties":false}`: accepts `{}` only. */
export const emptyObjectSchema = fromJsonSchema(EMPTY_OBJECT_SCHEMA);
