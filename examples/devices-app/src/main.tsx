import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { exposeToWebMCP } from "@agent-surface/core/webmcp";
import { App } from "./App";
import { registry, toolset } from "./registry";
import { runLog, runs } from "./runs";
import { currentTools } from "./assistant/tools";
import "./styles.css";

// A browser agent that speaks WebMCP (document.modelContext, feature-detected) gets the same
// tools; its calls go through the same pipeline and wait for the same dialog. In development it
// also gets surface_explain, a developer tool (debugging: true) that explains the surface.
const webmcp = exposeToWebMCP(registry, { consumerId: "browser-agent", developerTools: import.meta.env.DEV });

// For the console and the end-to-end test: the registry, the assistant's toolset and tools,
// and the handler run counters.
let captured: ReturnType<typeof currentTools> | undefined;
Object.assign(window, {
  __devicesApp: {
    registry,
    toolset,
    runs,
    runLog,
    webmcp: webmcp.supported,
    toolNames: () => toolset.tools().map((t) => t.name),
    /** (Re)delivers a tool call to the assistant's current SDK tools, as a transport retry would. */
    deliver: (name: string, input: unknown, toolCallId: string) => currentTools()[name].execute!(input as never, { toolCallId, messages: [], context: {} } as never),
    /** Keeps the current SDK tools, to call them after the surface changed. */
    capture: () => void (captured = currentTools()),
    callCaptured: (name: string, input: unknown, toolCallId: string) => captured![name].execute!(input as never, { toolCallId, messages: [], context: {} } as never),
  },
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
