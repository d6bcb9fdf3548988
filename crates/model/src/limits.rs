//! `AgentSurfaceLimits` (spec: Limits and defaults). Every limit is enforced somewhere and
//! every default lives here once, so compiler and runtime cannot drift apart.

use serde::{Deserialize, Serialize};

/// Component description length, in UTF-16 code units (JavaScript `.length`).
pub const DEFAULT_MAX_COMPONENT_DESCRIPTION: usize = 500;
/// Observation/action/procedure/external tool description length, in UTF-16 code units.
pub const DEFAULT_MAX_CAPABILITY_DESCRIPTION: usize = 300;
/// Canonical JSON bytes of a `meta` object.
pub const DEFAULT_MAX_META_BYTES: usize = 2048;
/// Serialized bytes of one observation/action output.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 32_768;
pub use agent_surface_schema::{SchemaLimits, DEFAULT_MAX_SCHEMA_BYTES, DEFAULT_MAX_SCHEMA_DEPTH};
pub const DEFAULT_OBSERVATION_TIMEOUT_MS: u64 = 5_000;
pub const DEFAULT_ACTION_TIMEOUT_MS: u64 = 10_000;
pub const DEFAULT_PROCEDURE_TIMEOUT_MS: u64 = 30_000;
pub const DEFAULT_ACTION_QUEUE_DEPTH: usize = 2;
pub const DEFAULT_MAX_CONCURRENT_OBSERVATIONS_PER_CONSUMER: usize = 8;
pub const DEFAULT_MAX_CONCURRENT_OBSERVATIONS_TOTAL: usize = 32;
pub const DEFAULT_MAX_QUEUED_OBSERVATIONS_PER_CONSUMER: usize = 8;
/// Dedupe cache entries.
pub const DEFAULT_DEDUPE_CACHE_SIZE: usize = 200;
pub const DEFAULT_DEDUPE_CACHE_TTL_MS: u64 = 600_000;
/// Tombstone entries.
pub const DEFAULT_TOMBSTONE_SIZE: usize = 100;
pub const DEFAULT_TOMBSTONE_TTL_MS: u64 = 300_000;
pub const DEFAULT_CONFIRMATION_TTL_MS: u64 = 120_000;
pub const DEFAULT_MAX_PENDING_CONFIRMATIONS: usize = 32;

/// All limits. Deserializes from a partial object (the spec's `Partial<AgentSurfaceLimits>`):
/// missing fields take their defaults, unknown fields are refused so typos are not silent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct AgentSurfaceLimits {
    pub max_component_description: usize,
    pub max_capability_description: usize,
    pub max_meta_bytes: usize,
    pub max_output_bytes: usize,
    pub max_schema_bytes: usize,
    pub max_schema_depth: usize,
    pub observation_timeout_ms: u64,
    pub action_timeout_ms: u64,
    pub procedure_timeout_ms: u64,
    pub action_queue_depth: usize,
    pub max_concurrent_observations_per_consumer: usize,
    pub max_concurrent_observations_total: usize,
    pub max_queued_observations_per_consumer: usize,
    pub dedupe_cache_size: usize,
    pub dedupe_cache_ttl_ms: u64,
    pub tombstone_size: usize,
    pub tombstone_ttl_ms: u64,
    pub confirmation_ttl_ms: u64,
    pub max_pending_confirmations: usize,
}

impl Default for AgentSurfaceLimits {
    fn default() -> Self {
        AgentSurfaceLimits {
            max_component_description: DEFAULT_MAX_COMPONENT_DESCRIPTION,
            max_capability_description: DEFAULT_MAX_CAPABILITY_DESCRIPTION,
            max_meta_bytes: DEFAULT_MAX_META_BYTES,
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            max_schema_bytes: DEFAULT_MAX_SCHEMA_BYTES,
            max_schema_depth: DEFAULT_MAX_SCHEMA_DEPTH,
            observation_timeout_ms: DEFAULT_OBSERVATION_TIMEOUT_MS,
            action_timeout_ms: DEFAULT_ACTION_TIMEOUT_MS,
            procedure_timeout_ms: DEFAULT_PROCEDURE_TIMEOUT_MS,
            action_queue_depth: DEFAULT_ACTION_QUEUE_DEPTH,
            max_concurrent_observations_per_consumer: DEFAULT_MAX_CONCURRENT_OBSERVATIONS_PER_CONSUMER,
            max_concurrent_observations_total: DEFAULT_MAX_CONCURRENT_OBSERVATIONS_TOTAL,
            max_queued_observations_per_consumer: DEFAULT_MAX_QUEUED_OBSERVATIONS_PER_CONSUMER,
            dedupe_cache_size: DEFAULT_DEDUPE_CACHE_SIZE,
            dedupe_cache_ttl_ms: DEFAULT_DEDUPE_CACHE_TTL_MS,
            tombstone_size: DEFAULT_TOMBSTONE_SIZE,
            tombstone_ttl_ms: DEFAULT_TOMBSTONE_TTL_MS,
            confirmation_ttl_ms: DEFAULT_CONFIRMATION_TTL_MS,
            max_pending_confirmations: DEFAULT_MAX_PENDING_CONFIRMATIONS,
        }
    }
}

/// The schema crate's share of the limits: what checking and compiling a schema needs.
impl From<&AgentSurfaceLimits> for SchemaLimits {
    fn from(limits: &AgentSurfaceLimits) -> Self {
        SchemaLimits { max_schema_bytes: limits.max_schema_bytes, max_schema_depth: limits.max_schema_depth }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_match_the_spec() {
        let l = AgentSurfaceLimits::default();
        let v = serde_json::to_value(&l).unwrap();
        assert_eq!(
            v,
            json!({
                "maxComponentDescription": 500,
                "maxCapabilityDescription": 300,
                "maxMetaBytes": 2048,
                "maxOutputBytes": 32768,
                "maxSchemaBytes": 16384,
                "maxSchemaDepth": 8,
                "observationTimeoutMs": 5000,
                "actionTimeoutMs": 10000,
                "procedureTimeoutMs": 30000,
                "actionQueueDepth": 2,
                "maxConcurrentObservationsPerConsumer": 8,
                "maxConcurrentObservationsTotal": 32,
                "maxQueuedObservationsPerConsumer": 8,
                "dedupeCacheSize": 200,
                "dedupeCacheTtlMs": 600000,
                "tombstoneSize": 100,
                "tombstoneTtlMs": 300000,
                "confirmationTtlMs": 120000,
                "maxPendingConfirmations": 32
            })
        );
    }

    #[test]
    fn partial_overrides_keep_other_defaults() {
        let l: AgentSurfaceLimits = serde_json::from_value(json!({"maxSchemaDepth": 4, "actionTimeoutMs": 1})).unwrap();
        assert_eq!(l.max_schema_depth, 4);
        assert_eq!(l.action_timeout_ms, 1);
        assert_eq!(l.max_schema_bytes, DEFAULT_MAX_SCHEMA_BYTES);
        let l: AgentSurfaceLimits = serde_json::from_value(json!({})).unwrap();
        assert_eq!(l, AgentSurfaceLimits::default());
    }

    #[test]
    fn unknown_or_invalid_fields_are_refused() {
        let e = serde_json::from_value::<AgentSurfaceLimits>(json!({"maxSchemaDept": 4})).unwrap_err();
        assert!(e.to_string().contains("maxSchemaDept"), "{e}");
        assert!(serde_json::from_value::<AgentSurfaceLimits>(json!({"maxSchemaDepth": -1})).is_err());
        assert!(serde_json::from_value::<AgentSurfaceLimits>(json!({"maxSchemaDepth": "8"})).is_err());
    }

    #[test]
    fn schema_limits_carry_both_fields() {
        let l = AgentSurfaceLimits { max_schema_bytes: 1234, max_schema_depth: 3, ..Default::default() };
        assert_eq!(SchemaLimits::from(&l), SchemaLimits { max_schema_bytes: 1234, max_schema_depth: 3 });
        let d = SchemaLimits::from(&AgentSurfaceLimits::default());
        assert_eq!((d.max_schema_bytes, d.max_schema_depth), (DEFAULT_MAX_SCHEMA_BYTES, DEFAULT_MAX_SCHEMA_DEPTH));
    }
}
