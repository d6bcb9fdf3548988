// @vitest-environment happy-dom
//
// The WebMCP fixture (test/fixtures/webmcp-polyfill.js, written from the draft's IDL and method
// steps) held to what the draft says, so that the adapter's tests (test/webmcp.test.js) and the
// browser comparison with Chromium's own implementation (test/webmcp-browser.test.js) rest on it.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { createModelContext, installModelContext, ToolActivatedEvent } from "./fixtures/webmcp-polyfill.js";
import { settle } from "./webmcp-page.js";

const noop = async () => null;

describe("the fixture holds to the draft", () => {
  let mc;
  beforeEach(() => {
    mc = createModelContext(window);
  });

  it("is an EventTarget with the draft's members", () => {
    expect(mc).toBeInstanceOf(EventTarget);
    for (const m of ["registerTool", "getTools", "executeTool"]) expect(typeof mc[m]).toBe("function");
    for (const h of ["ontoolchange", "ontoolactivated", "ontoolcancel"]) expect(mc[h]).toBeNull();
    expect(Object.prototype.toString.call(mc)).toBe("[object ModelContext]");
  });

  it("installs document.modelContext once, [SameObject], only in a secure context", () => {
    const installed = installModelContext(window);
    expect(document.modelContext).toBe(installed);
    expect(installModelContext(window)).toBe(installed);
    delete document.modelContext;
    expect(installModelContext({ isSecureContext: false, document })).toBeUndefined();
    expect(document.modelContext).toBeUndefined();
  });

  it("registerTool resolves with undefined after the toolchange event; the tool map updates at once", async () => {
    const order = [];
    mc.ontoolchange = () => order.push("toolchange");
    const p = mc.registerTool({ name: "a", description: "d", execute: noop }).then((v) => order.push(`resolved:${v}`));
    expect((await mc.getTools()).map((t) => t.name)).toEqual(["a"]);
    await p;
    expect(order).toEqual(["toolchange", "resolved:undefined"]);
  });

  it("rejects duplicate and invalid names and an empty description with InvalidStateError", async () => {
    await mc.registerTool({ name: "ok.name-1_x", description: "d", execute: noop });
    const refused = async (tool) => {
      try {
        await mc.registerTool({ description: "d", execute: noop, ...tool });
        return "resolved";
      } catch (e) {
        return e.name;
      }
    };
    expect(await refused({ name: "ok.name-1_x" })).toBe("InvalidStateError");
    expect(await refused({ name: "" })).toBe("InvalidStateError");
    expect(await refused({ name: "has space" })).toBe("InvalidStateError");
    expect(await refused({ name: "view:devices" })).toBe("InvalidStateError");
    expect(await refused({ name: "x".repeat(129) })).toBe("InvalidStateError");
    expect(await refused({ name: "y".repeat(128) })).toBe("resolved");
    expect(await refused({ name: "e", description: "" })).toBe("InvalidStateError");
    // WebIDL conversions: missing required members and a non-object schema are TypeErrors.
    expect(await refused({ name: undefined })).toBe("TypeError");
    expect(await refused({ name: "f", execute: "not a function" })).toBe("TypeError");
    expect(await refused({ name: "g", inputSchema: "nope" })).toBe("TypeError");
    expect(await refused({ name: "h", inputSchema: { toJSON: () => undefined } })).toBe("TypeError");
  });

  it("keeps the draft's annotations (defaults false), drops other members, and null annotations stay absent", async () => {
    await mc.registerTool({ name: "a", description: "d", execute: noop, annotations: { readOnlyHint: 1, destructiveHint: true } });
    await mc.registerTool({ name: "b", description: "d", execute: noop });
    const [a, b] = await mc.getTools();
    expect(a.annotations).toEqual({ readOnlyHint: true, untrustedContentHint: false, consequentialHint: false, debugging: false });
    expect("annotations" in b).toBe(false);
  });

  it("getTools returns RegisteredTool dictionaries sorted by name, the schema a parsed copy", async () => {
    const schema = { type: "object", properties: { x: { type: "integer" } } };
    await mc.registerTool({ name: "zeta", title: "Zeta", description: "z", inputSchema: schema, execute: noop });
    await mc.registerTool({ name: "alpha", description: "a", execute: noop });
    const tools = await mc.getTools();
    expect(tools.map((t) => t.name)).toEqual(["alpha", "zeta"]);
    expect(tools[0]).toEqual({ name: "alpha", title: "", description: "a", window, origin: window.location.origin });
    expect(tools[1].inputSchema).toEqual(schema);
    expect(tools[1].inputSchema).not.toBe(schema);
    expect(tools[1].title).toBe("Zeta");
  });

  it("executeTool passes the input object through unvalidated and resolves with JSON.stringify of the result", async () => {
    const seen = [];
    await mc.registerTool({
      name: "t",
      description: "d",
      inputSchema: { type: "object", properties: { x: { type: "integer" } }, required: ["x"] },
      execute: async (input, options) => {
        seen.push({ input, signal: options.signal instanceof AbortSignal });
        return { ok: true };
      },
    });
    const [t] = await mc.getTools();
    expect(await mc.executeTool(t, { x: "not an integer" })).toBe('{"ok":true}');
    expect(await mc.executeTool(t)).toBe('{"ok":true}');
    expect(seen).toEqual([
      { input: { x: "not an integer" }, signal: true },
      { input: {}, signal: true },
    ]);
  });

  it("serializes every result: a string comes back JSON-encoded, undefined and a throw are UnknownError", async () => {
    await mc.registerTool({ name: "s", description: "d", execute: async () => '{"status":"ok"}' });
    await mc.registerTool({ name: "u", description: "d", execute: async () => undefined });
    await mc.registerTool({ name: "x", description: "d", execute: () => {
      throw new Error("boom");
    } });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const [s, u, x] = await mc.getTools();
    expect(await mc.executeTool(s)).toBe('"{\\"status\\":\\"ok\\"}"');
    await expect(mc.executeTool(u)).rejects.toMatchObject({ name: "UnknownError" });
    await expect(mc.executeTool(x)).rejects.toMatchObject({ name: "UnknownError" });
    warn.mockRestore();
  });

  it("fires toolactivated with the tool's name before execute runs", async () => {
    const events = [];
    mc.addEventListener("toolactivated", (e) => events.push(e instanceof ToolActivatedEvent ? e.toolName : "?"));
    await mc.registerTool({ name: "t", description: "d", execute: async () => events.push("execute") });
    await mc.executeTool((await mc.getTools())[0]);
    expect(events).toEqual(["t", "execute"]);
  });

  it("aborting the registration signal unregisters the tool (and rejects a registration still pending)", async () => {
    const early = new AbortController();
    const pending = mc.registerTool({ name: "e", description: "d", execute: noop }, { signal: early.signal });
    early.abort("too soon");
    await expect(pending).rejects.toBe("too soon");
    const ac = new AbortController();
    await expect(mc.registerTool({ name: "t", description: "d", execute: noop }, { signal: ac.signal })).resolves.toBeUndefined();
    const [t] = await mc.getTools();
    ac.abort("gone");
    expect(await mc.getTools()).toEqual([]);
    await expect(mc.executeTool(t)).rejects.toMatchObject({ name: "UnknownError" });
    // An already-aborted signal is refused up front; the name is free again.
    await expect(mc.registerTool({ name: "t", description: "d", execute: noop }, { signal: ac.signal })).rejects.toBe("gone");
    await expect(mc.registerTool({ name: "t", description: "d", execute: noop })).resolves.toBeUndefined();
  });

  it("cancelling executeTool rejects with the reason, aborts execute's signal and fires toolcancel", async () => {
    let aborted = false;
    const cancelled = [];
    mc.ontoolcancel = (e) => cancelled.push(e.toolName);
    await mc.registerTool({
      name: "slow",
      description: "d",
      execute: (_input, { signal }) =>
        new Promise((resolve) => {
          signal.addEventListener("abort", () => {
            aborted = true;
            resolve("late");
          });
        }),
    });
    const ac = new AbortController();
    const p = mc.executeTool((await mc.getTools())[0], {}, { signal: ac.signal });
    await settle();
    ac.abort("stop");
    await expect(p).rejects.toBe("stop");
    await settle();
    expect(aborted).toBe(true);
    expect(cancelled).toEqual(["slow"]);
  });

  it("refuses a RegisteredTool with an opaque or foreign origin", async () => {
    await mc.registerTool({ name: "t", description: "d", execute: noop });
    const [t] = await mc.getTools();
    await expect(mc.executeTool({ ...t, origin: "not a url" })).rejects.toMatchObject({ name: "NotSupportedError" });
    await expect(mc.executeTool({ ...t, origin: "https://elsewhere.example" })).rejects.toMatchObject({ name: "UnknownError" });
  });
});
