//! Audit: one record per settled invocation, honouring each capability's `audit` level
//! (`none`: no record; `metadata`: who/what/when/outcome; `full`: plus input and output).

use crate::host::{MaybeSend, MaybeSync};
use serde::Serialize;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::Mutex;

/// The `status` of the record of a CONFIRMATION_REQUIRED step: the request now waits for the
/// user, which is not a failure (`code` is still `"CONFIRMATION_REQUIRED"`).
pub const CONFIRMATION_REQUIRED_STATUS: &str = "confirmation-required";

/// One settled invocation. The registry's default sink keeps the newest
/// [`DEFAULT_AUDIT_CAPACITY`]; read them with
/// [`AgentSurfaceRegistry::audit_records`](crate::registry::AgentSurfaceRegistry::audit_records)
/// (the gateway's: [`ExposedTools::audit_records`](crate::gateway::ExposedTools::audit_records)).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditRecord {
    pub invocation_id: String,
    pub capability_id: String,
    /// The registration (an external tool: its exposure's id); `None` when the invocation
    /// never resolved to one (e.g. CAPABILITY_NOT_FOUND).
    pub registration_id: Option<String>,
    pub consumer_key: String,
    /// `"ok"`, `"error"`, or [`CONFIRMATION_REQUIRED_STATUS`] (`"confirmation-required"`).
    pub status: String,
    /// The error code (`None` when ok).
    pub code: Option<String>,
    pub started_at: String,
    pub duration_ms: u64,
    /// Only with `audit: "full"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
}

pub trait AuditSink: MaybeSend + MaybeSync {
    fn record(&self, r: AuditRecord);
}

/// How many records the registry's default sink keeps (the spec's "bounded in-memory sink",
/// used when `RegistryOptions.audit` is not given): the newest 1,000; older ones are dropped.
pub const DEFAULT_AUDIT_CAPACITY: usize = 1_000;

/// The default sink: the last `capacity` records in memory.
pub struct MemoryAuditSink {
    capacity: usize,
    records: Mutex<VecDeque<AuditRecord>>,
}

impl MemoryAuditSink {
    pub fn new(capacity: usize) -> Self {
        MemoryAuditSink { capacity, records: Mutex::new(VecDeque::new()) }
    }
    pub fn records(&self) -> Vec<AuditRecord> {
        self.records.lock().unwrap_or_else(|e| e.into_inner()).iter().cloned().collect()
    }
}

impl Default for MemoryAuditSink {
    fn default() -> Self {
        Self::new(DEFAULT_AUDIT_CAPACITY)
    }
}

impl AuditSink for MemoryAuditSink {
    fn record(&self, r: AuditRecord) {
        let mut q = self.records.lock().unwrap_or_else(|e| e.into_inner());
        q.push_back(r);
        while q.len() > self.capacity {
            q.pop_front();
        }
    }
}
