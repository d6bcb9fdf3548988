//! The manifest's types (DECISIONS §4) and their JSON form: every field explicit, unknown fields
//! refused, a `formatVersion` this crate reads. Hashing and assembly are in
//! [`super::hashing`].

use crate::canonical::canonical_json_pretty;
use crate::effects::{Audit, Confirmation, Effect, Governance};
use crate::ids::component_contract_id;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The manifest format this crate writes and reads. Format 2 moved each contract's `source`
/// out of the manifest into the locations sidecar ([`super::locations`]): an edit that moves a
/// contract no longer changes the manifest's bytes or its `manifestHash`.
pub const FORMAT_VERSION: u32 = 2;
/// `origin` of a component contract unless the author says otherwise.
pub const DEFAULT_ORIGIN: &str = "first-party";

/// Who wrote the manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Generator {
    pub name: String,
    pub version: String,
}

/// `incomplete` when some contract failed to compile; an authority refuses such a manifest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CompletenessStatus {
    Complete,
    Incomplete,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Completeness {
    pub status: CompletenessStatus,
    /// Contracts present in the manifest.
    pub contracts: u32,
    /// Contract definitions that could not be compiled (and are absent).
    pub failed: u32,
}

/// Where a contract is defined: `file` relative to the project root with `/` separators, so
/// it does not depend on the checkout path. Line and column are 1-based (column in UTF-16 code
/// units). Kept in the locations sidecar ([`super::ContractLocations`]), never in the manifest.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SourceLocation {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

/// A component's read-only view of its state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ObservationContract {
    pub description: String,
    pub output_schema: Value,
    pub meta: Map<String, Value>,
}

impl ObservationContract {
    pub fn new(description: impl Into<String>, output_schema: Value) -> Self {
        ObservationContract { description: description.into(), output_schema, meta: Map::new() }
    }
}

/// A component's action (view plane: local state or navigation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ActionContract {
    pub description: String,
    pub input_schema: Value,
    /// Serialized as `null` when absent: every field is explicit in the manifest.
    pub output_schema: Option<Value>,
    pub effect: Effect,
    pub idempotent: bool,
    pub reversible: bool,
    pub confirmation: Confirmation,
    pub audit: Audit,
    pub meta: Map<String, Value>,
}

impl ActionContract {
    pub fn new(description: impl Into<String>, input_schema: Value, governance: Governance) -> Self {
        ActionContract {
            description: description.into(),
            input_schema,
            output_schema: None,
            effect: governance.effect,
            idempotent: governance.idempotent,
            reversible: governance.reversible,
            confirmation: governance.confirmation,
            audit: governance.audit,
            meta: Map::new(),
        }
    }

    pub fn governance(&self) -> Governance {
        Governance {
            effect: self.effect,
            idempotent: self.idempotent,
            reversible: self.reversible,
            confirmation: self.confirmation,
            audit: self.audit,
        }
    }
}

/// `defineAgentComponentContract`: id `view:<type>`, observations and actions keyed by name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ComponentContract {
    pub id: String,
    pub r#type: String,
    pub description: String,
    pub meta: Map<String, Value>,
    pub origin: String,
    pub priority: i64,
    pub policies: Vec<Value>,
    pub tags: Vec<String>,
    pub observations: BTreeMap<String, ObservationContract>,
    pub actions: BTreeMap<String, ActionContract>,
    pub contract_hash: String,
}

impl ComponentContract {
    /// A contract with every optional field at its default and no hash yet.
    pub fn new(ty: impl Into<String>, description: impl Into<String>) -> Self {
        let ty = ty.into();
        ComponentContract {
            id: component_contract_id(&ty),
            r#type: ty,
            description: description.into(),
            meta: Map::new(),
            origin: DEFAULT_ORIGIN.to_string(),
            priority: 0,
            policies: Vec::new(),
            tags: Vec::new(),
            observations: BTreeMap::new(),
            actions: BTreeMap::new(),
            contract_hash: String::new(),
        }
    }
}

/// A domain procedure (`domain:` id) or external tool (`external:` id); same shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OperationContract {
    pub id: String,
    pub description: String,
    pub input_schema: Value,
    /// Serialized as `null` when absent.
    pub output_schema: Option<Value>,
    pub effect: Effect,
    pub idempotent: bool,
    pub reversible: bool,
    pub confirmation: Confirmation,
    pub audit: Audit,
    pub policies: Vec<Value>,
    pub meta: Map<String, Value>,
    pub tags: Vec<String>,
    pub contract_hash: String,
}

impl OperationContract {
    /// A contract with every optional field at its default and no hash yet.
    pub fn new(
        id: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        governance: Governance,
    ) -> Self {
        OperationContract {
            id: id.into(),
            description: description.into(),
            input_schema,
            output_schema: None,
            effect: governance.effect,
            idempotent: governance.idempotent,
            reversible: governance.reversible,
            confirmation: governance.confirmation,
            audit: governance.audit,
            policies: Vec::new(),
            meta: Map::new(),
            tags: Vec::new(),
            contract_hash: String::new(),
        }
    }

    pub fn governance(&self) -> Governance {
        Governance {
            effect: self.effect,
            idempotent: self.idempotent,
            reversible: self.reversible,
            confirmation: self.confirmation,
            audit: self.audit,
        }
    }
}

/// One contract of the manifest, tagged by `kind`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum ManifestContract {
    #[serde(rename = "component")]
    Component(ComponentContract),
    #[serde(rename = "procedure")]
    Procedure(OperationContract),
    #[serde(rename = "external-tool")]
    ExternalTool(OperationContract),
}

impl ManifestContract {
    pub fn id(&self) -> &str {
        match self {
            ManifestContract::Component(c) => &c.id,
            ManifestContract::Procedure(o) | ManifestContract::ExternalTool(o) => &o.id,
        }
    }

    pub fn contract_hash(&self) -> &str {
        match self {
            ManifestContract::Component(c) => &c.contract_hash,
            ManifestContract::Procedure(o) | ManifestContract::ExternalTool(o) => &o.contract_hash,
        }
    }

    pub fn description(&self) -> &str {
        match self {
            ManifestContract::Component(c) => &c.description,
            ManifestContract::Procedure(o) | ManifestContract::ExternalTool(o) => &o.description,
        }
    }

    /// The `kind` tag: `component`, `procedure` or `external-tool`.
    pub fn kind_str(&self) -> &'static str {
        match self {
            ManifestContract::Component(_) => "component",
            ManifestContract::Procedure(_) => "procedure",
            ManifestContract::ExternalTool(_) => "external-tool",
        }
    }

    /// The contract as manifest JSON (with `kind`).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("a manifest contract always serializes to JSON")
    }
}

/// The compiler's output: every contract of an app, sorted by id, hashed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CapabilityContractManifest {
    pub format_version: u32,
    pub generator: Generator,
    pub completeness: Completeness,
    pub contracts: Vec<ManifestContract>,
    pub manifest_hash: String,
}

/// A manifest that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("not a valid CapabilityContractManifest: {0}")]
    Json(#[from] serde_json::Error),
    #[error("unsupported manifest formatVersion {found} (this runtime reads {FORMAT_VERSION})")]
    UnsupportedFormatVersion { found: u64 },
}

impl CapabilityContractManifest {
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("a manifest always serializes to JSON")
    }

    /// The on-disk form: pretty canonical JSON.
    pub fn to_pretty_json(&self) -> String {
        canonical_json_pretty(&self.to_value())
    }

    /// Parses a manifest without verifying its hashes (see [`verify_hashes`](crate::manifest::verify_hashes)).
    pub fn from_json_str(s: &str) -> Result<Self, ManifestError> {
        let version_error = |v: u64| ManifestError::UnsupportedFormatVersion { found: v };
        match serde_json::from_str::<Self>(s) {
            Ok(m) if m.format_version == FORMAT_VERSION => Ok(m),
            Ok(m) => Err(version_error(m.format_version.into())),
            Err(e) => {
                // A future format fails on its new fields; say what the real problem is.
                let version =
                    serde_json::from_str::<Value>(s).ok().and_then(|v| v.get("formatVersion").and_then(Value::as_u64));
                match version {
                    Some(v) if v != u64::from(FORMAT_VERSION) => Err(version_error(v)),
                    _ => Err(ManifestError::Json(e)),
                }
            }
        }
    }
}
