import type { AgentToolset } from "@agent-surface/core";
import { aiSdkTools, type AgentSurfaceAiTools } from "@agent-surface/ai-sdk";
import { exportReport } from "../external/reports";
import { askUser } from "../confirmations";
import { gateway, toolset } from "../registry";
import { ran } from "../runs";

// The export tool, exposed through the gateway; its confirmation is asked in the page's dialog.
const exported = gateway.expose(
  [
    exportReport.bind({
      execute: (input) => {
        ran("export", (input as { format?: string }).format ?? "csv");
        return { jobId: crypto.randomUUID(), queuedAt: new Date().toISOString() };
      },
    }),
  ],
  { consumer: { id: "assistant", kind: "embedded" }, confirm: askUser },
);

/**
 * The SDK's tools for one generateText call: the registry's live catalog (whatever is mounted
 * now) plus the gateway's external tools. Built per call: each tool executes as it was in this
 * catalog, so a surface change during the loop reaches the model as an envelope.
 */
export function currentTools(): AgentSurfaceAiTools {
  // The gateway's tools have the toolset's shape (name, description, inputSchema, execute).
  return { ...aiSdkTools(toolset), ...aiSdkTools({ tools: () => exported.tools() } as unknown as AgentToolset) };
}
