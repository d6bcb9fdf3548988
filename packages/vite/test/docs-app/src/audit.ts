// src/audit.ts
import { readAuditRecords } from "@agent-surface/core";
import { registry } from "./main";

for (const r of readAuditRecords(registry)) console.log(r.invocationId, r.capabilityId, r.status, r.code);
// inv_… view:demo.counter.increment ok null
// inv_… view:demo.counter.increment error INVALID_INPUT
