//! `CapabilityContractManifest` (DECISIONS §4): the typed model of the compiler's output and its
//! hashing. Every governance default is materialized, so the hashes pin the semantics.
//!
//! `contractHash` covers a contract without `source` (moving code does not change it);
//! `manifestHash` covers the whole document except itself.

use crate::canonical::{
    blake3_hex, canonical_json, canonical_json_pretty, canonical_member, canonical_members, cmp_utf16, join_members,
    pretty_from_canonical,
};
use crate::effects::{Audit, Confirmation, Effect, Governance};
use crate::ids::component_contract_id;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;

/// The manifest format this crate writes and reads.
pub const FORMAT_VERSION: u32 = 1;
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
/// the manifest does not depend on the checkout path. Line and column are 1-based.
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
    pub source: SourceLocation,
    pub contract_hash: String,
}

impl ComponentContract {
    /// A contract with every optional field at its default and no hash yet.
    pub fn new(ty: impl Into<String>, description: impl Into<String>, source: SourceLocation) -> Self {
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
            source,
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
    pub source: SourceLocation,
    pub contract_hash: String,
}

impl OperationContract {
    /// A contract with every optional field at its default and no hash yet.
    pub fn new(
        id: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        governance: Governance,
        source: SourceLocation,
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
            source,
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

    pub fn source(&self) -> &SourceLocation {
        match self {
            ManifestContract::Component(c) => &c.source,
            ManifestContract::Procedure(o) | ManifestContract::ExternalTool(o) => &o.source,
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

    /// The hash this contract should carry (what the compiler injects as provenance).
    pub fn compute_contract_hash(&self) -> String {
        contract_hash(&self.to_value())
    }

    /// Sets `contractHash` to [`Self::compute_contract_hash`].
    pub fn fill_contract_hash(&mut self) {
        let h = self.compute_contract_hash();
        match self {
            ManifestContract::Component(c) => c.contract_hash = h,
            ManifestContract::Procedure(o) | ManifestContract::ExternalTool(o) => o.contract_hash = h,
        }
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

/// Deterministic order: id (UTF-16, as JavaScript sorts), then source position; exact ties
/// fall back to the canonical JSON so input order never shows through.
fn contract_order(a: &HashedContract, b: &HashedContract) -> std::cmp::Ordering {
    cmp_utf16(a.contract.id(), b.contract.id())
        .then_with(|| a.contract.source().cmp(b.contract.source()))
        .then_with(|| a.canonical.cmp(&b.canonical))
}

/// A contract with its `contractHash` filled in and its canonical JSON as the manifest holds it,
/// both computed once: a long-lived compiler keeps these across compiles, so assembling a
/// manifest hashes only the contracts that changed.
#[derive(Clone, Debug, PartialEq)]
pub struct HashedContract {
    contract: ManifestContract,
    canonical: std::sync::Arc<str>,
}

impl HashedContract {
    pub fn new(mut contract: ManifestContract) -> Self {
        // One serialization, and each member written once: the hash is over every member but
        // `source` and `contractHash` (as [`contract_hash`] computes it), the text over all.
        let Value::Object(mut fields) = contract.to_value() else { unreachable!("a contract serializes to an object") };
        fields.remove("contractHash");
        let mut members = canonical_members(&fields);
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"{");
        for (i, (_, text)) in members.iter().filter(|(key, _)| *key != "source").enumerate() {
            if i > 0 {
                hasher.update(b",");
            }
            hasher.update(text.as_bytes());
        }
        hasher.update(b"}");
        let hash = format!("blake3:{}", hasher.finalize().to_hex());
        let at = members.partition_point(|(key, _)| cmp_utf16(key, "contractHash").is_lt());
        members.insert(at, ("contractHash", canonical_member("contractHash", &Value::String(hash.clone()))));
        let canonical: std::sync::Arc<str> = join_members(members.iter().map(|(_, text)| text.as_str())).into();
        match &mut contract {
            ManifestContract::Component(c) => c.contract_hash = hash,
            ManifestContract::Procedure(o) | ManifestContract::ExternalTool(o) => o.contract_hash = hash,
        }
        debug_assert_eq!(&*canonical, canonical_json(&contract.to_value()));
        debug_assert_eq!(contract.contract_hash(), contract_hash(&contract.to_value()));
        HashedContract { contract, canonical }
    }

    pub fn contract(&self) -> &ManifestContract {
        &self.contract
    }
}

/// A manifest assembled from hashed contracts that keeps their canonical texts (in manifest
/// order), so that neither its hash nor its file serializes a contract again.
#[derive(Clone, Debug, PartialEq)]
pub struct AssembledManifest {
    manifest: CapabilityContractManifest,
    contract_texts: Vec<std::sync::Arc<str>>,
}

impl AssembledManifest {
    /// Sorts the contracts, computes the `manifestHash`, and marks the manifest incomplete iff
    /// `failed > 0` (as [`CapabilityContractManifest::assemble`] does).
    pub fn new(generator: Generator, mut hashed: Vec<HashedContract>, failed: u32) -> Self {
        hashed.sort_by(contract_order);
        let status = if failed > 0 { CompletenessStatus::Incomplete } else { CompletenessStatus::Complete };
        let count = u32::try_from(hashed.len()).unwrap_or(u32::MAX);
        let mut manifest = CapabilityContractManifest {
            format_version: FORMAT_VERSION,
            generator,
            completeness: Completeness { status, contracts: count, failed },
            contracts: Vec::new(),
            manifest_hash: String::new(),
        };
        let contract_texts: Vec<std::sync::Arc<str>> = hashed.iter().map(|h| h.canonical.clone()).collect();
        let mut hasher = blake3::Hasher::new();
        write_spliced(&manifest, &contract_texts, false, |bytes| {
            hasher.update(bytes);
        });
        manifest.manifest_hash = format!("blake3:{}", hasher.finalize().to_hex());
        manifest.contracts = hashed.into_iter().map(|h| h.contract).collect();
        AssembledManifest { manifest, contract_texts }
    }

    pub fn manifest(&self) -> &CapabilityContractManifest {
        &self.manifest
    }

    pub fn into_manifest(self) -> CapabilityContractManifest {
        self.manifest
    }

    /// `canonical_json` of the manifest, spliced from the contracts' texts.
    pub fn canonical_json(&self) -> String {
        let mut out = Vec::new();
        write_spliced(&self.manifest, &self.contract_texts, true, |bytes| out.extend_from_slice(bytes));
        String::from_utf8(out).expect("canonical texts are UTF-8")
    }

    /// The on-disk form: the same bytes as [`CapabilityContractManifest::to_pretty_json`].
    pub fn to_pretty_json(&self) -> String {
        pretty_from_canonical(&self.canonical_json())
    }
}

/// Writes the canonical document of `manifest`, key by key, with these canonical texts as its
/// `contracts` (its own are not read), and with or without its `manifestHash` member (the hash
/// is over the document without it).
fn write_spliced(
    manifest: &CapabilityContractManifest,
    contract_texts: &[std::sync::Arc<str>],
    with_hash: bool,
    mut sink: impl FnMut(&[u8]),
) {
    let shell = CapabilityContractManifest {
        format_version: manifest.format_version,
        generator: manifest.generator.clone(),
        completeness: manifest.completeness.clone(),
        contracts: Vec::new(),
        manifest_hash: manifest.manifest_hash.clone(),
    };
    let Value::Object(mut fields) = shell.to_value() else { unreachable!("a manifest serializes to an object") };
    if !with_hash {
        fields.remove("manifestHash");
    }
    for (i, (key, text)) in canonical_members(&fields).into_iter().enumerate() {
        sink(if i == 0 { b"{" } else { b"," });
        if key == "contracts" {
            // `"contracts":[` then the texts.
            sink(&text.as_bytes()[..text.len() - 1]);
            for (j, c) in contract_texts.iter().enumerate() {
                if j > 0 {
                    sink(b",");
                }
                sink(c.as_bytes());
            }
            sink(b"]");
        } else {
            sink(text.as_bytes());
        }
    }
    sink(b"}");
}

impl CapabilityContractManifest {
    /// Builds a manifest: sorts the contracts, fills every `contractHash` and the
    /// `manifestHash`, and marks it incomplete iff `failed > 0`.
    pub fn assemble(generator: Generator, contracts: Vec<ManifestContract>, failed: u32) -> Self {
        Self::assemble_hashed(generator, contracts.into_iter().map(HashedContract::new).collect(), failed)
    }

    /// [`Self::assemble`] of contracts hashed already: the `manifestHash` is computed from
    /// their canonical texts, without serializing any contract again.
    pub fn assemble_hashed(generator: Generator, hashed: Vec<HashedContract>, failed: u32) -> Self {
        AssembledManifest::new(generator, hashed, failed).manifest
    }

    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("a manifest always serializes to JSON")
    }

    /// The on-disk form: pretty canonical JSON.
    pub fn to_pretty_json(&self) -> String {
        canonical_json_pretty(&self.to_value())
    }

    /// Parses a manifest without verifying its hashes (see [`verify_hashes`]).
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

    /// Recomputes and compares every hash of this manifest.
    pub fn verify_hashes(&self) -> Result<(), HashMismatch> {
        verify_hashes(&self.to_value())
    }
}

/// Hash of a contract's semantics: blake3 of its JSON without `source` and `contractHash`.
pub fn contract_hash(contract: &Value) -> String {
    let mut v = contract.clone();
    if let Value::Object(m) = &mut v {
        m.remove("source");
        m.remove("contractHash");
    }
    blake3_hex(&v)
}

/// Hash of a manifest: blake3 of the document without its top-level `manifestHash`.
pub fn manifest_hash(manifest: &Value) -> String {
    let mut v = manifest.clone();
    if let Value::Object(m) = &mut v {
        m.remove("manifestHash");
    }
    blake3_hex(&v)
}

/// A stored hash that does not match the content. `pointer` locates the hash field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HashMismatch {
    pub pointer: Vec<String>,
    /// The contract's id, when the mismatch is a `contractHash`.
    pub id: Option<String>,
    pub expected: String,
    /// `None` when the field is missing or not a string.
    pub found: Option<String>,
}

impl fmt::Display for HashMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match &self.id {
            Some(id) => format!("contractHash of \"{id}\""),
            None => "manifestHash".to_string(),
        };
        match &self.found {
            Some(found) => write!(f, "{what} is {found} but the content hashes to {}", self.expected),
            None => write!(f, "{what} is missing; the content hashes to {}", self.expected),
        }
    }
}

impl std::error::Error for HashMismatch {}

/// Checks every `contractHash` (in order) and then the `manifestHash` of a manifest document.
pub fn verify_hashes(v: &Value) -> Result<(), HashMismatch> {
    let found_str = |x: Option<&Value>| x.and_then(Value::as_str).map(str::to_string);
    if let Some(contracts) = v.get("contracts").and_then(Value::as_array) {
        for (i, c) in contracts.iter().enumerate() {
            let expected = contract_hash(c);
            let found = found_str(c.get("contractHash"));
            if found.as_deref() != Some(expected.as_str()) {
                return Err(HashMismatch {
                    pointer: vec!["contracts".into(), i.to_string(), "contractHash".into()],
                    id: Some(c.get("id").and_then(Value::as_str).unwrap_or("").to_string()),
                    expected,
                    found,
                });
            }
        }
    }
    let expected = manifest_hash(v);
    let found = found_str(v.get("manifestHash"));
    if found.as_deref() != Some(expected.as_str()) {
        return Err(HashMismatch { pointer: vec!["manifestHash".into()], id: None, expected, found });
    }
    Ok(())
}

/// Small, valid contracts and a manifest of them, for tests in this and dependent crates.
#[doc(hidden)]
pub mod samples {
    use super::*;
    use crate::effects::{default_governance, CapabilityKind};
    use serde_json::json;

    pub fn src(file: &str, line: u32) -> SourceLocation {
        SourceLocation { file: file.into(), line, column: 1 }
    }

    pub fn sample_component() -> ComponentContract {
        let mut c = ComponentContract::new("devices.table", "The devices table", src("src/Devices.tsx", 10));
        c.observations.insert("readState".into(), ObservationContract::new("Visible rows", json!({"type": "object"})));
        let mut select = ActionContract::new(
            "Select rows",
            json!({"type": "object", "properties": {"ids": {"type": "array", "items": {"type": "string"}}}}),
            default_governance(CapabilityKind::ViewAction, Effect::LocalState),
        );
        select.output_schema = Some(json!({"type": "null"}));
        c.actions.insert("select".into(), select);
        c.actions.insert(
            "open".into(),
            ActionContract::new(
                "Open details",
                json!({"type": "object"}),
                default_governance(CapabilityKind::ViewAction, Effect::Navigation),
            ),
        );
        c.tags.push("table".into());
        c.meta.insert("owner".into(), json!("devices-team"));
        c
    }

    pub fn sample_procedure() -> OperationContract {
        OperationContract::new(
            "domain:devices.delete",
            "Delete devices",
            json!({"type": "object", "properties": {"ids": {"type": "array"}}, "required": ["ids"]}),
            default_governance(CapabilityKind::DomainProcedure, Effect::Destructive),
            src("src/procedures.ts", 3),
        )
    }

    pub fn sample_external() -> OperationContract {
        let mut t = OperationContract::new(
            "external:crm.export",
            "Export to the CRM",
            json!({"type": "object"}),
            default_governance(CapabilityKind::ExternalTool, Effect::ExternalSideEffect),
            src("src/tools.ts", 7),
        );
        t.output_schema = Some(json!({"type": "string"}));
        t.policies.push(json!({"name": "admins-only"}));
        t
    }

    pub fn generator() -> Generator {
        Generator { name: "agent-surface".into(), version: "0.1.0".into() }
    }

    pub fn sample_manifest_value() -> serde_json::Value {
        sample_manifest().to_value()
    }

    pub fn sample_manifest() -> CapabilityContractManifest {
        CapabilityContractManifest::assemble(
            generator(),
            vec![
                ManifestContract::Procedure(sample_procedure()),
                ManifestContract::Component(sample_component()),
                ManifestContract::ExternalTool(sample_external()),
            ],
            0,
        )
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::effects::{default_governance, CapabilityKind};
    use serde_json::json;

    use super::samples::*;

    #[test]
    fn assemble_sorts_hashes_and_counts() {
        let m = sample_manifest();
        let ids: Vec<&str> = m.contracts.iter().map(|c| c.id()).collect();
        assert_eq!(ids, ["domain:devices.delete", "external:crm.export", "view:devices.table"]);
        assert_eq!(m.format_version, FORMAT_VERSION);
        assert_eq!(m.completeness, Completeness { status: CompletenessStatus::Complete, contracts: 3, failed: 0 });
        for c in &m.contracts {
            assert!(c.contract_hash().starts_with("blake3:") && c.contract_hash().len() == 71);
            assert_eq!(c.contract_hash(), c.compute_contract_hash());
        }
        assert_eq!(m.manifest_hash, manifest_hash(&m.to_value()));
        m.verify_hashes().unwrap();
        verify_hashes(&m.to_value()).unwrap();

        let inc = CapabilityContractManifest::assemble(generator(), vec![], 2);
        assert_eq!(inc.completeness, Completeness { status: CompletenessStatus::Incomplete, contracts: 0, failed: 2 });
        assert_eq!(inc.to_value()["completeness"]["status"], json!("incomplete"));
    }

    #[test]
    fn assemble_is_independent_of_input_order() {
        let a = sample_manifest();
        let b = CapabilityContractManifest::assemble(
            generator(),
            vec![
                ManifestContract::ExternalTool(sample_external()),
                ManifestContract::Component(sample_component()),
                ManifestContract::Procedure(sample_procedure()),
            ],
            0,
        );
        assert_eq!(a.to_pretty_json(), b.to_pretty_json());
        // Duplicated ids are ordered by source location.
        let mut p2 = sample_procedure();
        p2.source = src("src/a.ts", 1);
        let x = CapabilityContractManifest::assemble(
            generator(),
            vec![ManifestContract::Procedure(sample_procedure()), ManifestContract::Procedure(p2.clone())],
            0,
        );
        let y = CapabilityContractManifest::assemble(
            generator(),
            vec![ManifestContract::Procedure(p2), ManifestContract::Procedure(sample_procedure())],
            0,
        );
        assert_eq!(x.contracts[0].source().file, "src/a.ts");
        assert_eq!(x.to_pretty_json(), y.to_pretty_json());
    }

    #[test]
    fn serialized_shape_is_explicit() {
        let v = sample_manifest().to_value();
        let p = &v["contracts"][0];
        assert_eq!(p["kind"], json!("procedure"));
        assert_eq!(p["outputSchema"], Value::Null);
        assert!(p.as_object().unwrap().contains_key("outputSchema"));
        assert_eq!(p["confirmation"], json!("required"));
        assert_eq!(p["effect"], json!("destructive"));
        assert_eq!(v["contracts"][1]["kind"], json!("external-tool"));
        let c = &v["contracts"][2];
        assert_eq!(c["kind"], json!("component"));
        assert_eq!(c["type"], json!("devices.table"));
        assert_eq!(c["id"], json!("view:devices.table"));
        assert_eq!(c["origin"], json!("first-party"));
        assert_eq!(c["priority"], json!(0));
        assert_eq!(c["actions"]["open"]["outputSchema"], Value::Null);
        assert_eq!(c["actions"]["select"]["effect"], json!("local-state"));
        assert_eq!(c["source"], json!({"file": "src/Devices.tsx", "line": 10, "column": 1}));
        assert_eq!(v["formatVersion"], json!(1));
        assert_eq!(v["generator"], json!({"name": "agent-surface", "version": "0.1.0"}));
    }

    #[test]
    fn contract_hash_ignores_source_only() {
        let a = ManifestContract::Procedure(sample_procedure());
        let mut moved = sample_procedure();
        moved.source = src("elsewhere/x.ts", 99);
        let b = ManifestContract::Procedure(moved);
        assert_eq!(a.compute_contract_hash(), b.compute_contract_hash());
        let mut changed = sample_procedure();
        changed.confirmation = Confirmation::Optional;
        assert_ne!(a.compute_contract_hash(), ManifestContract::Procedure(changed).compute_contract_hash());
        // The stored hash itself is not hashed.
        let mut v = a.to_value();
        let h = contract_hash(&v);
        v["contractHash"] = json!("blake3:whatever");
        assert_eq!(contract_hash(&v), h);
        // The kind is part of the semantics.
        let as_tool = ManifestContract::ExternalTool(sample_procedure());
        assert_ne!(a.compute_contract_hash(), as_tool.compute_contract_hash());
    }

    #[test]
    fn the_spliced_manifest_hash_is_the_hash_of_the_whole_document() {
        for m in [
            sample_manifest(),
            CapabilityContractManifest::assemble(generator(), vec![], 0),
            CapabilityContractManifest::assemble(generator(), vec![ManifestContract::Component(sample_component())], 3),
        ] {
            assert_eq!(m.manifest_hash, manifest_hash(&m.to_value()));
            assert!(verify_hashes(&m.to_value()).is_ok());
        }
    }

    #[test]
    fn an_assembled_manifest_writes_the_same_bytes_as_its_value() {
        let mut unusual = sample_procedure();
        unusual.description = "quotes \" braces {}[] commas, colons: \u{1F600} \u{E000}".into();
        unusual.meta.insert("\u{1F600}".into(), json!({"": [], "n": 1e21, "m": -0.5, "o": {}}));
        for contracts in [
            vec![],
            vec![ManifestContract::Component(sample_component())],
            sample_manifest().contracts,
            vec![ManifestContract::Procedure(unusual), ManifestContract::Component(sample_component())],
        ] {
            for failed in [0, 2] {
                let hashed: Vec<HashedContract> = contracts.iter().cloned().map(HashedContract::new).collect();
                let assembled = AssembledManifest::new(generator(), hashed, failed);
                let m = assembled.manifest();
                assert_eq!(*m, CapabilityContractManifest::assemble(generator(), contracts.clone(), failed));
                assert_eq!(assembled.canonical_json(), canonical_json(&m.to_value()));
                assert_eq!(assembled.to_pretty_json(), m.to_pretty_json());
                for c in &m.contracts {
                    assert_eq!(c.contract_hash(), contract_hash(&c.to_value()));
                }
            }
        }
    }

    #[test]
    fn manifest_hash_ignores_only_itself() {
        let m = sample_manifest();
        let mut v = m.to_value();
        v["manifestHash"] = json!("x");
        assert_eq!(manifest_hash(&v), m.manifest_hash);
        v["generator"]["version"] = json!("0.2.0");
        assert_ne!(manifest_hash(&v), m.manifest_hash);
    }

    #[test]
    fn verify_hashes_finds_tampering() {
        let m = sample_manifest();
        let mut v = m.to_value();
        v["contracts"][1]["description"] = json!("Export everything");
        let e = verify_hashes(&v).unwrap_err();
        assert_eq!(e.pointer, vec!["contracts", "1", "contractHash"]);
        assert_eq!(e.id.as_deref(), Some("external:crm.export"));
        assert!(e.to_string().contains("external:crm.export"));

        let mut v = m.to_value();
        v["completeness"]["failed"] = json!(1);
        let e = verify_hashes(&v).unwrap_err();
        assert_eq!((e.pointer, e.id), (vec!["manifestHash".to_string()], None));

        let mut v = m.to_value();
        v.as_object_mut().unwrap().remove("manifestHash");
        assert_eq!(verify_hashes(&v).unwrap_err().found, None);

        // Moving a contract changes only the manifest hash.
        let mut v = m.to_value();
        v["contracts"][0]["source"]["line"] = json!(4);
        assert_eq!(verify_hashes(&v).unwrap_err().pointer, vec!["manifestHash"]);
    }

    #[test]
    fn pretty_json_roundtrips() {
        let m = sample_manifest();
        let text = m.to_pretty_json();
        assert!(text.ends_with("}\n"));
        assert!(text.starts_with("{\n  \"completeness\": {\n"));
        let back = CapabilityContractManifest::from_json_str(&text).unwrap();
        assert_eq!(back, m);
        assert_eq!(back.to_pretty_json(), text);
        back.verify_hashes().unwrap();
        verify_hashes(&serde_json::from_str(&text).unwrap()).unwrap();
    }

    #[test]
    fn unknown_fields_are_refused() {
        let base = sample_manifest().to_value();
        let cases: Vec<(Vec<&str>, &str)> = vec![
            (vec![], "extra"),
            (vec!["generator"], "extra"),
            (vec!["completeness"], "extra"),
            (vec!["contracts", "0"], "extra"),
            (vec!["contracts", "1"], "extra"),
            (vec!["contracts", "2"], "extra"),
            (vec!["contracts", "2", "actions", "select"], "extra"),
            (vec!["contracts", "2", "observations", "readState"], "extra"),
            (vec!["contracts", "0", "source"], "extra"),
        ];
        for (path, field) in cases {
            let mut v = base.clone();
            let mut target = &mut v;
            for seg in &path {
                target = match target {
                    Value::Array(a) => &mut a[seg.parse::<usize>().unwrap()],
                    other => &mut other[*seg],
                };
            }
            target.as_object_mut().unwrap().insert(field.into(), json!(1));
            let err = CapabilityContractManifest::from_json_str(&v.to_string()).unwrap_err();
            assert!(err.to_string().contains("unknown field"), "{path:?}: {err}");
        }
    }

    #[test]
    fn malformed_manifests_are_refused() {
        let base = sample_manifest().to_value();
        let mut v = base.clone();
        v["contracts"][0]["kind"] = json!("widget");
        assert!(CapabilityContractManifest::from_json_str(&v.to_string()).is_err());
        let mut v = base.clone();
        v["contracts"][0]["effect"] = json!("explode");
        assert!(CapabilityContractManifest::from_json_str(&v.to_string()).is_err());
        let mut v = base.clone();
        v["contracts"][2].as_object_mut().unwrap().remove("origin");
        let e = CapabilityContractManifest::from_json_str(&v.to_string()).unwrap_err();
        assert!(e.to_string().contains("missing field `origin`"), "{e}");
        assert!(CapabilityContractManifest::from_json_str("not json").is_err());

        let mut v = base.clone();
        v["formatVersion"] = json!(2);
        let e = CapabilityContractManifest::from_json_str(&v.to_string()).unwrap_err();
        assert!(matches!(e, ManifestError::UnsupportedFormatVersion { found: 2 }));
        v["newField"] = json!(true);
        let e = CapabilityContractManifest::from_json_str(&v.to_string()).unwrap_err();
        assert!(matches!(e, ManifestError::UnsupportedFormatVersion { found: 2 }), "{e}");
    }

    #[test]
    fn accessors() {
        let c = ManifestContract::Component(sample_component());
        assert_eq!((c.id(), c.kind_str(), c.description()), ("view:devices.table", "component", "The devices table"));
        assert_eq!(c.source().line, 10);
        assert_eq!(c.contract_hash(), "");
        let t = ManifestContract::ExternalTool(sample_external());
        assert_eq!(t.kind_str(), "external-tool");
        assert_eq!(ManifestContract::Procedure(sample_procedure()).kind_str(), "procedure");
        let p = sample_procedure();
        assert_eq!(p.governance(), default_governance(CapabilityKind::DomainProcedure, Effect::Destructive));
    }

    // ---- docs/manifest.schema.json agrees with the serialized form ----

    fn load_manifest_schema() -> Value {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/manifest.schema.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        serde_json::from_str(&text).unwrap()
    }

    fn resolve<'a>(root: &'a Value, mut s: &'a Value) -> &'a Value {
        while let Some(r) = s.get("$ref").and_then(Value::as_str) {
            let name = r.strip_prefix("#/$defs/").unwrap_or_else(|| panic!("unexpected $ref {r}"));
            s = &root["$defs"][name];
            assert!(!s.is_null(), "unresolved $ref {r}");
        }
        s
    }

    /// Walks value and schema together; every object whose schema lists `required` must have
    /// exactly those keys, and they must match `properties`.
    fn check_shape(root: &Value, schema: &Value, value: &Value, path: &str, checked: &mut usize) {
        let schema = resolve(root, schema);
        if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
            // Contract unions are picked by their `kind` const; other unions (a schema or
            // null) hold agent schemas, whose content the manifest schema does not constrain.
            let Some(kind) = value.get("kind").cloned() else {
                return;
            };
            let branch = branches
                .iter()
                .map(|b| resolve(root, b))
                .find(|b| b["properties"]["kind"]["const"] == kind)
                .unwrap_or_else(|| panic!("{path}: no anyOf branch for kind {kind}"));
            return check_shape(root, branch, value, path, checked);
        }
        match value {
            Value::Object(obj) => {
                if let Some(required) = schema.get("required").and_then(Value::as_array) {
                    let mut want: Vec<&str> = required.iter().map(|r| r.as_str().unwrap()).collect();
                    let mut got: Vec<&str> = obj.keys().map(String::as_str).collect();
                    want.sort();
                    got.sort();
                    assert_eq!(got, want, "{path}: serialized keys vs schema required");
                    let mut props: Vec<&str> =
                        schema["properties"].as_object().unwrap().keys().map(String::as_str).collect();
                    props.sort();
                    assert_eq!(props, want, "{path}: schema properties vs required");
                    assert_eq!(schema["additionalProperties"], json!(false), "{path}");
                    *checked += 1;
                }
                for (k, v) in obj {
                    if let Some(sub) = schema.get("properties").and_then(|p| p.get(k)) {
                        check_shape(root, sub, v, &format!("{path}/{k}"), checked);
                    } else if let Some(sub) = schema.get("additionalProperties").filter(|a| a.is_object()) {
                        check_shape(root, sub, v, &format!("{path}/{k}"), checked);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(sub) = schema.get("items") {
                    for (i, v) in items.iter().enumerate() {
                        check_shape(root, sub, v, &format!("{path}/{i}"), checked);
                    }
                }
            }
            _ => {}
        }
    }

    #[test]
    fn manifest_json_schema_lists_exactly_the_serialized_fields() {
        let schema = load_manifest_schema();
        assert_eq!(schema["$schema"], json!("https://json-schema.org/draft/2020-12/schema"));
        let v = sample_manifest().to_value();
        let mut checked = 0;
        check_shape(&schema, &schema, &v, "", &mut checked);
        // manifest, generator, completeness, 3 contracts + 3 sources, 1 observation, 2 actions
        assert_eq!(checked, 12, "objects checked against required lists");
        // Enumerations in the schema agree with the Rust enums.
        let effects: Vec<Value> = Effect::ALL.iter().map(|e| json!(e.as_str())).collect();
        assert_eq!(schema["$defs"]["effect"]["enum"], Value::Array(effects));
        assert_eq!(schema["properties"]["formatVersion"]["const"], json!(FORMAT_VERSION));
    }
}
