// The WebMCP schema projection (src/expose/webmcp-schema.ts): every projection is inside the
// allow-list of webmcp PR #289, and accepts every instance the original schema accepts (checked
// with the package's own validator on generated instances of the original, kept only when valid).
import { describe, expect, it } from "vitest";
import { projectForWebMCP } from "../../dist/expose/webmcp-schema.js";
import { compileValidator } from "../../dist/validate/index.js";
import { fixtureManifestPath, packageDir, readJson } from "../paths.js";

const ALLOWED = new Set([
  "type", "properties", "required", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
  "minLength", "maxLength", "pattern", "items", "prefixItems", "additionalProperties", "default", "description",
]);
const isObj = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
const omit = (s, k) => Object.fromEntries(Object.entries(s).filter(([n]) => n !== k));

/** The allow-list, recursively: the violations found, as "path: what". */
function outsideAllowList(s, at = "", out = []) {
  if (!isObj(s)) return out.push(`${at || "/"}: not an object`), out;
  for (const [k, v] of Object.entries(s)) {
    const p = `${at}/${k}`;
    if (!ALLOWED.has(k)) out.push(`${p}: keyword`);
    else if (k === "type" && typeof v !== "string") out.push(`${p}: not one type`);
    else if (k === "additionalProperties" && v !== false) out.push(`${p}: not false`);
    else if (k === "properties") for (const [n, x] of Object.entries(v)) outsideAllowList(x, `${p}/${n}`, out);
    else if (k === "items") outsideAllowList(v, p, out);
    else if (k === "prefixItems") v.forEach((x, i) => outsideAllowList(x, `${p}/${i}`, out));
    else if (k === "description" && typeof v !== "string") out.push(`${p}: not a string`);
  }
  return out;
}

/** A string a simple pattern (literals, classes, \\d, quantifiers) matches. */
const fromPattern = (p) =>
  p
    .replace(/^\^|\$$/g, "")
    .replace(/(\[([^\]]+)\]|\\d|\\w|[A-Za-z0-9_-])(\{(\d+)(,\d*)?\}|[+*?])?/g, (_, atom, cls, q, n) =>
      (cls ? cls[0] : atom === "\\d" ? "1" : atom === "\\w" ? "a" : atom).repeat(n ? Number(n) : q === "*" || q === "?" ? 0 : 1));

/** Candidate instances of a schema (with the root's $defs), kept only where the schema accepts them. */
function instances(root) {
  const defs = isObj(root.$defs) ? root.$defs : {};
  const cache = new Map();
  const accepts = (s, v) => {
    const key = JSON.stringify(s);
    if (!cache.has(key)) cache.set(key, compileValidator(isObj(s) ? { ...s, $defs: defs } : s));
    return cache.get(key).validate(v).ok;
  };
  const gen = (s, depth) => {
    if (!isObj(s)) return [null, 1, "x", {}];
    if (typeof s.$ref === "string") return depth > 5 ? [] : gen({ ...defs[s.$ref.slice(8)], ...omit(s, "$ref") }, depth + 1);
    let out = [];
    if ("const" in s) out.push(s.const);
    if (Array.isArray(s.enum)) out.push(...s.enum);
    if (Array.isArray(s.anyOf)) for (const b of s.anyOf) out.push(...gen({ ...omit(s, "anyOf"), ...b }, depth + 1));
    const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ["object"] : [];
    for (const t of types) {
      if (t === "null") out.push(null);
      else if (t === "boolean") out.push(true, false);
      else if (t === "integer" || t === "number") {
        out.push(0, 1, -3, 10, 100, t === "number" ? 2.5 : 7);
        for (const k of ["minimum", "maximum", "multipleOf"]) if (typeof s[k] === "number") out.push(s[k]);
        if (typeof s.exclusiveMinimum === "number") out.push(s.exclusiveMinimum + 1);
      } else if (t === "string") {
        const n = Math.max(s.minLength ?? 1, 1);
        if (typeof s.pattern === "string") out.push(fromPattern(s.pattern));
        out.push("x".repeat(n), "", "ab-12", "a@example.com", "2024-01-02", "2024-01-02T03:04:05Z", "https://example.com/a", "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b");
      } else if (t === "array") {
        const items = depth > 5 ? [] : gen(s.items ?? {}, depth + 1);
        out.push([], items.slice(0, 1), items.slice(0, 3), ...(typeof s.minItems === "number" && items.length ? [Array(s.minItems).fill(items[0])] : []));
      } else if (t === "object") {
        const props = isObj(s.properties) ? s.properties : {};
        const required = Array.isArray(s.required) ? s.required : [];
        const names = depth > 5 ? required : Object.keys(props);
        const values = Object.fromEntries(names.map((n) => [n, gen(props[n], depth + 1).slice(0, 6)]));
        const base = Object.fromEntries(names.filter((n) => values[n].length).map((n) => [n, values[n][0]]));
        out.push(base, Object.fromEntries(Object.entries(base).filter(([n]) => required.includes(n))));
        for (const n of names) for (const v of values[n]) out.push({ ...base, [n]: v });
        if (s.additionalProperties !== false) out.push({ ...base, extra: 1 });
      }
    }
    if (types.length === 0 && !("const" in s) && !("enum" in s) && !("anyOf" in s)) out.push(null, 1, "x", {});
    out = out.filter((v) => v !== undefined && accepts(s, v));
    return out.filter((v, i) => out.findIndex((w) => JSON.stringify(w) === JSON.stringify(v)) === i).slice(0, 40);
  };
  return gen(root, 0);
}

function check(name, schema) {
  const { schema: projected, lossy } = projectForWebMCP(schema);
  expect(outsideAllowList(projected), name).toEqual([]);
  const valid = instances(schema);
  expect(valid.length, `${name}: no instance generated`).toBeGreaterThan(0);
  const projectedValidator = compileValidator(projected);
  for (const v of valid) expect(projectedValidator.validate(v).ok, `${name}: ${JSON.stringify(v)} refused by ${JSON.stringify(projected)}`).toBe(true);
  return { projected, lossy };
}

const email = { type: "string", format: "email" };
const HAND = {
  format: { type: "object", properties: { email }, required: ["email"], additionalProperties: false },
  const: { type: "object", properties: { kind: { const: "a" }, n: { const: 3 } }, required: ["kind"] },
  defs: {
    type: "object",
    properties: { home: { $ref: "#/$defs/address" }, work: { $ref: "#/$defs/address", description: "office" } },
    $defs: { address: { type: "object", properties: { city: { type: "string", minLength: 1 } }, required: ["city"], additionalProperties: false } },
  },
  recursive: {
    type: "object",
    properties: { root: { $ref: "#/$defs/node" } },
    required: ["root"],
    $defs: { node: { type: "object", properties: { label: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } }, required: ["label"], additionalProperties: false } },
  },
  numbers: { type: "object", properties: { step: { type: "integer", multipleOf: 5, minimum: 0, maximum: 100 }, ratio: { type: "number", exclusiveMinimum: 0 } } },
  arrays: { type: "object", properties: { tags: { type: "array", items: { type: "string", maxLength: 8 }, minItems: 1, maxItems: 3, uniqueItems: true } } },
  annotations: {
    type: "object",
    title: "Thing",
    properties: { q: { type: "string", title: "Query", examples: ["disk"], deprecated: true, default: "" } },
  },
  nullable: { type: "object", properties: { note: { type: ["string", "null"], maxLength: 20 }, pick: { type: ["string", "null"], enum: ["a", "b", null] } }, required: ["note"] },
  tagged: {
    type: "object",
    properties: {
      target: {
        anyOf: [
          { type: "object", properties: { kind: { const: "device" }, id: { type: "string" } }, required: ["kind", "id"], additionalProperties: false },
          { type: "object", properties: { kind: { const: "site" }, site: { type: "integer", minimum: 1 }, id: { type: "integer" } }, required: ["kind", "site"], additionalProperties: false },
        ],
      },
    },
    required: ["target"],
  },
  scalarEnums: { type: "object", properties: { mode: { anyOf: [{ type: "string", enum: ["a", "b"] }, { const: "c" }, { type: "integer", enum: [1, 2] }] } } },
  mixed: { type: "object", properties: { v: { anyOf: [email, { type: "integer", minimum: 0 }, { type: "boolean" }] } } },
  sameType: { type: "object", properties: { v: { anyOf: [{ type: "string", pattern: "^a" }, { type: "string", pattern: "^b", minLength: 2 }] } } },
  nullableAnyOf: {
    type: "object",
    properties: { at: { anyOf: [{ $ref: "#/$defs/point" }, { type: "null" }] }, level: { anyOf: [{ enum: ["lo", "hi"] }, { type: "null" }] } },
    $defs: { point: { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x", "y"] } },
  },
  openObject: { type: "object", properties: { meta: { type: "object", additionalProperties: true } }, additionalProperties: true },
  typeArray: { type: "object", properties: { id: { type: ["string", "integer"] } } },
};

const manifests = {
  conformance: `${packageDir}/../../conformance/scenarios/manifest.json`,
  api: `${packageDir}/test/api/manifest.json`,
  devices: fixtureManifestPath,
};

describe("projectForWebMCP", () => {
  for (const [file, path] of Object.entries(manifests)) {
    it(`projects every input schema of the ${file} manifest inside the allow-list, accepting what the original accepts`, () => {
      const contracts = readJson(path).contracts.filter((c) => isObj(c.inputSchema));
      expect(contracts.length).toBeGreaterThan(0);
      for (const c of contracts) check(`${file} ${c.id}`, c.inputSchema);
    });
  }

  for (const [name, schema] of Object.entries(HAND)) it(`hand-written: ${name}`, () => check(name, schema));

  it("says in words what it cannot say in keywords, and lists it as lossy", () => {
    const f = check("format", HAND.format);
    expect(f.projected.properties.email).toEqual({ type: "string", description: "(format: email)" });
    expect(f.lossy).toEqual(["format at /properties/email"]);

    expect(check("const", HAND.const).projected.properties).toEqual({ kind: { enum: ["a"] }, n: { enum: [3] } });

    const d = check("defs", HAND.defs).projected;
    expect(d.$defs).toBeUndefined();
    expect(d.properties.home.properties.city).toEqual({ type: "string", minLength: 1 });
    expect(d.properties.work.description).toBe("office");

    const r = check("recursive", HAND.recursive);
    expect(r.lossy).toContain("$ref recursion at /properties/root/properties/children/items/properties/children/items");
    expect(JSON.stringify(r.projected)).toContain("recursive: not expanded further");

    const n = check("numbers", HAND.numbers).projected.properties.step;
    expect(n).toEqual({ type: "integer", minimum: 0, maximum: 100, description: "(multipleOf: 5)" });
    expect(check("arrays", HAND.arrays).projected.properties.tags.description).toBe("(minItems: 1; maxItems: 3; uniqueItems: true)");
    const a = check("annotations", HAND.annotations);
    expect(a.projected.description).toBe("(title: Thing)");
    expect(a.projected.properties.q).toEqual({ type: "string", default: "", description: '(title: Query; examples: ["disk"]; deprecated: true)' });

    const nl = check("nullable", HAND.nullable);
    expect(nl.projected.properties.note).toEqual({ maxLength: 20, description: "(type: string or null)" });
    expect(nl.projected.properties.pick.enum).toEqual(["a", "b", null]);
    expect(nl.lossy).toContain("type at /properties/note");

    const t = check("tagged", HAND.tagged).projected.properties.target;
    expect(t.type).toBe("object");
    expect(t.properties.kind).toEqual({ enum: ["device", "site"] });
    expect(t.required).toEqual(["kind"]);
    expect(t.additionalProperties).toBe(false);
    expect(t.description).toBe('(fields by kind: kind "device": id; kind "site": site, id)');

    expect(check("scalarEnums", HAND.scalarEnums).projected.properties.mode).toEqual({ enum: ["a", "b", "c", 1, 2] });
    const m = check("mixed", HAND.mixed);
    expect(m.projected.properties.v.type).toBeUndefined();
    expect(m.projected.properties.v.description).toContain("one of:");
    expect(m.lossy).toContain("anyOf at /properties/v");
    expect(check("sameType", HAND.sameType).projected.properties.v.type).toBe("string");

    const na = check("nullableAnyOf", HAND.nullableAnyOf).projected.properties;
    expect(na.at.type).toBeUndefined();
    expect(na.at.required).toEqual(["x", "y"]);
    expect(na.level).toEqual({ enum: ["lo", "hi", null] });

    const o = check("openObject", HAND.openObject);
    expect(o.projected).toEqual({ type: "object", properties: { meta: { type: "object" } } });
    expect(o.lossy).toEqual([]);
  });

  it("is pure: the input is not modified", () => {
    const copy = JSON.parse(JSON.stringify(HAND.recursive));
    projectForWebMCP(HAND.recursive);
    expect(HAND.recursive).toEqual(copy);
  });
});
