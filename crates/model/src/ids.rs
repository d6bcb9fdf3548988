//! The id grammar (DECISIONS §2), checked by hand so that every error can name the offending
//! character and its position (a char index into the whole id, prefix included).

use std::fmt;

/// Longest segment, in characters.
pub const MAX_SEGMENT_LEN: usize = 32;
/// Most segments in a component type, procedure id or external tool id.
pub const MAX_SEGMENTS: usize = 8;
/// Longest component type, in characters.
pub const MAX_COMPONENT_TYPE_LEN: usize = 96;
/// Longest capability name, in characters.
pub const MAX_CAPABILITY_NAME_LEN: usize = 48;
/// Longest instance id, in characters.
pub const MAX_INSTANCE_ID_LEN: usize = 128;
/// Fewest segments after `domain:`.
pub const MIN_PROCEDURE_SEGMENTS: usize = 2;
/// Fewest segments after `external:`.
pub const MIN_EXTERNAL_TOOL_SEGMENTS: usize = 1;

/// Prefix of component contract ids and capability ids.
pub const VIEW_PREFIX: &str = "view:";
/// Prefix of domain procedure ids.
pub const DOMAIN_PREFIX: &str = "domain:";
/// Prefix of external tool ids.
pub const EXTERNAL_PREFIX: &str = "external:";

/// Which grammar was being checked, so messages and diagnostics can name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IdKind {
    ComponentType,
    /// `view:<type>`.
    ComponentContractId,
    CapabilityName,
    CapabilityId,
    ProcedureId,
    ExternalToolId,
    InstanceId,
}

impl IdKind {
    /// Human noun used in messages ("procedure id").
    pub fn noun(self) -> &'static str {
        match self {
            IdKind::ComponentType => "component type",
            IdKind::ComponentContractId => "component contract id",
            IdKind::CapabilityName => "capability name",
            IdKind::CapabilityId => "capability id",
            IdKind::ProcedureId => "procedure id",
            IdKind::ExternalToolId => "external tool id",
            IdKind::InstanceId => "instance id",
        }
    }
}

impl fmt::Display for IdKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.noun())
    }
}

/// What exactly is wrong; lets callers branch without parsing messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IdErrorReason {
    Empty,
    BadStart,
    BadChar,
    SegmentTooLong,
    TooManySegments,
    TooFewSegments,
    TooLong,
    EmptySegment,
    MissingPrefix,
}

/// An id that breaks the grammar. `position` is a char index into the checked string.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct IdError {
    pub kind: IdKind,
    pub position: Option<usize>,
    pub found: Option<char>,
    pub reason: IdErrorReason,
    pub message: String,
}

impl IdError {
    fn new(kind: IdKind, reason: IdErrorReason, position: Option<usize>, found: Option<char>, message: String) -> Self {
        IdError { kind, position, found, reason, message }
    }
}

fn is_segment_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn is_instance_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-')
}

/// `[a-z][a-zA-Z0-9_-]{0,31}`; `offset` is the char index of the segment in the whole id.
fn check_segment(kind: IdKind, seg: &str, offset: usize) -> Result<(), IdError> {
    let mut chars = seg.chars();
    let first = match chars.next() {
        None => {
            return Err(IdError::new(
                kind,
                IdErrorReason::EmptySegment,
                Some(offset),
                None,
                format!(
                    "{kind} has an empty segment at position {offset} \
                     (a leading or trailing '.', or two dots in a row)"
                ),
            ))
        }
        Some(c) => c,
    };
    if !first.is_ascii_lowercase() {
        return Err(IdError::new(
            kind,
            IdErrorReason::BadStart,
            Some(offset),
            Some(first),
            format!(
                "segment \"{seg}\" must start with a lowercase letter a-z \
                 (found '{}' at position {offset})",
                first.escape_debug()
            ),
        ));
    }
    for (i, c) in seg.chars().enumerate().skip(1) {
        if !is_segment_char(c) {
            let pos = offset + i;
            return Err(IdError::new(
                kind,
                IdErrorReason::BadChar,
                Some(pos),
                Some(c),
                format!(
                    "character '{}' at position {pos} is not allowed in a segment \
                     (allowed: a-z A-Z 0-9 _ -)",
                    c.escape_debug()
                ),
            ));
        }
    }
    let len = seg.chars().count();
    if len > MAX_SEGMENT_LEN {
        let pos = offset + MAX_SEGMENT_LEN;
        return Err(IdError::new(
            kind,
            IdErrorReason::SegmentTooLong,
            Some(pos),
            seg.chars().nth(MAX_SEGMENT_LEN),
            format!("segment \"{seg}\" is {len} characters long; at most {MAX_SEGMENT_LEN} are allowed"),
        ));
    }
    Ok(())
}

/// Checks `min..=max` dot-separated segments starting at char index `offset` of the whole id.
fn check_segments(kind: IdKind, s: &str, offset: usize, min: usize, max: usize, example: &str) -> Result<(), IdError> {
    let mut pos = offset;
    let mut count = 0;
    for seg in s.split('.') {
        count += 1;
        if count > max {
            return Err(IdError::new(
                kind,
                IdErrorReason::TooManySegments,
                Some(pos),
                seg.chars().next(),
                format!(
                    "{kind} has {} segments; at most {max} are allowed (the extra one starts at position {pos})",
                    s.split('.').count()
                ),
            ));
        }
        check_segment(kind, seg, pos)?;
        pos += seg.chars().count() + 1;
    }
    if count < min {
        let plural = if min == 1 { "" } else { "s" };
        return Err(IdError::new(
            kind,
            IdErrorReason::TooFewSegments,
            None,
            None,
            format!("{kind} needs at least {min} segment{plural} separated by '.' (e.g. \"{example}\")"),
        ));
    }
    Ok(())
}

fn check_prefix(kind: IdKind, s: &str, prefix: &str) -> Result<usize, IdError> {
    if s.starts_with(prefix) {
        return Ok(prefix.chars().count());
    }
    // Point at the first character that differs from the expected prefix.
    let (position, found) = s
        .chars()
        .zip(prefix.chars())
        .enumerate()
        .find(|(_, (a, b))| a != b)
        .map(|(i, (a, _))| (i, Some(a)))
        .unwrap_or_else(|| (s.chars().count(), None));
    Err(IdError::new(
        kind,
        IdErrorReason::MissingPrefix,
        Some(position),
        found,
        format!("{kind} needs the prefix \"{prefix}\""),
    ))
}

fn check_not_empty(kind: IdKind, s: &str) -> Result<(), IdError> {
    if s.is_empty() {
        return Err(IdError::new(kind, IdErrorReason::Empty, None, None, format!("{kind} is empty")));
    }
    Ok(())
}

fn check_component_type_at(kind: IdKind, s: &str, offset: usize) -> Result<(), IdError> {
    if s.is_empty() {
        return Err(IdError::new(
            kind,
            IdErrorReason::Empty,
            Some(offset),
            None,
            format!("{kind} has an empty component type"),
        ));
    }
    check_segments(kind, s, offset, 1, MAX_SEGMENTS, "devices.table")?;
    let len = s.chars().count();
    if len > MAX_COMPONENT_TYPE_LEN {
        let pos = offset + MAX_COMPONENT_TYPE_LEN;
        return Err(IdError::new(
            kind,
            IdErrorReason::TooLong,
            Some(pos),
            s.chars().nth(MAX_COMPONENT_TYPE_LEN),
            format!("component type is {len} characters long; at most {MAX_COMPONENT_TYPE_LEN} are allowed"),
        ));
    }
    Ok(())
}

fn check_capability_name_at(kind: IdKind, s: &str, offset: usize) -> Result<(), IdError> {
    let first = match s.chars().next() {
        None => {
            return Err(IdError::new(
                kind,
                IdErrorReason::Empty,
                Some(offset),
                None,
                "capability name is empty".to_string(),
            ))
        }
        Some(c) => c,
    };
    if !first.is_ascii_lowercase() {
        return Err(IdError::new(
            kind,
            IdErrorReason::BadStart,
            Some(offset),
            Some(first),
            format!(
                "capability name \"{s}\" must start with a lowercase letter a-z \
                 (found '{}' at position {offset})",
                first.escape_debug()
            ),
        ));
    }
    for (i, c) in s.chars().enumerate().skip(1) {
        if !is_name_char(c) {
            let pos = offset + i;
            return Err(IdError::new(
                kind,
                IdErrorReason::BadChar,
                Some(pos),
                Some(c),
                format!(
                    "character '{}' at position {pos} is not allowed in a capability name \
                     (allowed: a-z A-Z 0-9 _)",
                    c.escape_debug()
                ),
            ));
        }
    }
    let len = s.chars().count();
    if len > MAX_CAPABILITY_NAME_LEN {
        let pos = offset + MAX_CAPABILITY_NAME_LEN;
        return Err(IdError::new(
            kind,
            IdErrorReason::TooLong,
            Some(pos),
            s.chars().nth(MAX_CAPABILITY_NAME_LEN),
            format!("capability name \"{s}\" is {len} characters long; at most {MAX_CAPABILITY_NAME_LEN} are allowed"),
        ));
    }
    Ok(())
}

/// Component type: 1–8 segments joined by `.`, at most 96 characters (`devices.table`).
pub fn check_component_type(s: &str) -> Result<(), IdError> {
    check_not_empty(IdKind::ComponentType, s)?;
    check_component_type_at(IdKind::ComponentType, s, 0)
}

/// Observation or action key: `[a-z][a-zA-Z0-9_]{0,47}`.
pub fn check_capability_name(s: &str) -> Result<(), IdError> {
    check_capability_name_at(IdKind::CapabilityName, s, 0)
}

/// Domain procedure id: `domain:` + 2–8 segments (`domain:devices.delete`).
pub fn check_procedure_id(s: &str) -> Result<(), IdError> {
    let kind = IdKind::ProcedureId;
    check_not_empty(kind, s)?;
    let offset = check_prefix(kind, s, DOMAIN_PREFIX)?;
    check_segments(
        kind,
        &s[DOMAIN_PREFIX.len()..],
        offset,
        MIN_PROCEDURE_SEGMENTS,
        MAX_SEGMENTS,
        "domain:devices.delete",
    )
}

/// External tool id: `external:` + 1–8 segments (`external:crm.export`).
pub fn check_external_tool_id(s: &str) -> Result<(), IdError> {
    let kind = IdKind::ExternalToolId;
    check_not_empty(kind, s)?;
    let offset = check_prefix(kind, s, EXTERNAL_PREFIX)?;
    check_segments(
        kind,
        &s[EXTERNAL_PREFIX.len()..],
        offset,
        MIN_EXTERNAL_TOOL_SEGMENTS,
        MAX_SEGMENTS,
        "external:crm.export",
    )
}

/// Instance id: `[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}` (default `default`).
pub fn check_instance_id(s: &str) -> Result<(), IdError> {
    let kind = IdKind::InstanceId;
    check_not_empty(kind, s)?;
    let first = s.chars().next().unwrap_or_default();
    if !first.is_ascii_alphanumeric() {
        return Err(IdError::new(
            kind,
            IdErrorReason::BadStart,
            Some(0),
            Some(first),
            format!(
                "instance id \"{s}\" must start with a letter or digit (found '{}' at position 0)",
                first.escape_debug()
            ),
        ));
    }
    for (i, c) in s.chars().enumerate().skip(1) {
        if !is_instance_char(c) {
            return Err(IdError::new(
                kind,
                IdErrorReason::BadChar,
                Some(i),
                Some(c),
                format!(
                    "character '{}' at position {i} is not allowed in an instance id \
                     (allowed: A-Z a-z 0-9 _ . : -)",
                    c.escape_debug()
                ),
            ));
        }
    }
    let len = s.chars().count();
    if len > MAX_INSTANCE_ID_LEN {
        return Err(IdError::new(
            kind,
            IdErrorReason::TooLong,
            Some(MAX_INSTANCE_ID_LEN),
            s.chars().nth(MAX_INSTANCE_ID_LEN),
            format!("instance id is {len} characters long; at most {MAX_INSTANCE_ID_LEN} are allowed"),
        ));
    }
    Ok(())
}

/// Capability id `view:<type>.<name>`: the last segment is the capability name (its grammar,
/// not the segment grammar), everything between the prefix and it is the component type.
pub fn check_capability_id(s: &str) -> Result<(), IdError> {
    let kind = IdKind::CapabilityId;
    check_not_empty(kind, s)?;
    let offset = check_prefix(kind, s, VIEW_PREFIX)?;
    let rest = &s[VIEW_PREFIX.len()..];
    let Some(dot) = rest.rfind('.') else {
        return Err(IdError::new(
            kind,
            IdErrorReason::TooFewSegments,
            None,
            None,
            "capability id needs a component type and a capability name: \
             \"view:<type>.<name>\" (e.g. \"view:devices.table.readState\")"
                .to_string(),
        ));
    };
    let (ty, name) = (&rest[..dot], &rest[dot + 1..]);
    check_component_type_at(kind, ty, offset)?;
    check_capability_name_at(kind, name, offset + ty.chars().count() + 1)
}

/// Component contract id `view:<type>`.
pub fn check_component_contract_id(s: &str) -> Result<(), IdError> {
    let kind = IdKind::ComponentContractId;
    check_not_empty(kind, s)?;
    let offset = check_prefix(kind, s, VIEW_PREFIX)?;
    check_component_type_at(kind, &s[VIEW_PREFIX.len()..], offset)
}

/// The contract id of a component type: `view:` + type.
pub fn component_contract_id(ty: &str) -> String {
    format!("{VIEW_PREFIX}{ty}")
}

/// The id of a component's observation or action: `view:<type>.<name>`.
pub fn capability_id(ty: &str, name: &str) -> String {
    format!("{VIEW_PREFIX}{ty}.{name}")
}

/// The providers' limit on a tool name (OpenAI, Anthropic): `[A-Za-z0-9_-]{1,64}`.
pub const WIRE_NAME_LIMIT: usize = 64;

/// A capability id with every character outside `[A-Za-z0-9_-]` mapped to `_` (a wire name
/// before the 64-character cut).
pub fn wire_name_uncut(id: &str) -> String {
    id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
}

/// The wire name of a capability id (DECISIONS §8): [`wire_name_uncut`], and over 64 characters
/// the first 55 + `_` + 8 base32 characters of the blake3 of the full id. The engine's catalogs
/// and the compiler's relay-prefix warning (AS0304) both use this one.
pub fn wire_name(id: &str) -> String {
    let mapped = wire_name_uncut(id);
    if mapped.len() <= WIRE_NAME_LIMIT && !mapped.is_empty() {
        return mapped;
    }
    let digest = blake3::hash(id.as_bytes());
    const B32: &[u8] = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut bits = u64::from_le_bytes(digest.as_bytes()[..8].try_into().expect("8 bytes"));
    let mut suffix = String::new();
    for _ in 0..8 {
        suffix.push(B32[(bits & 31) as usize] as char);
        bits >>= 5;
    }
    format!("{}_{suffix}", &mapped[..mapped.len().min(55)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use IdErrorReason::*;

    fn err(r: Result<(), IdError>) -> IdError {
        r.expect_err("expected an id error")
    }

    #[test]
    fn component_type_accepts_valid() {
        for ok in [
            "devices",
            "devices.table",
            "a",
            "a.b.c.d.e.f.g.h",
            "my-list_2.rowItem",
            &"a".repeat(32),
            &["abcdefghijk"; 8].join("."), // 95 chars
        ] {
            check_component_type(ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
    }

    #[test]
    fn component_type_rejects_with_position() {
        let e = err(check_component_type(""));
        assert_eq!((e.reason, e.kind), (Empty, IdKind::ComponentType));

        let e = err(check_component_type("Devices.table"));
        assert_eq!((e.reason, e.position, e.found), (BadStart, Some(0), Some('D')));
        assert!(e.message.contains("segment \"Devices\" must start with a lowercase letter a-z"), "{}", e.message);

        let e = err(check_component_type("devices.Table"));
        assert_eq!((e.reason, e.position, e.found), (BadStart, Some(8), Some('T')));

        let e = err(check_component_type("devXces.t@ble"));
        assert_eq!((e.reason, e.position, e.found), (BadChar, Some(9), Some('@')));
        assert_eq!(e.message, "character '@' at position 9 is not allowed in a segment (allowed: a-z A-Z 0-9 _ -)");

        // Positions count chars, not bytes.
        let e = err(check_component_type("dé"));
        assert_eq!((e.reason, e.position, e.found), (BadChar, Some(1), Some('é')));
        let e = err(check_component_type("éa.b"));
        assert_eq!((e.reason, e.position), (BadStart, Some(0)));
        let e = err(check_component_type("ab.cé.x:y"));
        assert_eq!((e.reason, e.position, e.found), (BadChar, Some(4), Some('é')));
        let e = err(check_component_type("ab.c.x:y"));
        assert_eq!((e.reason, e.position, e.found), (BadChar, Some(6), Some(':')));

        for (s, pos) in [(".a", 0), ("a.", 2), ("a..b", 2)] {
            let e = err(check_component_type(s));
            assert_eq!((e.reason, e.position), (EmptySegment, Some(pos)), "{s}");
        }

        let long = format!("a.{}", "b".repeat(33));
        let e = err(check_component_type(&long));
        assert_eq!((e.reason, e.position, e.found), (SegmentTooLong, Some(34), Some('b')));

        let e = err(check_component_type("a.b.c.d.e.f.g.h.i"));
        assert_eq!((e.reason, e.position, e.found), (TooManySegments, Some(16), Some('i')));

        let long = ["abcdefghijkl"; 8].join("."); // 103 chars
        let e = err(check_component_type(&long));
        assert_eq!((e.reason, e.position), (TooLong, Some(96)));
    }

    #[test]
    fn capability_name() {
        for ok in ["readState", "a", "select_rows2", &"a".repeat(48)] {
            check_capability_name(ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
        assert_eq!(err(check_capability_name("")).reason, Empty);
        let e = err(check_capability_name("ReadState"));
        assert_eq!((e.reason, e.position, e.found, e.kind), (BadStart, Some(0), Some('R'), IdKind::CapabilityName));
        let e = err(check_capability_name("_x"));
        assert_eq!(e.reason, BadStart);
        let e = err(check_capability_name("read-state"));
        assert_eq!((e.reason, e.position, e.found), (BadChar, Some(4), Some('-')));
        assert!(e.message.contains("(allowed: a-z A-Z 0-9 _)"));
        let e = err(check_capability_name("read.state"));
        assert_eq!((e.reason, e.found), (BadChar, Some('.')));
        let e = err(check_capability_name(&"a".repeat(49)));
        assert_eq!((e.reason, e.position), (TooLong, Some(48)));
    }

    #[test]
    fn procedure_id() {
        for ok in ["domain:devices.delete", "domain:a.b.c.d.e.f.g.h", "domain:crm-x.export_all"] {
            check_procedure_id(ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
        let e = err(check_procedure_id("devices.delete"));
        assert_eq!((e.reason, e.kind), (MissingPrefix, IdKind::ProcedureId));
        assert_eq!(e.message, "procedure id needs the prefix \"domain:\"");
        let e = err(check_procedure_id("external:x.y"));
        assert_eq!((e.reason, e.position, e.found), (MissingPrefix, Some(0), Some('e')));
        let e = err(check_procedure_id("domain"));
        assert_eq!((e.reason, e.position, e.found), (MissingPrefix, Some(6), None));
        assert_eq!(err(check_procedure_id("")).reason, Empty);

        let e = err(check_procedure_id("domain:devices"));
        assert_eq!(e.reason, TooFewSegments);
        assert!(e.message.contains("at least 2 segments"), "{}", e.message);
        let e = err(check_procedure_id("domain:"));
        assert_eq!((e.reason, e.position), (EmptySegment, Some(7)));
        let e = err(check_procedure_id("domain:devices.Delete"));
        assert_eq!((e.reason, e.position, e.found), (BadStart, Some(15), Some('D')));
        let e = err(check_procedure_id("domain:a.b.c.d.e.f.g.h.i"));
        assert_eq!((e.reason, e.position), (TooManySegments, Some(23)));
        let e = err(check_procedure_id("domain:a b.c"));
        assert_eq!((e.reason, e.position, e.found), (BadChar, Some(8), Some(' ')));
    }

    #[test]
    fn external_tool_id() {
        for ok in ["external:crm", "external:crm.export", "external:a.b.c.d.e.f.g.h"] {
            check_external_tool_id(ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
        let e = err(check_external_tool_id("domain:crm.export"));
        assert_eq!((e.reason, e.kind), (MissingPrefix, IdKind::ExternalToolId));
        assert!(e.message.contains("\"external:\""));
        let e = err(check_external_tool_id("external:"));
        assert_eq!((e.reason, e.position), (EmptySegment, Some(9)));
        let e = err(check_external_tool_id("external:a.b.c.d.e.f.g.h.i"));
        assert_eq!(e.reason, TooManySegments);
        let e = err(check_external_tool_id("external:9lives"));
        assert_eq!((e.reason, e.position, e.found), (BadStart, Some(9), Some('9')));
    }

    #[test]
    fn instance_id() {
        for ok in ["default", "A", "9", "row:42", "a.b-c_d:E", &"x".repeat(128)] {
            check_instance_id(ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
        assert_eq!(err(check_instance_id("")).reason, Empty);
        let e = err(check_instance_id("-x"));
        assert_eq!((e.reason, e.position, e.found), (BadStart, Some(0), Some('-')));
        let e = err(check_instance_id("row/42"));
        assert_eq!((e.reason, e.position, e.found, e.kind), (BadChar, Some(3), Some('/'), IdKind::InstanceId));
        let e = err(check_instance_id(&"x".repeat(129)));
        assert_eq!((e.reason, e.position), (TooLong, Some(128)));
    }

    #[test]
    fn capability_id_checks_type_and_name() {
        for ok in ["view:devices.table.readState", "view:d.x", "view:my-list.select_rows"] {
            check_capability_id(ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
        let e = err(check_capability_id("devices.table.readState"));
        assert_eq!(e.reason, MissingPrefix);
        let e = err(check_capability_id("view:devices"));
        assert_eq!(e.reason, TooFewSegments);
        // The name part uses the capability-name grammar ('-' not allowed) ...
        let e = err(check_capability_id("view:devices.read-state"));
        assert_eq!((e.reason, e.position, e.found), (BadChar, Some(17), Some('-')));
        // ... while the type part uses the segment grammar ('-' allowed).
        check_capability_id("view:my-list.readState").unwrap();
        let e = err(check_capability_id("view:Devices.readState"));
        assert_eq!((e.reason, e.position), (BadStart, Some(5)));
        let e = err(check_capability_id("view:.readState"));
        assert_eq!((e.reason, e.position), (Empty, Some(5)));
        let e = err(check_capability_id("view:devices."));
        assert_eq!((e.reason, e.position), (Empty, Some(13)));
        assert_eq!(err(check_capability_id("view:a.b.c.d.e.f.g.h.i.name")).reason, TooManySegments);
    }

    #[test]
    fn component_contract_id_roundtrip() {
        assert_eq!(component_contract_id("devices.table"), "view:devices.table");
        assert_eq!(capability_id("devices.table", "readState"), "view:devices.table.readState");
        check_component_contract_id(&component_contract_id("devices.table")).unwrap();
        check_capability_id(&capability_id("devices.table", "readState")).unwrap();
        let e = err(check_component_contract_id("view:devices.Table"));
        assert_eq!((e.reason, e.position, e.kind), (BadStart, Some(13), IdKind::ComponentContractId));
        assert_eq!(err(check_component_contract_id("devices")).reason, MissingPrefix);
    }

    #[test]
    fn error_displays_message() {
        let e = err(check_component_type("a!"));
        assert_eq!(e.to_string(), e.message);
        let _: &dyn std::error::Error = &e;
    }
}
