// docs/react.md's example, quoted there verbatim below this comment (test/docs.test.tsx checks
// the quote and runs the page and the agent).
import { createAgentToolset, type JsonValue } from "@agent-surface/core";
import { registry } from "./registry";

// What an adapter (the AI SDK's tools, WebMCP) does for a model, by hand.
export const toolset = createAgentToolset(registry, {
  consumer: { id: "assistant", kind: "embedded" },
  topology: "embedded", // a confirmation waits for the page's dialog
});

export function call(capabilityId: string, input: JsonValue, toolCallId: string) {
  const tools = toolset.tools();
  const name = [...toolset.wireNameMap()].find(([, id]) => id === capabilityId)?.[0];
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`${capabilityId} is not on the page`);
  return tool.execute(input, { toolCallId });
}
