// Audit (crates/engine/src/audit.rs): one record per settled invocation, honouring each
// capability's `audit` level (`none`: no record; `metadata`: who/what/when/outcome; `full`:
// plus input and output). Without `RegistryOptions.audit` the records go to a bounded in-memory
// sink, readable with `readAuditRecords(registry)`.

import type { AuditRecord } from "../types.js";

/** How many records the default sink keeps: the newest 1,000. */
export const DEFAULT_AUDIT_CAPACITY = 1_000;

/** The default sink: the newest `capacity` records in a ring (recording is O(1) per invocation). */
export class MemoryAuditSink {
  private readonly ring: AuditRecord[] = [];
  private next = 0;
  constructor(readonly capacity = DEFAULT_AUDIT_CAPACITY) {}
  record(r: AuditRecord): void {
    if (this.ring.length < this.capacity) this.ring.push(r);
    else this.ring[this.next] = r;
    this.next = (this.next + 1) % this.capacity;
  }
  /** The records, oldest first (a copy). */
  get records(): AuditRecord[] {
    return this.ring.length < this.capacity ? this.ring.slice() : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
  }
}
