//! `CapabilityAuthority` (the spec's `createCapabilityAuthority`): the verified manifest that is
//! the runtime's source of truth. Creation checks the format version, that the manifest is
//! complete, every `contractHash`, that ids are unique, the `manifestHash`, and that every
//! contract is a valid definition; the result is immutable and cheap to share (`Arc`), which is
//! Rust's deep freeze. Contracts are handed out only from an authority, carrying a private
//! provenance that registries and gateways check. The checks themselves need no engine and live
//! in the model ([`agent_surface_model::verify`]); this module adds identity and provenance.

use crate::snapshot::{ComponentDescriptorTemplate, ProcedureDescriptorTemplate};
use agent_surface_model::limits::AgentSurfaceLimits;
use agent_surface_model::manifest::{
    CapabilityContractManifest, ComponentContract, ManifestContract, OperationContract,
};
use agent_surface_model::verify::{verify_manifest, VerifiedManifest};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// Strict JSON parsing (duplicate keys refused), as the authority reads manifest text.
pub use agent_surface_model::verify::parse_strict;
/// Why a manifest was refused (the checks are the model's, [`agent_surface_model::verify`]).
pub use agent_surface_model::verify::ManifestError as AuthorityError;

/// Which kind of contract a lookup wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContractKind {
    Component,
    Procedure,
    ExternalTool,
}

impl fmt::Display for ContractKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ContractKind::Component => "component",
            ContractKind::Procedure => "procedure",
            ContractKind::ExternalTool => "external tool",
        })
    }
}

/// A lookup of a contract the authority does not hold.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the manifest has no {kind} contract \"{id}\"")]
pub struct UnknownContract {
    pub kind: ContractKind,
    pub id: String,
}

static NEXT_AUTHORITY: AtomicU64 = AtomicU64::new(1);

#[derive(Debug)]
struct Inner {
    /// Identity of this authority (provenance from another authority never matches).
    serial: u64,
    manifest: CapabilityContractManifest,
    value: Value,
    by_id: HashMap<String, usize>,
    /// The limits the contracts were verified against.
    limits: AgentSurfaceLimits,
    /// Per contract (same index), the snapshot descriptors' shared part: built on first use,
    /// not at verification, since a host registers only some of its contracts.
    descriptor_templates: Vec<OnceLock<DescriptorTemplate>>,
}

#[derive(Debug)]
pub(crate) enum DescriptorTemplate {
    Component(ComponentDescriptorTemplate),
    Procedure(ProcedureDescriptorTemplate),
}

/// The verified manifest. Clone it freely: clones share one immutable copy.
#[derive(Clone, Debug)]
pub struct CapabilityAuthority(Arc<Inner>);

impl PartialEq for CapabilityAuthority {
    fn eq(&self, other: &Self) -> bool {
        self.0.serial == other.0.serial
    }
}

impl CapabilityAuthority {
    /// Verifies `manifest` and makes it the source of truth.
    pub fn new(manifest: Value) -> Result<CapabilityAuthority, AuthorityError> {
        Self::with_limits(manifest, &AgentSurfaceLimits::default())
    }

    /// Parses and verifies manifest text.
    /// Duplicate object keys are refused: two readers keeping different duplicates would
    /// disagree about what the same bytes mean.
    pub fn from_json_str(text: &str) -> Result<CapabilityAuthority, AuthorityError> {
        let value = parse_strict(text).map_err(AuthorityError::NotJson)?;
        Self::new(value)
    }

    /// Verifies against non-default limits (the limits a registry will enforce).
    pub fn with_limits(value: Value, limits: &AgentSurfaceLimits) -> Result<CapabilityAuthority, AuthorityError> {
        let VerifiedManifest { manifest, value, by_id } = verify_manifest(value, limits)?;
        let descriptor_templates = manifest.contracts.iter().map(|_| OnceLock::new()).collect();
        Ok(CapabilityAuthority(Arc::new(Inner {
            serial: NEXT_AUTHORITY.fetch_add(1, Ordering::Relaxed),
            manifest,
            value,
            by_id,
            limits: limits.clone(),
            descriptor_templates,
        })))
    }

    /// The verified manifest (the spec's `authority.manifest`).
    pub fn manifest(&self) -> &CapabilityContractManifest {
        &self.0.manifest
    }

    /// The manifest as JSON, exactly as verified.
    pub fn manifest_value(&self) -> &Value {
        &self.0.value
    }

    /// The limits every contract was verified against (a registry with other limits checks
    /// its contracts again at registration).
    pub fn limits(&self) -> &AgentSurfaceLimits {
        &self.0.limits
    }

    pub fn manifest_hash(&self) -> &str {
        &self.0.manifest.manifest_hash
    }

    /// A component contract by type (`"devices.table"`) or id (`"view:devices.table"`).
    pub fn component(&self, ty: &str) -> Result<ContractRef<ComponentContract>, UnknownContract> {
        let id =
            if ty.starts_with("view:") { ty.to_string() } else { agent_surface_model::ids::component_contract_id(ty) };
        match self.lookup(&id) {
            Some((i, ManifestContract::Component(_))) => Ok(ContractRef::new(self.clone(), i)),
            _ => Err(UnknownContract { kind: ContractKind::Component, id }),
        }
    }

    /// A domain procedure contract by id (`"domain:devices.reboot"`).
    pub fn procedure(&self, id: &str) -> Result<ContractRef<OperationContract>, UnknownContract> {
        match self.lookup(id) {
            Some((i, ManifestContract::Procedure(_))) => Ok(ContractRef::new(self.clone(), i)),
            _ => Err(UnknownContract { kind: ContractKind::Procedure, id: id.to_string() }),
        }
    }

    /// An external tool contract by id (`"external:reports.export"`).
    pub fn external_tool(&self, id: &str) -> Result<ContractRef<OperationContract>, UnknownContract> {
        match self.lookup(id) {
            Some((i, ManifestContract::ExternalTool(_))) => Ok(ContractRef::new(self.clone(), i)),
            _ => Err(UnknownContract { kind: ContractKind::ExternalTool, id: id.to_string() }),
        }
    }

    fn lookup(&self, id: &str) -> Option<(usize, &ManifestContract)> {
        let i = *self.0.by_id.get(id)?;
        Some((i, &self.0.manifest.contracts[i]))
    }

    /// Whether `provenance` was minted by this authority for a contract it still holds
    /// unchanged (same id, same hash).
    pub fn recognizes(&self, provenance: &Provenance) -> bool {
        provenance.authority == self.0.serial
            && self
                .0
                .manifest
                .contracts
                .get(provenance.index)
                .is_some_and(|c| c.contract_hash() == provenance.contract_hash)
    }

    pub(crate) fn contract_at(&self, index: usize) -> &ManifestContract {
        &self.0.manifest.contracts[index]
    }

    /// The shared descriptor part of the `index`-th contract (built once).
    pub(crate) fn descriptor_template(&self, index: usize) -> &DescriptorTemplate {
        self.0.descriptor_templates[index].get_or_init(|| match &self.0.manifest.contracts[index] {
            ManifestContract::Component(c) => DescriptorTemplate::Component(ComponentDescriptorTemplate::new(c)),
            ManifestContract::Procedure(p) | ManifestContract::ExternalTool(p) => {
                DescriptorTemplate::Procedure(ProcedureDescriptorTemplate::new(p))
            }
        })
    }
}

/// Private proof that a contract came from a given authority (no public constructor).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    authority: u64,
    index: usize,
    contract_hash: String,
}

impl Provenance {
    pub fn contract_hash(&self) -> &str {
        &self.contract_hash
    }
}

/// Which contract types a [`ContractRef`] can point at.
pub trait ContractType: Sized {
    fn from_manifest(c: &ManifestContract) -> &Self;
}

impl ContractType for ComponentContract {
    fn from_manifest(c: &ManifestContract) -> &Self {
        match c {
            ManifestContract::Component(x) => x,
            _ => unreachable!("a component ref points at a component"),
        }
    }
}

impl ContractType for OperationContract {
    fn from_manifest(c: &ManifestContract) -> &Self {
        match c {
            ManifestContract::Procedure(x) | ManifestContract::ExternalTool(x) => x,
            _ => unreachable!("an operation ref points at a procedure or external tool"),
        }
    }
}

/// A contract handed out by an authority: read its semantics, bind handlers to it.
#[derive(Clone, Debug)]
pub struct ContractRef<T> {
    authority: CapabilityAuthority,
    index: usize,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: ContractType> ContractRef<T> {
    fn new(authority: CapabilityAuthority, index: usize) -> Self {
        ContractRef { authority, index, _t: std::marker::PhantomData }
    }

    /// The contract's semantics, as in the manifest.
    pub fn contract(&self) -> &T {
        T::from_manifest(self.authority.contract_at(self.index))
    }

    pub fn id(&self) -> &str {
        self.authority.contract_at(self.index).id()
    }

    pub fn authority(&self) -> &CapabilityAuthority {
        &self.authority
    }

    /// The private provenance this contract carries.
    pub fn provenance(&self) -> Provenance {
        Provenance {
            authority: self.authority.0.serial,
            index: self.index,
            contract_hash: self.authority.contract_at(self.index).contract_hash().to_string(),
        }
    }
}

impl ContractRef<ComponentContract> {
    pub(crate) fn descriptor_template(&self) -> &ComponentDescriptorTemplate {
        match self.authority.descriptor_template(self.index) {
            DescriptorTemplate::Component(t) => t,
            DescriptorTemplate::Procedure(_) => unreachable!("a component ref points at a component"),
        }
    }
}

impl ContractRef<OperationContract> {
    pub(crate) fn descriptor_template(&self) -> &ProcedureDescriptorTemplate {
        match self.authority.descriptor_template(self.index) {
            DescriptorTemplate::Procedure(t) => t,
            DescriptorTemplate::Component(_) => unreachable!("an operation ref points at a procedure or external tool"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_surface_model::manifest::samples::sample_manifest_value;

    #[test]
    fn a_compiled_manifest_is_accepted_and_frozen() {
        let v = sample_manifest_value();
        let a = CapabilityAuthority::new(v.clone()).unwrap();
        assert_eq!(a.manifest_value(), &v);
        let b = a.clone();
        assert_eq!(a, b, "clones share the same authority");
        let other = CapabilityAuthority::new(v).unwrap();
        assert_ne!(a, other, "two authorities are distinct even for the same manifest");
    }

    #[test]
    fn provenance_from_another_authority_is_not_recognized() {
        let v = sample_manifest_value();
        let a = CapabilityAuthority::new(v.clone()).unwrap();
        let b = CapabilityAuthority::new(v).unwrap();
        let ty = a.manifest().contracts.iter().find_map(|c| match c {
            ManifestContract::Component(c) => Some(c.r#type.clone()),
            _ => None,
        });
        if let Some(ty) = ty {
            let r = a.component(&ty).unwrap();
            assert!(a.recognizes(&r.provenance()));
            assert!(!b.recognizes(&r.provenance()));
        }
    }

    #[test]
    fn refusals_are_typed() {
        let v = sample_manifest_value();
        let mut bad = v.clone();
        bad["formatVersion"] = 1.into();
        assert!(matches!(CapabilityAuthority::new(bad), Err(AuthorityError::UnsupportedFormatVersion { .. })));
        let mut bad = v.clone();
        bad["completeness"]["status"] = "incomplete".into();
        assert!(matches!(CapabilityAuthority::new(bad), Err(AuthorityError::Incomplete { .. })));
        let mut bad = v.clone();
        bad["contracts"][0]["description"] = "changed".into();
        assert!(matches!(CapabilityAuthority::new(bad), Err(AuthorityError::ContractHashMismatch { .. })));
        let mut bad = v.clone();
        bad["generator"]["version"] = "9.9.9".into();
        assert!(matches!(CapabilityAuthority::new(bad), Err(AuthorityError::ManifestHashMismatch { .. })));
        let mut bad = v.clone();
        bad["extra"] = true.into();
        assert!(matches!(CapabilityAuthority::new(bad), Err(AuthorityError::Malformed(_))));
        assert!(matches!(CapabilityAuthority::from_json_str("{"), Err(AuthorityError::NotJson(_))));
        assert!(matches!(CapabilityAuthority::from_json_str("[1]"), Err(AuthorityError::Malformed(_))));
        let text = serde_json::to_string(&v).unwrap().replacen("{", "{\"formatVersion\":2,", 1);
        match CapabilityAuthority::from_json_str(&text) {
            Err(AuthorityError::NotJson(m)) => assert!(m.contains("duplicate key"), "{m}"),
            other => panic!("duplicate keys accepted: {other:?}"),
        }
    }
}
