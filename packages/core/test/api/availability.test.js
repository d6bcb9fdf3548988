// Spec "Availability": available := active AND enabled AND no {available:false} override AND
// when() !== false AND every discovery decision is "expose" — at snapshot and again at
// invocation; unavailableReason as a string or a function; when() failures; policy disable/hide.
import { afterEach, describe, expect, it, vi } from "vitest";
import { bindNotes, bindPanel, fetchNote, makeRegistry, purge } from "./helpers.js";

afterEach(() => {
  vi.restoreAllMocks();
});

const capability = (snapshot, id) => {
  for (const c of snapshot.components) for (const x of [...c.observations, ...c.actions]) if (x.capabilityId === id) return x;
  return snapshot.procedures.find((p) => p.capabilityId === id);
};

describe("when() and unavailableReason", () => {
  it("a string reason is shown when when() is false, and is the invocation's details.reason", async () => {
    let ready = false;
    const r = makeRegistry();
    r.register(bindPanel({ actions: { toggle: { execute: () => undefined, when: () => ready, unavailableReason: "the panel is animating" } } }));
    expect(capability(r.snapshot(), "view:api.panel.toggle")).toMatchObject({ available: false, unavailableReason: "the panel is animating" });
    const res = await r.invoke({ capabilityId: "view:api.panel.toggle", input: {} });
    expect(res.error).toEqual({
      code: "CAPABILITY_NOT_AVAILABLE",
      message: expect.any(String),
      retry: "after-delay",
      details: { reason: "the panel is animating" },
    });
    ready = true;
    expect(capability(r.snapshot(), "view:api.panel.toggle")).toEqual(expect.not.objectContaining({ unavailableReason: expect.anything() }));
    expect(capability(r.snapshot(), "view:api.panel.toggle").available).toBe(true);
    r.dispose();
  });

  it("a function reason is called when the capability is unavailable, each time", async () => {
    let n = 0;
    const reason = vi.fn(() => `busy (${++n})`);
    let ready = true;
    const r = makeRegistry();
    r.register(bindNotes({ actions: { add: { execute: () => ({ id: "n1" }), when: () => ready, unavailableReason: reason } } }));
    r.snapshot();
    expect(reason).not.toHaveBeenCalled();
    ready = false;
    expect(capability(r.snapshot(), "view:api.notes.add").unavailableReason).toBe("busy (1)");
    expect((await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "a" } })).error.details.reason).toBe("busy (2)");
    r.dispose();
  });

  it('a throwing or non-string reason function gives "unavailable"; no reason at all gives "unavailable"', () => {
    const r = makeRegistry();
    r.register(
      bindNotes({
        actions: {
          work: {
            execute: () => undefined,
            when: () => false,
            unavailableReason: () => {
              throw new Error("no");
            },
          },
          open: { execute: () => undefined, when: () => false, unavailableReason: () => 42 },
          produce: { execute: () => null, when: () => false },
        },
      }),
    );
    const s = r.snapshot();
    for (const id of ["view:api.notes.work", "view:api.notes.open", "view:api.notes.produce"]) expect(capability(s, id), id).toMatchObject({ available: false, unavailableReason: "unavailable" });
    r.dispose();
  });

  it('a throwing when() counts as false ("when-error"), with a development warning; so does a promise', async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    for (const environment of ["production", "development"]) {
      const r = makeRegistry({ environment });
      r.register(
        bindNotes({
          observations: {
            list: {
              read: () => ({ items: [] }),
              when: () => {
                throw new Error("store not ready");
              },
            },
            raw: { read: () => 1, when: () => Promise.resolve(true) },
          },
        }),
      );
      const s = r.snapshot();
      expect(capability(s, "view:api.notes.list")).toMatchObject({ available: false, unavailableReason: "when-error" });
      expect(capability(s, "view:api.notes.raw")).toMatchObject({ available: false, unavailableReason: "when-error" });
      expect((await r.invoke({ capabilityId: "view:api.notes.list" })).error.details.reason).toBe("when-error");
      expect(warn.mock.calls.length > 0).toBe(environment === "development");
      r.dispose();
    }
    expect(warn.mock.calls.map((c) => String(c[0])).join("\n")).toMatch(/store not ready/);
  });

  it("only false makes a capability unavailable (when() !== false)", () => {
    const r = makeRegistry();
    r.register(bindNotes({ actions: { produce: { execute: () => null, when: () => 0 }, work: { execute: () => undefined, when: () => undefined } } }));
    const s = r.snapshot();
    expect(capability(s, "view:api.notes.produce").available).toBe(true);
    expect(capability(s, "view:api.notes.work").available).toBe(true);
    r.dispose();
  });

  it("when() is re-evaluated at invocation: a capability that became unavailable after discovery fails, the handler does not run", async () => {
    let ready = true;
    const execute = vi.fn();
    const r = makeRegistry();
    r.register(bindNotes({ actions: { work: { execute, when: () => ready } } }));
    const discovered = r.snapshot();
    expect(capability(discovered, "view:api.notes.work").available).toBe(true);
    ready = false;
    const res = await r.invoke({ capabilityId: "view:api.notes.work", input: {}, registrationId: discovered.components[0].registrationId });
    expect(res.error.code).toBe("CAPABILITY_NOT_AVAILABLE");
    expect(execute).not.toHaveBeenCalled();
    r.dispose();
  });

  it("procedures take when() and unavailableReason in their binding too", async () => {
    const r = makeRegistry();
    r.register(bindPanel({ procedures: [purge.bind({ execute: () => undefined, when: () => false, unavailableReason: "the server is offline" }), fetchNote.bind({ execute: () => ({ text: "t" }) })] }));
    const s = r.snapshot();
    expect(capability(s, "domain:api.purge")).toMatchObject({ available: false, unavailableReason: "the server is offline" });
    expect(capability(s, "domain:api.fetchNote").available).toBe(true);
    expect((await r.invoke({ capabilityId: "domain:api.purge", input: {} })).error.details.reason).toBe("the server is offline");
    r.dispose();
  });
});

describe("the composed formula", () => {
  it("enabled: false wins over when() and overrides; an override wins over when()", () => {
    const r = makeRegistry();
    const h = r.register(bindPanel({ actions: { toggle: { execute: () => undefined, when: () => false, unavailableReason: "closed" } } }));
    expect(capability(r.snapshot(), "view:api.panel.toggle").unavailableReason).toBe("closed");
    h.update({ availability: { toggle: { available: false, reason: "pushed" } } });
    expect(capability(r.snapshot(), "view:api.panel.toggle").unavailableReason).toBe("pushed");
    h.update({ enabled: false });
    expect(capability(r.snapshot(), "view:api.panel.toggle").unavailableReason).toBe("component-disabled");
    h.update({ enabled: true, availability: { toggle: { available: true } } });
    // an {available: true} override does not overrule when()
    expect(capability(r.snapshot(), "view:api.panel.toggle")).toMatchObject({ available: false, unavailableReason: "closed" });
    r.dispose();
  });

  it('a discovery policy\'s { disable } is visible-disabled with its reason; "hide" removes the capability', async () => {
    const r = makeRegistry({
      policies: [
        {
          name: "gate",
          onDiscovery: (ctx) => (ctx.capabilityId === "view:api.panel.state" ? { disable: "read-only session" } : ctx.capabilityId === "view:api.panel.toggle" ? "hide" : "expose"),
        },
      ],
    });
    r.register(bindPanel());
    const s = r.snapshot();
    expect(capability(s, "view:api.panel.state")).toMatchObject({ available: false, unavailableReason: "read-only session" });
    expect(capability(s, "view:api.panel.toggle")).toBeUndefined();
    expect((await r.invoke({ capabilityId: "view:api.panel.state" })).error).toMatchObject({ code: "CAPABILITY_NOT_AVAILABLE", details: { reason: "read-only session" } });
    expect((await r.invoke({ capabilityId: "view:api.panel.toggle", input: {} })).error.code).toBe("CAPABILITY_NOT_FOUND");
    r.dispose();
  });

  it("a throwing or asynchronous onDiscovery fails closed (hide)", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const r = makeRegistry({
      policies: [
        {
          name: "broken",
          onDiscovery: (ctx) => {
            if (ctx.capabilityId.endsWith(".toggle")) throw new Error("no");
            return ctx.capabilityId.endsWith(".state") ? Promise.resolve("expose") : "expose";
          },
        },
      ],
    });
    r.register(bindPanel());
    const s = r.snapshot();
    expect(capability(s, "view:api.panel.toggle")).toBeUndefined();
    expect(capability(s, "view:api.panel.state")).toBeUndefined();
    r.dispose();
  });

  it("discovery sees the consumer: one consumer's hide is another's expose", () => {
    const r = makeRegistry({ policies: [{ name: "grants", onDiscovery: (ctx) => (ctx.consumer.grants?.includes("panel") ? "expose" : "hide") }] });
    r.register(bindPanel());
    expect(capability(r.snapshot({ consumer: { id: "a", kind: "test", grants: ["panel"] } }), "view:api.panel.toggle")).toBeDefined();
    expect(capability(r.snapshot({ consumer: { id: "b", kind: "test" } }), "view:api.panel.toggle")).toBeUndefined();
    r.dispose();
  });
});
