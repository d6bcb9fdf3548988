// The page + the WebMCP peer: @mcp-b/global (the document.modelContext runtime) and
// @mcp-b/react-webmcp's useWebMCP, with a zod schema, for the same one component.
import "@mcp-b/global";
import { useWebMCP } from "@mcp-b/react-webmcp";
import { useState } from "react";
import { createRoot } from "react-dom/client";
import { z } from "zod";

const SetTo = z.object({ value: z.number().int().min(0) });

export function Counter() {
  const [value, setValue] = useState(0);
  useWebMCP({ name: "counter_increment", description: "Adds one to the counter", inputSchema: z.object({}), handler: async () => (setValue((v) => v + 1), "ok") });
  useWebMCP({ name: "counter_set_to", description: "Sets the counter to a value", inputSchema: SetTo, handler: async ({ value }) => (setValue(value), "ok") });
  useWebMCP({ name: "counter_value", description: "The current value", inputSchema: z.object({}), handler: async () => ({ value }) });
  return <button onClick={() => setValue(value + 1)}>{value}</button>;
}

createRoot(document.getElementById("root")).render(<Counter />);
