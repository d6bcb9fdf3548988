// The WebMCP schema projection: a schema of our subset turned into one inside the keywords WebMCP's
// `registerTool` accepts (webmcp PR #289): type (one), properties, required, enum, minimum,
// maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern, items, prefixItems,
// additionalProperties: false, default, description. What those cannot say goes into the
// description, and the projection is only ever wider than the schema: the browser may validate
// against it, so it must accept every input ours accepts. Validation stays in the pipeline.

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const json = JSON.stringify;
const KEEP = new Set(["type", "properties", "required", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern", "items", "default", "description"]);
const DESCRIBE = new Set(["format", "multipleOf", "minItems", "maxItems", "uniqueItems", "title", "examples", "deprecated"]);

export interface WebMCPSchemaProjection {
  schema: Obj;
  /** Each construct that could only be described, with where: "format at /properties/email". */
  lossy: string[];
}

/** Projects a schema of our subset into WebMCP's allow-list (pure; the input is not modified). */
export function projectForWebMCP(schema: unknown): WebMCPSchemaProjection {
  const lossy: string[] = [];
  const defs = isObj(schema) && isObj(schema.$defs) ? schema.$defs : {};
  const note = (s: Obj, text: string, what?: string, at?: string) => {
    s.description = s.description ? `${s.description} (${text})` : `(${text})`;
    if (what) lossy.push(`${what} at ${at || "/"}`);
  };

  const project = (s: unknown, at: string, refs: string[]): Obj => {
    if (!isObj(s)) return {};
    if (typeof s.$ref === "string") {
      const name = s.$ref.slice(8);
      const { $ref: _, ...rest } = s;
      // A recursive definition is expanded twice, then cut and described.
      if (refs.filter((r) => r === name).length >= 2 || refs.length > 16) {
        const out = project(rest, at, refs);
        note(out, `a ${name}, recursive: not expanded further`, "$ref recursion", at);
        return out;
      }
      return project({ ...(isObj(defs[name]) ? defs[name] : {}), ...rest }, at, [...refs, name]);
    }
    const out: Obj = {};
    const notes: string[] = [];
    for (const [k, v] of Object.entries(s)) {
      const p = `${at}/${k}`;
      if (k === "properties" && isObj(v)) out[k] = Object.fromEntries(Object.entries(v).map(([n, x]) => [n, project(x, `${p}/${n}`, refs)]));
      else if (k === "items") out[k] = project(v, p, refs);
      else if (k === "const") out.enum = [v];
      else if (k === "additionalProperties") v === false && (out[k] = false);
      else if (DESCRIBE.has(k) || (k === "type" && Array.isArray(v))) {
        notes.push(`${k}: ${Array.isArray(v) && k === "type" ? v.join(" or ") : typeof v === "string" ? v : json(v)}`);
        lossy.push(`${k} at ${at || "/"}`);
      } else if (KEEP.has(k)) out[k] = v;
    }
    if (Array.isArray(s.anyOf)) union(out, s.anyOf.map((b, i) => project(b, `${at}/anyOf/${i}`, refs)), at);
    if (notes.length) note(out, notes.join("; "));
    return out;
  };

  /** Widens `out` (the anyOf's siblings, projected) to accept every branch. */
  const union = (out: Obj, branches: Obj[], at: string) => {
    const isNull = (b: Obj) => b.type === "null" || (Array.isArray(b.enum) && b.enum.length === 1 && b.enum[0] === null);
    const rest = branches.filter((b) => !isNull(b));
    const merged = rest.length ? merge(rest, at) : { enum: [null] };
    const nullable = rest.length !== branches.length;
    if (nullable && Array.isArray(merged.enum)) merged.enum = [...merged.enum, null];
    else if (nullable && merged.type !== undefined) {
      note(merged, `${merged.type} or null`, "nullable anyOf", at);
      delete merged.type;
    }
    const d = merged.description;
    delete merged.description;
    Object.assign(out, merged);
    if (d) out.description = out.description ? `${out.description} ${d}` : d;
  };

  const kind = (b: Obj) => (b.type === "integer" ? "number" : b.type);

  const merge = (bs: Obj[], at: string): Obj => {
    if (bs.length === 1) return bs[0]!;
    if (bs.length > 0 && bs.every((b) => Array.isArray(b.enum))) {
      const values: unknown[] = [];
      for (const b of bs) for (const v of b.enum as unknown[]) if (!values.some((x) => json(x) === json(v))) values.push(v);
      const out: Obj = { enum: values };
      const t = bs[0]!.type;
      if (t !== undefined && bs.every((b) => b.type === t)) out.type = t;
      return out;
    }
    const t = kind(bs[0] ?? {});
    if (t === undefined || !bs.every((b) => kind(b) === t)) {
      const out: Obj = {};
      note(out, `one of: ${bs.map((b) => json(b)).join(" | ")}`, "anyOf", at);
      return out;
    }
    const out: Obj = { type: bs.some((b) => b.type === "number") ? "number" : bs[0]!.type };
    if (t === "object") {
      const names = [...new Set(bs.flatMap((b) => Object.keys(isObj(b.properties) ? b.properties : {})))];
      const props = (b: Obj) => (isObj(b.properties) ? b.properties : {}) as Record<string, Obj>;
      // A property's schemas are merged; where a branch without it allows other properties, it is anything.
      out.properties = Object.fromEntries(names.map((n) => {
        const open = bs.some((b) => !props(b)[n] && b.additionalProperties !== false);
        return [n, open ? {} : merge(bs.map((b) => props(b)[n]).filter(Boolean) as Obj[], `${at}/properties/${n}`)];
      }));
      const required = bs.map((b) => (Array.isArray(b.required) ? (b.required as string[]) : []));
      out.required = required[0]!.filter((r) => required.every((q) => q.includes(r)));
      if (bs.every((b) => b.additionalProperties === false)) out.additionalProperties = false;
      const tag = names.find((n) => bs.every((b) => Array.isArray(props(b)[n]?.enum) && (props(b)[n]!.enum as unknown[]).length === 1));
      const which = bs.map((b) => {
        const own = Object.keys(props(b)).filter((n) => n !== tag);
        return `${tag ? `${tag} ${json((props(b)[tag]!.enum as unknown[])[0])}` : "or"}: ${own.join(", ") || "no other fields"}`;
      });
      note(out, `${tag ? "fields by " + tag : "one of the field sets"}: ${which.join("; ")}`, "anyOf of objects", at);
      return out;
    }
    let described = false;
    for (const k of new Set(bs.flatMap((b) => Object.keys(b)))) {
      if (k === "type" || k === "description") continue;
      if (k === "items" && bs.every((b) => isObj(b.items))) out.items = merge(bs.map((b) => b.items as Obj), `${at}/items`);
      else if (bs.every((b) => k in b && json(b[k]) === json(bs[0]![k]))) out[k] = bs[0]![k];
      else described = true;
    }
    if (described) note(out, `one of: ${bs.map((b) => json(b)).join(" | ")}`, "anyOf", at);
    return out;
  };

  return { schema: project(schema, "", []), lossy };
}
