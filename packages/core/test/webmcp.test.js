// @vitest-environment happy-dom
//
// @agent-surface/core/webmcp over the draft's API: exposeToWebMCP publishes the devices page
// through the fixture (test/fixtures/webmcp-polyfill.js, written from the draft's IDL) and an
// agent discovers and executes tools with getTools/executeTool, as an in-page agent would.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as core from "../dist/index.js";
import { projectForWebMCP } from "../dist/expose/webmcp-schema.js";
import { EXPLAIN_TOOL, exposeToWebMCP, webmcpAnnotations } from "../dist/webmcp.js";
import { asChrome160 } from "./fixtures/webmcp-chrome160.js";
import { createModelContext, installModelContext } from "./fixtures/webmcp-polyfill.js";
import { toolAttributes } from "./fixtures/webmcp-tool-attributes.js";
import { fixtureManifestPath, readJson } from "./paths.js";
import { createDevicesPage, settle } from "./webmcp-page.js";

const manifest = readJson(fixtureManifestPath);

const noop = async () => null;

describe("exposeToWebMCP over the fixture", () => {
  let mc;
  let page;
  let exposure;
  beforeEach(() => {
    mc = createModelContext(window);
    page = createDevicesPage(core, manifest);
  });
  afterEach(() => {
    exposure?.close();
    exposure = undefined;
    page.registry.dispose();
    vi.restoreAllMocks();
    delete document.modelContext;
  });

  const tool = async (name) => {
    const found = (await mc.getTools()).find((t) => t.name === name);
    if (!found) throw new Error(`no tool ${name}`);
    return found;
  };
  const run = async (name, input, options) => JSON.parse(await mc.executeTool(await tool(name), input, options));

  it("registers one tool per direct tool: wire names, the capability id as title, the toolset's schema", async () => {
    exposure = exposeToWebMCP(page.registry, { modelContext: mc });
    expect(exposure.supported).toBe(true);
    const direct = core.createAgentToolset(page.registry, { consumer: { kind: "test", id: "x" }, topology: "remote" });
    const expected = direct.tools();
    const wire = direct.wireNameMap();
    const tools = await mc.getTools();
    expect(tools.map((t) => t.name)).toEqual(expected.map((t) => t.name));
    // Each view tool's description also carries its component's (WebMCP has no component level).
    const componentOf = new Map();
    for (const c of page.registry.snapshot().components) for (const d of [...c.observations, ...c.actions]) componentOf.set(d.capabilityId, c);
    for (const t of tools) {
      const e = expected.find((x) => x.name === t.name);
      expect(t.title).toBe(wire.get(t.name));
      const component = componentOf.get(wire.get(t.name));
      expect(t.description).toBe(component ? `${e.description}\n\nComponent ${component.type}: ${component.description}` : e.description);
      if (t.name === "view_devices_table_readState") expect(t.description).toMatch(/\n\nComponent devices\.table: \S/);
      expect(t.inputSchema).toEqual(projectForWebMCP(e.inputSchema).schema);
      expect(t.origin).toBe(window.location.origin);
    }
    direct.dispose();
  });

  it("registers projected input schemas: inside WebMCP's allow-list, the rest in the descriptions", async () => {
    exposure = exposeToWebMCP(page.registry, { modelContext: mc });
    const direct = core.createAgentToolset(page.registry, { consumer: { kind: "test", id: "x" }, topology: "remote" });
    const outside = /"(\$defs|\$ref|\$schema|format|anyOf|const|title|examples|deprecated|minItems|maxItems|uniqueItems|multipleOf)":|"additionalProperties":true|"type":\[/;
    const tools = await mc.getTools();
    expect(tools.length).toBe(direct.tools().length);
    for (const t of tools) expect(JSON.stringify(t.inputSchema)).not.toMatch(outside);
    const decommission = direct.tools().find((t) => t.name === "domain_devices_decommission");
    expect(JSON.stringify(decommission.inputSchema)).toMatch(outside);
    const ids = (await tool("domain_devices_decommission")).inputSchema.properties.ids;
    expect(ids.minItems).toBeUndefined();
    expect(ids.description).toBe("(maxItems: 50; minItems: 1)");
    // The pipeline still validates with the full schema.
    expect(await run("domain_devices_decommission", { ids: [] })).toMatchObject({ status: "error", error: { code: "INVALID_INPUT" } });
    direct.dispose();
  });

  it("a registerTool that throws for one tool is reported with its name and message; the others register", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const picky = {
      registerTool(t, options) {
        if (t.name === "domain_devices_decommission") throw new TypeError("inputSchema outside the allow-list");
        return mc.registerTool(t, options);
      },
    };
    exposure = exposeToWebMCP(page.registry, { modelContext: picky });
    await settle();
    expect(error).toHaveBeenCalledWith('agent-surface: WebMCP refused the tool "domain_devices_decommission": inputSchema outside the allow-list');
    const direct = core.createAgentToolset(page.registry, { consumer: { kind: "test", id: "x" }, topology: "remote" });
    const names = (await mc.getTools()).map((t) => t.name);
    expect(names).toEqual(direct.tools().map((t) => t.name).filter((n) => n !== "domain_devices_decommission"));
    expect(await run("view_app_nav_currentRoute", {})).toMatchObject({ status: "ok" });
    direct.dispose();
  });

  it("derives the annotations from the engine: MCP's hints, consequential beyond the page, untrusted when open-world", async () => {
    exposure = exposeToWebMCP(page.registry, { modelContext: mc });
    const seen = [];
    const spy = { registerTool: (t, o) => (seen.push(t), mc.registerTool(t, o)) };
    const second = exposeToWebMCP(page.registry, { modelContext: spy, consumerId: "second" });
    const by = Object.fromEntries(seen.map((t) => [t.name, t.annotations]));
    second.close();
    const hints = (name) => by[name];
    expect(hints("view_devices_table_readState")).toEqual({
      readOnlyHint: true,
      untrustedContentHint: false,
      consequentialHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
      debugging: false,
    });
    expect(hints("view_devices_table_sortBy")).toMatchObject({ readOnlyHint: false, consequentialHint: false, destructiveHint: false });
    expect(hints("view_app_nav_navigate")).toMatchObject({ readOnlyHint: false, consequentialHint: false });
    expect(hints("domain_devices_reboot")).toMatchObject({ readOnlyHint: false, consequentialHint: true, destructiveHint: false, openWorldHint: false });
    expect(hints("domain_devices_decommission")).toMatchObject({ readOnlyHint: false, consequentialHint: true, destructiveHint: true, idempotentHint: false });
    // What the fixture keeps is the draft's dictionary: MCP's extra hints are dropped.
    expect((await tool("domain_devices_decommission")).annotations).toEqual({
      readOnlyHint: false,
      untrustedContentHint: false,
      consequentialHint: true,
      debugging: false,
    });
    // The mapping on its own: an external side effect is open-world, hence untrusted content.
    expect(webmcpAnnotations({ name: "x", description: "[external · external-side-effect · required] Export." }, { openWorldHint: true })).toMatchObject({
      consequentialHint: true,
      untrustedContentHint: true,
      openWorldHint: true,
    });
    expect(webmcpAnnotations({ name: "v", description: "[view · local-state · required] Reset." }, {})).toMatchObject({ consequentialHint: true });
    expect(webmcpAnnotations({ name: "surface_invoke", description: "Invoke." }, { readOnlyHint: false })).toMatchObject({ consequentialHint: true });
    expect(webmcpAnnotations({ name: "surface_read", description: "Read." }, { readOnlyHint: true })).toMatchObject({ consequentialHint: false });
  });

  it("executes through the pipeline: an observation, an action, and the pipeline's validation WebMCP lacks", async () => {
    exposure = exposeToWebMCP(page.registry, { modelContext: mc });
    const read = await run("view_devices_table_readState", {});
    expect(read).toMatchObject({ status: "ok", capabilityId: "view:devices.table.readState", output: { sort: "name", filter: "" } });
    expect(read.invocationId).toMatch(/./);
    expect(await run("view_devices_table_selectRows", { ids: ["dev_bbbbbb"] })).toMatchObject({ status: "ok" });
    expect(page.state.selection).toEqual(["dev_bbbbbb"]);
    const invalid = await run("view_devices_table_selectRows", { ids: ["not-a-device"] });
    expect(invalid).toMatchObject({ status: "error", error: { code: "INVALID_INPUT", retry: "with-changes" } });
    expect(page.state.selection).toEqual(["dev_bbbbbb"]);
    // An error is flagged the way relays read a tool result (MCP's CallToolResult.isError);
    // a success carries no flag.
    expect(invalid.isError).toBe(true);
    expect("isError" in read).toBe(false);
  });

  it("a destructive procedure waits for the page's dialog, runs once on approval; the agent cannot approve", async () => {
    exposure = exposeToWebMCP(page.registry, { modelContext: mc });
    const shown = [];
    page.registry.confirmations.subscribe((pending) => shown.push(pending.length));
    let settled = false;
    const call = mc.executeTool(await tool("domain_devices_decommission"), { ids: ["dev_bbbbbb"] }).then((text) => {
      settled = true;
      return JSON.parse(text);
    });
    await settle();
    const [pending] = page.registry.confirmations.pending();
    expect(pending).toMatchObject({ capabilityId: "domain:devices.decommission", consumerKey: "webmcp:default", effect: "destructive", input: { ids: ["dev_bbbbbb"] } });
    expect(settled).toBe(false);
    expect(page.state.decommissionCalls).toBe(0);
    // No tool resolves confirmations: the catalog has none that could.
    expect((await mc.getTools()).some((t) => /confirm/i.test(t.name))).toBe(false);
    page.registry.confirmations.resolve(pending.confirmationId, { approved: true });
    const result = await call;
    expect(result).toMatchObject({ status: "ok", capabilityId: "domain:devices.decommission" });
    expect(page.state.decommissionCalls).toBe(1);
    expect(page.state.decommissioned).toEqual(["dev_bbbbbb"]);
    expect(shown).toContain(1);
    expect(page.registry.confirmations.pending()).toEqual([]);
  });

  it("a denied confirmation settles CONFIRMATION_DENIED and the handler never runs", async () => {
    exposure = exposeToWebMCP(page.registry, { modelContext: mc });
    const call = run("domain_devices_decommission", { ids: ["dev_aaaaaa"] });
    await settle();
    const [pending] = page.registry.confirmations.pending();
    page.registry.confirmations.resolve(pending.confirmationId, { approved: false, reason: "not today" });
    expect(await call).toMatchObject({ status: "error", isError: true, error: { code: "CONFIRMATION_DENIED", retry: "never" } });
    expect(page.state.decommissionCalls).toBe(0);
  });

  it("the agent cancelling while the dialog is open rejects executeTool and runs nothing", async () => {
    exposure = exposeToWebMCP(page.registry, { modelContext: mc });
    const seen = [];
    const spy = {
      registerTool: (t, o) =>
        mc.registerTool(
          {
            ...t,
            execute: (input, opts) =>
              t.execute(input, opts).then((r) => {
                seen.push(r);
                return r;
              }),
          },
          o,
        ),
    };
    exposure.close();
    exposure = exposeToWebMCP(page.registry, { modelContext: spy });
    await settle();
    const ac = new AbortController();
    const call = mc.executeTool(await tool("domain_devices_decommission"), { ids: ["dev_aaaaaa"] }, { signal: ac.signal });
    await settle();
    expect(page.registry.confirmations.pending()).toHaveLength(1);
    ac.abort("the user closed the agent");
    await expect(call).rejects.toBe("the user closed the agent");
    await settle();
    expect(seen.map((r) => r.error?.code)).toEqual(["CANCELLED"]);
    expect(page.state.decommissionCalls).toBe(0);
    // The cancelled call withdrew its confirmation (test below): nothing is left to approve.
    expect(page.registry.confirmations.pending()).toEqual([]);
    expect(page.state.decommissionCalls).toBe(0);
  });

  // The page's dialog goes away when the agent stops waiting (the engine resolves the request as
  // denied, "the call was cancelled while waiting").
  it("a call cancelled while waiting withdraws its pending confirmation", async () => {
    exposure = exposeToWebMCP(page.registry, { modelContext: mc });
    const ac = new AbortController();
    const call = mc.executeTool(await tool("domain_devices_decommission"), { ids: ["dev_aaaaaa"] }, { signal: ac.signal });
    await settle();
    expect(page.registry.confirmations.pending()).toHaveLength(1);
    ac.abort("stop");
    await expect(call).rejects.toBe("stop");
    await settle();
    expect(page.registry.confirmations.pending()).toEqual([]);
  });

  it("follows the catalog: an unmount unregisters its tools, a mount registers them, toolchange fires", async () => {
    exposure = exposeToWebMCP(page.registry, { modelContext: mc });
    let changes = 0;
    mc.ontoolchange = () => changes++;
    await settle();
    changes = 0;
    const navTool = await tool("view_app_nav_navigate");
    page.handles.nav.unregister();
    await settle();
    const names = (await mc.getTools()).map((t) => t.name);
    expect(names.some((n) => n.startsWith("view_app_nav"))).toBe(false);
    expect(names).toContain("view_devices_table_readState");
    expect(changes).toBeGreaterThan(0);
    // The old page's tool is gone: the user agent refuses the stale call.
    await expect(mc.executeTool(navTool, { to: "/x" })).rejects.toMatchObject({ name: "UnknownError" });
    page.handles.nav = page.registry.register(page.bindNav());
    await settle();
    expect(await run("view_app_nav_navigate", { to: "/reports" })).toMatchObject({ status: "ok" });
    expect(page.state.path).toBe("/reports");
  });

  it("re-registers only what changed: an availability flip re-registers that tool, with the reason", async () => {
    const calls = [];
    const spy = { registerTool: (t, o) => (calls.push(t.name), mc.registerTool(t, o)) };
    exposure = exposeToWebMCP(page.registry, { modelContext: spy });
    const all = calls.length;
    expect(all).toBeGreaterThan(5);
    page.state.canClear = false;
    page.handles.table.invalidate();
    await settle();
    expect(calls.slice(all)).toEqual(["view_devices_table_clearSelection"]);
    const clear = await tool("view_devices_table_clearSelection");
    expect(clear.description).toMatch(/\n\nUnavailable now: nothing is selected$/);
    expect(await run("view_devices_table_clearSelection", {})).toMatchObject({ status: "error", error: { code: "CAPABILITY_NOT_AVAILABLE" } });
    expect((await mc.getTools()).length).toBe(all);
  });

  it("several instances of one type get per-instance tools, each reaching its own instance", async () => {
    exposure = exposeToWebMCP(page.registry, { modelContext: mc });
    const archive = page.registry.register(page.bindTable("archive"));
    await settle();
    const names = (await mc.getTools()).map((t) => t.name);
    expect(names).not.toContain("view_devices_table_readState");
    const perInstance = names.filter((n) => n.startsWith("view_devices_table_readState__"));
    expect(perInstance).toHaveLength(2);
    for (const n of perInstance) expect((await tool(n)).title).toBe("view:devices.table.readState");
    expect(await run(perInstance.find((n) => n.endsWith("archive")), {})).toMatchObject({ status: "ok" });
    archive.unregister();
    await settle();
    expect((await mc.getTools()).map((t) => t.name)).toContain("view_devices_table_readState");
  });

  it("close() unregisters everything and stops following the registry; it is idempotent", async () => {
    exposure = exposeToWebMCP(page.registry, { modelContext: mc });
    expect((await mc.getTools()).length).toBeGreaterThan(0);
    exposure.close();
    exposure.close();
    expect(await mc.getTools()).toEqual([]);
    page.handles.nav.unregister();
    page.registry.register(page.bindNav());
    await settle();
    expect(await mc.getTools()).toEqual([]);
  });

  it("passes each capability's output schema, projected like the input's (Chrome 159+ accepts it; the draft's dictionary drops it)", async () => {
    const seen = [];
    exposure = exposeToWebMCP(page.registry, { modelContext: { registerTool: (t, o) => (seen.push(t), mc.registerTool(t, o)) } });
    const direct = core.createAgentToolset(page.registry, { consumer: { kind: "test", id: "x" }, topology: "remote" });
    const withOutput = direct.tools().filter((t) => t.outputSchema !== undefined);
    expect(withOutput.map((t) => t.name)).toContain("view_devices_table_readState");
    for (const t of withOutput) expect(seen.find((d) => d.name === t.name).outputSchema).toEqual(projectForWebMCP(t.outputSchema).schema);
    for (const t of direct.tools().filter((t) => t.outputSchema === undefined)) expect("outputSchema" in seen.find((d) => d.name === t.name)).toBe(false);
    expect("outputSchema" in (await tool("view_devices_table_readState"))).toBe(false);
    direct.dispose();
  });

  it("developerTools registers surface_explain, marked debugging: true; it explains the surface for this consumer", async () => {
    exposure = exposeToWebMCP(page.registry, { modelContext: mc });
    expect((await mc.getTools()).some((t) => t.name === EXPLAIN_TOOL)).toBe(false);
    exposure.close();
    exposure = exposeToWebMCP(page.registry, { modelContext: mc, developerTools: true, consumerId: "dev" });
    const explain = await tool(EXPLAIN_TOOL);
    expect(explain.annotations).toEqual({ readOnlyHint: true, untrustedContentHint: false, consequentialHint: false, debugging: true });
    for (const t of await mc.getTools()) if (t.name !== EXPLAIN_TOOL) expect(t.annotations.debugging).toBe(false);
    const result = await run(EXPLAIN_TOOL, {});
    expect(result.status).toBe("ok");
    const ids = result.output.capabilities.map((c) => c.capabilityId);
    expect(ids).toContain("domain:devices.decommission");
    expect(result.output.capabilities.find((c) => c.capabilityId === "view:devices.table.readState").outcome).toBe("expose");
    // A catalog change re-registers capability tools only; close() unregisters it too.
    page.handles.nav.unregister();
    await settle();
    expect((await mc.getTools()).some((t) => t.name === "view_app_nav_navigate")).toBe(false);
    expect((await mc.getTools()).some((t) => t.name === EXPLAIN_TOOL)).toBe(true);
    exposure.close();
    expect(await mc.getTools()).toEqual([]);
    expect(() => exposeToWebMCP(page.registry, { modelContext: mc, developerTools: "yes" })).toThrow(TypeError);
  });

  it("tool attributes read explicitly are the same on the Chrome 156 shape and on the Chrome 160 Tool shape", async () => {
    exposure = exposeToWebMCP(page.registry, { modelContext: mc, developerTools: true });
    const chrome160 = asChrome160(mc);
    const old = await mc.getTools();
    const now = await chrome160.getTools();
    // What breaks code that spreads or serializes a tool:
    expect(JSON.stringify(now[0])).toBe("{}");
    expect({ ...now[0] }).toEqual({});
    expect(now[0].source).toBe(window);
    expect("window" in now[0]).toBe(false);
    const read = (list) => list.map(toolAttributes);
    expect(read(now)).toEqual(read(old));
    const decommission = read(now).find((t) => t.name === "domain_devices_decommission");
    expect(decommission).toMatchObject({ title: "domain:devices.decommission", source: window, annotations: { consequentialHint: true, debugging: false } });
    expect(decommission.inputSchema.required).toEqual(["ids"]);
    expect(read(now).find((t) => t.name === EXPLAIN_TOOL).annotations.debugging).toBe(true);
    // executeTool takes the Tool object from getTools().
    const readState = now.find((t) => t.name === "view_devices_table_readState");
    expect(JSON.parse(await chrome160.executeTool(readState, {}))).toMatchObject({ status: "ok", output: { sort: "name" } });
  });

  it("meta mode publishes the three meta tools", async () => {
    exposure = exposeToWebMCP(page.registry, { modelContext: mc, mode: "meta" });
    expect((await mc.getTools()).map((t) => t.name)).toEqual(["surface_discover", "surface_invoke", "surface_read"]);
    const current = await run("surface_read", { capabilityId: "view:app.nav.currentRoute" });
    expect(current).toMatchObject({ status: "ok", output: { path: "/devices" } });
  });

  it("feature-detects the page's modelContext: document first, navigator (older drafts) second, else nothing", async () => {
    expect(exposeToWebMCP(page.registry).supported).toBe(false);
    const onNavigator = createModelContext(window);
    Object.defineProperty(navigator, "modelContext", { configurable: true, get: () => onNavigator });
    try {
      exposure = exposeToWebMCP(page.registry);
      expect(exposure.supported).toBe(true);
      expect((await onNavigator.getTools()).length).toBeGreaterThan(0);
      exposure.close();
      const installed = installModelContext(window);
      exposure = exposeToWebMCP(page.registry);
      expect((await installed.getTools()).length).toBeGreaterThan(0);
      expect(await onNavigator.getTools()).toEqual([]);
    } finally {
      delete navigator.modelContext;
    }
  });

  it("a refused registration is reported and does not stop the others", async () => {
    await mc.registerTool({ name: "view_app_nav_navigate", description: "someone else's", execute: noop });
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    exposure = exposeToWebMCP(page.registry, { modelContext: mc });
    await settle();
    expect(error).toHaveBeenCalledWith(expect.stringContaining('WebMCP refused the tool "view_app_nav_navigate"'));
    expect((await tool("view_app_nav_navigate")).description).toBe("someone else's");
    expect(await run("view_app_nav_currentRoute", {})).toMatchObject({ status: "ok" });
  });

  it("refuses misuse", () => {
    expect(() => exposeToWebMCP(page.registry, { modelContext: {} })).toThrow(TypeError);
    expect(() => exposeToWebMCP(page.registry, { consumerId: "" })).toThrow(TypeError);
    expect(() => exposeToWebMCP(page.registry, { modelContext: mc, surprise: 1 })).toThrow(/unknown option "surprise"/);
    expect(() => exposeToWebMCP({}, { modelContext: mc })).toThrow();
  });
});
