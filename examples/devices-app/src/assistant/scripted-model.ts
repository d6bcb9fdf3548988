// The assistant's "model": the AI SDK's own mock language model (ai/test) with a script, so the
// panel runs offline and deterministically. Each step looks at what the SDK sent (the user's
// request, the tool results so far, the tools on offer) and answers with tool calls or text,
// like a real model would — through the same generateText loop and the same tools.
import type { LanguageModelV4CallOptions, LanguageModelV4Content } from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

type Prompt = LanguageModelV4CallOptions["prompt"];
interface ToolResult {
  toolCallId: string;
  toolName: string;
  output: unknown;
}

let callCounter = 0;
const callId = () => `call-${++callCounter}`;

const call = (toolName: string, input: unknown): LanguageModelV4Content => ({ type: "tool-call", toolCallId: callId(), toolName, input: JSON.stringify(input) });
const say = (text: string): LanguageModelV4Content => ({ type: "text", text });

/** The last user message's text and the tool results that came after it. */
function turn(prompt: Prompt): { request: string; results: ToolResult[] } {
  let last = -1;
  prompt.forEach((m, i) => m.role === "user" && (last = i));
  const request =
    last < 0
      ? ""
      : (prompt[last].content as Array<{ type: string; text?: string }>)
          .filter((p) => p.type === "text")
          .map((p) => p.text)
          .join(" ");
  const results: ToolResult[] = [];
  for (const m of prompt.slice(last + 1)) {
    if (m.role !== "tool") continue;
    for (const p of m.content) {
      if (p.type === "tool-result") results.push({ toolCallId: p.toolCallId, toolName: p.toolName, output: (p.output as { value?: unknown }).value });
    }
  }
  return { request: request.trim(), results };
}

type Envelope = { status: "ok"; output?: unknown } | { status: "error"; error: { code: string; message: string } };

function describe(r: ToolResult): string {
  const e = r.output as Envelope;
  if (e?.status === "ok") {
    const out = e.output as { rows?: Array<{ id: string; name: string; status: string }>; ids?: string[]; path?: string } | undefined;
    if (out?.rows) return `I see ${out.rows.length} device(s): ${out.rows.map((d) => `${d.name} (${d.status})`).join(", ") || "none"}.`;
    if (out?.ids) return `Selected: ${out.ids.join(", ") || "nothing"}.`;
    return `${r.toolName} done${out ? `: ${JSON.stringify(out)}` : "."}`;
  }
  return `${r.toolName} failed with ${e?.error?.code}: ${e?.error?.message}`;
}

const IDS = /dev_[a-z0-9]{6,}/g;

/**
 * One step of the script: the requests it understands are "show devices", "filter <text>
 * [online|offline|maintenance]", "sort by <name|status|lastSeen> [desc]", "select <ids…>",
 * "clear selection", "decommission <ids…>" / "decommission the selection", "reboot <ids…>",
 * "export <csv|pdf|xlsx>", "go to <devices|reports|settings>".
 */
export function step(options: LanguageModelV4CallOptions): LanguageModelV4Content[] {
  const { request, results } = turn(options.prompt);
  const offered = new Set((options.tools ?? []).map((t) => t.name));
  const want = (name: string, input: unknown, otherwise: string) =>
    offered.has(name) ? [call(name, input)] : [say(`${otherwise} (no ${name} on this page).`)];
  const r = request.toLowerCase();
  const ids = request.match(IDS) ?? [];

  if (results.length > 0) {
    const lastResult = results[results.length - 1];
    // "decommission the selection": read the selection first, then ask to decommission it.
    if (/decommission/.test(r) && ids.length === 0 && lastResult.toolName === "view_devices_table_readSelection") {
      const sel = ((lastResult.output as Envelope & { output?: { ids: string[] } }).output?.ids ?? []) as string[];
      if (sel.length === 0) return [say("Nothing is selected, so there is nothing to decommission.")];
      return want("domain_devices_decommission", { ids: sel }, "I cannot decommission here");
    }
    return [say(results.map(describe).join(" "))];
  }

  if (/^(show|read|list)/.test(r)) return want("view_devices_table_readState", {}, "I cannot see the devices table");
  if (r.startsWith("filter")) {
    const status = r.match(/\b(online|offline|maintenance)\b/)?.[1];
    const text = request.replace(/^filter\s*/i, "").replace(/\b(online|offline|maintenance)\b/i, "").trim();
    return want("view_devices_table_filter", status ? { text, status } : { text }, "I cannot filter the table");
  }
  if (r.startsWith("sort")) {
    const column = r.match(/\b(name|status|lastseen)\b/)?.[1]?.replace("lastseen", "lastSeen") ?? "name";
    return want("view_devices_table_sortBy", { column, direction: /desc/.test(r) ? "desc" : "asc" }, "I cannot sort the table");
  }
  if (r.startsWith("clear")) return want("view_devices_table_clearSelection", {}, "I cannot clear the selection");
  if (r.startsWith("select")) return want("view_devices_table_selectRows", { ids }, "I cannot select rows");
  if (r.startsWith("decommission")) {
    if (ids.length === 0) return want("view_devices_table_readSelection", {}, "I cannot see the selection");
    return want("domain_devices_decommission", { ids }, "I cannot decommission here");
  }
  if (r.startsWith("reboot")) return want("domain_devices_reboot", { ids }, "I cannot reboot here");
  if (r.startsWith("export")) return want("external_reports_export", { format: r.match(/\b(csv|pdf|xlsx)\b/)?.[1] ?? "csv" }, "I cannot export");
  if (r.startsWith("go to") || r.startsWith("open")) {
    const to = `/${r.match(/\b(devices|reports|settings)\b/)?.[1] ?? "devices"}`;
    return want("view_app_nav_navigate", { to }, "I cannot navigate");
  }
  return [say(`I can show, filter, sort, select, decommission, reboot, export and navigate. I did not understand "${request}".`)];
}

export function scriptedModel() {
  return new MockLanguageModelV4({
    provider: "scripted",
    modelId: "devices-assistant",
    doGenerate: async (options) => {
      const content = step(options);
      const finishReason = content.some((c) => c.type === "tool-call") ? { unified: "tool-calls" as const, raw: "tool_calls" } : { unified: "stop" as const, raw: "stop" };
      return { content, finishReason, usage, warnings: [] };
    },
  });
}
