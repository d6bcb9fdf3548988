// Type test: the record aiSdkTools returns is what the SDK's loops take, and its results are
// typed as the invocation envelope. Compiled with `npm run test:types` (no emit).
import { generateText, isStepCount, streamText, type ToolSet } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import type { AgentInvocationResult, AgentToolset } from "@agent-surface/core";
import { aiSdkTools, toolStateText, type AgentSurfaceAiTools } from "@agent-surface/ai-sdk";

declare const toolset: AgentToolset;
const model = new MockLanguageModelV4();

const tools: AgentSurfaceAiTools = aiSdkTools(toolset);
const asToolSet: ToolSet = tools;
void asToolSet;

export async function run(): Promise<string> {
  const state: string | undefined = toolStateText(toolset);
  const result = await generateText({ model, tools, prompt: "hi", stopWhen: isStepCount(5), ...(state ? { system: state } : {}) });
  for (const step of result.steps) {
    for (const r of step.toolResults) {
      // Static (not dynamic) tools: the output is the envelope.
      if (r.dynamic) continue;
      const envelope: AgentInvocationResult = r.output;
      void envelope;
    }
  }
  streamText({ model, tools: aiSdkTools(toolset), prompt: "hi" });
  // @ts-expect-error not a toolset
  aiSdkTools({ tools: 1 });
  return result.text;
}
