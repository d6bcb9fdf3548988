// The page + agent-surface: the component registers its contract (useAgentComponent) and the
// registry is published to WebMCP, from a verified manifest (what the Vite plugin's
// virtual:agent-surface/authority module does: createCapabilityAuthority(JSON.parse(text))). The
// manifest is this page's: its one contract, view:demo.counter, as compiled into the conformance
// scenarios' manifest (counter.manifest.json holds that contract with its own manifestHash, so
// the figure does not move when the scenario app gains contracts).
import { useState } from "react";
import { createRoot } from "react-dom/client";
import { actionContract, createAgentSurfaceRegistry, createCapabilityAuthority, defineAgentComponentContract, emptyObjectSchema, fromJsonSchema, observationContract } from "@agent-surface/core";
import { exposeToWebMCP } from "@agent-surface/core/webmcp";
import { AgentSurfaceProvider, useAgentComponent } from "@agent-surface/react";
import manifestText from "./counter.manifest.json" with { type: "text" };

const manifest = JSON.parse(manifestText);
const count = fromJsonSchema({ type: "object", properties: { value: { type: "integer", minimum: 0 } }, required: ["value"], additionalProperties: false });
const provenance = (id) => ({ id, contractHash: manifest.contracts.find((c) => c.id === id).contractHash });
const counter = defineAgentComponentContract(
  {
    type: "demo.counter",
    description: "A counter on the page",
    observations: { value: observationContract({ description: "The current value", output: count }) },
    actions: {
      increment: actionContract({ description: "Adds one to the counter", input: emptyObjectSchema, effect: "local-state" }),
      setTo: actionContract({ description: "Sets the counter to a value", input: count, output: count, effect: "local-state", idempotent: true }),
      slow: actionContract({ description: "Takes its time", input: emptyObjectSchema, effect: "local-state" }),
    },
  },
  provenance("view:demo.counter"),
);

const registry = createAgentSurfaceRegistry({ authority: createCapabilityAuthority(manifest) });
exposeToWebMCP(registry);

export function Counter() {
  const [value, setValue] = useState(0);
  useAgentComponent(counter, {
    observations: { value: { read: () => ({ value }) } },
    actions: {
      increment: { execute: () => setValue((v) => v + 1) },
      setTo: { execute: (input) => (setValue(input.value), input) },
      slow: { execute: () => undefined },
    },
  });
  return <button onClick={() => setValue(value + 1)}>{value}</button>;
}

createRoot(document.getElementById("root")).render(
  <AgentSurfaceProvider registry={registry}>
    <Counter />
  </AgentSurfaceProvider>,
);
