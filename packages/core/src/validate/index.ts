// The validator of the supported JSON Schema subset (crates/schema/src/validate): compiled once
// per schema (the subset checked, every `pattern` compiled with the page's RegExp, every
// `#/$defs/...` resolved, `$ref` loops that never descend refused), then `validate` checks a value
// and returns the effective value (a fresh copy, `default`s filled in) or every issue with the
// Rust validator's paths, keywords, messages and order.
//
// Semantics are draft 2020-12 for the subset's keywords, formats asserted, ajv-style defaults: a
// node first inserts its properties' missing defaults, then runs `$ref`/`anyOf` (which may insert
// more), then its other keywords (so `required` sees every default); issues are reported in the
// keywords' document order. Document order is serde_json's: keys sorted by code point, which is
// also the order of `properties` and of an object's unknown keys. See docs/validator.md.

import type { SchemaViolation } from "../errors.js";
import { canonicalJson } from "../model/canonical.js";
import { byCodePoint, rustKeys } from "../model/json.js";
import { schemaViolations } from "../model/subset.js";
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
// Compiled form: one node per subschema, its validating keywords in document order.

type Kw =
  | { k: "type"; bits: number; m: string }
  | { k: "enum"; values: unknown[]; m: string }
  | { k: "const"; value: unknown; m: string }
  | { k: "properties"; props: [string, number][] }
  | { k: "required"; names: string[] }
  | { k: "additionalProperties"; allowed: Set<string> }
  | { k: "items" | "$ref"; to: number }
  | { k: "anyOf"; to: number[] }
  | { k: "uniqueItems" }
  | { k: "pattern"; re: RegExp; m: string }
  | { k: "format"; test: (s: string) => boolean; m: string }
  | { k: "minItems" | "maxItems" | "minLength" | "maxLength"; n: number; m: string }
  | { k: "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf"; n: number; m: string };

interface Node {
  kws: Kw[];
  /** `[property, default]` of each `properties` subschema that has one, in property order. */
  defaults: [string, unknown][];
  /** Some keyword is `$ref` or `anyOf` (run first, see evalNode). */
  apps: boolean;
}

interface Compiled {
  nodes: Node[];
  root: number;
  /** Some node has defaults (anyOf then evaluates branches on copies). */
  hasDefaults: boolean;
  /** Every property name with a default somewhere (the anyOf pre-check cannot require them). */
  defaulted: Set<string>;
}

const TYPES: Record<string, [number, string]> = {
  null: [1, "null"],
  boolean: [2, "a boolean"],
  object: [4, "an object"],
  array: [8, "an array"],
  number: [16, "a number"],
  integer: [32, "an integer"],
  string: [64, "a string"],
};

const FORMATS: Record<string, [(s: string) => boolean, string]> = {
  "date-time": [isDateTime, 'must be a date-time (RFC 3339, e.g. "2024-01-31T09:30:00Z" or "2024-01-31T09:30:00+01:00")'],
  date: [isDate, 'must be a date (RFC 3339 full-date YYYY-MM-DD, e.g. "2024-01-31")'],
  uuid: [isUuid, "must be a UUID (8-4-4-4-12 hexadecimal digits)"],
  email: [isEmail, "must be an email address"],
  uri: [isUri, 'must be an absolute URI with a scheme (e.g. "https://example.com/a")'],
};

const NUMBER_WORDS: Record<string, string> = {
  minimum: "greater than or equal to",
  maximum: "less than or equal to",
  exclusiveMinimum: "greater than",
  exclusiveMaximum: "less than",
  multipleOf: "a multiple of",
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** A JSON string literal for messages, cut after 64 code points (with `…`). */
function quote(s: string): string {
  const cut = [...s.slice(0, 256)];
  if (cut.length <= 64) return JSON.stringify(s);
  return `${JSON.stringify(cut.slice(0, 64).join("")).slice(0, -1)}…"`;
}

const count = (n: number, noun: string): string => `${n >= 2 ** 64 ? "18446744073709551615" : String(n)} ${noun}${n === 1 ? "" : "s"}`;

const shown = (text: string, prefix: string, otherwise: string): string => (codePoints(text) <= 200 ? prefix + text : otherwise);

const pointerOf = (segments: readonly (string | number)[]): string =>
  segments.map((s) => `/${typeof s === "number" ? s : s.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");

function compile(schema: Record<string, unknown>): Compiled {
  const nodes: Node[] = [];
  const defs = new Map<string, number>();
  const pending: [number, string][] = [];
  const defsOf = isObject(schema.$defs) ? schema.$defs : undefined;
  const placeholder = (): number => nodes.push({ kws: [], defaults: [], apps: false }) - 1;

  const def = (name: string): number | undefined => {
    let id = defs.get(name);
    if (id === undefined && defsOf !== undefined && Object.hasOwn(defsOf, name)) {
      id = placeholder();
      defs.set(name, id);
      pending.push([id, name]);
    }
    return id;
  };
  const node = (s: unknown): number => {
    const id = placeholder();
    nodes[id] = body(s);
    return id;
  };
  const body = (s: unknown): Node => {
    const n: Node = { kws: [], defaults: [], apps: false };
    if (!isObject(s)) return n;
    for (const key of rustKeys(s)) {
      const kw = keyword(key, s[key], s, n);
      if (kw !== undefined) n.kws.push(kw);
    }
    n.apps = n.kws.some((kw) => kw.k === "$ref" || kw.k === "anyOf");
    return n;
  };
  const keyword = (key: string, v: unknown, s: Record<string, unknown>, n: Node): Kw | undefined => {
    switch (key) {
      case "type": {
        const names = (Array.isArray(v) ? v : [v]).filter((t): t is string => typeof t === "string" && Object.hasOwn(TYPES, t));
        const phrases = names.map((t) => TYPES[t]![1]);
        const phrase = phrases.length === 0 ? "of no type" : phrases.length === 1 ? phrases[0]! : `${phrases.slice(0, -1).join(", ")} or ${phrases.at(-1)!}`;
        return { k: "type", bits: names.reduce((b, t) => b | TYPES[t]![0], 0), m: `must be ${phrase}` };
      }
      case "enum": {
        const values = Array.isArray(v) ? v : [];
        return { k: "enum", values, m: shown(values.map((x) => canonicalJson(x)).join(", "), "must be one of: ", "must be one of the allowed values") };
      }
      case "const":
        return { k: "const", value: v, m: shown(canonicalJson(v), "must be ", "must be the value the schema specifies") };
      case "properties": {
        const props: [string, number][] = [];
        if (isObject(v)) {
          for (const name of rustKeys(v)) {
            const sub = v[name];
            if (isObject(sub) && Object.hasOwn(sub, "default")) n.defaults.push([name, sub.default]);
            props.push([name, node(sub)]);
          }
        }
        return { k: "properties", props };
      }
      case "required":
        return { k: "required", names: Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [] };
      case "additionalProperties":
        return v === false ? { k: "additionalProperties", allowed: new Set(isObject(s.properties) ? Object.keys(s.properties) : []) } : undefined;
      case "items":
        return { k: "items", to: node(v) };
      case "minItems":
      case "maxItems":
      case "minLength":
      case "maxLength": {
        const c = typeof v === "number" ? v : 0;
        const m = `must ${key.endsWith("Items") ? "have" : "be"} at ${key.startsWith("min") ? "least" : "most"} ${count(c, key.endsWith("Items") ? "item" : "character")}`;
        return { k: key, n: c, m };
      }
      case "uniqueItems":
        return v === true ? { k: "uniqueItems" } : undefined;
      case "pattern": {
        const source = typeof v === "string" ? v : "";
        const re = compilePattern(source);
        if (typeof re !== "string") return { k: "pattern", re, m: `must match the pattern ${quote(source)}` };
        // The subset check compiled it with the same RegExp: not reached.
        throw new SchemaCompileError([{ pointer: "", message: `"pattern" is not a valid ECMAScript regular expression: ${re}`, help: null }]);
      }
      case "format": {
        const f = typeof v === "string" && Object.hasOwn(FORMATS, v) ? FORMATS[v] : undefined;
        return f && { k: "format", test: f[0], m: f[1] };
      }
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum":
      case "multipleOf":
        return typeof v === "number" ? { k: key, n: v, m: `must be ${NUMBER_WORDS[key]!} ${String(v)}` } : undefined;
      case "anyOf":
        return { k: "anyOf", to: Array.isArray(v) ? v.map(node) : [] };
      case "$ref": {
        const name = refName(v);
        const to = name === undefined ? undefined : def(name);
        return to === undefined ? undefined : { k: "$ref", to };
      }
      default:
        // Annotations, `$schema` and `$defs` (compiled up front) do not validate.
        return undefined;
    }
  };

  // Every definition is compiled, referenced or not (every pattern is checked); bodies come from
  // a worklist, last reserved first, as the Rust compiler numbers them.
  if (defsOf !== undefined) for (const name of rustKeys(defsOf)) def(name);
  const root = node(schema);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [id, name] = next;
    nodes[id] = body(defsOf![name]);
  }
  const defaulted = new Set(nodes.flatMap((n) => n.defaults.map(([name]) => name)));
  return { nodes, root, hasDefaults: defaulted.size > 0, defaulted };
}

/** The `$defs` name of `#/$defs/<name>` (`~1` then `~0` decoded), as the subset check reads it. */
function refName(v: unknown): string | undefined {
  if (typeof v !== "string" || !v.startsWith("#/$defs/")) return undefined;
  const n = v.slice(8);
  return n === "" || n.includes("/") ? undefined : n.replace(/~1/g, "/").replace(/~0/g, "~");
}

// ---------------------------------------------------------------------------------------------
// Values: the JSON copy validated in place, and the defaults' copies.

function setKey(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

const notJson = new TypeError("not a JSON value");

/**
 * A fresh JSON copy of a caller's value, reading every property once (`undefined` members
 * skipped, `-0` as `0`); `st.n` counts its values. Throws `notJson` for what JSON cannot carry:
 * functions, symbols, bigints, non-finite numbers, `undefined` items, class instances, cycles
 * (ancestors are tracked below 64 levels only: a cycle repeats there too).
 */
function copyJson(v: unknown, st: { n: number; seen?: Set<object> }, depth: number): unknown {
  st.n++;
  if (typeof v !== "object") {
    if (typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v))) return v === 0 ? 0 : v;
    throw notJson;
  }
  if (v === null) return null;
  const seen = depth > 64 ? (st.seen ??= new Set()) : undefined;
  if (seen?.has(v)) throw notJson;
  seen?.add(v);
  let out: unknown[] | Record<string, unknown>;
  if (Array.isArray(v)) {
    out = [];
    for (let i = 0, n = v.length; i < n; i++) {
      const x: unknown = v[i];
      if (x === undefined) throw notJson;
      out.push(copyJson(x, st, depth + 1));
    }
  } else {
    const proto = Object.getPrototypeOf(v);
    if (proto !== null && Object.getPrototypeOf(proto) !== null) throw notJson;
    out = {};
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) setKey(out, k, copyJson(x, st, depth + 1));
    }
  }
  seen?.delete(v);
  return out;
}

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
 * Applies node `id` to `value` (which it may change: defaults are inserted into objects), issues
 * to `out`: the node's own defaults first, then `$ref`/`anyOf`, then the other keywords, with
 * issues in keyword order.
 */
function evalNode(run: Run, id: number, value: unknown, out: ValidationIssue[]): void {
  const node = run.c.nodes[id]!;
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
        for (const [name, to] of kw.props) {
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
          evalNode(run, kw.to, value[i], out);
          run.path.pop();
        }
      }
      return;
    case "anyOf":
      return anyOf(run, kw.to, value, out);
    case "$ref":
      return evalNode(run, kw.to, value, out);
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
function passes(kw: Kw, v: unknown): boolean {
  switch (kw.k) {
    case "type":
      return hasType(v, kw.bits);
    case "enum":
      return kw.values.some((x) => jsonEqual(x, v));
    case "const":
      return jsonEqual(kw.value, v);
    case "minItems":
      return !Array.isArray(v) || v.length >= kw.n;
    case "maxItems":
      return !Array.isArray(v) || v.length <= kw.n;
    case "minLength":
      return typeof v !== "string" || (v.length >= kw.n && codePoints(v) >= kw.n);
    case "maxLength":
      return typeof v !== "string" || v.length <= kw.n || codePoints(v) <= kw.n;
    case "pattern":
      return typeof v !== "string" || kw.re.test(v);
    case "format":
      return typeof v !== "string" || kw.test(v);
    case "minimum":
      return typeof v !== "number" || v >= kw.n;
    case "maximum":
      return typeof v !== "number" || v <= kw.n;
    case "exclusiveMinimum":
      return typeof v !== "number" || v > kw.n;
    case "exclusiveMaximum":
      return typeof v !== "number" || v < kw.n;
    case "multipleOf":
      return typeof v !== "number" || isMultipleOf(v, kw.n);
    default:
      return true;
  }
}

/** Leaf assertions (no recursion). */
function check(kw: Kw, v: unknown, path: readonly (string | number)[], out: ValidationIssue[]): void {
  if (kw.k === "required") {
    if (isObject(v)) for (const name of kw.names) if (!Object.hasOwn(v, name)) out.push(issue(path, "required", `must have the required property ${quote(name)}`));
  } else if (kw.k === "additionalProperties") {
    if (isObject(v)) {
      const unknown = Object.keys(v).filter((k) => !kw.allowed.has(k));
      for (const k of unknown.sort(byCodePoint)) out.push(issue(path, "additionalProperties", `must not have the property ${quote(k)} (unknown property)`));
    }
  } else if (kw.k === "uniqueItems") {
    const dup = Array.isArray(v) ? firstDuplicate(v) : null;
    if (dup !== null) out.push(issue(path, "uniqueItems", `must not contain duplicate items (items ${dup[0]} and ${dup[1]} are equal)`));
  } else if (!passes(kw, v)) out.push(issue(path, kw.k, (kw as { m: string }).m));
}

/**
 * The first alternative that matches wins, and its defaults are kept. Alternatives first get the
 * cheap `quick` check; only those passing it are evaluated fully (a recursive discriminated union
 * costs linear time). If none matches: the issues of the fully evaluated ones, or, when the quick
 * check rejected all, those of the alternatives with the fewest quick-check issues; then `anyOf`.
 */
function anyOf(run: Run, branches: number[], value: unknown, out: ValidationIssue[]): void {
  const candidates: number[] = [];
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
 * Sound pre-check of node `id` for anyOf: an issue only where full evaluation would certainly
 * report one. The node's own assertions (through `$ref` and `anyOf`) and, when `descend`, those of
 * the subschemas of present properties; never deeper. Left to the full evaluation: `required` of a
 * name with a default somewhere, and `enum`/`const`/`uniqueItems` on compound values when the
 * schema has defaults.
 */
function quick(run: Run, id: number, value: unknown, out: ValidationIssue[], descend: boolean): void {
  if (!spend(run)) return;
  const { c } = run;
  for (const kw of c.nodes[id]!.kws) {
    switch (kw.k) {
      case "$ref":
        quick(run, kw.to, value, out, descend);
        break;
      case "anyOf":
        if (
          !kw.to.some((b) => {
            const issues: ValidationIssue[] = [];
            quick(run, b, value, issues, descend);
            return issues.length === 0;
          })
        )
          out.push(issue(run.path, "anyOf", ANY_OF));
        break;
      case "properties":
        if (descend && isObject(value)) {
          for (const [name, to] of kw.props) {
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
        if (isObject(value)) for (const name of kw.names) if (!Object.hasOwn(value, name) && !c.defaulted.has(name)) out.push(issue(run.path, "required", `must have the required property ${quote(name)}`));
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
 * SchemaCompileError with every violation when it is outside the subset (the model's subset
 * check, with `limits`), has a pattern the page's RegExp refuses, or a `$ref` loop that never
 * descends into the value.
 */
export function compileValidator(schema: JsonSchema, limits?: SchemaLimits): Validator {
  const violations = schemaViolations(schema, limits);
  if (violations.length > 0) throw new SchemaCompileError(violations);
  const c = compile(schema);
  const nodeCount = Math.max(c.nodes.length, 1);
  return {
    schema,
    validate(value: unknown): ValidationResult {
      const st = { n: 0 };
      let copy: unknown;
      try {
        copy = copyJson(value, st, 0);
      } catch (e) {
        if (e === notJson) return { ok: false, issues: [{ path: "", keyword: "json", message: "must be a JSON value" }] };
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
