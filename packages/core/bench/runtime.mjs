// The page's workload through the TypeScript runtime, in Node (docs/performance.md;
// scripts/bench-runtime.sh runs it right after the native bench crates/engine/benches/page_workload.rs):
// a trivial action invoked → handler → result envelope, and snapshot() of 100 components.
// Prints the median time per operation of 15 batches.
import { readFileSync } from "node:fs";
import * as core from "../dist/index.js";

const manifest = JSON.parse(readFileSync(new URL("../../../conformance/scenarios/manifest.json", import.meta.url), "utf8"));
const contracts = new Map();
for (const c of manifest.contracts.filter((c) => c.kind === "component")) {
  const s = core.fromJsonSchema;
  const observations = Object.fromEntries(Object.entries(c.observations).map(([n, o]) => [n, core.observationContract({ description: o.description, output: s(o.outputSchema) })]));
  const actions = Object.fromEntries(
    Object.entries(c.actions).map(([n, a]) => [
      n,
      core.actionContract({ description: a.description, input: s(a.inputSchema), ...(a.outputSchema ? { output: s(a.outputSchema) } : {}), effect: a.effect, idempotent: a.idempotent }),
    ]),
  );
  contracts.set(c.type, core.defineAgentComponentContract({ type: c.type, description: c.description, observations, actions }, { id: c.id, contractHash: c.contractHash }));
}

function registry(instances) {
  const r = core.createAgentSurfaceRegistry({ authority: core.createCapabilityAuthority(manifest) });
  const counter = contracts.get("demo.counter");
  for (let i = 0; i < instances; i++) {
    r.register(
      counter.bind({
        instanceId: `c${i}`,
        observations: { value: { read: () => ({ value: 1 }) } },
        actions: { increment: { execute: () => undefined }, setTo: { execute: (input) => input }, slow: { execute: () => undefined } },
      }),
    );
  }
  return r;
}

async function measure(name, batch, op) {
  for (let i = 0; i < batch; i++) await op(); // warm up
  const per = [];
  for (let b = 0; b < 15; b++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) await op();
    per.push(Number(process.hrtime.bigint() - t) / batch);
  }
  per.sort((a, b) => a - b);
  console.log(`${name}\t${(per[7] / 1000).toFixed(2)} µs`);
}

const one = registry(1);
await measure("invoke_trivial_action", 2000, async () => {
  const r = await one.invoke({ capabilityId: "view:demo.counter.increment", input: {} });
  if (r.status !== "ok") throw new Error(JSON.stringify(r));
});
const hundred = registry(100);
if (hundred.snapshot().components.length !== 100) throw new Error("expected 100 components");
await measure("snapshot_100_components", 50, () => hundred.snapshot());
