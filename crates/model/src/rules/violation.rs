//! What a definition rule reports: a [`DefinitionViolation`] with a pointer into the contract's
//! manifest JSON. Every rule in [`crate::rules`] pushes these; [`crate::definition`] collects
//! them in a fixed order.

use crate::effects::PlaneError;
use crate::ids::IdError;
use agent_surface_schema::subset::SchemaViolation;
use std::fmt;

/// What is wrong with a contract definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DefinitionViolationKind {
    Id(IdError),
    /// A component's `id` is not `view:` + its `type`.
    IdMismatch {
        expected: String,
    },
    DescriptionEmpty,
    /// `len` and `max` are in UTF-16 code units (JavaScript `.length`).
    DescriptionTooLong {
        len: usize,
        max: usize,
    },
    /// `bytes` of canonical JSON.
    MetaTooLarge {
        bytes: usize,
        max: usize,
    },
    EffectNotAllowed(PlaneError),
    ConfirmationNotAllowed(PlaneError),
    Schema(SchemaViolation),
    /// The same name is used for an observation and an action of one component.
    DuplicateCapabilityName {
        name: String,
    },
}

/// One violation. `pointer` holds segments into the contract's manifest JSON, e.g.
/// `["actions", "select", "inputSchema", "properties", "ids", "format"]`, so the compiler can
/// map it to the source span that produced that field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefinitionViolation {
    pub pointer: Vec<String>,
    pub kind: DefinitionViolationKind,
    pub message: String,
    pub help: Option<String>,
}

impl DefinitionViolation {
    /// RFC 6901 JSON Pointer text of `pointer`.
    pub fn json_pointer(&self) -> String {
        agent_surface_schema::subset::json_pointer(&self.pointer)
    }
}

impl fmt::Display for DefinitionViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DefinitionViolation {}

/// A pointer from its segments: `seg(&["actions", "select"])`.
pub(crate) fn seg(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| s.to_string()).collect()
}

/// The pointer of `field` of the value at `base`.
pub(crate) fn field(base: &[String], field: &str) -> Vec<String> {
    let mut pointer = base.to_vec();
    pointer.push(field.into());
    pointer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_and_display() {
        assert_eq!(field(&seg(&["actions", "a/b"]), "meta"), vec!["actions", "a/b", "meta"]);
        assert_eq!(field(&[], "id"), vec!["id"]);
        let v = DefinitionViolation {
            pointer: seg(&["actions", "a/b", "meta"]),
            kind: DefinitionViolationKind::DescriptionEmpty,
            message: "description is empty".into(),
            help: None,
        };
        assert_eq!(v.json_pointer(), "/actions/a~1b/meta");
        assert_eq!(v.to_string(), "description is empty");
    }
}
