// aiSdkTools in real AI SDK loops (generateText and streamText from `ai` 7), the model scripted
// with the SDK's own mock (ai/test): offline and deterministic. The registry's pipeline runs
// every call; the test plays the app's confirmation dialog through registry.confirmations.
import { generateText, isStepCount, streamText } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { aiSdkTools, toolStateText } from "../dist/index.js";
import { createNotesApp } from "./app.js";
import { call, scriptedModel, scriptedStreamingModel, text, toolResults } from "./model.js";

/** The app's confirmation dialog: answers each confirmation the moment it is requested. */
function dialog(registry, answer) {
  const shown = [];
  const unsubscribe = registry.confirmations.subscribe((pending) => {
    for (const p of pending) {
      if (shown.some((s) => s.confirmationId === p.confirmationId)) continue;
      shown.push(p);
      // The user takes a moment: resolve after the current turn, as a click would.
      setTimeout(() => registry.confirmations.resolve(p.confirmationId, answer(p)), 5);
    }
  });
  return { shown, unsubscribe };
}

let app;
afterEach(() => {
  app?.toolset.dispose();
  app?.registry.dispose();
  app = undefined;
});

describe("aiSdkTools", () => {
  it("turns the toolset's catalog into SDK tools: wire names, the toolset's descriptions, JSON Schema input", async () => {
    app = createNotesApp();
    const tools = aiSdkTools(app.toolset);
    const catalog = app.toolset.tools();
    expect(Object.keys(tools)).toEqual(catalog.map((t) => t.name));
    expect(Object.keys(tools)).toEqual([
      "domain_notes_archive",
      "domain_notes_purge",
      "view_notes_board_addNote",
      "view_notes_board_openNote",
      "view_notes_board_readNotes",
    ]);
    const model = scriptedModel([[text("nothing to do")]]);
    await generateText({ model, tools, prompt: "hello" });
    // What the provider is given for each tool: name, description, the schema (no $schema marker).
    const sent = model.doGenerateCalls[0].tools;
    expect(sent.map((t) => t.name)).toEqual(Object.keys(tools));
    for (const t of sent) {
      const source = catalog.find((c) => c.name === t.name);
      expect(t).toMatchObject({ type: "function", description: source.description });
      const { $schema, ...schema } = source.inputSchema;
      expect(t.inputSchema).toEqual(schema);
    }
    expect(sent.find((t) => t.name === "domain_notes_purge").description).toBe(
      "[domain · destructive · required] Delete notes for good on the server. Cannot be undone.",
    );
  });

  it("runs a generateText loop: read, act, and a destructive procedure that waits for the app's dialog — each handler exactly once", async () => {
    app = createNotesApp();
    const ui = dialog(app.registry, () => ({ approved: true }));
    const model = scriptedModel([
      [call("call-read", "view_notes_board_readNotes", {})],
      [call("call-add", "view_notes_board_addNote", { text: "buy milk" })],
      // The model picks the note to purge from what it read.
      ({ prompt }) => {
        const read = toolResults(prompt)["call-read"].value;
        return [call("call-purge", "domain_notes_purge", { ids: [read.output.notes[0].id] })];
      },
      [text("Added the note and purged n1.")],
    ]);
    const result = await generateText({ model, tools: aiSdkTools(app.toolset), prompt: "Add 'buy milk', then purge the oldest note.", stopWhen: isStepCount(10) });
    ui.unsubscribe();

    expect(result.text).toBe("Added the note and purged n1.");
    expect(result.steps).toHaveLength(4);
    // Each handler ran exactly once; the purge only after the user approved it.
    expect(app.state.calls).toEqual({ readNotes: 1, addNote: 1, openNote: 0, archive: 0, purge: 1 });
    expect(app.state.purged).toEqual(["n1"]);
    expect(app.state.notes.map((n) => n.id)).toEqual(["n2", "n3"]);
    expect(ui.shown).toHaveLength(1);
    expect(ui.shown[0]).toMatchObject({
      capabilityId: "domain:notes.purge",
      consumerKey: "embedded:assistant",
      effect: "destructive",
      input: { ids: ["n1"] },
    });

    // What the model saw: every result is the invocation envelope, its invocationId the SDK's
    // toolCallId; the confirmation never reached it (wait mode: one call, one final result).
    const seen = toolResults(model.doGenerateCalls[3].prompt);
    expect(Object.keys(seen)).toEqual(["call-read", "call-add", "call-purge"]);
    expect(seen["call-read"]).toEqual({
      type: "json",
      value: {
        status: "ok",
        invocationId: "call-read",
        capabilityId: "view:notes.board.readNotes",
        output: {
          notes: [
            { id: "n1", text: "call the plumber", archived: false },
            { id: "n2", text: "renew the passport", archived: false },
          ],
          open: null,
        },
        surfaceVersion: expect.any(String),
      },
    });
    expect(seen["call-add"]).toMatchObject({ type: "json", value: { status: "ok", invocationId: "call-add", output: { id: "n3" } } });
    expect(seen["call-purge"]).toMatchObject({ type: "json", value: { status: "ok", invocationId: "call-purge", capabilityId: "domain:notes.purge" } });
    expect(JSON.stringify(model.doGenerateCalls.map((c) => c.prompt))).not.toContain("CONFIRMATION_REQUIRED");
    // The SDK's own view of the step: a tool result, not a tool error.
    expect(result.steps[2].content.map((c) => c.type)).toEqual(["tool-call", "tool-result"]);
    expect(result.steps[2].toolResults[0].output).toMatchObject({ status: "ok", invocationId: "call-purge" });
  });

  it("a denied confirmation reaches the model as an error result, CONFIRMATION_DENIED, and the handler never runs", async () => {
    app = createNotesApp();
    const ui = dialog(app.registry, () => ({ approved: false, reason: "keep it" }));
    const model = scriptedModel([[call("call-purge", "domain_notes_purge", { ids: ["n2"] })], [text("The user declined.")]]);
    const result = await generateText({ model, tools: aiSdkTools(app.toolset), prompt: "purge n2", stopWhen: isStepCount(5) });
    ui.unsubscribe();
    expect(result.text).toBe("The user declined.");
    expect(app.state.calls.purge).toBe(0);
    expect(ui.shown).toHaveLength(1);
    const seen = toolResults(model.doGenerateCalls[1].prompt)["call-purge"];
    expect(seen).toMatchObject({ type: "error-json", value: { status: "error", invocationId: "call-purge", error: { code: "CONFIRMATION_DENIED", retry: "never" } } });
  });

  it("invalid input is the pipeline's INVALID_INPUT envelope (nothing thrown into the SDK); the model corrects itself", async () => {
    app = createNotesApp();
    const model = scriptedModel([
      [call("call-1", "view_notes_board_addNote", { text: "" })],
      [call("call-2", "view_notes_board_addNote", { text: "water the plants" })],
      [text("ok")],
    ]);
    const result = await generateText({ model, tools: aiSdkTools(app.toolset), prompt: "add a note", stopWhen: isStepCount(5) });
    const seen = toolResults(model.doGenerateCalls[2].prompt);
    expect(seen["call-1"]).toMatchObject({ type: "error-json", value: { status: "error", error: { code: "INVALID_INPUT", retry: "with-changes" } } });
    expect(seen["call-1"].value.error.details.issues[0]).toMatchObject({ path: "/text", keyword: "minLength" });
    expect(seen["call-2"]).toMatchObject({ type: "json", value: { status: "ok", output: { id: "n3" } } });
    expect(app.state.calls.addNote).toBe(1);
    expect(result.steps[0].content.map((c) => c.type)).toEqual(["tool-call", "tool-result"]);
  });

  it("a handler that throws is EXECUTION_FAILED for the model, and the loop goes on", async () => {
    app = createNotesApp();
    app.state.failArchive = true;
    const model = scriptedModel([[call("call-1", "domain_notes_archive", { ids: ["n1"] })], [text("it failed")]]);
    const result = await generateText({ model, tools: aiSdkTools(app.toolset), prompt: "archive n1", stopWhen: isStepCount(5) });
    expect(result.text).toBe("it failed");
    const seen = toolResults(model.doGenerateCalls[1].prompt)["call-1"];
    expect(seen).toMatchObject({ type: "error-json", value: { status: "error", error: { code: "EXECUTION_FAILED" } } });
    expect(app.state.calls.archive).toBe(1);
    expect(result.steps[0].content.map((c) => c.type)).toEqual(["tool-call", "tool-result"]);
  });

  it("with a two-phase toolset the model sees CONFIRMATION_REQUIRED, and repeating the call after approval runs it once", async () => {
    app = createNotesApp();
    const twoPhase = app.core.createAgentToolset(app.registry, { consumer: { kind: "embedded", id: "remote" }, topology: "remote" });
    const model = scriptedModel([
      [call("call-1", "domain_notes_purge", { ids: ["n1"] })],
      ({ prompt }) => {
        // The app's dialog, out of band: the user approves what the model was told is pending.
        const { confirmationId } = toolResults(prompt)["call-1"].value.error.details;
        app.registry.confirmations.resolve(confirmationId, { approved: true });
        return [call("call-2", "domain_notes_purge", { ids: ["n1"] })];
      },
      [text("purged")],
    ]);
    await generateText({ model, tools: aiSdkTools(twoPhase), prompt: "purge n1", stopWhen: isStepCount(5) });
    const seen = toolResults(model.doGenerateCalls[2].prompt);
    expect(seen["call-1"]).toMatchObject({ type: "error-json", value: { error: { code: "CONFIRMATION_REQUIRED", retry: "after-confirmation" } } });
    expect(seen["call-2"]).toMatchObject({ type: "json", value: { status: "ok", invocationId: "call-2" } });
    expect(app.state.calls.purge).toBe(1);
    twoPhase.dispose();
  });

  it("a transport retry of the same tool call (same toolCallId) is answered from the idempotency window, not run twice", async () => {
    app = createNotesApp();
    const tools = aiSdkTools(app.toolset);
    const options = { toolCallId: "call-7", messages: [] };
    const first = await tools.view_notes_board_addNote.execute({ text: "once" }, options);
    const again = await tools.view_notes_board_addNote.execute({ text: "once" }, options);
    expect(first).toMatchObject({ status: "ok", invocationId: "call-7", output: { id: "n3" } });
    expect(again).toEqual(first);
    expect(app.state.calls.addNote).toBe(1);
  });

  // A wait-mode toolset remembers the confirmation a call waited for, so a second delivery of the
  // same tool call is the same request as the confirmed retry: the idempotency window answers it.
  it("a second delivery of a confirmed wait-mode call returns the cached result", async () => {
    app = createNotesApp();
    const ui = dialog(app.registry, () => ({ approved: true }));
    const tools = aiSdkTools(app.toolset);
    const options = { toolCallId: "call-9", messages: [] };
    const first = await tools.domain_notes_purge.execute({ ids: ["n1"] }, options);
    const again = await tools.domain_notes_purge.execute({ ids: ["n1"] }, options);
    ui.unsubscribe();
    expect(first).toMatchObject({ status: "ok", invocationId: "call-9" });
    expect(app.state.calls.purge).toBe(1);
    expect(again).toEqual(first);
  });

  it("aborting the loop while the dialog is open settles the call CANCELLED and runs nothing", async () => {
    app = createNotesApp();
    const controller = new AbortController();
    const seen = [];
    const tools = aiSdkTools(app.toolset);
    const purge = tools.domain_notes_purge;
    tools.domain_notes_purge = { ...purge, execute: async (input, options) => {
      const r = await purge.execute(input, options);
      seen.push(r);
      return r;
    } };
    const unsubscribe = app.registry.confirmations.subscribe((pending) => {
      if (pending.length > 0) setTimeout(() => controller.abort(new Error("the user closed the assistant")), 5);
    });
    const model = scriptedModel([[call("call-purge", "domain_notes_purge", { ids: ["n1"] })], [text("unreachable")]]);
    await expect(generateText({ model, tools, prompt: "purge n1", stopWhen: isStepCount(5), abortSignal: controller.signal })).rejects.toThrow();
    unsubscribe();
    await new Promise((r) => setTimeout(r, 20));
    expect(seen.map((r) => r.error?.code)).toEqual(["CANCELLED"]);
    expect(app.state.calls.purge).toBe(0);
  });

  it("runs the same loop with streamText", async () => {
    app = createNotesApp();
    const ui = dialog(app.registry, () => ({ approved: true }));
    const model = scriptedStreamingModel([
      [call("s-read", "view_notes_board_readNotes", {})],
      [call("s-archive", "domain_notes_archive", { ids: ["n2"] }), call("s-purge", "domain_notes_purge", { ids: ["n1"] })],
      [text("Archived n2, purged n1.")],
    ]);
    const result = streamText({ model, tools: aiSdkTools(app.toolset), prompt: "tidy up", stopWhen: isStepCount(5) });
    expect(await result.text).toBe("Archived n2, purged n1.");
    ui.unsubscribe();
    expect(app.state.calls).toMatchObject({ readNotes: 1, archive: 1, purge: 1 });
    expect(app.state.notes).toEqual([{ id: "n2", text: "renew the passport", archived: true }]);
    const seen = toolResults(model.doStreamCalls[2].prompt);
    expect(seen["s-archive"]).toMatchObject({ type: "json", value: { status: "ok", invocationId: "s-archive" } });
    expect(seen["s-purge"]).toMatchObject({ type: "json", value: { status: "ok", invocationId: "s-purge" } });
  });

  it("works with the meta toolset: discover, then invoke by capability id", async () => {
    app = createNotesApp({ toolset: { mode: "meta" } });
    const tools = aiSdkTools(app.toolset);
    expect(Object.keys(tools)).toEqual(["surface_discover", "surface_invoke", "surface_read"]);
    const model = scriptedModel([
      [call("m-1", "surface_discover", {})],
      ({ prompt }) => {
        const snapshot = toolResults(prompt)["m-1"].value.output;
        const board = snapshot.components.find((c) => c.type === "notes.board");
        return [call("m-2", "surface_invoke", { capabilityId: "view:notes.board.addNote", registrationId: board.registrationId, input: { text: "via meta" } })];
      },
      [text("done")],
    ]);
    await generateText({ model, tools, prompt: "add a note", stopWhen: isStepCount(5) });
    expect(toolResults(model.doGenerateCalls[2].prompt)["m-2"]).toMatchObject({ type: "json", value: { status: "ok", output: { id: "n3" } } });
    expect(app.state.notes.at(-1).text).toBe("via meta");
  });

  it("toolStateText renders live state for a message outside the tool block", () => {
    app = createNotesApp();
    expect(toolStateText(app.toolset)).toBeUndefined();
    app.state.notes = [];
    app.handle.invalidate();
    expect(toolStateText(app.toolset)).toBe("Tool state now:\n- view_notes_board_openNote is unavailable: the board is empty");
  });

  it("refuses what is not a toolset", () => {
    expect(() => aiSdkTools({})).toThrow(TypeError);
    expect(() => aiSdkTools(null)).toThrow(TypeError);
  });
});
