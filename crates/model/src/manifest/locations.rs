//! Where each contract of a manifest is written: the locations sidecar.
//!
//! Source locations are not part of a contract's meaning, and a line number changes with every
//! import or comment added above a contract. Manifest format 1 kept them in the manifest, so such
//! an edit changed the `manifestHash` (the dev server reloaded the page) and the committed file
//! (`compile --check` failed). Format 2 keeps them here instead: a separate document, keyed by
//! contract id, that no hash covers, that `compile --check` does not compare and that need not be
//! committed. Tools that show a contract's place (the CLI, editors, the dev server) read it when
//! it is there and do without it when it is not.

use super::types::SourceLocation;
use crate::canonical::canonical_json_pretty;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The locations format this crate writes and reads.
pub const LOCATIONS_FORMAT_VERSION: u32 = 1;

/// The sidecar document: for the manifest whose `manifestHash` it names, each compiled
/// contract's location by contract id.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContractLocations {
    pub format_version: u32,
    /// The manifest these locations were written with (a reader holding another manifest knows
    /// they may be out of date; they are only ever a hint).
    pub manifest_hash: String,
    pub locations: BTreeMap<String, SourceLocation>,
}

/// A locations document that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum LocationsError {
    #[error("not a valid contract locations document: {0}")]
    Json(#[from] serde_json::Error),
    #[error("unsupported locations formatVersion {found} (this reader reads {LOCATIONS_FORMAT_VERSION})")]
    UnsupportedFormatVersion { found: u64 },
}

impl ContractLocations {
    /// Locations for the manifest `manifest_hash`; the first location given for an id wins.
    pub fn new(manifest_hash: impl Into<String>, entries: impl IntoIterator<Item = (String, SourceLocation)>) -> Self {
        let mut locations = BTreeMap::new();
        for (id, at) in entries {
            locations.entry(id).or_insert(at);
        }
        ContractLocations { format_version: LOCATIONS_FORMAT_VERSION, manifest_hash: manifest_hash.into(), locations }
    }

    pub fn get(&self, id: &str) -> Option<&SourceLocation> {
        self.locations.get(id)
    }

    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("locations always serialize to JSON")
    }

    /// The on-disk form: pretty canonical JSON, like the manifest's.
    pub fn to_pretty_json(&self) -> String {
        canonical_json_pretty(&self.to_value())
    }

    pub fn from_json_str(s: &str) -> Result<Self, LocationsError> {
        let parsed: Self = serde_json::from_str(s).map_err(|e| {
            match serde_json::from_str::<Value>(s).ok().and_then(|v| v.get("formatVersion").and_then(Value::as_u64)) {
                Some(v) if v != u64::from(LOCATIONS_FORMAT_VERSION) => {
                    LocationsError::UnsupportedFormatVersion { found: v }
                }
                _ => LocationsError::Json(e),
            }
        })?;
        if parsed.format_version != LOCATIONS_FORMAT_VERSION {
            return Err(LocationsError::UnsupportedFormatVersion { found: parsed.format_version.into() });
        }
        Ok(parsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(file: &str, line: u32) -> SourceLocation {
        SourceLocation { file: file.into(), line, column: 3 }
    }

    #[test]
    fn roundtrips_sorted_and_first_wins() {
        let l = ContractLocations::new(
            "blake3:00",
            [
                ("view:b".to_string(), at("src/b.tsx", 4)),
                ("domain:a.x".to_string(), at("src/a.ts", 1)),
                ("view:b".to_string(), at("src/other.tsx", 9)),
            ],
        );
        assert_eq!(l.get("view:b"), Some(&at("src/b.tsx", 4)));
        let text = l.to_pretty_json();
        assert_eq!(
            text,
            "{\n  \"formatVersion\": 1,\n  \"locations\": {\n    \"domain:a.x\": {\n      \"column\": 3,\n      \"file\": \"src/a.ts\",\n      \"line\": 1\n    },\n    \"view:b\": {\n      \"column\": 3,\n      \"file\": \"src/b.tsx\",\n      \"line\": 4\n    }\n  },\n  \"manifestHash\": \"blake3:00\"\n}\n"
        );
        assert_eq!(ContractLocations::from_json_str(&text).unwrap(), l);
    }

    #[test]
    fn docs_locations_schema_lists_exactly_the_serialized_fields() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/locations.schema.json");
        let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let v = ContractLocations::new("blake3:00", [("view:a".to_string(), at("src/a.ts", 1))]).to_value();
        let keys = |o: &Value| {
            let mut k: Vec<String> = o.as_object().unwrap().keys().cloned().collect();
            k.sort();
            k
        };
        let required = |s: &Value| {
            let mut k: Vec<String> =
                s["required"].as_array().unwrap().iter().map(|x| x.as_str().unwrap().into()).collect();
            k.sort();
            k
        };
        assert_eq!(keys(&v), required(&schema));
        assert_eq!(keys(&v["locations"]["view:a"]), required(&schema["$defs"]["sourceLocation"]));
        assert_eq!(schema["properties"]["formatVersion"]["const"], LOCATIONS_FORMAT_VERSION);
    }

    #[test]
    fn other_versions_and_shapes_are_refused() {
        let mut v = ContractLocations::new("blake3:00", []).to_value();
        v["formatVersion"] = 2.into();
        assert!(matches!(
            ContractLocations::from_json_str(&v.to_string()),
            Err(LocationsError::UnsupportedFormatVersion { found: 2 })
        ));
        v["formatVersion"] = 1.into();
        v["extra"] = true.into();
        assert!(matches!(ContractLocations::from_json_str(&v.to_string()), Err(LocationsError::Json(_))));
        assert!(ContractLocations::from_json_str("[]").is_err());
    }
}
