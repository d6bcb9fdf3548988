import { useEffect, useRef, useState } from "react";
import { generateText, isStepCount, type ModelMessage, type ToolSet } from "ai";
import { toolStateText } from "@agent-surface/ai-sdk";
import { toolset } from "../registry";
import { scriptedModel } from "./scripted-model";
import { currentTools } from "./tools";

type Entry =
  | { kind: "user" | "assistant"; text: string }
  | { kind: "tool"; toolCallId: string; name: string; input: unknown; state: "running" | "ok" | "error"; code?: string };

const model = scriptedModel();

/** Wraps each tool's execute to show the call, live, in the panel. */
function logged(tools: ToolSet, log: (e: Entry) => void): ToolSet {
  const out: ToolSet = {};
  for (const [name, t] of Object.entries(tools)) {
    out[name] = {
      ...t,
      execute: async (input: unknown, options: { toolCallId: string }) => {
        log({ kind: "tool", toolCallId: options.toolCallId, name, input, state: "running" });
        const result = (await t.execute!(input, options as never)) as { status: string; error?: { code: string } };
        log({ kind: "tool", toolCallId: options.toolCallId, name, input, state: result.status === "ok" ? "ok" : "error", code: result.error?.code });
        return result;
      },
    } as ToolSet[string];
  }
  return out;
}

export function AssistantPanel() {
  const [entries, setEntries] = useState<Entry[]>([{ kind: "assistant", text: "Hi! Ask me to show, filter, sort or select devices, decommission or reboot them, export a report, or go to a page." }]);
  const [draft, setDraft] = useState("");
  const [busy, setBusy] = useState(false);
  const messages = useRef<ModelMessage[]>([]);
  const end = useRef<HTMLLIElement>(null);
  useEffect(() => {
    end.current?.scrollIntoView({ block: "end" });
  }, [entries]);

  const log = (e: Entry) =>
    setEntries((list) => {
      if (e.kind === "tool") {
        const i = list.findIndex((x) => x.kind === "tool" && x.toolCallId === e.toolCallId);
        if (i >= 0) return list.map((x, j) => (j === i ? e : x));
      }
      return [...list, e];
    });

  async function send(text: string) {
    if (!text.trim()) return;
    setDraft("");
    setBusy(true);
    log({ kind: "user", text });
    messages.current.push({ role: "user", content: text });
    try {
      const state = toolStateText(toolset);
      const result = await generateText({
        model,
        tools: logged(currentTools(), log),
        ...(state ? { system: state } : {}),
        messages: messages.current,
        stopWhen: isStepCount(6),
      });
      messages.current.push(...result.response.messages);
      if (result.text) log({ kind: "assistant", text: result.text });
    } catch (e) {
      log({ kind: "assistant", text: `(the loop failed: ${(e as Error).message})` });
    } finally {
      setBusy(false);
    }
  }

  return (
    <aside className="assistant" aria-label="Assistant">
      <h2>Assistant</h2>
      <ol className="log">
        {entries.map((e, i) =>
          e.kind === "tool" ? (
            <li key={i} className={`tool ${e.state}`} data-tool-call={e.toolCallId} data-state={e.state} data-code={e.code ?? ""}>
              <code>{e.name}</code> <small>{JSON.stringify(e.input)}</small>{" "}
              <b>{e.state === "running" ? "…" : e.state === "ok" ? "ok" : e.code}</b>
            </li>
          ) : (
            <li key={i} className={e.kind}>
              {e.text}
            </li>
          ),
        )}
        <li ref={end} aria-hidden className="end" />
      </ol>
      <form
        onSubmit={(ev) => {
          ev.preventDefault();
          void send(draft);
        }}
      >
        <input aria-label="Ask the assistant" value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="e.g. filter printer" />
        <button type="submit">
          Send
        </button>
      </form>
      {busy && <p className="thinking">working…</p>}
    </aside>
  );
}
