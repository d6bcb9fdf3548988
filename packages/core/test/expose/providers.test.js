// The provider renderings (crates/engine/src/expose/providers.rs): a differential test against the
// Rust engine's `agent-surface tools MANIFEST --provider P --format json` for every provider, both
// modes and four manifests (one compiled from test/expose/app: ids over 64 characters, colliding
// ids, every schema adaptation), then the rules one by one (the engine's own tests, ported). The
// Rust binary is AGENT_SURFACE_BINARY, else the repository's target/debug/agent-surface (a
// worktree's main checkout's); without it the differential test fails (it is not skipped).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { catalogFromManifest } from "../../dist/expose/catalog.js";
import { canonicalJson } from "../../dist/model/canonical.js";
import { mcpAnnotations, strictInputToOriginal, toolBlock } from "../../dist/providers.js";

const repo = fileURLToPath(new URL("../../../../", import.meta.url));
const here = fileURLToPath(new URL(".", import.meta.url));
/** The CLI: AGENT_SURFACE_BINARY, else this checkout's debug build, else (in a git worktree) the main checkout's. */
function findBinary() {
  if (process.env.AGENT_SURFACE_BINARY) return process.env.AGENT_SURFACE_BINARY;
  const own = join(repo, "target/debug/agent-surface");
  if (existsSync(own)) return own;
  try {
    const common = execFileSync("git", ["rev-parse", "--path-format=absolute", "--git-common-dir"], { cwd: here, encoding: "utf8" }).trim();
    const main = join(common, "../target/debug/agent-surface");
    if (existsSync(main)) return main;
  } catch {
    // not a git checkout
  }
  return own;
}
const binary = findBinary();
const PROVIDERS = ["openai", "anthropic", "gemini", "mcp"];
const devicesPath = join(repo, "examples/devices-app/agent-surface.manifest.json");
const read = (path) => JSON.parse(readFileSync(path, "utf8"));
const neutral = ({ traits, route, ...tool }) => tool;

describe("the renderings equal the Rust engine's (agent-surface tools)", () => {
  const scratch = mkdtempSync(join(tmpdir(), "expose-providers-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const compiled = join(scratch, "manifest.json");
  const manifests = {
    "test/api": join(repo, "packages/core/test/api/manifest.json"),
    "conformance/scenarios": join(repo, "conformance/scenarios/manifest.json"),
    "devices-app": devicesPath,
    "test/expose/app (compiled)": compiled,
  };
  const rust = (path, mode, provider) => {
    const args = ["tools", path, "--mode", mode, "--format", "json", ...(provider ? ["--provider", provider] : [])];
    try {
      return JSON.parse(execFileSync(binary, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
    } catch (e) {
      if (e.status !== 1) throw e;
      return { error: e.stderr.trim() };
    }
  };

  it("compiles the fixture app with the same binary", () => {
    expect(existsSync(binary), `the Rust CLI is needed for this test: build it (cargo build) or set AGENT_SURFACE_BINARY (looked for ${binary})`).toBe(true);
    execFileSync(binary, ["compile", join(here, "app"), "--out", compiled], { stdio: "pipe" });
    const names = catalogFromManifest(read(compiled)).map((t) => t.name);
    expect(names.filter((n) => n.length === 64)).toHaveLength(7);
  });

  for (const [label, path] of Object.entries(manifests)) {
    for (const mode of ["direct", "meta"]) {
      it(`${label}, ${mode} mode: the neutral catalog and all four providers`, () => {
        const tools = catalogFromManifest(read(path), mode);
        const expected = rust(path, mode);
        expect(tools.map(neutral)).toStrictEqual(expected.tools);
        for (const provider of PROVIDERS) {
          const want = rust(path, mode, provider);
          if (want.error) {
            expect(() => toolBlock(tools, provider)).toThrow(want.error.replace(`error: ${provider}: `, ""));
            continue;
          }
          const block = toolBlock(tools, provider);
          expect(block, provider).toStrictEqual(want.tools);
          expect(block.reduce((n, e) => n + Buffer.byteLength(canonicalJson(e)), 0), `${provider} totalBytes`).toBe(want.totalBytes);
        }
      });
    }
  }
});

describe("OpenAI strict mode", () => {
  const tools = catalogFromManifest(read(devicesPath));
  const params = (name) => toolBlock(tools, "openai").find((e) => e.function.name === name).function.parameters;
  const KEEP = ["type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref", "$defs", "description", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems"];
  const each = (s, out = []) => {
    if (s === null || typeof s !== "object" || Array.isArray(s)) return out;
    out.push(s);
    for (const p of Object.values(s.properties ?? {})) each(p, out);
    if (s.items) each(s.items, out);
    for (const b of s.anyOf ?? []) each(b, out);
    for (const d of Object.values(s.$defs ?? {})) each(d, out);
    return out;
  };
  const acceptsNull = (s) => s.type === "null" || (Array.isArray(s.type) && s.type.includes("null")) || (s.anyOf ?? []).some(acceptsNull);

  it("every object closed with every property required; optional ones nullable; only strict keywords", () => {
    for (const [tool, entry] of tools.map((t, i) => [t, toolBlock(tools, "openai")[i]])) {
      expect(entry).toMatchObject({ type: "function", function: { name: tool.name, description: tool.description, strict: true } });
      const p = entry.function.parameters;
      expect(p.type).toBe("object");
      for (const s of each(p)) {
        for (const k of Object.keys(s)) expect(KEEP, `${tool.name}: ${k}`).toContain(k);
        if (s.type === "object" || (Array.isArray(s.type) && s.type.includes("object")) || "properties" in s) {
          expect(s.additionalProperties).toBe(false);
          expect(s.required).toEqual(Object.keys(s.properties));
        }
      }
      for (const [name, prop] of Object.entries(p.properties)) expect(acceptsNull(prop), `${tool.name}.${name}`).toBe(!(tool.inputSchema.required ?? []).includes(name));
    }
  });

  it("moves unsupported keywords into the description and keeps the original schema untouched", () => {
    const reboot = params("domain_devices_reboot");
    expect(reboot.properties.reason.type).toEqual(["string", "null"]);
    expect(reboot.properties.reason.description).toBe("(maxLength: 200)");
    expect(reboot.properties.notifyOwners.description).toBe("(default: true)");
    expect(reboot).not.toHaveProperty("$schema");
    expect(params("view_devices_table_selectRows").properties.ids).toMatchObject({ description: "(uniqueItems: true)", maxItems: 50 });
    const filter = params("view_devices_table_filter");
    expect(filter.properties.text.description).toBe("Text the device name must contain; empty shows all (maxLength: 80)");
    expect(filter.properties.status.enum).toEqual(["online", "offline", "maintenance", null]);
    const format = params("external_reports_export").properties.format;
    expect(format.anyOf[1]).toEqual({ type: "null" });
    expect(format.anyOf[0].description).toBe("(default: csv)");
    const nav = params("view_app_nav_navigate").properties.params;
    expect(nav.type).toEqual(["object", "null"]);
    expect(nav.required).toEqual(["id"]);
    expect(nav.properties.id.type).toEqual(["string", "null"]);
    const original = tools.find((t) => t.name === "view_devices_table_filter").inputSchema;
    expect(original.properties.status.enum).toEqual(["online", "offline", "maintenance"]);
  });

  it("notes spell values as serde_json does; required follows the properties in code-point order", () => {
    const p = toolBlock([{ name: "t", description: "", inputSchema: { type: "object", properties: { b: { type: "string" }, a: { type: "object", default: { z: 1, y: [2.5, "x"] } }, 10: { uniqueItems: true } }, required: ["b"] } }], "openai")[0].function.parameters;
    expect(p.required).toEqual(["10", "a", "b"]);
    expect(p.properties.a.description).toBe('(default: {"y":[2.5,"x"],"z":1})');
  });

  it("at most 128 tools per request", () => {
    const many = Array.from({ length: 129 }, (_, i) => ({ ...tools[0], name: `t${i}` }));
    expect(() => toolBlock(many, "openai")).toThrow(new TypeError("129 tools exceed the 128 a single openai request accepts"));
    expect(toolBlock(many.slice(1), "openai")).toHaveLength(128);
  });
});

describe("strictInputToOriginal", () => {
  const tools = catalogFromManifest(read(devicesPath));
  const schema = (name) => tools.find((t) => t.name === name).inputSchema;

  it("turns null for an optional property back into absent, through nested objects, items, $refs and anyOf", () => {
    const reboot = schema("domain_devices_reboot");
    expect(strictInputToOriginal(reboot, { ids: ["dev_abc123"], reason: null, notifyOwners: null })).toEqual({ ids: ["dev_abc123"] });
    const sent = { ids: ["dev_abc123"], reason: "patch", notifyOwners: false };
    expect(strictInputToOriginal(reboot, sent)).toEqual(sent);
    const nav = schema("view_app_nav_navigate");
    expect(strictInputToOriginal(nav, { to: "/devices", params: null })).toEqual({ to: "/devices" });
    expect(strictInputToOriginal(nav, { to: "/devices/:id", params: { id: null } })).toEqual({ to: "/devices/:id", params: {} });
    expect(strictInputToOriginal(schema("external_reports_export"), { format: null, since: null })).toEqual({});
    const original = {
      type: "object",
      properties: {
        lastSeen: { type: ["string", "null"] },
        maybe: { anyOf: [{ type: "string" }, { type: "null" }] },
        must: { type: "string" },
        rows: { type: "array", items: { type: "object", properties: { note: { type: "string" } } } },
        ref: { $ref: "#/$defs/R" },
      },
      required: ["must"],
      $defs: { R: { type: "object", properties: { x: { type: "integer" } } } },
    };
    expect(strictInputToOriginal(original, { lastSeen: null, maybe: null, must: null, rows: [{ note: null }, { note: "a" }], ref: { x: null } })).toEqual({
      lastSeen: null,
      maybe: null,
      must: null,
      rows: [{}, { note: "a" }],
      ref: {},
    });
  });
});

describe("Anthropic", () => {
  const tools = catalogFromManifest(read(devicesPath));
  it("the original schema under input_schema; an object root and a wire-safe name required; at most 128 tools", () => {
    toolBlock(tools, "anthropic").forEach((e, i) => {
      expect(Object.keys(e).sort()).toEqual(["description", "input_schema", "name"]);
      expect(e.input_schema).toBe(tools[i].inputSchema);
    });
    expect(() => toolBlock([{ ...tools[0], inputSchema: { type: "array", items: { type: "string" } } }], "anthropic")).toThrow(/object root/);
    expect(() => toolBlock([{ ...tools[0], name: "has space" }], "anthropic")).toThrow(`tool "has space": the name must match ^[a-zA-Z0-9_-]{1,64}$`);
    expect(() => toolBlock(Array.from({ length: 129 }, (_, i) => ({ ...tools[0], name: `t${i}` })), "anthropic")).toThrow(/129 tools exceed the 128 a single anthropic request/);
  });
});

describe("Gemini", () => {
  const tools = catalogFromManifest(read(devicesPath));
  const has = (v, key) => v !== null && typeof v === "object" && (Object.hasOwn(v, key) || Object.values(v).some((x) => has(x, key)));
  const one = (inputSchema) => toolBlock([{ name: "t", description: "", inputSchema }], "gemini")[0].parameters;

  it("its OpenAPI subset: $ref inlined, const as enum, typed enums, nullable, unknown keywords dropped; recursion refused", () => {
    for (const e of toolBlock(tools, "gemini")) for (const k of ["$ref", "$defs", "const", "$schema", "additionalProperties", "uniqueItems"]) expect(has(e.parameters, k), `${e.name} ${k}`).toBe(false);
    expect(toolBlock(tools, "gemini").find((e) => e.name === "external_reports_export").parameters.properties.format).toEqual({ default: "csv", enum: ["csv", "pdf", "xlsx"], type: "string" });
    const p = one({
      type: "object",
      properties: {
        kind: { const: "device" },
        seen: { type: ["string", "null"], format: "date-time" },
        maybe: { anyOf: [{ $ref: "#/$defs/Id" }, { type: "null" }] },
        either: { type: ["string", "integer"] },
        n: { enum: [1, 2] },
        x: { enum: [1, 2.5] },
        mixed: { enum: [1, "a"] },
      },
      required: ["kind"],
      additionalProperties: false,
      $defs: { Id: { type: "string", pattern: "^dev_" } },
    }).properties;
    expect(p.kind).toEqual({ enum: ["device"], type: "string" });
    expect(p.seen).toEqual({ type: "string", nullable: true, format: "date-time" });
    expect(p.maybe).toEqual({ type: "string", pattern: "^dev_", nullable: true });
    expect(p.either).toEqual({ anyOf: [{ type: "string" }, { type: "integer" }] });
    expect([p.n.type, p.x.type, p.mixed.type]).toEqual(["integer", "number", undefined]);
    const recursive = { type: "object", properties: { node: { $ref: "#/$defs/Node" } }, $defs: { Node: { type: "object", properties: { next: { $ref: "#/$defs/Node" } } } } };
    expect(() => one(recursive)).toThrow(/^tool "t": a recursive \$ref cannot be expressed/);
    expect(() => one({ type: "object", properties: { a: { $ref: "#/$defs/Nope" } } })).toThrow('tool "t": unresolved $ref #/$defs/Nope');
  });
});

describe("MCP", () => {
  const tools = catalogFromManifest(read(devicesPath));
  const row = (readOnlyHint, destructiveHint, idempotentHint, openWorldHint) => ({ readOnlyHint, destructiveHint, idempotentHint, openWorldHint });

  it("explicit annotations following the effect; outputSchema only for an object output; $schema dropped", () => {
    toolBlock(tools, "mcp").forEach((e, i) => {
      expect(Object.keys(e.annotations).sort()).toEqual(["destructiveHint", "idempotentHint", "openWorldHint", "readOnlyHint"]);
      expect(e.inputSchema).not.toHaveProperty("$schema");
      expect("outputSchema" in e).toBe(tools[i].outputSchema?.type === "object");
    });
    const ann = (name) => mcpAnnotations(tools.find((t) => t.name === name));
    expect(ann("view_devices_table_readState")).toEqual(row(true, false, true, false));
    expect(ann("view_devices_table_sortBy")).toEqual(row(false, false, false, false));
    expect(ann("view_devices_table_clearSelection")).toEqual(row(false, false, true, false));
    expect(ann("domain_devices_reboot")).toEqual(row(false, false, false, false));
    expect(ann("domain_devices_decommission")).toEqual(row(false, true, false, false));
    expect(ann("external_reports_export")).toEqual(row(false, true, false, true));
    const t = tools.find((x) => x.name === "domain_devices_reboot");
    const as = (effect, reversible) => mcpAnnotations({ ...t, traits: { ...t.traits, effect, reversible, idempotent: effect === "read" } });
    expect(as("read", true)).toEqual(row(true, false, true, false));
    expect(as("mutation", true)).toEqual(row(false, false, false, false));
    expect(as("mutation", false)).toEqual(row(false, true, false, false));
    expect(as("external-side-effect", true)).toEqual(row(false, false, false, true));
    const meta = toolBlock(catalogFromManifest(read(devicesPath), "meta"), "mcp").map((e) => e.annotations);
    expect(meta).toEqual([row(true, false, true, false), row(false, true, false, true), row(true, false, true, false)]);
  });

  it("an unknown provider is a TypeError", () => {
    expect(() => toolBlock(tools, "teletype")).toThrow(new TypeError('unknown provider "teletype" (openai, anthropic, gemini, mcp)'));
    expect(() => toolBlock(tools, "toString")).toThrow(TypeError);
  });
});
