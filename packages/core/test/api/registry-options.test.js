// Spec "Registry": every field of RegistryOptions — environment, context, policies, audit,
// onRegister, onDuplicateInstance, duplicateSuffixPolicy, route, limits, now, authority — and the
// option object's own validation.
import { afterEach, describe, expect, it, vi } from "vitest";
import { bindAlpha, bindNotes, bindPanel, definitionError, deferred, makeRegistry, record, settle } from "./helpers.js";

const T0 = Date.UTC(2026, 0, 1);

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the options object", () => {
  it("an unknown option is refused (TypeError), so a typo cannot silently disable a guard", () => {
    expect(() => makeRegistry({ onRegistr: () => "reject" })).toThrow(/unknown option "onRegistr"/);
  });

  it("function-valued options must be functions; enum-valued options are checked", () => {
    for (const key of ["context", "onRegister", "route", "now"]) expect(() => makeRegistry({ [key]: "x" }), key).toThrow(TypeError);
    expect(() => makeRegistry({ audit: "console" })).toThrow(TypeError);
    expect(() => makeRegistry({ environment: "staging" })).toThrow(TypeError);
    expect(() => makeRegistry({ onDuplicateInstance: "merge" })).toThrow(TypeError);
    expect(() => makeRegistry({ duplicateSuffixPolicy: "loud" })).toThrow(TypeError);
  });
});

describe("environment", () => {
  it("defaults to production: rejections are not logged; development logs them with console.error", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const prod = makeRegistry();
    prod.register(bindNotes());
    expect(prod.register(bindNotes()).status).toBe("rejected");
    expect(error).not.toHaveBeenCalled();
    const dev = makeRegistry({ environment: "development" });
    dev.register(bindNotes());
    expect(dev.register(bindNotes()).status).toBe("rejected");
    expect(error).toHaveBeenCalledTimes(1);
    expect(String(error.mock.calls[0][0])).toMatch(/api\.notes.*rejected/);
    prod.dispose();
    dev.dispose();
  });

  it("development mirrors audit records on the console; production and test do not", async () => {
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    for (const environment of ["production", "test", "development"]) {
      const r = makeRegistry({ environment });
      r.register(bindNotes());
      await r.invoke({ capabilityId: "view:api.notes.work", input: {}, invocationId: `inv-${environment}` });
      r.dispose();
    }
    const lines = info.mock.calls.map((c) => String(c[0]));
    expect(lines.some((l) => l.includes("inv-development"))).toBe(true);
    expect(lines.some((l) => l.includes("inv-production") || l.includes("inv-test"))).toBe(false);
  });
});

describe("context", () => {
  it("is ctx.host of handlers and of every policy phase, read at each call (lazily)", async () => {
    let user = "ana";
    const context = vi.fn(() => ({ user }));
    const seen = [];
    const policy = {
      name: "who",
      onDiscovery: (ctx) => (seen.push(["discovery", ctx.host.user]), "expose"),
      authorize: (ctx) => (seen.push(["authorize", ctx.host.user]), "allow"),
      invoke: (ctx) => (seen.push(["invoke", ctx.host.user]), "allow"),
    };
    const r = makeRegistry({ context, policies: [policy] });
    expect(context).not.toHaveBeenCalled();
    r.register(bindNotes({ actions: { work: { execute: (_i, ctx) => void seen.push(["execute", ctx.host.user]) } } }));
    expect(context).not.toHaveBeenCalled();
    r.snapshot();
    expect(seen.every(([phase]) => phase === "discovery")).toBe(true);
    expect(context).toHaveBeenCalled();
    seen.length = 0;
    user = "bo";
    await r.invoke({ capabilityId: "view:api.notes.work", input: {} });
    expect(seen).toEqual([
      ["discovery", "bo"],
      ["authorize", "bo"],
      ["invoke", "bo"],
      ["execute", "bo"],
    ]);
    r.dispose();
  });

  it("without policies, a snapshot does not call it; a throwing context gives handlers an empty host", async () => {
    const context = vi.fn(() => {
      throw new Error("store not ready");
    });
    let host;
    const r = makeRegistry({ context });
    r.register(bindNotes({ observations: { raw: { read: (ctx) => ((host = ctx.host), 1) } } }));
    r.snapshot();
    expect(context).not.toHaveBeenCalled();
    expect(await r.invoke({ capabilityId: "view:api.notes.raw" })).toMatchObject({ status: "ok", output: 1 });
    expect(host).toEqual({});
    expect(context).toHaveBeenCalledTimes(1);
    r.dispose();
  });
});

describe("policies", () => {
  it("registry policies are the outermost layer: registry, then component, then capability", async () => {
    const order = [];
    const p = (name) => ({ name, authorize: () => void order.push(name) });
    const r = makeRegistry({ policies: [p("registry")] });
    r.register(bindNotes({ policies: [p("component")], actions: { work: { execute: () => undefined, policies: [p("capability")] } } }));
    await r.invoke({ capabilityId: "view:api.notes.work", input: {} });
    expect(order).toEqual(["registry", "component", "capability"]);
    r.dispose();
  });

  it("a registry policy's deny is POLICY_DENIED naming it; its hide removes capabilities from every component", async () => {
    const r = makeRegistry({
      policies: [
        { name: "no-writes", authorize: (ctx) => (ctx.capabilityId.endsWith(".add") ? { deny: "writes are off" } : "allow") },
        { name: "hide-panel", onDiscovery: (ctx) => (ctx.componentType === "api.panel" ? "hide" : "expose") },
      ],
    });
    r.register(bindNotes());
    r.register(bindPanel());
    const res = await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "a" } });
    expect(res.error).toMatchObject({ code: "POLICY_DENIED", message: "writes are off", details: { policy: "no-writes" } });
    const snap = r.snapshot();
    const panel = snap.components.find((c) => c.type === "api.panel");
    expect(panel === undefined || (panel.actions.length === 0 && panel.observations.length === 0)).toBe(true);
    expect((await r.invoke({ capabilityId: "view:api.panel.toggle", input: {} })).error.code).toBe("CAPABILITY_NOT_FOUND");
    r.dispose();
  });

  it("a malformed policy is a definition defect", () => {
    definitionError(() => makeRegistry({ policies: [{ onDiscovery: () => "expose" }] }));
    definitionError(() => makeRegistry({ policies: [{ name: "p", authorize: "allow" }] }));
    definitionError(() => makeRegistry({ policies: {} }));
  });
});

describe("audit", () => {
  it("the sink receives one frozen record per settled invocation, with input/output only for audit: full", async () => {
    const records = [];
    const r = makeRegistry({ audit: { record: (x) => records.push(x) }, now: () => T0 });
    const h = r.register(bindNotes());
    await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "a" }, invocationId: "i-add" }, { consumer: { id: "c1", kind: "test" } });
    await r.invoke({ capabilityId: "view:api.notes.work", input: {}, invocationId: "i-work" });
    await r.invoke({ capabilityId: "view:api.notes.nothing", invocationId: "i-missing" });
    expect(records).toHaveLength(3);
    expect(records[0]).toEqual({
      invocationId: "i-add",
      capabilityId: "view:api.notes.add",
      registrationId: h.registrationId,
      consumerKey: "test:c1",
      status: "ok",
      code: null,
      startedAt: "2026-01-01T00:00:00.000Z",
      durationMs: 0,
      input: { text: "a", tag: "misc" },
      output: { id: "n1" },
    });
    expect(records[1]).toMatchObject({ invocationId: "i-work", status: "ok", consumerKey: "embedded:anonymous" });
    expect("input" in records[1]).toBe(false);
    expect("output" in records[1]).toBe(false);
    expect(records[2]).toMatchObject({ invocationId: "i-missing", status: "error", code: "CAPABILITY_NOT_FOUND", registrationId: null });
    expect(Object.isFrozen(records[0])).toBe(true);
    r.dispose();
  });

  it("a throwing sink does not change the result", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const r = makeRegistry({
      audit: {
        record() {
          throw new Error("disk full");
        },
      },
    });
    r.register(bindNotes());
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: {} })).status).toBe("ok");
    r.dispose();
  });
});

describe("onRegister", () => {
  it("gets { type, instanceId, origin, internal } before the registration is accepted", () => {
    const candidates = [];
    const r = makeRegistry({ onRegister: (c) => (candidates.push(c), "accept") });
    const internal = { owner: "team-a" };
    r.register(bindNotes({ instanceId: "inbox", internal }));
    r.register(bindAlpha());
    expect(candidates[0]).toEqual({ type: "api.notes", instanceId: "inbox", origin: "first-party", internal });
    expect(candidates[1]).toMatchObject({ type: "api.alpha", instanceId: "default", origin: "third-party" });
    expect(candidates[1].internal).toEqual({});
    expect(Object.isFrozen(candidates[0])).toBe(true);
    r.dispose();
  });

  it('"reject" (or a throw, or anything but "accept") gives a rejected handle and component-rejected {reason: "guard"}', async () => {
    const r = makeRegistry({ onRegister: (c) => (c.origin === "third-party" ? "reject" : c.instanceId === "boom" ? boom() : c.instanceId === "maybe" ? "yes" : "accept") });
    function boom() {
      throw new Error("guard crashed");
    }
    const events = record(r);
    const rejected = r.register(bindAlpha());
    expect(rejected.status).toBe("rejected");
    expect(rejected.registrationId).toMatch(/^reg_/);
    expect(r.register(bindNotes({ instanceId: "boom" })).status).toBe("rejected");
    expect(r.register(bindNotes({ instanceId: "maybe" })).status).toBe("rejected");
    expect(r.getVersion()).toBe("0");
    expect(r.snapshot().components).toEqual([]);
    expect(events.events).toEqual([
      { type: "component-rejected", componentType: "api.alpha", instanceId: "default", reason: "guard" },
      { type: "component-rejected", componentType: "api.notes", instanceId: "boom", reason: "guard" },
      { type: "component-rejected", componentType: "api.notes", instanceId: "maybe", reason: "guard" },
    ]);
    expect(r.register(bindNotes()).status).toBe("active");
    await settle();
    r.dispose();
  });
});

describe("onDuplicateInstance", () => {
  it('"reject" (default): first wins, the newcomer gets a dead handle and component-rejected {reason: "duplicate"}', async () => {
    const r = makeRegistry();
    const events = record(r);
    const first = r.register(bindNotes({ observations: { raw: { read: () => "first" } } }));
    const second = r.register(bindNotes({ observations: { raw: { read: () => "second" } } }));
    expect([first.status, second.status]).toEqual(["active", "rejected"]);
    expect(events.events[1]).toEqual({ type: "component-rejected", componentType: "api.notes", instanceId: "default", reason: "duplicate" });
    expect((await r.invoke({ capabilityId: "view:api.notes.raw" })).output).toBe("first");
    // another instance id is not a duplicate
    expect(r.register(bindNotes({ instanceId: "other" })).status).toBe("active");
    r.dispose();
  });

  it('"replace": the previous registration is unregistered (in-flight work → COMPONENT_UNMOUNTED), one version step', async () => {
    const r = makeRegistry({ onDuplicateInstance: "replace" });
    const gate = deferred();
    const first = r.register(bindNotes({ actions: { work: { execute: () => gate.promise } }, observations: { raw: { read: () => "first" } } }));
    const running = r.invoke({ capabilityId: "view:api.notes.work", input: {} });
    await settle();
    const before = Number(r.getVersion());
    const second = r.register(bindNotes({ observations: { raw: { read: () => "second" } } }));
    expect(Number(r.getVersion())).toBe(before + 1);
    expect([first.status, second.status]).toEqual(["unregistered", "active"]);
    expect((await running).error.code).toBe("COMPONENT_UNMOUNTED");
    gate.resolve();
    expect((await r.invoke({ capabilityId: "view:api.notes.raw" })).output).toBe("second");
    r.dispose();
  });
});

describe("duplicateSuffixPolicy", () => {
  it('"warn" (default): console.warn and collision-suspected when view:X.Y shadows a known domain:X.Y', async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const r = makeRegistry();
    const events = record(r);
    expect(r.register(bindAlpha()).status).toBe("active");
    expect(events.events).toContainEqual({ type: "collision-suspected", viewCapabilityId: "view:api.alpha.ping", domainProcedureId: "domain:api.alpha.ping" });
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("domain:api.alpha.ping"));
    r.dispose();
  });

  it('"error" throws AgentSurfaceDefinitionError (code suffix-collision); "off" says nothing', () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const strict = makeRegistry({ duplicateSuffixPolicy: "error" });
    const e = definitionError(() => strict.register(bindAlpha()));
    expect(e.code).toBe("suffix-collision");
    expect(strict.getVersion()).toBe("0");
    const quiet = makeRegistry({ duplicateSuffixPolicy: "off" });
    const events = record(quiet);
    expect(quiet.register(bindAlpha()).status).toBe("active");
    expect(events.types()).not.toContain("collision-suspected");
    expect(warn).not.toHaveBeenCalled();
    // components without a shadowed suffix are unaffected by "error"
    expect(strict.register(bindNotes()).status).toBe("active");
    strict.dispose();
    quiet.dispose();
  });
});

describe("route", () => {
  it("appears in the snapshot as the host's router reports it, read at each snapshot", () => {
    let route = { path: "/notes/3", params: { id: "3" } };
    const r = makeRegistry({ route: () => route });
    expect(r.snapshot().route).toEqual({ path: "/notes/3", params: { id: "3" } });
    route = undefined;
    expect("route" in r.snapshot()).toBe(false);
    route = { path: "/" };
    expect(r.snapshot().route).toEqual({ path: "/" });
    expect("route" in makeRegistry().snapshot()).toBe(false);
    r.dispose();
  });

  it("a throwing route leaves the snapshot without one", () => {
    const r = makeRegistry({
      route: () => {
        throw new Error("router not mounted");
      },
    });
    const s = r.snapshot();
    expect("route" in s).toBe(false);
    expect(s.components).toEqual([]);
    r.dispose();
  });
});

describe("limits", () => {
  it("are partial: one field overrides its default, the others keep theirs", async () => {
    const r = makeRegistry({ limits: { actionQueueDepth: 0 } });
    const gate = deferred();
    r.register(bindNotes({ actions: { work: { execute: () => gate.promise } } }));
    const first = r.invoke({ capabilityId: "view:api.notes.work", input: {} });
    await settle();
    const second = await r.invoke({ capabilityId: "view:api.notes.work", input: {} });
    expect(second.error).toMatchObject({ code: "RATE_LIMITED", details: { reason: "queue-full" } });
    gate.resolve();
    expect((await first).status).toBe("ok");
    r.dispose();
  });

  it("an unknown key (a typo) is refused at construction", () => {
    expect(() => makeRegistry({ limits: { actionQueueDepht: 1 } })).toThrow(/actionQueueDepht/);
    expect(() => makeRegistry({ limits: { actionQueueDepth: "two" } })).toThrow(TypeError);
  });
});

describe("now", () => {
  it("is the registry's clock: capturedAt, audit startedAt/durationMs, confirmation requestedAt/expiresAt", async () => {
    let t = T0;
    const records = [];
    const r = makeRegistry({ now: () => t, audit: { record: (x) => records.push(x) } });
    r.register(bindNotes({ actions: { work: { execute: () => void (t += 250) } } }));
    expect(r.snapshot().capturedAt).toBe("2026-01-01T00:00:00.000Z");
    await r.invoke({ capabilityId: "view:api.notes.work", input: {} });
    expect(records[0]).toMatchObject({ startedAt: "2026-01-01T00:00:00.000Z", durationMs: 250 });
    t = T0 + 60_000;
    const res = await r.invoke({ capabilityId: "view:api.notes.remove", input: { id: "n1" } });
    expect(res.error.code).toBe("CONFIRMATION_REQUIRED");
    const [pending] = r.confirmations.pending();
    expect(pending.requestedAt).toBe("2026-01-01T00:01:00.000Z");
    expect(pending.expiresAt).toBe("2026-01-01T00:03:00.000Z");
    r.dispose();
  });

  it("defaults to Date.now", () => {
    const r = makeRegistry();
    const before = Date.now();
    const at = Date.parse(r.snapshot().capturedAt);
    expect(at).toBeGreaterThanOrEqual(before - 1);
    expect(at).toBeLessThanOrEqual(Date.now() + 1);
    r.dispose();
  });
});
