// The toolset over a registry that has only the public interface: options, the direct catalog
// (wire names, prefixes, state, instances, procedures), execute (routes of the catalog a tool came
// from, kept catalogs, never throws), two-phase memory, wait mode, meta envelopes, scope floors
// and budget, subscribe semantics, dispose, toolBlock.
import { afterEach, describe, expect, it, vi } from "vitest";
import { catalogIdOf, createAgentToolset } from "../../dist/toolset.js";
import { component, emptyInput, fakeRegistry, procedure, tick } from "./fake-registry.js";

const consumer = { id: "model-1", kind: "embedded" };
const find = (tools, name) => {
  const t = tools.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name} in ${tools.map((x) => x.name)}`);
  return t;
};
const required = (inv, cid = "cnf_1") => ({
  status: "error",
  invocationId: inv.invocationId ?? "inv_x",
  capabilityId: inv.capabilityId,
  error: { code: "CONFIRMATION_REQUIRED", message: "the user must confirm", retry: "after-confirmation", details: { confirmationId: cid, expiresAt: "later", summary: "s" } },
  surfaceVersion: "1",
});
const error = (inv, code, retry = "never") => ({ status: "error", invocationId: inv.invocationId ?? "", capabilityId: inv.capabilityId, error: { code, message: code, retry }, surfaceVersion: "1" });

afterEach(() => vi.restoreAllMocks());

const notes = () =>
  component("app.notes", {
    observations: { list: { outputSchema: { type: "array" } } },
    actions: {
      add: { inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false } },
      remove: { confirmation: "required", effect: "local-state", unavailableReason: "busy", available: false },
    },
  });

describe("options", () => {
  const { registry: r } = fakeRegistry();
  it("topology or confirmations is required; a budget is meta-only", () => {
    expect(() => createAgentToolset(r, { consumer })).toThrow(/`topology` or `confirmations`/);
    expect(() => createAgentToolset(r, { consumer, mode: "meta" })).toThrow(TypeError);
    expect(() => createAgentToolset(r, { consumer, topology: "remote", budget: {} })).toThrow(/`budget` is meta-mode only/);
    expect(createAgentToolset(r, { consumer, topology: "remote", mode: "meta", budget: { maxComponents: 1 } }).tools()).toHaveLength(3);
  });

  it("refuses what is not a registry, unknown options, bad values, and nested option objects given as arrays (naming the field)", () => {
    const bad = [
      [null, { consumer, topology: "remote" }, /not a registry/],
      [{ ...r }, { consumer, topology: "remote" }, /not a registry/],
      [r, null, /pass \{ consumer/],
      [r, [], /pass \{ consumer/],
      [r, { consumer, topology: "remote", scopes: [] }, /unknown option "scopes"/],
      [r, { consumer, topology: "local" }, /topology must be "embedded" or "remote", not "local"/],
      [r, { consumer, confirmations: "later" }, /confirmations must be "wait" or "two-phase"/],
      [r, { consumer, topology: "remote", mode: "hybrid" }, /mode must be "direct" or "meta"/],
      [r, { consumer, topology: "remote", names: "bare" }, /names must be "prefixed" or "unprefixed", not "bare"/],
      [r, { consumer, topology: "remote", names: true }, /names must be "prefixed" or "unprefixed", not boolean/],
      [r, { topology: "remote" }, /consumer must be an object/],
      [r, { consumer: [], topology: "remote" }, /consumer must be an object.*not an array/],
      [r, { consumer: { id: "x" }, topology: "remote" }, /consumer\.kind/],
      [r, { consumer: { id: 1, kind: "test" }, topology: "remote" }, /consumer\.id/],
      [r, { consumer: { ...consumer, grants: "ops" }, topology: "remote" }, /consumer\.grants/],
      [r, { consumer, topology: "remote", mode: "meta", budget: [] }, /budget must be an object.*not an array/],
      [r, { consumer, topology: "remote", mode: "meta", budget: { maxComponents: -1 } }, /budget\.maxComponents/],
      [r, { consumer, topology: "remote", scope: "app" }, /scope must be an array/],
      [r, { consumer, topology: "remote", scope: [1] }, /scope must be an array of strings/],
    ];
    for (const [registry, options, message] of bad) {
      expect(() => createAgentToolset(registry, options), JSON.stringify(options)).toThrow(TypeError);
      expect(() => createAgentToolset(registry, options)).toThrow(message);
    }
  });

  it("snapshots as its consumer, unavailable capabilities included, within the scope floor", () => {
    const f = fakeRegistry({ components: [notes(), component("other.panel", { actions: { open: {} } })] });
    const ts = createAgentToolset(f.registry, { consumer: { ...consumer, grants: ["ops"], extra: 1 }, topology: "remote", scope: ["app"] });
    expect(ts.tools().map((t) => t.name)).toEqual(["view_app_notes_add", "view_app_notes_list", "view_app_notes_remove"]);
    expect(f.log.snapshots.at(-1)).toEqual({ consumer: { id: "model-1", kind: "embedded", grants: ["ops"] }, includeUnavailable: true, scope: ["app"] });
  });
});

describe("the direct catalog", () => {
  it("one tool per capability: wire name, [plane · effect · confirmation] prefix, schemas, volatile state, frozen; no traits or routes to see", () => {
    const f = fakeRegistry({
      components: [notes()],
      procedures: [procedure("domain:app.purge", "reg_app.notes_main", { effect: "destructive", confirmation: "required", contextualNote: "3 notes", outputSchema: { type: "object" } })],
    });
    const tools = createAgentToolset(f.registry, { consumer, topology: "remote" }).tools();
    expect(tools.map((t) => t.name)).toEqual(["domain_app_purge", "view_app_notes_add", "view_app_notes_list", "view_app_notes_remove"]);
    expect(JSON.parse(JSON.stringify(tools))).toEqual([
      {
        name: "domain_app_purge",
        description: "[domain · destructive · required] Runs domain:app.purge",
        inputSchema: emptyInput,
        outputSchema: { type: "object" },
        state: { available: true, note: "3 notes" },
      },
      {
        name: "view_app_notes_add",
        description: "[view · local-state · never] Does add",
        inputSchema: notes().actions[0].inputSchema,
        state: { available: true },
      },
      { name: "view_app_notes_list", description: "[view · read · never] Reads list", inputSchema: emptyInput, outputSchema: { type: "array" }, state: { available: true } },
      { name: "view_app_notes_remove", description: "[view · local-state · required] Does remove", inputSchema: emptyInput, state: { available: false, unavailableReason: "busy" } },
    ]);
    expect(Object.keys(tools[0])).toEqual(["name", "description", "inputSchema", "outputSchema", "state", "execute"]);
    expect(Object.isFrozen(tools)).toBe(true);
    expect(Object.isFrozen(tools[1])).toBe(true);
    expect(Object.isFrozen(tools[1].state)).toBe(true);
  });

  it("several live instances of a type: one tool per instance, named and described with it; procedures are not per instance", () => {
    const f = fakeRegistry({
      components: [component("app.table", { instanceId: "left", actions: { sort: {} } }), component("app.table", { instanceId: "right", actions: { sort: {} } })],
      procedures: [procedure("domain:app.export", "reg_app.table_left"), procedure("domain:app.export", "reg_app.table_right")],
    });
    const ts = createAgentToolset(f.registry, { consumer, topology: "remote" });
    const tools = ts.tools();
    expect(tools.map((t) => [t.name, t.description])).toEqual([
      ["domain_app_export", "[domain · mutation · never] Runs domain:app.export"],
      ["view_app_table_sort__left", '[view · local-state · never] (instance "left") Does sort'],
      ["view_app_table_sort__right", '[view · local-state · never] (instance "right") Does sort'],
    ]);
    expect([...ts.wireNameMap()]).toEqual([
      ["domain_app_export", "domain:app.export"],
      ["view_app_table_sort__left", "view:app.table.sort"],
      ["view_app_table_sort__right", "view:app.table.sort"],
    ]);
  });

  it("names that collide after sanitizing all get hashed names (order-independent), unique and wire-safe", () => {
    const a = component("ab.c_d", { actions: { read: {} } });
    const b = component("ab_c.d", { actions: { read: {} } });
    const names = (components) => createAgentToolset(fakeRegistry({ components }).registry, { consumer, topology: "remote" }).tools().map((t) => t.name);
    const one = names([a, b]);
    expect(one).toEqual(names([b, a]));
    expect(new Set(one).size).toBe(2);
    for (const n of one) {
      expect(n).toMatch(/^view_ab_c_d_read_{40}[a-z2-7]{8}$/);
      expect(n).toHaveLength(64);
    }
    const f = fakeRegistry({ components: [a, b] });
    const ts = createAgentToolset(f.registry, { consumer, topology: "remote" });
    ts.tools();
    expect([...ts.wireNameMap().values()].sort()).toEqual(["view:ab.c_d.read", "view:ab_c.d.read"]);
  });

  it("a capability id longer than 64 characters is cut to 55 with _ and 8 base32 characters of its blake3", () => {
    const type = `app.${"a".repeat(32)}.${"b".repeat(20)}`;
    const f = fakeRegistry({ components: [component(type, { actions: { go: {}, gone: {} } })] });
    const [go, gone] = createAgentToolset(f.registry, { consumer, topology: "remote" }).tools();
    for (const t of [go, gone]) {
      expect(t.name).toHaveLength(64);
      expect(t.name.slice(0, 56)).toBe(`view:${type}`.replace(/[:.]/g, "_").slice(0, 55) + "_");
    }
    expect(go.name).not.toBe(gone.name);
  });
});

describe("tool.execute", () => {
  it("invokes the catalog's route as the toolset's consumer: invocationId from toolCallId, instance, registration, surface version, the signal", async () => {
    const f = fakeRegistry({ components: [notes()], procedures: [procedure("domain:app.purge", "reg_app.notes_main")] });
    const tools = createAgentToolset(f.registry, { consumer, topology: "remote" }).tools();
    const controller = new AbortController();
    const res = await find(tools, "view_app_notes_add").execute({ text: "milk", skip: undefined }, { toolCallId: "call_1", signal: controller.signal });
    expect(res).toEqual({ status: "ok", invocationId: "call_1", capabilityId: "view:app.notes.add", output: { text: "milk" }, surfaceVersion: "1" });
    expect(f.log.invocations[0].inv).toEqual({
      capabilityId: "view:app.notes.add",
      invocationId: "call_1",
      instanceId: "main",
      registrationId: "reg_app.notes_main",
      surfaceVersion: "1",
      input: { text: "milk" },
    });
    expect(f.log.invocations[0].options).toEqual({ consumer, signal: controller.signal });
    await find(tools, "domain_app_purge").execute(undefined, {});
    expect(f.log.invocations[1].inv).toEqual({ capabilityId: "domain:app.purge", registrationId: "reg_app.notes_main", surfaceVersion: "1", input: {} });
  });

  it("never throws: non-JSON input is INVALID_INPUT, a rejecting registry CANCELLED, a throwing one EXECUTION_FAILED", async () => {
    let mode = "ok";
    const f = fakeRegistry({
      components: [notes()],
      answer: () => {
        if (mode === "throw") {
          return Object.freeze({
            get status() {
              throw new Error("bug");
            },
          });
        }
        return undefined;
      },
    });
    const add = find(createAgentToolset(f.registry, { consumer, topology: "remote" }).tools(), "view_app_notes_add");
    const cyclic = {};
    cyclic.self = cyclic;
    for (const input of [cyclic, { n: 10n }, { f: () => 1 }, { x: NaN }]) {
      expect(await add.execute(input, { toolCallId: "c" })).toMatchObject({
        status: "error",
        invocationId: "c",
        capabilityId: "view_app_notes_add",
        error: { code: "INVALID_INPUT", retry: "with-changes" },
        surfaceVersion: "1",
      });
    }
    expect(f.log.invocations).toHaveLength(0);
    mode = "throw";
    expect(await add.execute({}, { toolCallId: "t" })).toMatchObject({ status: "error", invocationId: "t", capabilityId: "view:app.notes.add", error: { code: "EXECUTION_FAILED", message: "the operation failed", retry: "never" }, surfaceVersion: "" });
    f.registry.dispose();
    expect(await add.execute({}, { toolCallId: "d" })).toEqual({ status: "error", invocationId: "d", capabilityId: "view:app.notes.add", error: { code: "CANCELLED", message: "the surface was disposed", retry: "never" }, surfaceVersion: "" });
  });

  it("a tool runs as in its catalog while that catalog is one of the 32 kept; then by name in the newest one", async () => {
    const f = fakeRegistry({ components: [notes()] });
    const ts = createAgentToolset(f.registry, { consumer, topology: "remote" });
    const first = ts.tools();
    expect(catalogIdOf(ts.tools())).toBe(catalogIdOf(first));
    f.set({ components: [component("app.notes", { registrationId: "reg_2", actions: { add: {} } })] });
    const second = ts.tools();
    expect(catalogIdOf(second)).not.toBe(catalogIdOf(first));
    await find(first, "view_app_notes_add").execute({}, {});
    expect(f.log.invocations.at(-1).inv).toMatchObject({ registrationId: "reg_app.notes_main", surfaceVersion: "1" });
    for (let i = 0; i < 30; i++) {
      f.set({}, { event: false });
      ts.tools();
    }
    await find(first, "view_app_notes_add").execute({}, {});
    expect(f.log.invocations.at(-1).inv).toMatchObject({ registrationId: "reg_app.notes_main", surfaceVersion: "1" });
    f.set({}, { event: false });
    ts.tools();
    await find(first, "view_app_notes_add").execute({}, {});
    expect(f.log.invocations.at(-1).inv).toMatchObject({ registrationId: "reg_2", surfaceVersion: "33" });
    // by name in the newest catalog: a tool it does not have is CAPABILITY_NOT_FOUND
    expect(await find(first, "view_app_notes_list").execute({}, { toolCallId: "n" })).toEqual({
      status: "error",
      invocationId: "n",
      capabilityId: "view_app_notes_list",
      error: { code: "CAPABILITY_NOT_FOUND", message: "no tool named view_app_notes_list", retry: "with-changes" },
      surfaceVersion: "33",
    });
  });
});

describe("confirmations: two-phase", () => {
  it("remembers CONFIRMATION_REQUIRED per tool and canonical input, attaches it to the repeated call, forgets it once settled", async () => {
    const codes = [];
    const f = fakeRegistry({
      components: [notes()],
      answer: (inv) => {
        const code = codes.shift();
        if (code === "required") return required(inv, `cnf_${inv.input.id}`);
        if (code) return error(inv, code);
        return undefined;
      },
    });
    const ts = createAgentToolset(f.registry, { consumer, topology: "remote" });
    const remove = find(ts.tools(), "view_app_notes_remove");
    const call = async (input, toolCallId, code) => {
      codes.push(code);
      const res = await remove.execute(input, { toolCallId });
      return [res, f.log.invocations.at(-1).inv.confirmationId];
    };
    const [first, none] = await call({ id: "n1", tags: ["a"] }, "c1", "required");
    expect(none).toBeUndefined();
    expect(first.error).toEqual({
      code: "CONFIRMATION_REQUIRED",
      message: "the user must confirm this operation; once they approved, repeat this call with the same arguments",
      retry: "after-confirmation",
      details: { confirmationId: "cnf_n1", expiresAt: "later", summary: "s" },
    });
    expect(Object.isFrozen(first.error)).toBe(true);
    // another input asks anew; the same input in another key order is the same call
    expect((await call({ id: "n2" }, "c2", "required"))[1]).toBeUndefined();
    expect((await call({ tags: ["a"], id: "n1" }, "c3", "INVALID_INPUT"))[1]).toBe("cnf_n1");
    // an unrelated failure keeps the memory; success uses it up
    expect((await call({ id: "n1", tags: ["a"] }, "c4", undefined))[1]).toBe("cnf_n1");
    expect((await call({ id: "n1", tags: ["a"] }, "c5", "required"))[1]).toBeUndefined();
    // a transport retry of c4 replays the identical request (its confirmation by tool-call id)
    expect((await call({ id: "n1", tags: ["a"] }, "c4", undefined))[1]).toBe("cnf_n1");
    // denied and expired settle it too
    expect((await call({ id: "n2" }, "c6", "CONFIRMATION_DENIED"))[1]).toBe("cnf_n2");
    expect((await call({ id: "n2" }, "c7", undefined))[1]).toBeUndefined();
    expect(f.log.waits).toEqual([]);
  });

  it("meta mode: the model passes the confirmationId itself; nothing is remembered", async () => {
    const f = fakeRegistry({ components: [notes()], answer: (inv) => (inv.confirmationId ? undefined : required(inv)) });
    const invoke = find(createAgentToolset(f.registry, { consumer, confirmations: "two-phase", mode: "meta" }).tools(), "surface_invoke");
    const first = await invoke.execute({ capabilityId: "view:app.notes.remove", input: { id: "n1" } }, { toolCallId: "m1" });
    expect(first.error.message).toBe("the user must confirm");
    await invoke.execute({ capabilityId: "view:app.notes.remove", input: { id: "n1" } }, { toolCallId: "m2" });
    expect(f.log.invocations[1].inv.confirmationId).toBeUndefined();
    expect(await invoke.execute({ capabilityId: "view:app.notes.remove", input: { id: "n1" }, confirmationId: "cnf_1" }, { toolCallId: "m3" })).toMatchObject({ status: "ok" });
  });
});

describe("confirmations: wait", () => {
  it("waits for the user, then retries once with the confirmationId and the same invocationId; a redelivery replays the retry", async () => {
    const f = fakeRegistry({ components: [notes()], answer: (inv) => (inv.confirmationId ? undefined : required(inv, "cnf_w")) });
    const remove = find(createAgentToolset(f.registry, { consumer, topology: "embedded" }).tools(), "view_app_notes_remove");
    let result;
    remove.execute({ id: "n1" }, { toolCallId: "w1" }).then((r) => (result = r));
    await tick();
    expect(result).toBeUndefined();
    expect(f.log.waits.map((w) => w.confirmationId)).toEqual(["cnf_w"]);
    f.settle("cnf_w", "approved");
    await tick();
    expect(result).toMatchObject({ status: "ok", invocationId: "w1" });
    expect(f.log.invocations.map((i) => [i.inv.invocationId, i.inv.confirmationId])).toEqual([
      ["w1", undefined],
      ["w1", "cnf_w"],
    ]);
    expect(await remove.execute({ id: "n1" }, { toolCallId: "w1" })).toMatchObject({ status: "ok" });
    expect(f.log.invocations.at(-1).inv.confirmationId).toBe("cnf_w");
    expect(f.log.waits).toHaveLength(1);
  });

  it("without a toolCallId the retry carries the registry's invocationId and nothing is remembered", async () => {
    const f = fakeRegistry({ components: [notes()], answer: (inv) => (inv.confirmationId ? undefined : required({ ...inv, invocationId: "inv_gen" }, "cnf_g")) });
    const remove = find(createAgentToolset(f.registry, { consumer, topology: "embedded" }).tools(), "view_app_notes_remove");
    const pending = remove.execute({ id: "n1" }, {});
    await tick();
    f.settle("cnf_g", "denied");
    await pending;
    expect(f.log.invocations.map((i) => [i.inv.invocationId, i.inv.confirmationId])).toEqual([
      [undefined, undefined],
      ["inv_gen", "cnf_g"],
    ]);
  });

  it("a call cancelled while waiting closes its confirmation and ends CANCELLED", async () => {
    const f = fakeRegistry({ components: [notes()], answer: (inv) => required(inv, "cnf_c") });
    const remove = find(createAgentToolset(f.registry, { consumer, topology: "embedded" }).tools(), "view_app_notes_remove");
    const controller = new AbortController();
    const pending = remove.execute({ id: "n1" }, { toolCallId: "x1", signal: controller.signal });
    await tick();
    expect(f.log.waits[0].signal).toBe(controller.signal);
    controller.abort();
    const res = await pending;
    expect(res).toEqual({
      status: "error",
      invocationId: "x1",
      capabilityId: "view:app.notes.remove",
      error: { code: "CANCELLED", message: "the call was cancelled while waiting for the user's confirmation", retry: "never" },
      surfaceVersion: "1",
    });
    expect(f.log.resolved).toEqual([{ confirmationId: "cnf_c", resolution: { approved: false, reason: "the call was cancelled while waiting" } }]);
    expect(f.log.invocations).toHaveLength(1);
  });

  it("surface_invoke waits too", async () => {
    const f = fakeRegistry({ components: [notes()], answer: (inv) => (inv.confirmationId ? undefined : required(inv, "cnf_m")) });
    const invoke = find(createAgentToolset(f.registry, { consumer, topology: "embedded", mode: "meta" }).tools(), "surface_invoke");
    const pending = invoke.execute({ capabilityId: "view:app.notes.remove", input: { id: "n1" } }, { toolCallId: "m1" });
    await tick();
    f.settle("cnf_m");
    expect(await pending).toMatchObject({ status: "ok", invocationId: "m1" });
  });
});

describe("meta mode", () => {
  it("three fixed tools; empty wireNameMap", () => {
    const ts = createAgentToolset(fakeRegistry().registry, { consumer, topology: "remote", mode: "meta" });
    const tools = ts.tools();
    expect(tools.map((t) => t.name)).toEqual(["surface_discover", "surface_invoke", "surface_read"]);
    expect(tools.every((t) => t.description.startsWith("[experimental] ") && t.state.available)).toBe(true);
    expect(tools[1].inputSchema.required).toEqual(["capabilityId"]);
    expect(Object.keys(tools[1].inputSchema.properties)).toEqual(["capabilityId", "instanceId", "registrationId", "surfaceVersion", "input", "confirmationId"]);
    expect(Object.keys(tools[2].inputSchema.properties)).toEqual(["capabilityId", "instanceId", "registrationId", "surfaceVersion"]);
    expect(ts.wireNameMap().size).toBe(0);
  });

  it("surface_discover: the snapshot for the consumer; a requested scope narrows the floor and what it would widen is scopeRejected; the budget applies", async () => {
    const f = fakeRegistry({ components: [notes(), component("app.panel"), component("other.x")] });
    const ts = createAgentToolset(f.registry, { consumer, topology: "remote", mode: "meta", scope: ["app"], budget: { maxComponents: 1, extra: true } });
    const discover = find(ts.tools(), "surface_discover");
    const all = await discover.execute({}, { toolCallId: "d1" });
    expect(all).toMatchObject({ status: "ok", invocationId: "d1", capabilityId: "surface_discover", surfaceVersion: "1" });
    expect(all.output.components.map((c) => c.type)).toEqual(["app.notes"]);
    expect(all.output.truncated).toEqual({ droppedComponents: 1 });
    expect(f.log.snapshots.at(-1)).toEqual({ consumer, includeUnavailable: true, scope: ["app"], budget: { maxComponents: 1 } });
    const narrowed = await discover.execute({ scope: ["app.panel", "other", 3] }, {});
    expect(narrowed.invocationId).toBe("");
    expect(narrowed.output.components.map((c) => c.type)).toEqual(["app.panel"]);
    expect(narrowed.output.scopeRejected).toEqual({ prefixes: ["other"] });
    expect(Object.keys(narrowed.output).at(-1)).toBe("scopeRejected");
    // no floor: the requested scope as given
    const open = createAgentToolset(f.registry, { consumer, topology: "remote", mode: "meta" });
    const out = (await find(open.tools(), "surface_discover").execute({ scope: ["other"] }, {})).output;
    expect(out.components.map((c) => c.type)).toEqual(["other.x"]);
    expect(out.scopeRejected).toBeUndefined();
  });

  it("surface_read and surface_invoke address a capability by id; outside the floor or without an id it is CAPABILITY_NOT_FOUND", async () => {
    const f = fakeRegistry({ components: [notes()] });
    const tools = createAgentToolset(f.registry, { consumer, topology: "remote", mode: "meta", scope: ["app.notes"] }).tools();
    await find(tools, "surface_read").execute({ capabilityId: "view:app.notes.list", instanceId: "main", registrationId: 7, input: { x: 1 } }, { toolCallId: "r" });
    expect(f.log.invocations[0].inv).toEqual({ capabilityId: "view:app.notes.list", invocationId: "r", instanceId: "main" });
    await find(tools, "surface_invoke").execute({ capabilityId: "domain:any.thing", surfaceVersion: "1", input: null }, {});
    expect(f.log.invocations[1].inv).toEqual({ capabilityId: "domain:any.thing", surfaceVersion: "1", input: null });
    await find(tools, "surface_invoke").execute({ capabilityId: "view:app.notes.add" }, {});
    expect(f.log.invocations[2].inv).toEqual({ capabilityId: "view:app.notes.add", input: {} });
    const notFound = (message) => ({ status: "error", invocationId: "z", capabilityId: "surface_invoke", error: { code: "CAPABILITY_NOT_FOUND", message, retry: "with-changes" }, surfaceVersion: "1" });
    expect(await find(tools, "surface_invoke").execute({ capabilityId: "view:app.notesx.add" }, { toolCallId: "z" })).toEqual(notFound("no live capability view:app.notesx.add"));
    expect(await find(tools, "surface_invoke").execute({ input: {} }, { toolCallId: "z" })).toEqual(notFound("capabilityId is required"));
    expect(f.log.invocations).toHaveLength(3);
  });
});

describe("subscribe", () => {
  it("fires when what a host renders changes (state-only included), not on a bare version bump; never in meta mode", async () => {
    const f = fakeRegistry({ components: [notes()] });
    const ts = createAgentToolset(f.registry, { consumer, topology: "remote" });
    const meta = createAgentToolset(f.registry, { consumer, topology: "remote", mode: "meta" });
    const heard = [];
    const metaHeard = vi.fn();
    const stop = ts.subscribe((tools) => heard.push(tools));
    meta.subscribe(metaHeard);
    f.set({}); // version bump only: routes moved, nothing to render
    expect(heard).toHaveLength(0);
    const flipped = notes();
    flipped.actions[1] = { ...flipped.actions[1], available: true, unavailableReason: undefined };
    f.set({ components: [flipped] }, { event: false });
    f.emit({ type: "availability-changed", registrationId: "r", capabilityId: "view:app.notes.remove", available: true });
    expect(heard).toHaveLength(1);
    expect(find(heard[0], "view_app_notes_remove").state).toEqual({ available: true });
    expect(catalogIdOf(heard[0])).toBeTypeOf("number");
    f.emit({ type: "invocation-started", invocationId: "i", capabilityId: "c", consumerId: "x" });
    f.set({ components: [] });
    expect(heard).toHaveLength(2);
    expect(heard[1]).toEqual([]);
    stop();
    f.set({ components: [notes()] });
    expect(heard).toHaveLength(2);
    expect(metaHeard).not.toHaveBeenCalled();
    expect(() => ts.subscribe("nope")).toThrow(TypeError);
  });

  it("a listener that throws is reported and the others still hear; dispose ends listening and the registry subscription", () => {
    const f = fakeRegistry({ components: [notes()] });
    const ts = createAgentToolset(f.registry, { consumer, topology: "remote" });
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    const second = vi.fn();
    ts.subscribe(() => {
      throw new Error("boom");
    });
    ts.subscribe(second);
    f.set({ components: [] });
    expect(second).toHaveBeenCalledTimes(1);
    expect(spy).toHaveBeenCalledWith("agent-surface: a toolset listener threw: boom");
    expect(f.listeners.size).toBe(1);
    ts.dispose();
    expect(f.listeners.size).toBe(0);
    f.set({ components: [notes()] });
    expect(second).toHaveBeenCalledTimes(1);
    expect(ts.tools()).toHaveLength(3);
  });
});

describe("toolBlock", () => {
  it("renders the current catalog; a TypeError for an unknown provider or a catalog the provider cannot take", () => {
    const f = fakeRegistry({ components: [component("app.x", { actions: { bad: { inputSchema: { type: "string" } } } })] });
    const ts = createAgentToolset(f.registry, { consumer, topology: "remote" });
    expect(ts.toolBlock("mcp")).toEqual([
      {
        name: "view_app_x_bad",
        description: "[view · local-state · never] Does bad",
        inputSchema: { type: "string" },
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      },
    ]);
    expect(() => ts.toolBlock("teletype")).toThrow(new TypeError('toolset.toolBlock: unknown provider "teletype" (openai, anthropic, gemini, mcp)'));
    expect(() => ts.toolBlock("anthropic")).toThrow(/^toolset\.toolBlock: tool "view_app_x_bad": input_schema must have an object root/);
    const many = component("app.many", { actions: Object.fromEntries(Array.from({ length: 129 }, (_, i) => [`a${i}`, {}])) });
    f.set({ components: [many] });
    expect(() => ts.toolBlock("openai")).toThrow("toolset.toolBlock: 129 tools exceed the 128 a single openai request accepts");
    expect(ts.toolBlock("gemini")).toHaveLength(129);
    expect(Object.isFrozen(ts.toolBlock("mcp")[0].annotations)).toBe(true);
  });
});
