// src/main.ts
import authority from "virtual:agent-surface/authority"; // the manifest, verified at import
import { createAgentSurfaceRegistry } from "@agent-surface/core";
import { counterContract } from "./counter";

let value = 41;
export const registry = createAgentSurfaceRegistry({ authority });
registry.register(
  counterContract.bind({
    observations: { value: { read: () => ({ value }) } },
    actions: { increment: { execute: ({ by }) => ({ value: (value += by) }) } },
  }),
);

console.log(await registry.invoke({ capabilityId: "view:demo.counter.increment", input: {} }));
// { status: "ok", invocationId: "inv_…", capabilityId: "view:demo.counter.increment", surfaceVersion: "1", output: { value: 42 } }
console.log(await registry.invoke({ capabilityId: "view:demo.counter.increment", input: { by: 50 } }));
// { status: "error", …, error: { code: "INVALID_INPUT", retry: "with-changes", details: { issues: [{ path: "/by", keyword: "maximum", … }] } } }
