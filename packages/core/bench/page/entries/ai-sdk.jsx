// The page + the AI SDK's own tool calling, for scale: tool() with a zod schema and a
// generateText loop (the model is whatever the host passes; none is bundled).
import { generateText, tool } from "ai";
import { useState } from "react";
import { createRoot } from "react-dom/client";
import { z } from "zod";

let set = () => {};
export const tools = {
  increment: tool({ description: "Adds one to the counter", inputSchema: z.object({}), execute: async () => (set((v) => v + 1), "ok") }),
  setTo: tool({ description: "Sets the counter to a value", inputSchema: z.object({ value: z.number().int().min(0) }), execute: async ({ value }) => (set(value), "ok") }),
};
export const run = (model, prompt) => generateText({ model, prompt, tools });

export function Counter() {
  const [value, setValue] = useState(0);
  set = setValue;
  return <button onClick={() => setValue(value + 1)}>{value}</button>;
}

createRoot(document.getElementById("root")).render(<Counter />);
