// A scripted model on the AI SDK's own mock (ai/test MockLanguageModelV4): each step is a
// function of the prompt the SDK sends (so a step can answer what the model was shown) that
// returns the step's content — tool calls or text. Offline and deterministic.
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

export const call = (toolCallId, toolName, input) => ({ type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) });
export const text = (t) => ({ type: "text", text: t });

function next(steps, i, options) {
  const step = steps[i];
  if (step === undefined) throw new Error(`the script has no step ${i + 1}`);
  const content = typeof step === "function" ? step(options) : step;
  const finishReason = content.some((c) => c.type === "tool-call") ? { unified: "tool-calls", raw: "tool_calls" } : { unified: "stop", raw: "stop" };
  return { content, finishReason };
}

/** doGenerate answers step after step. */
export function scriptedModel(steps) {
  let i = 0;
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      const { content, finishReason } = next(steps, i++, options);
      return { content, finishReason, usage, warnings: [] };
    },
  });
}

/** doStream answers step after step, as stream parts. */
export function scriptedStreamingModel(steps) {
  let i = 0;
  return new MockLanguageModelV4({
    doStream: async (options) => {
      const { content, finishReason } = next(steps, i++, options);
      const parts = [{ type: "stream-start", warnings: [] }];
      content.forEach((c, n) => {
        if (c.type === "text") parts.push({ type: "text-start", id: `t${n}` }, { type: "text-delta", id: `t${n}`, delta: c.text }, { type: "text-end", id: `t${n}` });
        else parts.push(c);
      });
      parts.push({ type: "finish", finishReason, usage });
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
}

/** The tool results the SDK sent the model in a prompt, by tool-call id. */
export function toolResults(prompt) {
  const out = {};
  for (const m of prompt) {
    if (m.role !== "tool") continue;
    for (const part of m.content) if (part.type === "tool-result") out[part.toolCallId] = part.output;
  }
  return out;
}
