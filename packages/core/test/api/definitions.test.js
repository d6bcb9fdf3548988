// Spec "Definitions": compiled component contracts, `.bind()` (the one-to-one handler map, the
// runtime settings a binding may add), handler contexts, preconditions, and rule 3 of the
// registration lifecycle — handlers use live references, read at invocation time.
import { describe, expect, it } from "vitest";
import {
  alpha,
  bindNotes,
  bindPanel,
  core,
  definitionError,
  exportNotes,
  fetchNote,
  makeRegistry,
  notes,
  panel,
  purge,
  record,
  settle,
} from "./helpers.js";

const everyNoteAction = () => ({
  add: { execute: () => ({ id: "n1" }) },
  order: { execute: () => undefined },
  remove: { execute: () => undefined },
  work: { execute: () => undefined },
  produce: { execute: () => null },
  open: { execute: () => undefined },
});
const everyNoteObservation = () => ({ list: { read: () => ({ items: [] }) }, raw: { read: () => null } });

describe("contract.bind", () => {
  it("a compiled contract carries the compiler's provenance; its binding is verified and frozen", () => {
    expect(notes.kind).toBe("component");
    expect(notes.id).toBe("view:api.notes");
    expect(notes.provenance).toMatchObject({ id: "view:api.notes" });
    expect(notes.provenance.contractHash).toMatch(/^blake3:[0-9a-f]{64}$/);
    const b = bindNotes();
    expect(b.verified).toBe(true);
    expect(b.contract).toBe(notes);
    expect(b.handlers.instanceId).toBe("default");
    expect(Object.isFrozen(b)).toBe(true);
    expect(Object.isFrozen(b.handlers)).toBe(true);
    expect(Object.isFrozen(b.handlers.actions.add)).toBe(true);
  });

  it("every declared observation needs read and every declared action needs execute", () => {
    const { add, ...withoutAdd } = everyNoteAction();
    expect(add).toBeDefined();
    expect(definitionError(() => notes.bind({ observations: everyNoteObservation(), actions: withoutAdd })).message).toMatch(/add/);
    const { list, ...withoutList } = everyNoteObservation();
    expect(list).toBeDefined();
    expect(definitionError(() => notes.bind({ observations: withoutList, actions: everyNoteAction() })).message).toMatch(/list/);
    definitionError(() => notes.bind({ observations: everyNoteObservation(), actions: { ...everyNoteAction(), add: { execute: "no" } } }));
    definitionError(() => notes.bind({ observations: { ...everyNoteObservation(), list: {} }, actions: everyNoteAction() }));
  });

  it("names the contract does not declare are refused", () => {
    const e = definitionError(() => notes.bind({ observations: everyNoteObservation(), actions: { ...everyNoteAction(), share: { execute: () => 1 } } }));
    expect(e.message).toMatch(/share/);
    expect(e.contract).toBe("view:api.notes");
    definitionError(() => notes.bind({ observations: { ...everyNoteObservation(), add: { read: () => 1 } }, actions: everyNoteAction() }));
  });

  it("identity and governance stay in the contract: a binding cannot set them", () => {
    const withAction = (extra) => notes.bind({ observations: everyNoteObservation(), actions: { ...everyNoteAction(), add: { execute: () => ({ id: "n1" }), ...extra } } });
    for (const extra of [{ effect: "navigation" }, { confirmation: "never" }, { description: "x" }, { input: core.emptyObjectSchema }, { audit: "none" }]) {
      definitionError(() => withAction(extra));
    }
    for (const extra of [{ type: "api.other" }, { description: "x" }, { priority: 3 }, { origin: "x" }]) {
      definitionError(() => notes.bind({ observations: everyNoteObservation(), actions: everyNoteAction(), ...extra }));
    }
    definitionError(() => notes.bind({ observations: { ...everyNoteObservation(), list: { read: () => ({ items: [] }), output: core.emptyObjectSchema } }, actions: everyNoteAction() }));
  });

  it("the runtime settings a binding may add are accepted", () => {
    const policy = { name: "p", onDiscovery: () => "expose" };
    const b = notes.bind({
      instanceId: "inbox:42",
      enabled: true,
      parent: { type: "api.panel" },
      meta: { area: "notes" },
      internal: { owner: "team-a" },
      policies: [policy],
      observations: { ...everyNoteObservation(), list: { read: () => ({ items: [] }), when: () => true, unavailableReason: "r", timeoutMs: 10, policies: [policy] } },
      actions: {
        ...everyNoteAction(),
        add: {
          execute: () => ({ id: "n1" }),
          precondition: () => undefined,
          when: () => true,
          unavailableReason: () => "r",
          timeoutMs: 10,
          concurrency: { mode: "parallel", max: 2, queueDepth: 1 },
          policies: [policy],
        },
      },
      procedures: [purge.bind({ execute: () => undefined })],
    });
    expect(b.handlers.instanceId).toBe("inbox:42");
    const r = makeRegistry();
    expect(r.register(b).status).toBe("active");
    r.dispose();
  });

  it("a malformed concurrency group or instance id is a definition defect", () => {
    const withConcurrency = (concurrency) => () =>
      notes.bind({ observations: everyNoteObservation(), actions: { ...everyNoteAction(), work: { execute: () => undefined, concurrency } } });
    definitionError(withConcurrency({ mode: "parallel", max: 0 }));
    definitionError(withConcurrency({ mode: "parallel", max: 1.5 }));
    definitionError(withConcurrency({ mode: "parallel" }));
    definitionError(withConcurrency({ mode: "key" }));
    definitionError(withConcurrency({ mode: "everything" }));
    definitionError(withConcurrency({ mode: "instance", queueDepth: -1 }));
    definitionError(() => bindNotes({ instanceId: "has space" }));
    definitionError(() => bindNotes({ instanceId: "" }));
  });

  it("procedures: bound with execute, or without it (forwarded to the procedure executor); external tools always need execute", () => {
    expect(purge.bind({ execute: () => undefined }).verified).toBe(true);
    expect(fetchNote.bind({}).verified).toBe(true);
    definitionError(() => exportNotes.bind({}));
    definitionError(() => purge.bind({ execute: () => undefined, effect: "read" }));
    const r = makeRegistry();
    definitionError(() => r.register(purge.bind({ execute: () => undefined })));
    definitionError(() => r.register(bindNotes({ procedures: [purge] })));
    definitionError(() => r.register(bindNotes({ procedures: [exportNotes.bind({ execute: () => ({ bytes: 1 }) })] })));
    r.dispose();
  });

  it("a contract declaring no observations binds with the map omitted", () => {
    const r = makeRegistry();
    const h = r.register(alpha.bind({ actions: { ping: { execute: () => "pong" } } }));
    expect(h.status).toBe("active");
    r.dispose();
  });
});

describe("handler contexts", () => {
  it("read gets { capabilityId, registrationId, consumer, host }; execute also invocationId and a signal", async () => {
    const contexts = {};
    const r = makeRegistry({ context: () => ({ tenant: "acme" }) });
    const h = r.register(
      bindNotes({
        observations: { list: { read: (ctx) => ((contexts.read = ctx), { items: [] }) } },
        actions: { work: { execute: (input, ctx) => void (contexts.execute = { input, ctx }) } },
      }),
    );
    const consumer = { id: "agent-1", kind: "test", grants: ["notes"] };
    await r.invoke({ capabilityId: "view:api.notes.list" }, { consumer });
    await r.invoke({ capabilityId: "view:api.notes.work", input: {}, invocationId: "call-1" }, { consumer });
    expect(contexts.read).toEqual({ capabilityId: "view:api.notes.list", registrationId: h.registrationId, consumer, host: { tenant: "acme" } });
    const { ctx } = contexts.execute;
    expect(contexts.execute.input).toEqual({});
    expect(ctx).toMatchObject({ capabilityId: "view:api.notes.work", registrationId: h.registrationId, consumer, host: { tenant: "acme" }, invocationId: "call-1" });
    expect(ctx.signal).toBeInstanceOf(AbortSignal);
    expect(ctx.signal.aborted).toBe(false);
    expect("confirmation" in ctx).toBe(false);
    expect(Object.isFrozen(ctx)).toBe(true);
    expect(Object.isFrozen(ctx.host)).toBe(true);
    r.dispose();
  });

  it("anonymous invocations see the embedded:anonymous consumer", async () => {
    let consumer;
    const r = makeRegistry();
    r.register(bindNotes({ observations: { raw: { read: (ctx) => ((consumer = ctx.consumer), 1) } } }));
    await r.invoke({ capabilityId: "view:api.notes.raw" });
    expect(consumer).toEqual({ id: "anonymous", kind: "embedded" });
    r.dispose();
  });
});

describe("preconditions", () => {
  it("returned or thrown PreconditionFailure → PRECONDITION_FAILED with its agent-safe message and details; the handler does not run", async () => {
    let failure;
    let mode = "return";
    let runs = 0;
    const seen = [];
    const r = makeRegistry();
    r.register(
      bindNotes({
        actions: {
          remove: { execute: () => void runs++ },
          add: {
            execute: () => (runs++, { id: "n1" }),
            precondition: (input, ctx) => {
              seen.push({ input, capabilityId: ctx.capabilityId });
              if (mode === "throw") throw failure;
              return failure;
            },
          },
        },
      }),
    );
    failure = { message: "a note with this text exists", details: { existing: "n3" } };
    const a = await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "dup" } });
    expect(a.error).toMatchObject({ code: "PRECONDITION_FAILED", message: "a note with this text exists", details: { existing: "n3" }, retry: "with-changes" });
    mode = "throw";
    const b = await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "dup" } });
    expect(b.error).toMatchObject({ code: "PRECONDITION_FAILED", message: "a note with this text exists" });
    failure = new Error("internal index corrupted at row 12");
    const c = await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "dup" } });
    expect(c.error.code).toBe("PRECONDITION_FAILED");
    expect(JSON.stringify(c)).not.toContain("row 12");
    expect(runs).toBe(0);
    // the precondition sees the effective (defaulted) input
    expect(seen[0]).toEqual({ input: { text: "dup", tag: "misc" }, capabilityId: "view:api.notes.add" });
    mode = "return";
    failure = undefined;
    expect((await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "new" } })).status).toBe("ok");
    expect(runs).toBe(1);
    r.dispose();
  });
});

describe("live references (lifecycle rule 3)", () => {
  it("read and execute see the current state at invocation time; nothing runs at register or snapshot", async () => {
    let items = [{ id: "n1", text: "first" }];
    let reads = 0;
    let whens = 0;
    const r = makeRegistry();
    const events = record(r);
    r.register(
      bindNotes({
        observations: { list: { read: () => (reads++, { items }) } },
        actions: { add: { execute: ({ text }) => (items = [...items, { id: `n${items.length + 1}`, text }], { id: `n${items.length}` }), when: () => (whens++, true) } },
      }),
    );
    expect(reads).toBe(0);
    r.snapshot();
    expect(reads).toBe(0);
    const version = r.getVersion();
    expect((await r.invoke({ capabilityId: "view:api.notes.list" })).output.items).toHaveLength(1);
    expect(await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "second" } })).toMatchObject({ output: { id: "n2" } });
    expect((await r.invoke({ capabilityId: "view:api.notes.list" })).output.items.map((i) => i.text)).toEqual(["first", "second"]);
    items = [];
    expect((await r.invoke({ capabilityId: "view:api.notes.list" })).output).toEqual({ items: [] });
    expect(reads).toBe(3);
    expect(whens).toBeGreaterThan(0);
    // state changes behind the handlers are not surface mutations
    expect(r.getVersion()).toBe(version);
    await settle();
    expect(events.types().filter((t) => t === "surface-changed")).toHaveLength(1);
    r.dispose();
  });

  it("when() is read from current state at every snapshot and invocation, without a version bump", async () => {
    let open = true;
    const r = makeRegistry();
    r.register(bindPanel({ actions: { toggle: { execute: () => undefined, when: () => open, unavailableReason: "the panel is closed" } } }));
    const version = r.getVersion();
    const toggle = () => r.snapshot().components[0].actions[0];
    expect(toggle().available).toBe(true);
    open = false;
    expect(toggle()).toMatchObject({ available: false, unavailableReason: "the panel is closed" });
    expect((await r.invoke({ capabilityId: "view:api.panel.toggle", input: {} })).error.code).toBe("CAPABILITY_NOT_AVAILABLE");
    open = true;
    expect((await r.invoke({ capabilityId: "view:api.panel.toggle", input: {} })).status).toBe("ok");
    expect(r.getVersion()).toBe(version);
    r.dispose();
  });

  it("a parent link and the contract's meta appear on the descriptor", () => {
    const r = makeRegistry();
    r.register(bindPanel());
    r.register(bindNotes({ parent: { type: "api.panel" }, meta: { area: "notes" } }));
    const d = r.snapshot().components.find((c) => c.type === "api.notes");
    expect(d.parent).toEqual({ type: "api.panel", instanceId: "default" });
    expect(d.meta).toEqual({ area: "notes" });
    r.dispose();
  });
});

describe("raw definition helpers", () => {
  it("defineAgentComponent / observation / action build inert frozen copies without provenance", () => {
    const given = { description: "d", input: core.emptyObjectSchema, effect: "local-state", execute: () => undefined, provenance: { id: "x" } };
    const a = core.action(given);
    expect(a).not.toBe(given);
    expect(Object.isFrozen(a)).toBe(true);
    expect("provenance" in a).toBe(false);
    expect(Object.isFrozen(given)).toBe(false);
    const o = core.observation({ description: "d", output: core.emptyObjectSchema, read: () => ({}) });
    const def = core.defineAgentComponent({ type: "api.alpha", description: "raw", observations: { o }, actions: { a } });
    expect(Object.isFrozen(def)).toBe(true);
    expect(def.type).toBe("api.alpha");
  });

  it("panel binding is independent of notes (sanity of the fixture)", () => {
    expect(panel.definition.priority).toBe(10);
    expect(alpha.definition.origin).toBe("third-party");
  });
});
