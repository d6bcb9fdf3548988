//! Canonical JSON (RFC 8785, from the schema crate) and the blake3 hashes over it:
//! `contractHash` and `manifestHash` are `"blake3:" + hex` of canonical UTF-8 bytes.

pub use agent_surface_schema::canonical::*;
use serde_json::Value;

/// `"blake3:" + 64 lowercase hex` of blake3 over the canonical UTF-8 bytes of `v`.
pub fn blake3_hex(v: &Value) -> String {
    blake3_hex_of_str(&canonical_json(v))
}

/// `"blake3:" + hex` of already-canonical text (avoids canonicalizing twice).
pub fn blake3_hex_of_str(canonical: &str) -> String {
    format!("blake3:{}", blake3::hash(canonical.as_bytes()).to_hex())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vectors() -> Vec<Value> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/hashing-vectors.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let doc: Value = serde_json::from_str(&text).unwrap();
        doc["vectors"].as_array().unwrap().clone()
    }

    #[test]
    fn conformance_vectors_reproduce_canonical_and_blake3() {
        let vs = vectors();
        assert!(vs.len() >= 6, "expected the conformance vectors, got {}", vs.len());
        for v in vs {
            let name = v["name"].as_str().unwrap();
            let canonical = canonical_json(&v["value"]);
            assert_eq!(canonical, v["canonical"].as_str().unwrap(), "canonical of {name}");
            assert_eq!(blake3_hex(&v["value"]), v["blake3"].as_str().unwrap(), "blake3 of {name}");
            // Canonical text re-parsed gives the same canonical text (idempotence).
            let reparsed: Value = serde_json::from_str(&canonical).unwrap();
            assert_eq!(canonical_json(&reparsed), canonical, "idempotence of {name}");
        }
    }

    #[test]
    fn blake3_format_and_sensitivity() {
        let h = blake3_hex(&json!({"a": 1}));
        assert!(h.starts_with("blake3:"));
        assert_eq!(h.len(), 7 + 64);
        assert!(h[7..].chars().all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c)));
        // Key order of the input does not matter; values do.
        assert_eq!(blake3_hex(&json!({"a": 1, "b": 2})), blake3_hex(&json!({"b": 2, "a": 1})));
        assert_ne!(blake3_hex(&json!({"a": 1})), blake3_hex(&json!({"a": 2})));
        // 1 and 1.0 are the same JavaScript number, so the same hash.
        assert_eq!(blake3_hex(&json!([1])), blake3_hex(&json!([1.0])));
        assert_eq!(blake3_hex_of_str("{}"), blake3_hex(&json!({})));
    }
}
