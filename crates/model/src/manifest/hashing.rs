//! Assembly and hashing: a manifest's contracts sorted and hashed, its `manifestHash`, and the
//! check that stored hashes match the content.
//!
//! `contractHash` covers a contract but itself; `manifestHash` covers the whole document except
//! itself. Neither sees where a contract is written: source locations live in the sidecar
//! ([`super::locations`]), so moving code changes neither. Both are `blake3:<hex>` of canonical
//! JSON ([`crate::canonical`]).

use super::types::{
    CapabilityContractManifest, Completeness, CompletenessStatus, Generator, ManifestContract, FORMAT_VERSION,
};
use crate::canonical::{
    blake3_hex, canonical_json, canonical_member, canonical_members, cmp_utf16, join_members, pretty_from_canonical,
    pretty_from_canonical_into,
};
use serde_json::Value;
use std::fmt;
use std::sync::{Arc, OnceLock};

impl ManifestContract {
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

/// Deterministic order: id (UTF-16, as JavaScript sorts); ties (two contracts of one id, which
/// only a single file's partial compile can hold) fall back to the canonical JSON so input order
/// never shows through.
fn contract_order(a: &HashedContract, b: &HashedContract) -> std::cmp::Ordering {
    cmp_utf16(a.contract.id(), b.contract.id()).then_with(|| a.canonical.cmp(&b.canonical))
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
        // `contractHash` (as [`contract_hash`] computes it), the text over all.
        let Value::Object(mut fields) = contract.to_value() else { unreachable!("a contract serializes to an object") };
        fields.remove("contractHash");
        let mut members = canonical_members(&fields);
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"{");
        for (i, (_, text)) in members.iter().enumerate() {
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

    /// The canonical text it was hashed from: what the manifest file holds for it.
    pub fn canonical(&self) -> &std::sync::Arc<str> {
        &self.canonical
    }

    /// A contract from a canonical text that [`HashedContract::new`] wrote (the compiler's disk
    /// cache keeps them): parsed, not serialized and hashed again. Debug builds check that the
    /// text is canonical and its hash right.
    pub fn from_canonical(canonical: std::sync::Arc<str>) -> Result<Self, serde_json::Error> {
        let contract: ManifestContract = serde_json::from_str(&canonical)?;
        debug_assert_eq!(&*canonical, canonical_json(&contract.to_value()));
        debug_assert_eq!(contract.contract_hash(), contract_hash(&contract.to_value()));
        Ok(HashedContract { contract, canonical })
    }
}

/// A manifest assembled from hashed contracts, shared with whoever holds them (a compiler's
/// results): its hash and its file come from their canonical texts, so neither serializes a
/// contract again, and the manifest as a value (every contract's model copied into it) is built
/// only when asked for. A one-shot compile only writes the file: that copy was a third of its
/// peak memory.
#[derive(Clone, Debug, PartialEq)]
pub struct AssembledManifest {
    /// The manifest without its contracts: format, generator, completeness, `manifestHash`.
    shell: CapabilityContractManifest,
    /// In manifest order.
    contracts: Vec<Arc<HashedContract>>,
    full: OnceLock<CapabilityContractManifest>,
}

impl AssembledManifest {
    /// Sorts the contracts, computes the `manifestHash`, and marks the manifest incomplete iff
    /// `failed > 0` (as [`CapabilityContractManifest::assemble`] does).
    pub fn new(generator: Generator, hashed: Vec<HashedContract>, failed: u32) -> Self {
        Self::from_shared(generator, hashed.into_iter().map(Arc::new).collect(), failed)
    }

    /// [`AssembledManifest::new`] of contracts shared with their holder.
    pub fn from_shared(generator: Generator, mut contracts: Vec<Arc<HashedContract>>, failed: u32) -> Self {
        contracts.sort_by(|a, b| contract_order(a, b));
        let status = if failed > 0 { CompletenessStatus::Incomplete } else { CompletenessStatus::Complete };
        let count = u32::try_from(contracts.len()).unwrap_or(u32::MAX);
        let mut shell = CapabilityContractManifest {
            format_version: FORMAT_VERSION,
            generator,
            completeness: Completeness { status, contracts: count, failed },
            contracts: Vec::new(),
            manifest_hash: String::new(),
        };
        let mut hasher = blake3::Hasher::new();
        write_spliced(&shell, &contracts, false, |bytes| {
            hasher.update(bytes);
        });
        shell.manifest_hash = format!("blake3:{}", hasher.finalize().to_hex());
        AssembledManifest { shell, contracts, full: OnceLock::new() }
    }

    /// The manifest as a value (built on first use).
    pub fn manifest(&self) -> &CapabilityContractManifest {
        self.full.get_or_init(|| CapabilityContractManifest {
            contracts: self.contracts.iter().map(|h| h.contract.clone()).collect(),
            ..self.shell.clone()
        })
    }

    pub fn into_manifest(self) -> CapabilityContractManifest {
        match self.full.into_inner() {
            Some(full) => full,
            None => CapabilityContractManifest {
                contracts: self
                    .contracts
                    .into_iter()
                    .map(|h| Arc::try_unwrap(h).map_or_else(|h| h.contract.clone(), |h| h.contract))
                    .collect(),
                ..self.shell
            },
        }
    }

    pub fn completeness(&self) -> &Completeness {
        &self.shell.completeness
    }

    pub fn manifest_hash(&self) -> &str {
        &self.shell.manifest_hash
    }

    /// `canonical_json` of the manifest, spliced from the contracts' texts.
    pub fn canonical_json(&self) -> String {
        let mut out = Vec::new();
        write_spliced(&self.shell, &self.contracts, true, |bytes| out.extend_from_slice(bytes));
        String::from_utf8(out).expect("canonical texts are UTF-8")
    }

    /// The on-disk form: the same bytes as [`CapabilityContractManifest::to_pretty_json`],
    /// written a contract at a time (the whole canonical text is never built: at 1,000 contracts
    /// it was 6 MB alive next to the 8 MB file).
    pub fn to_pretty_json(&self) -> String {
        if self.contracts.is_empty() {
            return pretty_from_canonical(&self.canonical_json());
        }
        // The document around its contracts, with one placeholder in the array's place; each
        // contract array item sits two levels deep.
        const PLACEHOLDER: &str = "\"@agent-surface/contracts\"";
        let mut around = Vec::new();
        write_spliced_texts(&self.shell, &[PLACEHOLDER], true, |bytes| around.extend_from_slice(bytes));
        let around = pretty_from_canonical(std::str::from_utf8(&around).expect("canonical texts are UTF-8"));
        let (before, after) = around.split_once(PLACEHOLDER).expect("the placeholder is in the document");
        let size: usize = self.contracts.iter().map(|c| c.canonical.len() * 3 / 2).sum();
        let mut out = Vec::with_capacity(around.len() + size);
        out.extend_from_slice(before.as_bytes());
        for (i, c) in self.contracts.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b",\n    ");
            }
            pretty_from_canonical_into(&mut out, &c.canonical, 2);
        }
        out.extend_from_slice(after.as_bytes());
        String::from_utf8(out).expect("indenting UTF-8 text between tokens keeps it UTF-8")
    }
}

/// Writes the canonical document of `shell` (a manifest without contracts), key by key, with
/// these contracts' canonical texts as its `contracts`, and with or without its `manifestHash`
/// member (the hash is over the document without it).
fn write_spliced(
    shell: &CapabilityContractManifest,
    contracts: &[Arc<HashedContract>],
    with_hash: bool,
    sink: impl FnMut(&[u8]),
) {
    let texts: Vec<&str> = contracts.iter().map(|c| &*c.canonical).collect();
    write_spliced_texts(shell, &texts, with_hash, sink)
}

/// [`write_spliced`] of canonical texts.
fn write_spliced_texts(
    shell: &CapabilityContractManifest,
    contracts: &[&str],
    with_hash: bool,
    mut sink: impl FnMut(&[u8]),
) {
    debug_assert!(shell.contracts.is_empty());
    let Value::Object(mut fields) = shell.to_value() else { unreachable!("a manifest serializes to an object") };
    if !with_hash {
        fields.remove("manifestHash");
    }
    for (i, (key, text)) in canonical_members(&fields).into_iter().enumerate() {
        sink(if i == 0 { b"{" } else { b"," });
        if key == "contracts" {
            // `"contracts":[` then the texts.
            sink(&text.as_bytes()[..text.len() - 1]);
            for (j, c) in contracts.iter().enumerate() {
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
        AssembledManifest::new(generator, hashed, failed).into_manifest()
    }

    /// Recomputes and compares every hash of this manifest.
    pub fn verify_hashes(&self) -> Result<(), HashMismatch> {
        verify_hashes(&self.to_value())
    }
}

/// Hash of a contract's semantics: blake3 of its JSON without `contractHash`. (Format 1 also
/// left out the contract's `source`, which format 2 no longer has: the hashes are the same.)
pub fn contract_hash(contract: &Value) -> String {
    let mut v = contract.clone();
    if let Value::Object(m) = &mut v {
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
