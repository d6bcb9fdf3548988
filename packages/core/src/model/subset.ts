// The supported JSON Schema subset (spec: "Supported JSON Schema subset";
// crates/schema/src/subset): every violation, in document order (keys in Rust's map order), with
// a JSON pointer into the schema, the Rust checker's message and help. Patterns are compiled by
// the page's RegExp in Unicode mode, whose message an invalid one carries.

import type { SchemaViolation } from "../errors.js";
import { canonicalJson } from "./canonical.js";
import { appendPointer, isPlainObject, rustKeys, utf8Length } from "./json.js";
import { DEFAULT_LIMITS } from "./limits.js";

export type { SchemaViolation };

/** The two limits a schema is checked against. */
export interface SchemaLimits {
  maxSchemaBytes: number;
  maxSchemaDepth: number;
}

export const SUPPORTED_FORMATS = ["date-time", "date", "uuid", "email", "uri"];
const SUPPORTED_KEYWORDS =
  "type, enum, const, properties, required, additionalProperties, items, minItems, maxItems, uniqueItems, minLength, maxLength, pattern, format, minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, anyOf, $defs, $ref, $schema, description, title, default, examples, deprecated";
export const TYPE_NAMES = ["object", "array", "string", "number", "integer", "boolean", "null"];
const DIALECT = "https://json-schema.org/draft/2020-12/schema";
const DEFS_REF = "#/$defs/";
const ANY_OF_TAGGED = "use anyOf with const-tagged branches";
const ROOT_DEFS = `put shared schemas in the root $defs and use "$ref": "#/$defs/<name>"`;

/** Help for a keyword outside the subset, naming the supported alternative where one exists. */
function unsupportedHelp(keyword: string): string {
  const help: Record<string, string> = {
    oneOf:
      "use anyOf; for a discriminated union give every branch a const-tagged property (zod: z.union of objects with z.literal tags instead of z.discriminatedUnion)",
    allOf: "merge the parts into one object schema (zod: .extend() instead of .and() or z.intersection)",
    not: "express the constraint positively (enum, anyOf) or check it in a precondition",
    if: `${ANY_OF_TAGGED}, or check the condition in a precondition`,
    patternProperties: "list the allowed keys explicitly under properties (zod: z.object instead of z.record)",
    dependentRequired: ANY_OF_TAGGED,
    unevaluatedProperties: "use additionalProperties: false",
    unevaluatedItems: "use a single items schema",
    prefixItems:
      "tuples are not supported: use an object with named properties, or an array with a single items schema (zod: z.object instead of z.tuple)",
    contains: "check it in a precondition; describe it in description",
    minProperties: "list the properties explicitly and mark the needed ones as required",
    definitions: `use $defs at the schema root and "$ref": "#/$defs/<name>"`,
    $id: ROOT_DEFS,
    contentEncoding: "binary values are unsupported; send a string such as a URL or an id",
    nullable: `use a type array such as ["string", "null"] (nullable is OpenAPI, not JSON Schema)`,
    readOnly: "remove it; the supported annotations are description, title, default, examples and deprecated",
  };
  const same: Record<string, string> = {
    then: "if",
    else: "if",
    propertyNames: "patternProperties",
    dependentSchemas: "dependentRequired",
    dependencies: "dependentRequired",
    additionalItems: "unevaluatedItems",
    minContains: "contains",
    maxContains: "contains",
    maxProperties: "minProperties",
    id: "$id",
    $anchor: "$id",
    $dynamicRef: "$id",
    $dynamicAnchor: "$id",
    $recursiveRef: "$id",
    $recursiveAnchor: "$id",
    $vocabulary: "$id",
    contentMediaType: "contentEncoding",
    contentSchema: "contentEncoding",
    writeOnly: "readOnly",
    $comment: "readOnly",
  };
  const key = Object.hasOwn(same, keyword) ? same[keyword]! : keyword;
  return Object.hasOwn(help, key) ? help[key]! : `supported keywords: ${SUPPORTED_KEYWORDS}`;
}

const typeName = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "object" ? "object" : typeof v === "boolean" ? "boolean" : typeof v;

/** The `$defs` name a `#/$defs/<name>` reference designates (`~1` then `~0` decoded), or null. */
const refName = (ref: string): string | null => {
  const n = ref.startsWith(DEFS_REF) ? ref.slice(DEFS_REF.length) : "";
  return n === "" || n.includes("/") ? null : n.replace(/~1/g, "/").replace(/~0/g, "~");
};

/** The root's `$defs` object, if it has one. */
const defsOf = (root: unknown): Record<string, unknown> | undefined => {
  const d = isPlainObject(root) ? root["$defs"] : undefined;
  return isPlainObject(d) ? d : undefined;
};

/** Why `new RegExp(source, "u")` refuses `source`, or null when it compiles. */
export function patternError(source: string): string | null {
  try {
    new RegExp(source, "u");
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * Checks `schema` against the supported subset and the size/depth limits: every violation in
 * document order; empty means accepted (crates/schema/src/subset `check_schema`).
 */
export function checkSubset(schema: unknown, limits: SchemaLimits = DEFAULT_LIMITS): SchemaViolation[] {
  const out: SchemaViolation[] = [];
  const push = (pointer: string, message: string, help: string | null = null) => out.push({ pointer, message, help });
  const invalid = (pointer: string, keyword: string, expected: string, help: string | null = null) =>
    push(pointer, `"${keyword}" must be ${expected}`, help);
  const bytes = utf8Length(canonicalJson(schema));
  if (bytes > limits.maxSchemaBytes) {
    push(
      "",
      `schema is ${bytes} bytes as canonical JSON; at most ${limits.maxSchemaBytes} are allowed`,
      "split the capability, shorten descriptions, or move repeated parts into $defs",
    );
  }
  const typeNameAt = (name: string, ptr: string) => {
    if (!TYPE_NAMES.includes(name)) push(ptr, `unknown type "${name}"`, `type names: ${TYPE_NAMES.join(", ")}`);
  };
  const keyword = (key: string, value: unknown, ptr: string, level: number, isRoot: boolean): void => {
    switch (key) {
      case "type": {
        const expected = "a type name or a non-empty array of type names";
        if (typeof value === "string") typeNameAt(value, ptr);
        else if (Array.isArray(value) && value.length > 0) {
          const seen = new Set<string>();
          value.forEach((item, i) => {
            const at = appendPointer(ptr, i);
            if (typeof item !== "string") invalid(at, "type", expected);
            else if (seen.has(item)) invalid(at, "type", "an array of distinct type names");
            else (seen.add(item), typeNameAt(item, at));
          });
        } else invalid(ptr, "type", expected);
        return;
      }
      case "enum":
        if (!Array.isArray(value) || value.length === 0) invalid(ptr, key, "a non-empty array");
        return;
      case "const":
      case "default":
        return;
      case "description":
      case "title":
      case "pattern":
        if (typeof value !== "string") invalid(ptr, key, "a string");
        else if (key === "pattern") {
          const e = patternError(value);
          if (e !== null) {
            push(
              ptr,
              `"pattern" is not a valid ECMAScript regular expression: ${e}`,
              "patterns use ECMAScript syntax in unicode mode (the `u` flag JSON Schema validators use): escape a literal `]`, `}` or `{`, and escape only punctuation",
            );
          }
        }
        return;
      case "examples":
        if (!Array.isArray(value)) invalid(ptr, key, "an array");
        return;
      case "deprecated":
      case "uniqueItems":
        if (typeof value !== "boolean") invalid(ptr, key, "a boolean");
        return;
      case "properties":
      case "$defs":
        if (key === "$defs" && !isRoot) {
          push(
            ptr,
            `"$defs" is only allowed at the schema root`,
            `move the definitions to the root schema's $defs and reference them with "$ref": "#/$defs/<name>"`,
          );
        } else if (isPlainObject(value)) {
          for (const name of rustKeys(value)) walk(value[name], appendPointer(ptr, name), level + 1);
        } else {
          invalid(ptr, key, key === "$defs" ? "an object mapping names to schemas" : "an object mapping property names to schemas");
        }
        return;
      case "required":
        if (!Array.isArray(value)) invalid(ptr, key, "an array of property names");
        else {
          const seen = new Set<string>();
          value.forEach((item, i) => {
            const at = appendPointer(ptr, i);
            if (typeof item !== "string") invalid(at, key, "an array of property names");
            else if (seen.has(item)) invalid(at, key, "an array of distinct property names");
            else seen.add(item);
          });
        }
        return;
      case "additionalProperties":
        if (typeof value !== "boolean") {
          push(
            ptr,
            `"additionalProperties" must be true or false, found ${isPlainObject(value) ? "a schema" : typeName(value)}`,
            "list every allowed key under properties and set additionalProperties to false (zod: z.object instead of z.record, .catchall() or .passthrough())",
          );
        }
        return;
      case "items":
        if (Array.isArray(value)) {
          invalid(ptr, key, "a single schema", "tuples are not supported: use an object with named properties (zod: z.object instead of z.tuple)");
        } else walk(value, ptr, level + 1);
        return;
      case "minItems":
      case "maxItems":
      case "minLength":
      case "maxLength":
        if (!(Number.isInteger(value) && (value as number) >= 0)) invalid(ptr, key, "a non-negative integer");
        return;
      case "format":
        if (typeof value !== "string") invalid(ptr, key, "a string");
        else if (!SUPPORTED_FORMATS.includes(value)) {
          push(
            ptr,
            `format "${value}" is not supported`,
            `supported formats: ${SUPPORTED_FORMATS.join(", ")}; otherwise use pattern, or describe the format in description`,
          );
        }
        return;
      case "minimum":
      case "maximum":
        if (typeof value !== "number") invalid(ptr, key, "a number");
        return;
      case "exclusiveMinimum":
      case "exclusiveMaximum":
        if (typeof value !== "number") {
          const bound = key === "exclusiveMinimum" ? "minimum" : "maximum";
          invalid(
            ptr,
            key,
            "a number",
            typeof value === "boolean"
              ? `the boolean draft-04 form is not supported; write "${key}": <number> instead of "${bound}" + "${key}": true`
              : null,
          );
        }
        return;
      case "multipleOf":
        if (!(typeof value === "number" && value > 0)) invalid(ptr, key, "a number greater than 0");
        return;
      case "anyOf":
        if (Array.isArray(value) && value.length > 0) value.forEach((sub, i) => walk(sub, appendPointer(ptr, i), level + 1));
        else invalid(ptr, key, "a non-empty array of schemas");
        return;
      case "$ref": {
        const name = typeof value === "string" ? refName(value) : null;
        if (typeof value !== "string") invalid(ptr, key, `a string of the form "#/$defs/<name>"`);
        else if (name === null) {
          push(
            ptr,
            `"$ref": "${value}" is not supported; only "#/$defs/<name>" references are`,
            "put the referenced schema in the root $defs (remote references are refused)",
          );
        } else if (!Object.hasOwn(defsOf(schema) ?? {}, name)) {
          push(ptr, `"$ref": "${value}" does not resolve: the root $defs has no "${name}"`, `add "${name}" to the root schema's $defs`);
        }
        return;
      }
      case "$schema":
        if (!isRoot) push(ptr, `"$schema" is only allowed at the schema root`, "remove it from this subschema");
        else if (value !== DIALECT && value !== `${DIALECT}#`) {
          invalid(ptr, key, `"${DIALECT}"`, "the supported subset is JSON Schema draft 2020-12 (zod: z.toJSONSchema's default target)");
        }
        return;
      default:
        push(ptr, `unsupported keyword "${key}"`, unsupportedHelp(key));
    }
  };
  /** The subschema at `ptr`; `level` is 1 for the root. */
  const walk = (s: unknown, ptr: string, level: number): void => {
    if (typeof s === "boolean") {
      push(
        ptr,
        `boolean schema \`${s}\` is not supported; a schema must be a JSON object`,
        s ? "use {} to accept any value" : "remove the property or array instead of forbidding it with false",
      );
    } else if (!isPlainObject(s)) {
      push(ptr, `a schema must be a JSON object, found ${typeName(s)}`);
    } else if (level > limits.maxSchemaDepth) {
      push(
        ptr,
        `schema is nested ${level} levels deep here; at most ${limits.maxSchemaDepth} are allowed (the root schema is level 1)`,
        "flatten the structure",
      );
    } else {
      for (const key of rustKeys(s)) keyword(key, s[key], appendPointer(ptr, key), level, ptr === "");
    }
  };
  walk(schema, "", 1);
  return out;
}

/**
 * The `$ref` loops of an accepted schema that never descend into a property or an item: a
 * validator would apply them to the same value forever. Nodes are numbered as the Rust compiler
 * numbers them (every definition first, the root and its subschemas, then the definitions' bodies
 * last-first), and the loops found by the same depth-first search are reported in its order.
 */
function refLoops(schema: Record<string, unknown>): SchemaViolation[] {
  const defs = defsOf(schema) ?? {};
  const defIds = new Map<string, number>();
  /** Per node: its same-value edges [target node, keyword index, pointer of a $ref or null]. */
  const edges: [number, number, string | null][][] = [];
  const pending: [number, string][] = [];
  for (const name of rustKeys(defs)) {
    defIds.set(name, edges.length);
    pending.push([edges.length, name]);
    edges.push([]);
  }
  const build = (id: number, s: Record<string, unknown>, ptr: string) => {
    rustKeys(s).forEach((key, k) => {
      const v = s[key];
      const at = appendPointer(ptr, key);
      if (key === "properties" && isPlainObject(v)) for (const n of rustKeys(v)) node(v[n], appendPointer(at, n));
      else if (key === "items") node(v, at);
      else if (key === "anyOf" && Array.isArray(v)) v.forEach((sub, i) => edges[id]!.push([node(sub, appendPointer(at, i)), k, null]));
      else if (key === "$ref" && typeof v === "string") {
        const target = defIds.get(refName(v) ?? "");
        if (target !== undefined) edges[id]!.push([target, k, at]);
      }
    });
  };
  const node = (s: unknown, ptr: string): number => {
    const id = edges.length;
    edges.push([]);
    if (isPlainObject(s)) build(id, s, ptr);
    return id;
  };
  node(schema, "");
  for (let p = pending.pop(); p; p = pending.pop()) {
    const body = defs[p[1]];
    if (isPlainObject(body)) build(p[0], body, `/$defs/${p[1].replace(/~/g, "~0").replace(/\//g, "~1")}`);
  }
  // 0 unvisited, 1 on the stack, 2 done.
  const state = edges.map(() => 0);
  const found: [number, number, string | null][] = [];
  const visit = (n: number) => {
    state[n] = 1;
    for (const [target, k, at] of edges[n]!) {
      if (state[target] === 0) visit(target);
      else if (state[target] === 1) found.push([n, k, at]);
    }
    state[n] = 2;
  };
  edges.forEach((_, n) => state[n] === 0 && visit(n));
  found.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const names = [...defIds].map(([name, id]) => [id, name] as const);
  return found
    .filter(([n, k], i) => i === 0 || found[i - 1]![0] !== n || found[i - 1]![1] !== k)
    .map(([n, k, at]) => {
      const target = at === null ? undefined : edges[n]!.find((e) => e[1] === k)?.[0];
      return {
        pointer: at ?? "",
        message: `"$ref" to "${names.find(([id]) => id === target)?.[1] ?? ""}" leads back to a schema already applied to the same value, so validation would never finish`,
        help: `a recursive definition must recurse through properties or items, e.g. {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}`,
      };
    });
}

/**
 * What compiling a schema into a validator refuses (crates/schema `Validator::check`): the subset
 * checker's violations, or, for a schema inside the subset, its `$ref` loops.
 */
export function schemaViolations(schema: unknown, limits: SchemaLimits = DEFAULT_LIMITS): SchemaViolation[] {
  const out = checkSubset(schema, limits);
  return out.length > 0 || !isPlainObject(schema) ? out : refLoops(schema);
}
