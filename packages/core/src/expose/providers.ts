// Provider adapters (crates/engine/src/expose/providers.rs): a catalog as each model provider's
// tool block, one entry per tool in catalog order. Schemas are adapted to what each provider
// takes; validation always stays ours, against the original schema. Keys are visited in sorted
// order, as the engine's JSON maps do, so what a later keyword overrides is the same.

import { rustFloat, rustKeys, rustNumber } from "../model/json.js";
import type { AgentConfirmation, AgentEffect, JsonValue } from "../types.js";

export type ToolProvider = "openai" | "anthropic" | "gemini" | "mcp";

/** What a tool does, for provider hints (MCP annotations). */
export interface ToolTraits {
  plane: "view" | "domain" | "external";
  effect: AgentEffect;
  idempotent: boolean;
  reversible: boolean;
  confirmation: AgentConfirmation;
}

/** A tool as the adapters read it: an `AgentTool` of a toolset or gateway, or any such object. */
export interface ProviderTool {
  name: string;
  description: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  /** Absent for the meta tools. The tools of a toolset or gateway carry theirs unseen. */
  traits?: ToolTraits;
}

type Obj = Record<string, unknown>;

const traitsOf = new WeakMap<object, ToolTraits>();

/** @internal Records a tool's traits without making them a property (a tool serializes as the spec's AgentTool). */
export function withTraits<T extends object>(tool: T, traits: ToolTraits | undefined): T {
  if (traits) traitsOf.set(tool, traits);
  return tool;
}

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const keys = rustKeys;
/** serde_json's compact text of a JSON value (keys in code-point order, Rust's number spelling). */
const rustJson = (v: unknown): string =>
  typeof v === "number"
    ? rustNumber(v).int
      ? rustNumber(v).text
      : rustFloat(v)
    : Array.isArray(v)
      ? `[${v.map(rustJson).join(",")}]`
      : isObj(v)
        ? `{${keys(v).map((k) => `${JSON.stringify(k)}:${rustJson(v[k])}`).join(",")}}`
        : JSON.stringify(v);
const without$schema = (s: unknown): unknown => {
  if (!isObj(s) || !("$schema" in s)) return s;
  const { $schema: _, ...rest } = s;
  return rest;
};

/** The tools per request the OpenAI and Anthropic adapters let through. */
export const MAX_TOOLS = 128;

/** The tool block for `provider`; a TypeError for an unknown provider or a catalog it cannot take. */
export function toolBlock(tools: readonly ProviderTool[], provider: ToolProvider): JsonValue[] {
  const render = Object.hasOwn(RENDER, provider) ? RENDER[provider] : undefined;
  if (!render) {
    throw new TypeError(`unknown provider "${String(provider)}" (openai, anthropic, gemini, mcp)`);
  }
  if ((provider === "openai" || provider === "anthropic") && tools.length > MAX_TOOLS) {
    throw new TypeError(`${tools.length} tools exceed the ${MAX_TOOLS} a single ${provider} request accepts`);
  }
  return tools.map((t) => render(t) as JsonValue);
}

const RENDER: Record<string, (t: ProviderTool) => Obj> = {
  openai: (t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: openaiStrict(without$schema(t.inputSchema)), strict: true },
  }),
  anthropic(t) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(t.name)) throw toolError(t, "the name must match ^[a-zA-Z0-9_-]{1,64}$");
    if (!isObj(t.inputSchema) || t.inputSchema.type !== "object") {
      throw toolError(t, 'input_schema must have an object root ("type": "object"): make the capability\'s input an object');
    }
    return { name: t.name, description: t.description, input_schema: t.inputSchema };
  },
  gemini(t) {
    const defs = isObj(t.inputSchema) && "$defs" in t.inputSchema ? t.inputSchema.$defs : {};
    try {
      return { name: t.name, description: t.description, parameters: geminiSchema(t.inputSchema, defs, 0) };
    } catch (e) {
      throw toolError(t, (e as Error).message);
    }
  },
  mcp(t) {
    const entry: Obj = { name: t.name, description: t.description, inputSchema: without$schema(t.inputSchema), annotations: mcpAnnotations(t) };
    // MCP structured output needs an object root; other output schemas are not declared.
    if (isObj(t.outputSchema) && t.outputSchema.type === "object") entry.outputSchema = without$schema(t.outputSchema);
    return entry;
  },
};

const toolError = (t: ProviderTool, reason: string) => new TypeError(`tool "${t.name}": ${reason}`);

// ---- OpenAI (strict function calling) ----

const OPENAI_KEEP = new Set([
  "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref", "$defs",
  "description", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
]);

/**
 * Strict mode: every property required (optional ones nullable), `additionalProperties: false`,
 * the keywords strict mode does not take described in words.
 */
function openaiStrict(schema: unknown): unknown {
  if (!isObj(schema)) return schema;
  const out: Obj = {};
  const notes: string[] = [];
  for (const k of keys(schema)) {
    const v = schema[k];
    if (k === "properties") {
      const required = Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : [];
      const names = isObj(v) ? keys(v) : [];
      const props: Obj = {};
      for (const name of names) {
        const adapted = openaiStrict((v as Obj)[name]);
        props[name] = required.includes(name) ? adapted : nullable(adapted);
      }
      out.properties = props;
      out.required = names;
    } else if (k === "items") out[k] = openaiStrict(v);
    else if (k === "anyOf") out[k] = Array.isArray(v) ? v.map(openaiStrict) : [];
    else if (k === "$defs") out[k] = isObj(v) ? Object.fromEntries(keys(v).map((n) => [n, openaiStrict(v[n])])) : {};
    else if (OPENAI_KEEP.has(k)) {
      if (k !== "required" && k !== "description") out[k] = v;
    } else notes.push(`${k}: ${typeof v === "string" ? v : rustJson(v)}`);
  }
  if (schema.type === "object" || "properties" in schema) {
    out.additionalProperties = false;
    out.properties ??= {};
    out.required ??= [];
  }
  let description = typeof schema.description === "string" ? schema.description : "";
  if (notes.length) description += `${description ? " " : ""}(${notes.join("; ")})`;
  if (description) out.description = description;
  return out;
}

/** An optional property in strict mode: the same schema, also accepting null. */
function nullable(s: unknown): unknown {
  if (isObj(s)) {
    const t = s.type;
    if (typeof t === "string" && t !== "null") {
      const e = s.enum;
      return { ...s, type: [t, "null"], ...(Array.isArray(e) && !e.includes(null) ? { enum: [...e, null] } : {}) };
    }
    if (Array.isArray(t)) return { ...s, type: t.includes("null") ? t : [...t, "null"] };
  }
  return { anyOf: [s, { type: "null" }] };
}

// ---- Gemini (OpenAPI subset) ----

const GEMINI_KEEP = new Set([
  "type", "properties", "required", "items", "enum", "description", "format", "minimum", "maximum", "minItems", "maxItems",
  "minLength", "maxLength", "pattern", "nullable", "anyOf", "title", "default",
]);

/** `$ref` inlined (recursion refused), `const` → one-value `enum`, null types → `nullable`, unknown keywords dropped. */
function geminiSchema(s: unknown, defs: unknown, depth: number): unknown {
  if (depth > 32) throw new Error("a recursive $ref cannot be expressed without $ref (Gemini has none)");
  if (!isObj(s)) return s;
  if (typeof s.$ref === "string") {
    let name = s.$ref;
    while (name.startsWith("#/$defs/")) name = name.slice(8);
    const target = isObj(defs) && Object.hasOwn(defs, name) ? defs[name] : undefined;
    if (target === undefined) throw new Error(`unresolved $ref ${s.$ref}`);
    const { $ref: _, ...rest } = s;
    return geminiSchema({ ...(isObj(target) ? target : {}), ...rest }, defs, depth + 1);
  }
  const out: Obj = {};
  for (const k of keys(s)) {
    const v = s[k];
    if (k === "const") out.enum = [v];
    else if (k === "type" && Array.isArray(v)) {
      const nonNull = v.filter((t) => t !== "null");
      if (nonNull.length !== v.length) out.nullable = true;
      if (nonNull.length === 1) out.type = nonNull[0];
      else out.anyOf = nonNull.map((t) => ({ type: t }));
    } else if (k === "properties") {
      const props: Obj = {};
      if (isObj(v)) for (const n of keys(v)) props[n] = geminiSchema(v[n], defs, depth + 1);
      out[k] = props;
    } else if (k === "items") out[k] = geminiSchema(v, defs, depth + 1);
    else if (k === "anyOf") {
      const branches = Array.isArray(v) ? v.map((b) => geminiSchema(b, defs, depth + 1)) : [];
      // anyOf [X, {type: null}] → X with nullable.
      const rest = branches.filter((b) => !(isObj(b) && b.type === "null"));
      if (rest.length !== branches.length) out.nullable = true;
      if (rest.length === 1) Object.assign(out, isObj(rest[0]) ? rest[0] : {});
      else out.anyOf = rest;
    } else if (GEMINI_KEEP.has(k)) out[k] = v;
  }
  // Gemini's enums are typed: an untyped enum takes the type of its values.
  if (!("type" in out) && !("anyOf" in out) && Array.isArray(out.enum)) {
    const e = out.enum as unknown[];
    const all = (f: (x: unknown) => boolean) => e.every(f);
    const type = all((x) => typeof x === "string")
      ? "string"
      : all((x) => typeof x === "number" && rustNumber(x).int)
        ? "integer"
        : all((x) => typeof x === "number")
          ? "number"
          : all((x) => typeof x === "boolean")
            ? "boolean"
            : undefined;
    if (type) out.type = type;
  }
  return out;
}

// ---- MCP ----

export interface McpAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** The four MCP hints, always explicit (MCP's defaults assume the worst, and differ per hint). */
export function mcpAnnotations(t: ProviderTool): McpAnnotations {
  const tr = (t as object as { traits?: ToolTraits }).traits ?? traitsOf.get(t);
  if (!tr) {
    // meta tools: discover/read are read-only; invoke can do anything.
    const ro = t.name !== "surface_invoke";
    return { readOnlyHint: ro, destructiveHint: !ro, idempotentHint: ro, openWorldHint: !ro };
  }
  const e = tr.effect;
  return {
    readOnlyHint: e === "read",
    // "may perform destructive updates": a destructive effect, an irreversible mutation or external side effect.
    destructiveHint: e === "destructive" || ((e === "mutation" || e === "external-side-effect") && !tr.reversible),
    idempotentHint: tr.idempotent,
    openWorldHint: e === "external-side-effect" || tr.plane === "external",
  };
}

// ---- undoing strict mode ----

/**
 * Undoes OpenAI strict mode's "optional as nullable" before validation: a `null` for a property
 * that was optional (and could not be null) in the original schema means "absent". Nested
 * objects, array items, `$ref`s into the root's `$defs` and `anyOf` branches are followed.
 */
export function strictInputToOriginal(original: unknown, input: unknown): unknown {
  return undo(original, input, isObj(original) ? original.$defs : undefined, 0);
}

function resolve(schema: unknown, defs: unknown): unknown {
  const r = isObj(schema) ? schema.$ref : undefined;
  if (typeof r === "string" && r.startsWith("#/$defs/")) {
    const name = r.slice(8);
    if (isObj(defs) && Object.hasOwn(defs, name)) return defs[name];
  }
  return schema;
}

function acceptsNull(schema: unknown, defs: unknown, depth: number): boolean {
  if (depth > 16) return false;
  const s = resolve(schema, defs);
  if (!isObj(s)) return s === true;
  if (s.const === null || (Array.isArray(s.enum) && s.enum.includes(null))) return true;
  if (Array.isArray(s.anyOf) && s.anyOf.some((b) => acceptsNull(b, defs, depth + 1))) return true;
  const t = s.type;
  if (typeof t === "string") return t === "null";
  if (Array.isArray(t)) return t.includes("null");
  // No type, enum or const constrains it: anything goes, null included.
  return t === undefined && !("enum" in s) && !("const" in s) && !("anyOf" in s);
}

function undo(schema: unknown, input: unknown, defs: unknown, depth: number): unknown {
  if (depth > 32) return input;
  const s = resolve(schema, defs);
  const o = isObj(s) ? s : {};
  if (Array.isArray(o.anyOf)) {
    // An object or array inside an anyOf: follow the branch of the matching kind.
    const kind = Array.isArray(input) ? "array" : isObj(input) ? "object" : undefined;
    if (kind) {
      const b = o.anyOf
        .map((b) => resolve(b, defs))
        .find((b) => isObj(b) && (b.type === kind || (kind === "object" ? "properties" : "items") in b));
      if (b !== undefined) return undo(b, input, defs, depth + 1);
    }
    return input;
  }
  if (isObj(input)) {
    const required = Array.isArray(o.required) ? o.required : [];
    const props = isObj(o.properties) ? o.properties : undefined;
    const out: Obj = {};
    for (const k of Object.keys(input)) {
      const v = input[k];
      const p = props && Object.hasOwn(props, k) ? props[k] : undefined;
      if (v === null && !required.includes(k) && !(p !== undefined && acceptsNull(p, defs, 0))) continue;
      out[k] = p === undefined ? v : undo(p, v, defs, depth + 1);
    }
    return out;
  }
  if (Array.isArray(input) && "items" in o) return input.map((i) => undo(o.items, i, defs, depth + 1));
  return input;
}
