// Spec "Toolset": createAgentToolset options (topology/confirmations required, budget meta-only),
// direct tools (wire names, stable descriptions, volatile state), wireNameMap, subscribe,
// tool.execute (never throws; invocationId from toolCallId; registrationId and surfaceVersion of
// its catalog), two-phase confirmation memory, wait mode, meta mode.
import { afterEach, describe, expect, it, vi } from "vitest";
import { bindNotes, bindPanel, core, deferred, makeRegistry, purge, settle } from "./helpers.js";

const { createAgentToolset } = core;
const consumer = { id: "model-1", kind: "embedded" };
const tool = (toolset, name) => {
  const t = toolset.tools().find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
};

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("options", () => {
  it("omitting both topology and confirmations throws (no ambiguous default), in every environment", () => {
    for (const environment of ["production", "development", "test"]) {
      const r = makeRegistry({ environment });
      expect(() => createAgentToolset(r, { consumer })).toThrow(TypeError);
      expect(() => createAgentToolset(r, { consumer, mode: "meta" })).toThrow(/topology/);
      expect(createAgentToolset(r, { consumer, topology: "embedded" })).toBeDefined();
      expect(createAgentToolset(r, { consumer, confirmations: "two-phase" })).toBeDefined();
      r.dispose();
    }
  });

  it("a budget throws in direct mode (truncation would be invisible) and is accepted in meta mode", () => {
    const r = makeRegistry();
    expect(() => createAgentToolset(r, { consumer, topology: "remote", budget: { maxComponents: 1 } })).toThrow(/budget/);
    expect(() => createAgentToolset(r, { consumer, topology: "remote", mode: "direct", budget: {} })).toThrow(TypeError);
    expect(createAgentToolset(r, { consumer, topology: "remote", mode: "meta", budget: { maxComponents: 1 } }).tools()).toHaveLength(3);
    r.dispose();
  });

  it("misuse is a TypeError: unknown option, bad enum values, a foreign registry, no consumer", () => {
    const r = makeRegistry();
    expect(() => createAgentToolset(r, { consumer, topology: "remote", scopes: [] })).toThrow(/unknown option/);
    expect(() => createAgentToolset(r, { consumer, topology: "local" })).toThrow(TypeError);
    expect(() => createAgentToolset(r, { consumer, confirmations: "later" })).toThrow(TypeError);
    expect(() => createAgentToolset(r, { consumer, topology: "remote", mode: "hybrid" })).toThrow(TypeError);
    expect(() => createAgentToolset(r, { topology: "remote" })).toThrow(TypeError);
    expect(() => createAgentToolset({ ...r }, { consumer, topology: "remote" })).toThrow(TypeError);
    r.dispose();
  });
});

describe("direct tools", () => {
  it("one wire-safe, unique tool per capability; the description is stable text, the state volatile", () => {
    let open = true;
    const r = makeRegistry();
    r.register(bindNotes({ procedures: [purge.bind({ execute: () => undefined, describe: () => "2 notes on the server" })] }));
    r.register(bindPanel({ actions: { toggle: { execute: () => undefined, when: () => open, unavailableReason: "the panel is animating" } } }));
    const ts = createAgentToolset(r, { consumer, topology: "remote" });
    const tools = ts.tools();
    expect(tools).toHaveLength(11);
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(tool(ts, "view_api_notes_remove").description).toBe("[view · local-state · required] Deletes a note");
    expect(tool(ts, "domain_api_purge")).toMatchObject({ description: "[domain · destructive · required] Deletes every note on the server", state: { available: true, note: "2 notes on the server" } });
    expect(tool(ts, "view_api_notes_add").inputSchema).toEqual(r.snapshot().components.find((c) => c.type === "api.notes").actions.find((a) => a.name === "add").inputSchema);
    const before = tool(ts, "view_api_panel_toggle");
    open = false;
    const after = tool(ts, "view_api_panel_toggle");
    expect(after.description).toBe(before.description);
    expect(after.state).toEqual({ available: false, unavailableReason: "the panel is animating" });
    expect(after.description).not.toContain("animating");
    expect(Object.isFrozen(after)).toBe(true);
    r.dispose();
  });

  it("wireNameMap maps each wire name of the last catalog to its capability id", () => {
    const r = makeRegistry();
    r.register(bindPanel());
    const ts = createAgentToolset(r, { consumer, topology: "remote" });
    const names = ts.tools().map((t) => t.name);
    const map = ts.wireNameMap();
    expect(map).toBeInstanceOf(Map);
    expect([...map.keys()].sort()).toEqual(names.sort());
    expect(map.get("view_api_panel_toggle")).toBe("view:api.panel.toggle");
    expect(map.get("view_api_panel_state")).toBe("view:api.panel.state");
    r.dispose();
  });

  it("scope is a discovery floor for the catalog", () => {
    const r = makeRegistry();
    r.register(bindPanel());
    r.register(bindNotes());
    const ts = createAgentToolset(r, { consumer, topology: "remote", scope: ["api.panel"] });
    expect(ts.tools().map((t) => t.name).sort()).toEqual(["view_api_panel_state", "view_api_panel_toggle"]);
    r.dispose();
  });

  it("the catalog follows the consumer's discovery policies", () => {
    const r = makeRegistry({ policies: [{ name: "panel-only-for-ops", onDiscovery: (ctx) => (ctx.componentType === "api.panel" && !ctx.consumer.grants?.includes("ops") ? "hide" : "expose") }] });
    r.register(bindPanel());
    expect(createAgentToolset(r, { consumer, topology: "remote" }).tools()).toEqual([]);
    expect(createAgentToolset(r, { consumer: { ...consumer, grants: ["ops"] }, topology: "remote" }).tools()).toHaveLength(2);
    r.dispose();
  });

  it("toolBlock renders the catalog for a provider", () => {
    const r = makeRegistry();
    r.register(bindPanel());
    const ts = createAgentToolset(r, { consumer, topology: "remote" });
    const block = ts.toolBlock("anthropic");
    expect(block.map((b) => b.name).sort()).toEqual(["view_api_panel_state", "view_api_panel_toggle"]);
    expect(block[0]).toHaveProperty("input_schema");
    expect(() => ts.toolBlock("teletype")).toThrow(TypeError);
    r.dispose();
  });
});

describe("subscribe", () => {
  it("fires when the catalog changes, including an availability flip that changes only state", async () => {
    const r = makeRegistry();
    const h = r.register(bindPanel());
    const ts = createAgentToolset(r, { consumer, topology: "remote" });
    ts.tools();
    const heard = [];
    const stop = ts.subscribe((tools) => heard.push(tools));
    h.update({ availability: { toggle: { available: false, reason: "busy" } } });
    await settle();
    expect(heard).toHaveLength(1);
    const toggle = heard[0].find((t) => t.name === "view_api_panel_toggle");
    expect(toggle.state).toEqual({ available: false, unavailableReason: "busy" });
    expect(typeof toggle.execute).toBe("function");
    r.register(bindNotes());
    await settle();
    expect(heard).toHaveLength(2);
    expect(heard[1].length).toBeGreaterThan(2);
    stop();
    h.update({ enabled: false });
    await settle();
    expect(heard).toHaveLength(2);
    r.dispose();
  });

  it("never fires in meta mode; dispose stops a direct toolset's listeners", async () => {
    const r = makeRegistry();
    const h = r.register(bindPanel());
    const meta = createAgentToolset(r, { consumer, topology: "remote", mode: "meta" });
    const direct = createAgentToolset(r, { consumer, topology: "remote" });
    const metaHeard = vi.fn();
    const directHeard = vi.fn();
    meta.subscribe(metaHeard);
    direct.subscribe(directHeard);
    direct.dispose();
    h.update({ enabled: false });
    r.register(bindNotes());
    await settle();
    expect(metaHeard).not.toHaveBeenCalled();
    expect(directHeard).not.toHaveBeenCalled();
    r.dispose();
  });
});

describe("tool.execute", () => {
  it("fills invocationId from toolCallId, invokes as the toolset's consumer, and returns the envelope", async () => {
    const records = [];
    const r = makeRegistry({ audit: { record: (x) => records.push(x) } });
    r.register(bindNotes());
    const ts = createAgentToolset(r, { consumer, topology: "remote" });
    const res = await tool(ts, "view_api_notes_add").execute({ text: "milk" }, { toolCallId: "toolu_1" });
    expect(res).toMatchObject({ status: "ok", invocationId: "toolu_1", capabilityId: "view:api.notes.add", output: { id: "n1" } });
    expect(records[0]).toMatchObject({ invocationId: "toolu_1", consumerKey: "embedded:model-1" });
    // a transport retry of the same call is the cached result
    expect(await tool(ts, "view_api_notes_add").execute({ text: "milk" }, { toolCallId: "toolu_1" })).toEqual(res);
    expect(records).toHaveLength(1);
    r.dispose();
  });

  it("never throws: invalid input, non-JSON input, a vanished capability, a failing handler are envelopes", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const r = makeRegistry();
    const h = r.register(
      bindNotes({
        actions: {
          work: {
            execute: () => {
              throw new Error("boom");
            },
          },
        },
      }),
    );
    const ts = createAgentToolset(r, { consumer, topology: "remote" });
    const add = tool(ts, "view_api_notes_add");
    const work = tool(ts, "view_api_notes_work");
    const cyclic = {};
    cyclic.self = cyclic;
    const results = [
      await add.execute({ text: "" }, { toolCallId: "a" }),
      await add.execute(cyclic, { toolCallId: "b" }),
      await add.execute({ text: 10n }, { toolCallId: "c" }),
      await add.execute({ text: () => "x" }, { toolCallId: "d" }),
      await work.execute({}, { toolCallId: "e" }),
      await work.execute(undefined, {}),
    ];
    expect(results.map((x) => x.error?.code)).toEqual(["INVALID_INPUT", "INVALID_INPUT", "INVALID_INPUT", "INVALID_INPUT", "EXECUTION_FAILED", "EXECUTION_FAILED"]);
    expect(results[1]).toMatchObject({ status: "error", invocationId: "b", error: { retry: "with-changes" }, surfaceVersion: r.getVersion() });
    h.unregister();
    const gone = await add.execute({ text: "a" }, { toolCallId: "f" });
    expect(gone.status).toBe("error");
    expect(gone.error.code).toBe("COMPONENT_UNMOUNTED");
    r.dispose();
    const afterDispose = await add.execute({ text: "a" }, { toolCallId: "g" });
    expect(afterDispose).toMatchObject({ status: "error", invocationId: "g", error: { code: "CANCELLED" } });
  });

  it("a tool executes as in the catalog it came from: its registration, and its surface version for destructive effects", async () => {
    const r = makeRegistry({ onDuplicateInstance: "replace" });
    const purged = vi.fn();
    r.register(bindNotes({ procedures: [purge.bind({ execute: purged })] }));
    const ts = createAgentToolset(r, { consumer, topology: "remote" });
    const old = ts.tools();
    const live = r.register(bindNotes({ procedures: [purge.bind({ execute: purged })] }));
    const oldAdd = old.find((t) => t.name === "view_api_notes_add");
    const stale = await oldAdd.execute({ text: "a" }, { toolCallId: "s1" });
    expect(stale.error).toMatchObject({ code: "STALE_CAPABILITY", details: { liveRegistrationId: live.registrationId } });
    const fresh = await tool(ts, "view_api_notes_add").execute({ text: "a" }, { toolCallId: "s2" });
    expect(fresh.status).toBe("ok");
    // the destructive procedure from the fresh catalog, after an unrelated change
    const purge1 = tool(ts, "domain_api_purge");
    r.register(bindPanel());
    expect((await purge1.execute({}, { toolCallId: "p1" })).error).toMatchObject({ code: "STALE_CAPABILITY", details: { reason: "surface-version-mismatch" } });
    expect(purged).not.toHaveBeenCalled();
    r.dispose();
  });
});

describe("confirmations: two-phase", () => {
  it("CONFIRMATION_REQUIRED goes to the model; after approval the model repeats the call (new toolCallId) and it runs — no confirmation id handled by the model", async () => {
    const execute = vi.fn();
    const r = makeRegistry();
    r.register(bindNotes({ actions: { remove: { execute } } }));
    const ts = createAgentToolset(r, { consumer, topology: "remote" });
    const first = await tool(ts, "view_api_notes_remove").execute({ id: "n1" }, { toolCallId: "call_1" });
    expect(first.error).toMatchObject({ code: "CONFIRMATION_REQUIRED", retry: "after-confirmation" });
    const [pending] = r.confirmations.pending();
    expect(pending).toMatchObject({ capabilityId: "view:api.notes.remove", consumerKey: "embedded:model-1", input: { id: "n1" } });
    r.confirmations.resolve(pending.confirmationId, { approved: true });
    const second = await tool(ts, "view_api_notes_remove").execute({ id: "n1" }, { toolCallId: "call_2" });
    expect(second).toMatchObject({ status: "ok", invocationId: "call_2" });
    expect(execute).toHaveBeenCalledTimes(1);
    expect(execute.mock.calls[0][1].confirmation.id).toBe(pending.confirmationId);
    // the evidence was used: a third identical call asks again
    const third = await tool(ts, "view_api_notes_remove").execute({ id: "n1" }, { toolCallId: "call_3" });
    expect(third.error.code).toBe("CONFIRMATION_REQUIRED");
    expect(execute).toHaveBeenCalledTimes(1);
    r.dispose();
  });

  it("the memory is per (tool, canonical input, consumer): another input or another consumer's toolset asks anew", async () => {
    const execute = vi.fn();
    const r = makeRegistry();
    r.register(bindNotes({ actions: { remove: { execute } } }));
    const mine = createAgentToolset(r, { consumer, topology: "remote" });
    const theirs = createAgentToolset(r, { consumer: { id: "model-2", kind: "embedded" }, topology: "remote" });
    await tool(mine, "view_api_notes_remove").execute({ id: "n1" }, { toolCallId: "c1" });
    r.confirmations.resolve(r.confirmations.pending()[0].confirmationId, { approved: true });
    expect((await tool(mine, "view_api_notes_remove").execute({ id: "n2" }, { toolCallId: "c2" })).error.code).toBe("CONFIRMATION_REQUIRED");
    expect((await tool(theirs, "view_api_notes_remove").execute({ id: "n1" }, { toolCallId: "c3" })).error.code).toBe("CONFIRMATION_REQUIRED");
    expect(execute).not.toHaveBeenCalled();
    expect((await tool(mine, "view_api_notes_remove").execute({ id: "n1" }, { toolCallId: "c4" })).status).toBe("ok");
    r.dispose();
  });

  it("after a denial the repeated call is CONFIRMATION_DENIED with the user's reason", async () => {
    const r = makeRegistry();
    r.register(bindNotes());
    const ts = createAgentToolset(r, { consumer, confirmations: "two-phase" });
    await tool(ts, "view_api_notes_remove").execute({ id: "n1" }, { toolCallId: "c1" });
    r.confirmations.resolve(r.confirmations.pending()[0].confirmationId, { approved: false, reason: "not this one" });
    const res = await tool(ts, "view_api_notes_remove").execute({ id: "n1" }, { toolCallId: "c2" });
    expect(res.error).toMatchObject({ code: "CONFIRMATION_DENIED", details: { reason: "not this one" } });
    r.dispose();
  });
});

describe("confirmations: wait", () => {
  it("the call waits until the app resolves, then runs: one tool call → one final result", async () => {
    const execute = vi.fn();
    const r = makeRegistry();
    r.register(bindNotes({ actions: { remove: { execute } } }));
    const ts = createAgentToolset(r, { consumer, topology: "embedded" }); // embedded → wait
    let result;
    const call = tool(ts, "view_api_notes_remove")
      .execute({ id: "n1" }, { toolCallId: "w1" })
      .then((x) => (result = x));
    await settle();
    expect(result).toBeUndefined();
    const [pending] = r.confirmations.pending();
    expect(pending.input).toEqual({ id: "n1" });
    expect(execute).not.toHaveBeenCalled();
    r.confirmations.resolve(pending.confirmationId, { approved: true });
    await call;
    expect(result).toMatchObject({ status: "ok", invocationId: "w1" });
    expect(execute).toHaveBeenCalledTimes(1);
    r.dispose();
  });

  it("a denial while waiting ends the call CONFIRMATION_DENIED; confirmations: \"wait\" overrides a remote topology", async () => {
    const execute = vi.fn();
    const r = makeRegistry();
    r.register(bindNotes({ actions: { remove: { execute } } }));
    const ts = createAgentToolset(r, { consumer, topology: "remote", confirmations: "wait" });
    const call = tool(ts, "view_api_notes_remove").execute({ id: "n1" }, { toolCallId: "w2" });
    await settle();
    r.confirmations.resolve(r.confirmations.pending()[0].confirmationId, { approved: false, reason: "no" });
    expect((await call).error).toMatchObject({ code: "CONFIRMATION_DENIED", details: { reason: "no" } });
    expect(execute).not.toHaveBeenCalled();
    r.dispose();
  });

  it("waits up to the TTL: unanswered, the call ends CONFIRMATION_EXPIRED (fake timers)", async () => {
    vi.useFakeTimers();
    const execute = vi.fn();
    const r = makeRegistry();
    r.register(bindNotes({ actions: { remove: { execute } } }));
    const ts = createAgentToolset(r, { consumer, topology: "embedded" });
    let result;
    tool(ts, "view_api_notes_remove")
      .execute({ id: "n1" }, { toolCallId: "w3" })
      .then((x) => (result = x));
    await vi.advanceTimersByTimeAsync(119_000);
    expect(result).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(result.error).toMatchObject({ code: "CONFIRMATION_EXPIRED" });
    expect(execute).not.toHaveBeenCalled();
    r.dispose();
    vi.useRealTimers();
  });

  it("confirmations: \"two-phase\" overrides an embedded topology", async () => {
    const r = makeRegistry();
    r.register(bindNotes());
    const ts = createAgentToolset(r, { consumer, topology: "embedded", confirmations: "two-phase" });
    expect((await tool(ts, "view_api_notes_remove").execute({ id: "n1" }, { toolCallId: "t" })).error.code).toBe("CONFIRMATION_REQUIRED");
    r.dispose();
  });
});

describe("meta mode (experimental)", () => {
  it("three constant tools; discover is the snapshot for this consumer, read and invoke address capabilities by id", async () => {
    const r = makeRegistry();
    r.register(bindNotes({ observations: { raw: { read: () => "hello" } } }));
    const ts = createAgentToolset(r, { consumer, topology: "remote", mode: "meta" });
    expect(ts.tools().map((t) => t.name).sort()).toEqual(["surface_discover", "surface_invoke", "surface_read"]);
    expect(ts.wireNameMap().size).toBe(0);
    const discovered = await tool(ts, "surface_discover").execute({}, { toolCallId: "d1" });
    expect(discovered.status).toBe("ok");
    expect(discovered.output.components.map((c) => c.type)).toEqual(["api.notes"]);
    expect(discovered.output.surfaceVersion).toBe(r.getVersion());
    expect((await tool(ts, "surface_read").execute({ capabilityId: "view:api.notes.raw" }, { toolCallId: "r1" })).output).toBe("hello");
    expect(await tool(ts, "surface_invoke").execute({ capabilityId: "view:api.notes.add", input: { text: "a" } }, { toolCallId: "i1" })).toMatchObject({
      status: "ok",
      capabilityId: "view:api.notes.add",
      output: { id: "n1" },
    });
    r.dispose();
  });

  it("a model-supplied scope narrows the floor, never widens it; the budget truncates visibly", async () => {
    const r = makeRegistry();
    r.register(bindNotes());
    r.register(bindPanel());
    const ts = createAgentToolset(r, { consumer, topology: "remote", mode: "meta", scope: ["api.notes"] });
    const narrowed = await tool(ts, "surface_discover").execute({ scope: ["api.panel"] }, { toolCallId: "d" });
    expect(narrowed.output.components).toEqual([]);
    expect(narrowed.output.scopeRejected).toEqual({ prefixes: ["api.panel"] });
    const floor = await tool(ts, "surface_discover").execute({}, { toolCallId: "d2" });
    expect(floor.output.components.map((c) => c.type)).toEqual(["api.notes"]);
    const budgeted = createAgentToolset(r, { consumer, topology: "remote", mode: "meta", budget: { maxComponents: 1 } });
    const out = (await tool(budgeted, "surface_discover").execute({}, { toolCallId: "d3" })).output;
    expect(out.components.map((c) => c.type)).toEqual(["api.panel"]);
    expect(out.truncated).toEqual({ droppedComponents: 1 });
    r.dispose();
  });

  it("gives the same waiting behaviour to surface_invoke in wait mode", async () => {
    const r = makeRegistry();
    r.register(bindNotes());
    const ts = createAgentToolset(r, { consumer, topology: "embedded", mode: "meta" });
    const gate = deferred();
    const call = tool(ts, "surface_invoke").execute({ capabilityId: "view:api.notes.remove", input: { id: "n1" } }, { toolCallId: "m1" });
    call.then(gate.resolve);
    await settle();
    r.confirmations.resolve(r.confirmations.pending()[0].confirmationId, { approved: true });
    expect((await gate.promise).status).toBe("ok");
    r.dispose();
  });
});
