// src/explain.ts
import { explainSurface } from "@agent-surface/core/explain";
import { registry } from "./main";

for (const c of explainSurface(registry).capabilities) console.log(c.capabilityId, c.outcome);
// view:demo.counter.value expose
// view:demo.counter.increment expose
