// Audit (crates/engine/src/audit.rs): one record per settled invocation, honouring each
// capability's `audit` level (`none`: no record; `metadata`: who/what/when/outcome; `full`:
// plus input and output). Without `RegistryOptions.audit` the records go to a bounded in-memory
// sink, readable with `readAuditRecords(registry)`.

import type { AuditRecord } from "../types.js";

/** How many records the default sink keeps: the newest 1,000. */
export const DEFAULT_AUDIT_CAPACITY = 1_000;

/** The default sink: the newest `capacity` records, oldest first. */
export class MemoryAuditSink {
  readonly records: AuditRecord[] = [];
  constructor(readonly capacity = DEFAULT_AUDIT_CAPACITY) {}
  record(r: AuditRecord): void {
    this.records.push(r);
    if (this.records.length > this.capacity) this.records.splice(0, this.records.length - this.capacity);
  }
}
