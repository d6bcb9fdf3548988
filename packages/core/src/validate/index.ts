// The JSON Schema subset: its checker (crates/schema/src/subset) and its validator
// (crates/schema/src/validate), in one walk. Compiling a schema checks it against the subset and
// the limits (every violation, in document order, with the Rust pointer, message and help; every
// `pattern` compiled with the page's RegExp) while it builds one node per subschema; a schema
// inside the subset is then refused for a `$ref` loop that never descends (the Rust compiler's
// node order and search), else `validate` checks a value and returns the effective value (a fresh
// copy, `default`s filled in) or every issue with the Rust validator's paths, keywords, messages
// and order.
//
// Semantics are draft 2020-12 for the subset's keywords, formats asserted, ajv-style defaults: a
// node first inserts its properties' missing defaults, then runs `$ref`/`anyOf` (which may insert
// more), then its other keywords (so `required` sees every default); issues are reported in the
// keywords' document order. Document order is serde_json's: keys sorted by code point, which is
// also the order of `properties` and of an object's unknown keys. See docs/validator.md.

import type { SchemaViolation } from "../errors.js";
import { canonicalText } from "../model/canonical.js";
import { appendPointer, byCodePoint, copyJson, isPlainObject, NotJson, rustKeys, setKey, utf8Length } from "../model/json.js";
import { DEFAULT_LIMITS } from "../model/limits.js";
import type { JsonSchema, JsonValue } from "../types.js";
import { isDate, isDateTime, isEmail, isUri, isUuid } from "./formats.js";
import { firstDuplicate, isMultipleOf, jsonEqual } from "./number.js";
import { compilePattern } from "./pattern.js";

/** One reason a value is invalid: `path` is an RFC 6901 pointer into the value. */
export interface ValidationIssue {
  path: string;
  keyword: string;
  message: string;
}

export type ValidationResult = { ok: true; value: JsonValue } | { ok: false; issues: ValidationIssue[] };

export interface Validator {
  /** The schema compiled (not copied: callers hand in a frozen copy). */
  readonly schema: JsonSchema;
  /**
   * Validates `value`: the effective value (a fresh JSON copy, defaults applied) or every issue.
   * A value JSON cannot carry (a function, NaN, a cycle, a class instance, ...) gives the one
   * issue `{ path: "", keyword: "json", message: "must be a JSON value" }`.
   */
  validate(value: unknown): ValidationResult;
}

/** The two limits a schema is checked against. */
export interface SchemaLimits {
  maxSchemaDepth: number;
  maxSchemaBytes: number;
}

/** The schema is outside the subset (or has an invalid pattern, or a `$ref` loop): every violation. */
export class SchemaCompileError extends Error {
  override readonly name = "SchemaCompileError";
  readonly violations: SchemaViolation[];

  constructor(violations: SchemaViolation[]) {
    const first = violations[0];
    super(`the JSON Schema is outside the supported subset at ${first?.pointer || "the root"}: ${first?.message ?? ""}`);
    this.violations = violations;
  }
}

/** Instance nesting below which a recursive schema stops descending (reported as an issue). */
const MAX_INSTANCE_DEPTH = 128;
const ANY_OF = "must match at least one of the allowed alternatives (anyOf)";

// ---------------------------------------------------------------------------------------------
// The subset's words.

const SUPPORTED_KEYWORDS =
  "type, enum, const, properties, required, additionalProperties, items, minItems, maxItems, uniqueItems, minLength, maxLength, pattern, format, minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, anyOf, $defs, $ref, $schema, description, title, default, examples, deprecated";
const DIALECT = "https://json-schema.org/draft/2020-12/schema";
const ANY_OF_TAGGED = "use anyOf with const-tagged branches";
const ROOT_DEFS = `put shared schemas in the root $defs and use "$ref": "#/$defs/<name>"`;
const TUPLES = "tuples are not supported: use an object with named properties";

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
    prefixItems: `${TUPLES}, or an array with a single items schema (zod: z.object instead of z.tuple)`,
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

/** Type names: their bit in a `type` keyword's set, and how a message says "must be" one. */
const TYPES: Record<string, [number, string]> = {
  object: [4, "an object"],
  array: [8, "an array"],
  string: [64, "a string"],
  number: [16, "a number"],
  integer: [32, "an integer"],
  boolean: [2, "a boolean"],
  null: [1, "null"],
};
const TYPE_NAMES = Object.keys(TYPES);

const FORMATS: Record<string, [(s: string) => boolean, string]> = {
  "date-time": [isDateTime, 'must be a date-time (RFC 3339, e.g. "2024-01-31T09:30:00Z" or "2024-01-31T09:30:00+01:00")'],
  date: [isDate, 'must be a date (RFC 3339 full-date YYYY-MM-DD, e.g. "2024-01-31")'],
  uuid: [isUuid, "must be a UUID (8-4-4-4-12 hexadecimal digits)"],
  email: [isEmail, "must be an email address"],
  uri: [isUri, 'must be an absolute URI with a scheme (e.g. "https://example.com/a")'],
};
export const SUPPORTED_FORMATS = Object.keys(FORMATS);

const NUMBER_WORDS: Record<string, string> = {
  minimum: "greater than or equal to",
  maximum: "less than or equal to",
  exclusiveMinimum: "greater than",
  exclusiveMaximum: "less than",
  multipleOf: "a multiple of",
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const pointerOf = (segments: readonly (string | number)[]): string => segments.reduce<string>(appendPointer, "");

const typeName = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "object" ? "object" : typeof v === "boolean" ? "boolean" : typeof v;

// ---------------------------------------------------------------------------------------------
// Compiled form: one node per subschema, its validating keywords in document order.

/** A validating keyword: `k` the keyword, `v` what it checks against, `x` the type names of `type` (see `compile`). */
interface Kw {
  k: string;
  v: any;
  x?: any;
}

interface Node {
  kws: Kw[];
  /** `[property, default]` of each `properties` subschema that has one, in property order. */
  defaults: [string, unknown][];
  /** Some keyword is `$ref` or `anyOf` (run first, see evalNode). */
  apps: boolean;
  /** The subschemas compiled under this one (properties, items, anyOf; not $defs), in document order. */
  kids: Node[];
  /** Its same-value edges: [target, keyword index, pointer of a `$ref` or null for an anyOf branch]. */
  edges: [Node, number, string | null][];
}

interface Compiled {
  root: Node;
  /** How many nodes (the evaluation budget scales with it). */
  size: number;
  /** Some node has defaults (anyOf then evaluates branches on copies). */
  hasDefaults: boolean;
  /** Every property name with a default somewhere (the anyOf pre-check cannot require them). */
  defaulted: Set<string>;
}

const newNode = (): Node => ({ kws: [], defaults: [], apps: false, kids: [], edges: [] });

/** The `$defs` name of `#/$defs/<name>` (`~1` then `~0` decoded), or undefined. */
function refName(v: string): string | undefined {
  const n = v.startsWith("#/$defs/") ? v.slice(8) : "";
  return n === "" || n.includes("/") ? undefined : n.replace(/~1/g, "/").replace(/~0/g, "~");
}

/**
 * Checks `schema` against the subset and `limits` and compiles it: every violation in document
 * order (crates/schema/src/subset `check_schema`), and the compiled nodes (meaningful only
 * when there is none).
 */
function compile(schema: unknown, limits: SchemaLimits, loops = true): { violations: SchemaViolation[]; c: Compiled } {
  const out: SchemaViolation[] = [];
  const push = (pointer: string, message: string, help: string | null = null) => out.push({ pointer, message, help });
  const invalid = (pointer: string, keyword: string, expected: string, help: string | null = null) => push(pointer, `"${keyword}" must be ${expected}`, help);
  const bytes = utf8Length(canonicalText(schema));
  if (bytes > limits.maxSchemaBytes) {
    push("", `schema is ${bytes} bytes as canonical JSON; at most ${limits.maxSchemaBytes} are allowed`, "split the capability, shorten descriptions, or move repeated parts into $defs");
  }
  const defsOf = isPlainObject(schema) && isPlainObject(schema.$defs) ? schema.$defs : {};
  // Every definition gets its node up front (the Rust compiler reserves them first).
  const defs = new Map(rustKeys(defsOf).map((name) => [name, newNode()]));
  let size = defs.size;
  const defaulted = new Set<string>();
  const typeNameAt = (name: string, ptr: string) => {
    if (!Object.hasOwn(TYPES, name)) push(ptr, `unknown type "${name}"`, `type names: ${TYPE_NAMES.join(", ")}`);
  };
  /** A subschema under `n` (a fresh node, or the definition's). */
  const sub = (n: Node, s: unknown, ptr: string, level: number): Node => {
    const child = walk(s, ptr, level + 1);
    n.kids.push(child);
    return child;
  };
  /** One keyword of `s` (its node `n`, `k` its index in key order): its subset check and its compiled form. */
  const keyword = (key: string, value: unknown, ptr: string, level: number, s: Record<string, unknown>, n: Node, k: number): Kw | undefined => {
    const isRoot = level === 1;
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
        const names = (Array.isArray(value) ? value : [value]).filter((t): t is string => typeof t === "string" && Object.hasOwn(TYPES, t));
        return { k: key, v: names.reduce((b, t) => b | TYPES[t]![0], 0), x: names };
      }
      case "enum":
        if (!Array.isArray(value) || value.length === 0) invalid(ptr, key, "a non-empty array");
        return { k: key, v: Array.isArray(value) ? value : [] };
      case "const":
        return { k: key, v: value };
      case "default":
        return undefined;
      case "description":
      case "title":
      case "pattern": {
        if (typeof value !== "string") return void invalid(ptr, key, "a string");
        if (key !== "pattern") return undefined;
        const re = compilePattern(value);
        if (typeof re !== "string") return { k: key, v: re, x: value };
        push(
          ptr,
          `"pattern" is not a valid ECMAScript regular expression: ${re}`,
          "patterns use ECMAScript syntax in unicode mode (the `u` flag JSON Schema validators use): escape a literal `]`, `}` or `{`, and escape only punctuation",
        );
        return undefined;
      }
      case "examples":
        if (!Array.isArray(value)) invalid(ptr, key, "an array");
        return undefined;
      case "deprecated":
      case "uniqueItems":
        if (typeof value !== "boolean") invalid(ptr, key, "a boolean");
        return key === "uniqueItems" && value === true ? { k: key, v: true } : undefined;
      case "$defs":
        if (!isRoot) {
          push(ptr, `"$defs" is only allowed at the schema root`, `move the definitions to the root schema's $defs and reference them with "$ref": "#/$defs/<name>"`);
        } else if (isPlainObject(value)) {
          for (const name of rustKeys(value)) walk(value[name], appendPointer(ptr, name), level + 1, defs.get(name));
        } else invalid(ptr, key, "an object mapping names to schemas");
        return undefined;
      case "properties": {
        if (!isPlainObject(value)) return void invalid(ptr, key, "an object mapping property names to schemas");
        const props: [string, Node][] = [];
        for (const name of rustKeys(value)) {
          const p = value[name];
          if (isPlainObject(p) && Object.hasOwn(p, "default")) {
            n.defaults.push([name, p.default]);
            defaulted.add(name);
          }
          props.push([name, sub(n, p, appendPointer(ptr, name), level)]);
        }
        return { k: key, v: props };
      }
      case "required":
        if (!Array.isArray(value)) return void invalid(ptr, key, "an array of property names");
        {
          const seen = new Set<string>();
          value.forEach((item, i) => {
            const at = appendPointer(ptr, i);
            if (typeof item !== "string") invalid(at, key, "an array of property names");
            else if (seen.has(item)) invalid(at, key, "an array of distinct property names");
            else seen.add(item);
          });
        }
        return { k: key, v: value.filter((x): x is string => typeof x === "string") };
      case "additionalProperties":
        if (typeof value !== "boolean") {
          push(
            ptr,
            `"additionalProperties" must be true or false, found ${isPlainObject(value) ? "a schema" : typeName(value)}`,
            "list every allowed key under properties and set additionalProperties to false (zod: z.object instead of z.record, .catchall() or .passthrough())",
          );
        }
        return value === false ? { k: key, v: new Set(isPlainObject(s.properties) ? Object.keys(s.properties) : []) } : undefined;
      case "items":
        if (Array.isArray(value)) return void invalid(ptr, key, "a single schema", `${TUPLES} (zod: z.object instead of z.tuple)`);
        return { k: key, v: sub(n, value, ptr, level) };
      case "minItems":
      case "maxItems":
      case "minLength":
      case "maxLength":
        if (!(Number.isInteger(value) && (value as number) >= 0)) invalid(ptr, key, "a non-negative integer");
        return { k: key, v: typeof value === "number" ? value : 0 };
      case "format":
        if (typeof value !== "string") return void invalid(ptr, key, "a string");
        if (Object.hasOwn(FORMATS, value)) return { k: key, v: value };
        push(ptr, `format "${value}" is not supported`, `supported formats: ${SUPPORTED_FORMATS.join(", ")}; otherwise use pattern, or describe the format in description`);
        return undefined;
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum":
      case "multipleOf":
        if (typeof value === "number" && (key !== "multipleOf" || value > 0)) return { k: key, v: value };
        if (key === "multipleOf") invalid(ptr, key, "a number greater than 0");
        else if (typeof value === "boolean" && key.startsWith("ex")) {
          const bound = key === "exclusiveMinimum" ? "minimum" : "maximum";
          invalid(ptr, key, "a number", `the boolean draft-04 form is not supported; write "${key}": <number> instead of "${bound}" + "${key}": true`);
        } else invalid(ptr, key, "a number");
        return undefined;
      case "anyOf":
        if (!Array.isArray(value) || value.length === 0) return void invalid(ptr, key, "a non-empty array of schemas");
        return {
          k: key,
          v: value.map((b, i) => {
            const branch = sub(n, b, appendPointer(ptr, i), level);
            n.edges.push([branch, k, null]);
            return branch;
          }),
        };
      case "$ref": {
        if (typeof value !== "string") return void invalid(ptr, key, `a string of the form "#/$defs/<name>"`);
        const name = refName(value);
        const target = name === undefined ? undefined : defs.get(name);
        if (name === undefined) {
          push(ptr, `"$ref": "${value}" is not supported; only "#/$defs/<name>" references are`, "put the referenced schema in the root $defs (remote references are refused)");
        } else if (!target) {
          push(ptr, `"$ref": "${value}" does not resolve: the root $defs has no "${name}"`, `add "${name}" to the root schema's $defs`);
        } else {
          n.edges.push([target, k, ptr]);
          return { k: key, v: target };
        }
        return undefined;
      }
      case "$schema":
        if (!isRoot) push(ptr, `"$schema" is only allowed at the schema root`, "remove it from this subschema");
        else if (value !== DIALECT && value !== `${DIALECT}#`) {
          invalid(ptr, key, `"${DIALECT}"`, "the supported subset is JSON Schema draft 2020-12 (zod: z.toJSONSchema's default target)");
        }
        return undefined;
      default:
        push(ptr, `unsupported keyword "${key}"`, unsupportedHelp(key));
        return undefined;
    }
  };
  /** The subschema `s` at `ptr` (`level` 1 for the root), into `n` (a definition's node) or a fresh one. */
  const walk = (s: unknown, ptr: string, level: number, def?: Node): Node => {
    const n = def ?? (size++, newNode());
    if (typeof s === "boolean") {
      push(ptr, `boolean schema \`${s}\` is not supported; a schema must be a JSON object`, s ? "use {} to accept any value" : "remove the property or array instead of forbidding it with false");
    } else if (!isPlainObject(s)) {
      push(ptr, `a schema must be a JSON object, found ${typeName(s)}`);
    } else if (level > limits.maxSchemaDepth) {
      push(ptr, `schema is nested ${level} levels deep here; at most ${limits.maxSchemaDepth} are allowed (the root schema is level 1)`, "flatten the structure");
    } else {
      rustKeys(s).forEach((key, k) => {
        const kw = keyword(key, s[key], appendPointer(ptr, key), level, s, n, k);
        if (kw) {
          n.kws.push(kw);
          if (key === "$ref" || key === "anyOf") n.apps = true;
        }
      });
    }
    return n;
  };
  const root = walk(schema, "", 1);
  if (loops && out.length === 0 && defs.size > 0) out.push(...refLoops(root, defs));
  return { violations: out, c: { root, size, hasDefaults: defaulted.size > 0, defaulted } };
}

/**
 * The `$ref` loops of a schema inside the subset that never descend into a property or an item:
 * a validator would apply them to the same value forever. Nodes are numbered as the Rust
 * compiler numbers them (every definition first, the root and its subschemas, then the
 * definitions' bodies last-first), and the loops its depth-first search finds are reported in
 * its order, at the `$ref` that closes them.
 */
function refLoops(root: Node, defs: Map<string, Node>): SchemaViolation[] {
  const order = [...defs.values()];
  const preorder = (n: Node): void => void (order.push(n), n.kids.forEach(preorder));
  preorder(root);
  for (const d of [...defs.values()].reverse()) d.kids.forEach(preorder);
  const ids = new Map(order.map((n, i) => [n, i]));
  // 0 unvisited, 1 on the stack, 2 done.
  const state = order.map(() => 0);
  const found: [number, number, string | null][] = [];
  const visit = (i: number) => {
    state[i] = 1;
    for (const [target, k, at] of order[i]!.edges) {
      const t = ids.get(target)!;
      if (state[t] === 0) visit(t);
      else if (state[t] === 1) found.push([i, k, at]);
    }
    state[i] = 2;
  };
  state.forEach((s, i) => s === 0 && visit(i));
  found.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return found
    .filter(([i, k], j) => j === 0 || found[j - 1]![0] !== i || found[j - 1]![1] !== k)
    .map(([i, k, at]) => {
      const target = at === null ? undefined : order[i]!.edges.find((e) => e[1] === k)?.[0];
      const name = [...defs].find(([, d]) => d === target)?.[0] ?? "";
      return {
        pointer: at ?? "",
        message: `"$ref" to "${name}" leads back to a schema already applied to the same value, so validation would never finish`,
        help: `a recursive definition must recurse through properties or items, e.g. {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}`,
      };
    });
}

/**
 * Checks `schema` against the supported subset and the size/depth limits: every violation in
 * document order; empty means accepted (crates/schema/src/subset `check_schema`). Without the
 * `$ref` loops, which schemaViolations adds.
 */
export function checkSubset(schema: unknown, limits: SchemaLimits = DEFAULT_LIMITS): SchemaViolation[] {
  return compile(schema, limits, false).violations;
}

/**
 * What compiling a schema into a validator refuses (crates/schema `Validator::check`): the subset
 * checker's violations, or, for a schema inside the subset, its `$ref` loops.
 */
export function schemaViolations(schema: unknown, limits: SchemaLimits = DEFAULT_LIMITS): SchemaViolation[] {
  return compile(schema, limits).violations;
}

/** A JSON string literal for messages, cut after 64 code points (with `…`). */
function quote(s: string): string {
  const cut = [...s.slice(0, 256)];
  if (cut.length <= 64) return JSON.stringify(s);
  return `${JSON.stringify(cut.slice(0, 64).join("")).slice(0, -1)}…"`;
}

/** Code points of `s` (a lone surrogate is one). */
function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const count = (n: number, noun: string): string => `${n >= 2 ** 64 ? "18446744073709551615" : String(n)} ${noun}${n === 1 ? "" : "s"}`;

const shown = (text: string, prefix: string, otherwise: string): string => (codePoints(text) <= 200 ? prefix + text : otherwise);

/** The message of a failed leaf keyword. */
function message(kw: Kw): string {
  const { k, v } = kw;
  switch (k) {
    case "type": {
      const phrases = (kw.x as string[]).map((t) => TYPES[t]![1]);
      return `must be ${phrases.length === 0 ? "of no type" : phrases.length === 1 ? phrases[0]! : `${phrases.slice(0, -1).join(", ")} or ${phrases.at(-1)!}`}`;
    }
    case "enum":
      return shown((v as unknown[]).map(canonicalText).join(", "), "must be one of: ", "must be one of the allowed values");
    case "const":
      return shown(canonicalText(v), "must be ", "must be the value the schema specifies");
    case "pattern":
      return `must match the pattern ${quote(kw.x)}`;
    case "format":
      return FORMATS[v]![1];
    case "minItems":
    case "maxItems":
    case "minLength":
    case "maxLength": {
      const items = k.endsWith("Items");
      return `must ${items ? "have" : "be"} at ${k.startsWith("min") ? "least" : "most"} ${count(v, items ? "item" : "character")}`;
    }
    default:
      return `must be ${NUMBER_WORDS[k]!} ${String(v)}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Values: the JSON copy validated in place, and the defaults' copies.

/** A deep copy of a JSON value. */
function clone(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) return v.map(clone);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) setKey(out, k, clone((v as Record<string, unknown>)[k]));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Evaluation (the Rust validator's reference evaluation, `eval.rs`).

interface Run {
  c: Compiled;
  /** Pointer segments from the root to the value being checked. */
  path: (string | number)[];
  /** Node evaluations left: 10,000 + 4 per (value of the input, node of the schema). */
  left: number;
  exhaustedAt: string | null;
}

const issue = (path: readonly (string | number)[], keyword: string, message: string): ValidationIssue => ({ path: pointerOf(path), keyword, message });

/** One unit of work; false once the budget is spent (where it ran out is recorded). */
function spend(run: Run): boolean {
  if (run.left > 0) {
    run.left--;
    return true;
  }
  run.exhaustedAt ??= pointerOf(run.path);
  return false;
}

const isCompound = (v: unknown): boolean => typeof v === "object" && v !== null;

/**
 * Applies `node` to `value` (which it may change: defaults are inserted into objects), issues
 * to `out`: the node's own defaults first, then `$ref`/`anyOf`, then the other keywords, with
 * issues in keyword order.
 */
function evalNode(run: Run, node: Node, value: unknown, out: ValidationIssue[]): void {
  if (!spend(run)) return;
  if (run.path.length > MAX_INSTANCE_DEPTH && isCompound(value)) {
    out.push(issue(run.path, "$ref", `is nested too deeply (at most ${MAX_INSTANCE_DEPTH} levels are checked)`));
    return;
  }
  let injected: string[] | undefined;
  if (node.defaults.length > 0 && isObject(value)) {
    for (const [name, d] of node.defaults) {
      if (!Object.hasOwn(value, name)) {
        setKey(value, name, clone(d));
        (injected ??= []).push(name);
      }
    }
  }
  if (!node.apps) {
    for (const kw of node.kws) keyword(run, kw, value, out, injected);
    return;
  }
  const early = node.kws.map((kw) => {
    if (kw.k !== "$ref" && kw.k !== "anyOf") return undefined;
    const issues: ValidationIssue[] = [];
    keyword(run, kw, value, issues, injected);
    return issues;
  });
  node.kws.forEach((kw, i) => {
    const done = early[i];
    if (done !== undefined) out.push(...done);
    else keyword(run, kw, value, out, injected);
  });
}

function keyword(run: Run, kw: Kw, value: unknown, out: ValidationIssue[], injected: string[] | undefined): void {
  switch (kw.k) {
    case "properties":
      if (isObject(value)) {
        for (const [name, to] of kw.v as [string, Node][]) {
          if (!Object.hasOwn(value, name)) continue;
          run.path.push(name);
          // An inserted default is the schema author's value: its subschema runs only to fill
          // in nested defaults; its issues are dropped.
          evalNode(run, to, value[name], injected?.includes(name) ? [] : out);
          run.path.pop();
        }
      }
      return;
    case "items":
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          run.path.push(i);
          evalNode(run, kw.v, value[i], out);
          run.path.pop();
        }
      }
      return;
    case "anyOf":
      return anyOf(run, kw.v, value, out);
    case "$ref":
      return evalNode(run, kw.v, value, out);
    default:
      return check(kw, value, run.path, out);
  }
}

function hasType(v: unknown, bits: number): boolean {
  switch (typeof v) {
    case "string":
      return (bits & 64) !== 0;
    case "boolean":
      return (bits & 2) !== 0;
    case "number":
      return (bits & 16) !== 0 || ((bits & 32) !== 0 && Number.isInteger(v));
    default:
      return (bits & (v === null ? 1 : Array.isArray(v) ? 8 : 4)) !== 0;
  }
}

/** The verdict of a leaf keyword (applicators and keywords of other value types pass). */
function passes({ k, v }: Kw, x: unknown): boolean {
  if (k === "type") return hasType(x, v);
  if (k === "enum") return (v as unknown[]).some((e) => jsonEqual(e, x));
  if (k === "const") return jsonEqual(v, x);
  if (Array.isArray(x)) return k === "minItems" ? x.length >= v : k !== "maxItems" || x.length <= v;
  if (typeof x === "string") {
    switch (k) {
      case "minLength":
        return x.length >= v && codePoints(x) >= v;
      case "maxLength":
        return x.length <= v || codePoints(x) <= v;
      case "pattern":
        return (v as RegExp).test(x);
      case "format":
        return FORMATS[v]![0](x);
    }
  }
  if (typeof x === "number") {
    switch (k) {
      case "minimum":
        return x >= v;
      case "maximum":
        return x <= v;
      case "exclusiveMinimum":
        return x > v;
      case "exclusiveMaximum":
        return x < v;
      case "multipleOf":
        return isMultipleOf(x, v);
    }
  }
  return true;
}

/** Leaf assertions (no recursion). */
function check(kw: Kw, v: unknown, path: readonly (string | number)[], out: ValidationIssue[]): void {
  if (kw.k === "required") {
    if (isObject(v)) for (const name of kw.v as string[]) if (!Object.hasOwn(v, name)) out.push(issue(path, "required", `must have the required property ${quote(name)}`));
  } else if (kw.k === "additionalProperties") {
    if (isObject(v)) {
      const unknown = Object.keys(v).filter((k) => !(kw.v as Set<string>).has(k));
      for (const k of unknown.sort(byCodePoint)) out.push(issue(path, "additionalProperties", `must not have the property ${quote(k)} (unknown property)`));
    }
  } else if (kw.k === "uniqueItems") {
    const dup = Array.isArray(v) ? firstDuplicate(v) : null;
    if (dup !== null) out.push(issue(path, "uniqueItems", `must not contain duplicate items (items ${dup[0]} and ${dup[1]} are equal)`));
  } else if (!passes(kw, v)) out.push(issue(path, kw.k, message(kw)));
}

/**
 * The first alternative that matches wins, and its defaults are kept. Alternatives first get the
 * cheap `quick` check; only those passing it are evaluated fully (a recursive discriminated union
 * costs linear time). If none matches: the issues of the fully evaluated ones, or, when the quick
 * check rejected all, those of the alternatives with the fewest quick-check issues; then `anyOf`.
 */
function anyOf(run: Run, branches: Node[], value: unknown, out: ValidationIssue[]): void {
  const candidates: Node[] = [];
  const rejected: ValidationIssue[][] = [];
  for (const b of branches) {
    const issues: ValidationIssue[] = [];
    quick(run, b, value, issues, true);
    if (issues.length === 0) candidates.push(b);
    else rejected.push(issues);
  }
  const failed: ValidationIssue[] = [];
  for (const b of candidates) {
    if (run.exhaustedAt !== null) return;
    const issues: ValidationIssue[] = [];
    // With defaults, a copy: a failing alternative leaves no defaults behind.
    const candidate = run.c.hasDefaults ? clone(value) : value;
    evalNode(run, b, candidate, issues);
    if (issues.length === 0 && run.exhaustedAt === null) {
      if (candidate !== value && isCompound(value)) {
        const from = candidate as Record<string, unknown>;
        for (const k of Object.keys(from)) setKey(value as Record<string, unknown>, k, from[k]);
      }
      return;
    }
    failed.push(...issues);
  }
  if (candidates.length === 0) {
    const fewest = Math.min(...rejected.map((r) => r.length));
    for (const r of rejected) if (r.length === fewest) out.push(...r);
  } else out.push(...failed);
  out.push(issue(run.path, "anyOf", ANY_OF));
}

/**
 * Sound pre-check of `node` for anyOf: an issue only where full evaluation would certainly
 * report one. The node's own assertions (through `$ref` and `anyOf`) and, when `descend`, those of
 * the subschemas of present properties; never deeper. Left to the full evaluation: `required` of a
 * name with a default somewhere, and `enum`/`const`/`uniqueItems` on compound values when the
 * schema has defaults.
 */
function quick(run: Run, node: Node, value: unknown, out: ValidationIssue[], descend: boolean): void {
  if (!spend(run)) return;
  const { c } = run;
  for (const kw of node.kws) {
    switch (kw.k) {
      case "$ref":
        quick(run, kw.v, value, out, descend);
        break;
      case "anyOf":
        if (
          !(kw.v as Node[]).some((b) => {
            const issues: ValidationIssue[] = [];
            quick(run, b, value, issues, descend);
            return issues.length === 0;
          })
        )
          out.push(issue(run.path, "anyOf", ANY_OF));
        break;
      case "properties":
        if (descend && isObject(value)) {
          for (const [name, to] of kw.v as [string, Node][]) {
            if (!Object.hasOwn(value, name)) continue;
            run.path.push(name);
            quick(run, to, value[name], out, false);
            run.path.pop();
          }
        }
        break;
      case "items":
        break;
      case "required":
        if (isObject(value)) for (const name of kw.v as string[]) if (!Object.hasOwn(value, name) && !c.defaulted.has(name)) out.push(issue(run.path, "required", `must have the required property ${quote(name)}`));
        break;
      case "enum":
      case "const":
      case "uniqueItems":
        if (c.hasDefaults && isCompound(value)) break;
        check(kw, value, run.path, out);
        break;
      default:
        check(kw, value, run.path, out);
    }
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * Compiles `schema` (a JSON object; not copied, so hand in a frozen copy). Throws
 * SchemaCompileError with every violation when it is outside the subset (with `limits`), has a
 * pattern the page's RegExp refuses, or a `$ref` loop that never descends into the value.
 */
export function compileValidator(schema: JsonSchema, limits: SchemaLimits = DEFAULT_LIMITS): Validator {
  const { violations, c } = compile(schema, limits);
  if (violations.length > 0) throw new SchemaCompileError(violations);
  const nodeCount = Math.max(c.size, 1);
  return {
    schema,
    validate(value: unknown): ValidationResult {
      const st = { n: 0, a: [] };
      let copy: unknown;
      try {
        copy = copyJson(value, st);
      } catch (e) {
        if (e instanceof NotJson) return { ok: false, issues: [{ path: "", keyword: "json", message: "must be a JSON value" }] };
        throw e;
      }
      const run: Run = { c, path: [], left: 10_000 + st.n * nodeCount * 4, exhaustedAt: null };
      const issues: ValidationIssue[] = [];
      evalNode(run, c.root, copy, issues);
      if (run.exhaustedAt !== null) issues.push({ path: run.exhaustedAt, keyword: "anyOf", message: "is too complex to validate against this schema (evaluation budget exhausted)" });
      return issues.length === 0 ? { ok: true, value: copy as JsonValue } : { ok: false, issues };
    },
  };
}
