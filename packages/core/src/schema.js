// AgentSchema constructors. fromJsonSchema ships a deliberately small structural validator;
// the Rust runtime's validator (runtime/src/validate.rs) is the complete one.

import { canonicalJson, cloneJson, isPlainObject } from "./canonical.js";
import { AgentSchemaError, AgentSurfaceDefinitionError } from "./errors.js";

const MAX_ISSUES = 50;
const MAX_DEPTH = 128;

function deepFreeze(v) {
  if (v !== null && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze(v[k]);
  }
  return v;
}

function appendPointer(path, seg) {
  return `${path}/${String(seg).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

function jsonType(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v; // string, boolean, object
}

function matchesType(v, t) {
  switch (t) {
    case "null":
      return v === null;
    case "boolean":
      return typeof v === "boolean";
    case "string":
      return typeof v === "string";
    case "number":
      return typeof v === "number";
    case "integer":
      return Number.isInteger(v);
    case "array":
      return Array.isArray(v);
    case "object":
      return isPlainObject(v);
    default:
      return false;
  }
}

/** JSON Schema counts characters (code points), not UTF-16 units. */
function charCount(s) {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const patterns = new Map();

/** The pattern as a JavaScript RegExp (Unicode mode), cached; null when it does not compile. */
function compilePattern(source) {
  if (!patterns.has(source)) {
    let re = null;
    try {
      re = new RegExp(source, "u");
    } catch {
      // reported as an issue by the caller
    }
    if (patterns.size > 1000) patterns.clear();
    patterns.set(source, re);
  }
  return patterns.get(source);
}

function resolveRef(root, ref) {
  const m = /^#\/\$defs\/([^/]+)$/.exec(ref);
  if (!m) return undefined;
  const name = m[1].replace(/~1/g, "/").replace(/~0/g, "~");
  const defs = root.$defs;
  return isPlainObject(defs) && Object.hasOwn(defs, name) ? defs[name] : undefined;
}

/**
 * Validates `value` against the structural keywords of the supported subset. Returns issues
 * `{ path, keyword, message }`; messages never quote the offending value.
 */
function validate(root, schema, value, path, out, depth) {
  if (out.length >= MAX_ISSUES) return;
  if (depth > MAX_DEPTH) {
    out.push({ path, keyword: "depth", message: `nested more than ${MAX_DEPTH} levels deep` });
    return;
  }
  if (!isPlainObject(schema)) return; // not a schema: nothing to check (refused at registration)
  const issue = (keyword, message, at = path) => out.push({ path: at, keyword, message });

  if (typeof schema.$ref === "string") {
    const target = resolveRef(root, schema.$ref);
    if (target === undefined) issue("$ref", "the schema refers to a definition it does not contain");
    else validate(root, target, value, path, out, depth + 1);
  }
  if (Object.hasOwn(schema, "type")) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => matchesType(value, t))) {
      issue("type", `must be ${types.join(" or ")}, found ${jsonType(value)}`);
      return; // the other keywords would only repeat the mismatch
    }
  }
  if (Array.isArray(schema.enum)) {
    const c = canonicalJson(value);
    if (!schema.enum.some((e) => canonicalJson(e) === c)) issue("enum", `must be one of ${schema.enum.map((e) => canonicalJson(e)).join(", ")}`);
  }
  if (Object.hasOwn(schema, "const") && canonicalJson(schema.const) !== canonicalJson(value)) {
    issue("const", `must be ${canonicalJson(schema.const)}`);
  }
  if (Array.isArray(schema.anyOf)) {
    const ok = schema.anyOf.some((branch) => {
      const sub = [];
      validate(root, branch, value, path, sub, depth + 1);
      return sub.length === 0;
    });
    if (!ok) issue("anyOf", "must match at least one of the allowed shapes");
  }
  if (typeof value === "string") {
    const n = (schema.minLength !== undefined || schema.maxLength !== undefined) ? charCount(value) : 0;
    if (typeof schema.minLength === "number" && n < schema.minLength) issue("minLength", `must be at least ${schema.minLength} characters`);
    if (typeof schema.maxLength === "number" && n > schema.maxLength) issue("maxLength", `must be at most ${schema.maxLength} characters`);
    if (typeof schema.pattern === "string") {
      const re = compilePattern(schema.pattern);
      if (re === null) issue("pattern", "the schema's pattern is not a valid regular expression");
      else if (!re.test(value)) issue("pattern", `must match the pattern ${schema.pattern}`);
    }
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) issue("minimum", `must be at least ${schema.minimum}`);
    if (typeof schema.maximum === "number" && value > schema.maximum) issue("maximum", `must be at most ${schema.maximum}`);
    if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum) issue("exclusiveMinimum", `must be greater than ${schema.exclusiveMinimum}`);
    if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum) issue("exclusiveMaximum", `must be less than ${schema.exclusiveMaximum}`);
    if (typeof schema.multipleOf === "number" && schema.multipleOf > 0 && !Number.isInteger(value / schema.multipleOf)) issue("multipleOf", `must be a multiple of ${schema.multipleOf}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) issue("minItems", `must have at least ${schema.minItems} items`);
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) issue("maxItems", `must have at most ${schema.maxItems} items`);
    if (schema.uniqueItems === true) {
      const seen = new Set();
      for (const item of value) {
        const c = canonicalJson(item);
        if (seen.has(c)) {
          issue("uniqueItems", "must not contain duplicate items");
          break;
        }
        seen.add(c);
      }
    }
    if (isPlainObject(schema.items)) value.forEach((item, i) => validate(root, schema.items, item, appendPointer(path, i), out, depth + 1));
  }
  if (isPlainObject(value)) {
    const props = isPlainObject(schema.properties) ? schema.properties : {};
    if (Array.isArray(schema.required)) {
      for (const name of schema.required) if (!Object.hasOwn(value, name)) issue("required", `missing required property "${name}"`);
    }
    if (schema.additionalProperties === false) {
      for (const name of Object.keys(value)) if (!Object.hasOwn(props, name)) issue("additionalProperties", `unknown property "${name}"`);
    }
    for (const [name, sub] of Object.entries(props)) {
      if (Object.hasOwn(value, name)) validate(root, sub, value[name], appendPointer(path, name), out, depth + 1);
    }
  }
}

function schemaError(issues) {
  const first = issues[0];
  const where = first.path === "" ? "" : `${first.path}: `;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? "s" : ""})` : "";
  return new AgentSchemaError(`invalid value: ${where}${first.message}${more}`, issues);
}

function frozenJsonSchema(schema, who) {
  if (!isPlainObject(schema)) throw new AgentSurfaceDefinitionError(`${who}: the JSON Schema must be a JSON object`);
  try {
    return deepFreeze(cloneJson(schema));
  } catch (e) {
    throw new AgentSurfaceDefinitionError(`${who}: the JSON Schema is not JSON: ${e.message}`);
  }
}

/**
 * An AgentSchema from a raw JSON Schema. `parse` checks the value is JSON and then the structural
 * keywords: type, enum, const, anyOf, $ref (#/$defs/...), properties, required,
 * additionalProperties: false, items, minItems, maxItems, uniqueItems, minLength, maxLength,
 * pattern, minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf. It does not assert
 * `format`, apply `default`s, or refuse keywords outside the subset (the compiler and the
 * registry do). It returns the value unchanged.
 */
export function fromJsonSchema(schema) {
  const jsonSchema = frozenJsonSchema(schema, "fromJsonSchema");
  return Object.freeze({
    jsonSchema,
    parse(value) {
      try {
        cloneJson(value);
      } catch (e) {
        throw new AgentSchemaError("invalid value: not a JSON value", [{ path: "", keyword: "json", message: "must be a JSON value" }]);
      }
      const issues = [];
      validate(jsonSchema, jsonSchema, value, "", issues, 0);
      if (issues.length > 0) throw schemaError(issues);
      return value;
    },
  });
}

function standardPath(path) {
  if (!Array.isArray(path)) return "";
  return path.map((seg) => (seg !== null && typeof seg === "object" ? seg.key : seg)).reduce((p, seg) => appendPointer(p, typeof seg === "symbol" ? seg.description ?? "" : seg), "");
}

/**
 * Wraps a Standard Schema (https://standardschema.dev): validation through
 * `schema["~standard"].validate`, the agent-visible JSON Schema given explicitly. Async
 * validators are refused at parse time (parse is synchronous).
 */
export function fromStandardSchema(schema, options) {
  const std = schema?.["~standard"];
  if (std === null || typeof std !== "object" || typeof std.validate !== "function") {
    throw new AgentSurfaceDefinitionError('fromStandardSchema: not a Standard Schema (no "~standard".validate)');
  }
  if (options === null || typeof options !== "object" || !Object.hasOwn(options, "jsonSchema")) {
    throw new AgentSurfaceDefinitionError("fromStandardSchema: pass { jsonSchema } explicitly (core does not convert schemas)");
  }
  const jsonSchema = frozenJsonSchema(options.jsonSchema, "fromStandardSchema");
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
      return result.value;
    },
  });
}

const EMPTY_OBJECT_SCHEMA = { type: "object", properties: {}, additionalProperties: false };

/** `{"type":"object","properties":{},"additionalProperties":false}`: accepts `{}` only. */
export const emptyObjectSchema = fromJsonSchema(EMPTY_OBJECT_SCHEMA);
