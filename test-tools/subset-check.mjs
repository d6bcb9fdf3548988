// The supported JSON Schema subset as a JavaScript check, shared by the schema-library oracles
// (zod, zod 3, Valibot, ArkType, TypeBox): the one place of these rules in JavaScript (spec/core-api.md
// "Supported JSON Schema subset", crates/schema/src/subset). Plain Node, no dependency.

// ---------------------------------------------------------------------------------------------
// The supported subset (keep in sync with crates/schema/src/subset/)

const SUPPORTED_FORMATS = ["date-time", "date", "uuid", "email", "uri"];
const SUPPORTED_KEYWORDS = new Set([
  "type", "enum", "const",
  "properties", "required", "additionalProperties",
  "items", "minItems", "maxItems", "uniqueItems",
  "minLength", "maxLength", "pattern", "format",
  "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
  "anyOf", "$defs", "$ref", "$schema",
  "description", "title", "default", "examples", "deprecated",
]);
const TYPE_NAMES = ["object", "array", "string", "number", "integer", "boolean", "null"];
const SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema";
const LOCAL_REF_PREFIX = "#/$defs/";
const MAX_DEPTH = 8; // the root schema is level 1
const MAX_BYTES = 16 * 1024; // canonical JSON (same length as compact JSON.stringify)

const ptrText = (segs) => segs.map((s) => "/" + String(s).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isNonNegInt = (v) => typeof v === "number" && Number.isInteger(v) && v >= 0;

/** Returns every violation as { pointer, keyword, message }; empty means inside the subset. */
export function checkSubset(root) {
  const out = [];
  const push = (segs, keyword, message) => out.push({ pointer: ptrText(segs), keyword, message });
  const bytes = Buffer.byteLength(JSON.stringify(root), "utf8");
  if (bytes > MAX_BYTES) push([], null, `schema is ${bytes} bytes; at most ${MAX_BYTES}`);

  const walk = (schema, segs, level) => {
    if (!isObj(schema)) {
      push(segs, null, `not a schema object (${JSON.stringify(schema)}); boolean schemas are unsupported`);
      return;
    }
    if (level > MAX_DEPTH) {
      push(segs, null, `nested ${level} levels deep; at most ${MAX_DEPTH}`);
      return;
    }
    const isRoot = segs.length === 0;
    for (const [key, value] of Object.entries(schema)) {
      const at = [...segs, key];
      switch (key) {
        case "type": {
          const names = typeof value === "string" ? [value] : value;
          if (!Array.isArray(names) || names.length === 0) push(at, key, "type must be a name or a non-empty array");
          else if (new Set(names).size !== names.length) push(at, key, "type names must be distinct");
          else for (const n of names) if (!TYPE_NAMES.includes(n)) push(at, key, `unknown type ${JSON.stringify(n)}`);
          break;
        }
        case "enum":
          if (!Array.isArray(value) || value.length === 0) push(at, key, "enum must be a non-empty array");
          break;
        case "const":
        case "default":
          break;
        case "description":
        case "title":
          if (typeof value !== "string") push(at, key, `${key} must be a string`);
          break;
        case "examples":
          if (!Array.isArray(value)) push(at, key, "examples must be an array");
          break;
        case "deprecated":
        case "uniqueItems":
          if (typeof value !== "boolean") push(at, key, `${key} must be a boolean`);
          break;
        case "properties":
          if (!isObj(value)) push(at, key, "properties must be an object");
          else for (const [name, sub] of Object.entries(value)) walk(sub, [...at, name], level + 1);
          break;
        case "required":
          if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) push(at, key, "required must be an array of names");
          else if (new Set(value).size !== value.length) push(at, key, "required names must be distinct");
          break;
        case "additionalProperties":
          if (typeof value !== "boolean") push(at, key, `additionalProperties must be true or false, found ${isObj(value) ? "a schema" : typeof value}`);
          break;
        case "items":
          if (Array.isArray(value)) push(at, key, "items must be a single schema (tuples are unsupported)");
          else walk(value, at, level + 1);
          break;
        case "minItems":
        case "maxItems":
        case "minLength":
        case "maxLength":
          if (!isNonNegInt(value)) push(at, key, `${key} must be a non-negative integer`);
          break;
        case "pattern":
          if (typeof value !== "string") push(at, key, "pattern must be a string");
          else {
            try {
              new RegExp(value, "u");
            } catch (e) {
              push(at, key, `pattern is not a valid ECMAScript regex: ${e.message}`);
            }
          }
          break;
        case "format":
          if (!SUPPORTED_FORMATS.includes(value)) push(at, key, `format ${JSON.stringify(value)} is not supported`);
          break;
        case "minimum":
        case "maximum":
        case "exclusiveMinimum":
        case "exclusiveMaximum":
          if (typeof value !== "number") push(at, key, `${key} must be a number`);
          break;
        case "multipleOf":
          if (!(typeof value === "number" && value > 0)) push(at, key, "multipleOf must be > 0");
          break;
        case "anyOf":
          if (!Array.isArray(value) || value.length === 0) push(at, key, "anyOf must be a non-empty array");
          else value.forEach((sub, i) => walk(sub, [...at, i], level + 1));
          break;
        case "$defs":
          if (!isRoot) push(at, key, "$defs only at the root");
          else if (!isObj(value)) push(at, key, "$defs must be an object");
          else for (const [name, sub] of Object.entries(value)) walk(sub, [...at, name], level + 1);
          break;
        case "$ref": {
          if (typeof value !== "string" || !value.startsWith(LOCAL_REF_PREFIX)) {
            push(at, key, `$ref ${JSON.stringify(value)} is not #/$defs/<name>`);
            break;
          }
          const raw = value.slice(LOCAL_REF_PREFIX.length);
          if (raw === "" || raw.includes("/")) {
            push(at, key, `$ref ${JSON.stringify(value)} is not #/$defs/<name>`);
            break;
          }
          const name = raw.replace(/~1/g, "/").replace(/~0/g, "~");
          if (!(isObj(root.$defs) && Object.hasOwn(root.$defs, name))) push(at, key, `$ref ${JSON.stringify(value)} does not resolve`);
          break;
        }
        case "$schema":
          if (!isRoot) push(at, key, "$schema only at the root");
          else if (value !== SCHEMA_DIALECT && value !== SCHEMA_DIALECT + "#") push(at, key, `$schema must be ${SCHEMA_DIALECT}`);
          break;
        default:
          push(at, key, `unsupported keyword ${JSON.stringify(key)}`);
      }
    }
  };
  walk(root, [], 1);
  return out;
}


/** Lowers TypeScript `enum` declarations in `setup` to the object tsc emits (string members,
 * numeric members with auto-increment and reverse mappings). Everything else must be plain JS. */
export function lowerEnums(setup) {
  return setup.replace(/(?:export\s+)?enum\s+([A-Za-z_$][\w$]*)\s*\{([^}]*)\}/g, (_all, name, body) => {
    const stmts = [];
    let next = 0;
    for (const raw of body.split(",").map((s) => s.trim()).filter(Boolean)) {
      const m = raw.match(/^([A-Za-z_$][\w$]*|"[^"]*"|'[^']*')\s*(?:=\s*(.+))?$/);
      if (!m) throw new Error(`unsupported enum member: ${raw}`);
      const key = JSON.stringify(m[1].replace(/^["']|["']$/g, ""));
      const init = m[2]?.trim();
      if (init === undefined || /^-?\d+(\.\d+)?$/.test(init)) {
        const value = init === undefined ? next : Number(init);
        next = value + 1;
        stmts.push(`${name}[${name}[${key}] = ${value}] = ${key};`);
      } else if (/^("[^"]*"|'[^']*')$/.test(init)) {
        next = undefined;
        stmts.push(`${name}[${key}] = ${init};`);
      } else throw new Error(`unsupported enum initializer: ${init}`);
    }
    return `const ${name} = (() => { const ${name} = {}; ${stmts.join(" ")} return ${name}; })();`;
  });
}
