//! Verifying a compiled manifest without the engine: strict parsing (duplicate keys refused),
//! the format version, exact numbers, the canonical shape, completeness, every
//! `contractHash`, unique and sorted ids, the `manifestHash`, and every contract a valid
//! definition. The engine's `CapabilityAuthority` is built on [`verify_manifest`]; any other
//! reader (a linter, a CI check, a host in another language's test suite) gets the same answer
//! from the same code.

use crate::definition::{validate_contract, DefinitionViolation};
use crate::limits::AgentSurfaceLimits;
use crate::manifest::{
    contract_hash, manifest_hash, CapabilityContractManifest, CompletenessStatus, ManifestContract, FORMAT_VERSION,
};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;

/// Why a manifest was refused. Each names the contract (by id) and the field involved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ManifestError {
    #[error("the manifest is not JSON: {0}")]
    NotJson(String),
    #[error("unsupported manifest formatVersion {found:?} (this runtime reads {FORMAT_VERSION})")]
    UnsupportedFormatVersion { found: Option<Value> },
    #[error("the manifest does not match the CapabilityContractManifest format: {0}")]
    Malformed(String),
    #[error("the manifest is incomplete ({failed} contract(s) failed to compile): fix the compile errors first")]
    Incomplete { failed: u32 },
    #[error("completeness.contracts says {declared} but the manifest holds {actual} contracts")]
    CountMismatch { declared: u32, actual: usize },
    #[error("contractHash of \"{id}\" does not match its contents (expected {expected}, found {found})")]
    ContractHashMismatch { id: String, expected: String, found: String },
    #[error("contract id \"{id}\" is declared twice")]
    DuplicateId { id: String },
    #[error("contracts are not sorted by id: \"{id}\" comes after \"{previous}\"")]
    NotSorted { id: String, previous: String },
    #[error("manifestHash does not match the manifest (expected {expected}, found {found})")]
    ManifestHashMismatch { expected: String, found: String },
    #[error("contract \"{id}\" is not a valid definition at {pointer}: {message}")]
    InvalidContract { id: String, pointer: String, message: String },
}

impl ManifestError {
    /// A stable kebab-case name of the refusal (`"contract-hash-mismatch"`), for machine output.
    pub fn kind(&self) -> &'static str {
        match self {
            ManifestError::NotJson(_) => "not-json",
            ManifestError::UnsupportedFormatVersion { .. } => "unsupported-format-version",
            ManifestError::Malformed(_) => "malformed",
            ManifestError::Incomplete { .. } => "incomplete",
            ManifestError::CountMismatch { .. } => "count-mismatch",
            ManifestError::ContractHashMismatch { .. } => "contract-hash-mismatch",
            ManifestError::DuplicateId { .. } => "duplicate-id",
            ManifestError::NotSorted { .. } => "not-sorted",
            ManifestError::ManifestHashMismatch { .. } => "manifest-hash-mismatch",
            ManifestError::InvalidContract { .. } => "invalid-contract",
        }
    }

    /// The id of the contract the refusal names, if it names one.
    pub fn contract(&self) -> Option<&str> {
        match self {
            ManifestError::ContractHashMismatch { id, .. }
            | ManifestError::DuplicateId { id }
            | ManifestError::NotSorted { id, .. }
            | ManifestError::InvalidContract { id, .. } => Some(id),
            ManifestError::NotJson(_)
            | ManifestError::UnsupportedFormatVersion { .. }
            | ManifestError::Malformed(_)
            | ManifestError::Incomplete { .. }
            | ManifestError::CountMismatch { .. }
            | ManifestError::ManifestHashMismatch { .. } => None,
        }
    }
}

/// A manifest that passed every check: the typed model, the JSON exactly as verified, and the
/// index of each contract id.
#[derive(Debug, Clone)]
pub struct VerifiedManifest {
    pub manifest: CapabilityContractManifest,
    pub value: Value,
    pub by_id: HashMap<String, usize>,
}

/// Parses (strictly, see [`parse_strict`]) and verifies manifest text.
pub fn verify_manifest_text(text: &str, limits: &AgentSurfaceLimits) -> Result<VerifiedManifest, ManifestError> {
    let value = parse_strict(text).map_err(ManifestError::NotJson)?;
    verify_manifest(value, limits)
}

/// Verifies a manifest against `limits`; the first refusal wins, in the order of the module
/// documentation.
pub fn verify_manifest(value: Value, limits: &AgentSurfaceLimits) -> Result<VerifiedManifest, ManifestError> {
    if !value.is_object() {
        return Err(ManifestError::Malformed("the manifest must be a JSON object".into()));
    }
    match value.get("formatVersion") {
        Some(v) if v.as_u64() == Some(FORMAT_VERSION as u64) => {}
        other => return Err(ManifestError::UnsupportedFormatVersion { found: other.cloned() }),
    }
    // The canonical form writes numbers as JavaScript reads them (doubles), so two integers a
    // double cannot tell apart (2^53 and 2^53 + 1) hash the same while serde_json, the typed
    // model and the validator keep them apart: the hashes could not pin such a number.
    if let Some(n) = first_inexact_number(&value) {
        return Err(ManifestError::Malformed(format!(
            "the number {n} cannot be represented exactly as a double (as JavaScript and the canonical form read it), so the hashes cannot pin it"
        )));
    }
    let manifest: CapabilityContractManifest =
        serde_json::from_value(value.clone()).map_err(|e| ManifestError::Malformed(e.to_string()))?;
    // One meaning, one form: serde also accepts structs written as arrays and similar
    // alternative shapes; only the exact shape the model writes back is a manifest.
    if manifest.to_value() != value {
        return Err(ManifestError::Malformed("the manifest is not in the canonical CapabilityContractManifest shape (e.g. an object written as an array)".into()));
    }
    if manifest.completeness.status != CompletenessStatus::Complete || manifest.completeness.failed > 0 {
        return Err(ManifestError::Incomplete { failed: manifest.completeness.failed });
    }
    let raw_contracts = value.get("contracts").and_then(Value::as_array).cloned().unwrap_or_default();
    if manifest.completeness.contracts as usize != raw_contracts.len() {
        return Err(ManifestError::CountMismatch {
            declared: manifest.completeness.contracts,
            actual: raw_contracts.len(),
        });
    }
    for (raw, typed) in raw_contracts.iter().zip(&manifest.contracts) {
        let expected = contract_hash(raw);
        if typed.contract_hash() != expected {
            return Err(ManifestError::ContractHashMismatch {
                id: typed.id().to_string(),
                expected,
                found: typed.contract_hash().to_string(),
            });
        }
    }
    let mut by_id = HashMap::new();
    let mut previous: Option<&str> = None;
    for (i, c) in manifest.contracts.iter().enumerate() {
        if by_id.insert(c.id().to_string(), i).is_some() {
            return Err(ManifestError::DuplicateId { id: c.id().to_string() });
        }
        // Order carries no meaning, but the compiler always sorts: anything else was edited.
        if let Some(p) = previous {
            if crate::canonical::cmp_utf16(p, c.id()) == std::cmp::Ordering::Greater {
                return Err(ManifestError::NotSorted { id: c.id().to_string(), previous: p.to_string() });
            }
        }
        previous = Some(c.id());
    }
    let expected = manifest_hash(&value);
    if manifest.manifest_hash != expected {
        return Err(ManifestError::ManifestHashMismatch { expected, found: manifest.manifest_hash.clone() });
    }
    for c in &manifest.contracts {
        if let Some(v) = validate_contract(c, limits).into_iter().next() {
            return Err(invalid(c, &v));
        }
    }
    Ok(VerifiedManifest { manifest, value, by_id })
}

/// The first number (depth-first) that an IEEE-754 double does not hold exactly.
fn first_inexact_number(v: &Value) -> Option<&serde_json::Number> {
    match v {
        Value::Number(n) if !crate::schema::validate::is_json_number_safe(n) => Some(n),
        Value::Array(a) => a.iter().find_map(first_inexact_number),
        Value::Object(m) => m.values().find_map(first_inexact_number),
        _ => None,
    }
}

/// Parses JSON, refusing duplicate object keys (serde_json would silently keep the last).
pub fn parse_strict(text: &str) -> Result<Value, String> {
    use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
    struct Strict(Value);
    impl<'de> Deserialize<'de> for Strict {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Strict;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("a JSON value")
                }
                fn visit_bool<E>(self, b: bool) -> Result<Strict, E> {
                    Ok(Strict(Value::Bool(b)))
                }
                fn visit_i64<E>(self, n: i64) -> Result<Strict, E> {
                    Ok(Strict(Value::from(n)))
                }
                fn visit_u64<E>(self, n: u64) -> Result<Strict, E> {
                    Ok(Strict(Value::from(n)))
                }
                fn visit_f64<E>(self, n: f64) -> Result<Strict, E> {
                    Ok(Strict(serde_json::Number::from_f64(n).map(Value::Number).unwrap_or(Value::Null)))
                }
                fn visit_str<E>(self, s: &str) -> Result<Strict, E> {
                    Ok(Strict(Value::String(s.to_string())))
                }
                fn visit_string<E>(self, s: String) -> Result<Strict, E> {
                    Ok(Strict(Value::String(s)))
                }
                fn visit_unit<E>(self) -> Result<Strict, E> {
                    Ok(Strict(Value::Null))
                }
                fn visit_none<E>(self) -> Result<Strict, E> {
                    Ok(Strict(Value::Null))
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Strict, A::Error> {
                    let mut out = Vec::new();
                    while let Some(Strict(v)) = a.next_element()? {
                        out.push(v);
                    }
                    Ok(Strict(Value::Array(out)))
                }
                fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Strict, A::Error> {
                    let mut out = serde_json::Map::new();
                    while let Some(k) = a.next_key::<String>()? {
                        let Strict(v) = a.next_value()?;
                        if out.insert(k.clone(), v).is_some() {
                            return Err(serde::de::Error::custom(format!("duplicate key \"{k}\"")));
                        }
                    }
                    Ok(Strict(Value::Object(out)))
                }
            }
            d.deserialize_any(V)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let Strict(v) = Strict::deserialize(&mut de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(v)
}

fn invalid(c: &ManifestContract, v: &DefinitionViolation) -> ManifestError {
    ManifestError::InvalidContract { id: c.id().to_string(), pointer: v.json_pointer(), message: v.message.clone() }
}
