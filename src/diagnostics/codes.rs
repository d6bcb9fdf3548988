//! Every diagnostic code, declared once: its number, name, category, default severity, title and
//! docs anchor. Renderers (pretty, JSON, later LSP/SARIF) and `docs/diagnostics.md` read this
//! table; nothing else invents a code.

use super::Severity;

/// Where a code belongs in the pipeline; also the docs section it is listed under.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Category {
    /// Reading and parsing sources.
    Syntax,
    /// Static evaluation of definitions.
    Evaluation,
    /// Shape of a contract definition (fields, types of fields).
    Definition,
    /// Id grammar.
    Ids,
    /// The supported JSON Schema subset.
    Schema,
    /// Size limits.
    Limits,
    /// Plane and effect rules.
    Planes,
    /// Uniqueness across the project.
    Uniqueness,
}

impl Category {
    pub fn title(self) -> &'static str {
        match self {
            Category::Syntax => "Reading and parsing",
            Category::Evaluation => "Static evaluation",
            Category::Definition => "Definition shape",
            Category::Ids => "Id grammar",
            Category::Schema => "JSON Schema subset",
            Category::Limits => "Size limits",
            Category::Planes => "Planes and effects",
            Category::Uniqueness => "Uniqueness",
        }
    }
}

/// Static description of one diagnostic code.
#[derive(Debug)]
pub struct CodeInfo {
    pub code: Code,
    /// `AS0001`.
    pub id: &'static str,
    /// kebab-case name, stable like the number.
    pub name: &'static str,
    pub category: Category,
    pub severity: Severity,
    /// One line: what is wrong.
    pub title: &'static str,
}

impl CodeInfo {
    /// Where the code is documented, relative to the repository root.
    pub fn docs_url(&self) -> String {
        format!("docs/diagnostics.md#{}", self.id.to_ascii_lowercase())
    }
}

macro_rules! declare_codes {
    ($( $variant:ident = $id:literal, $name:literal, $cat:ident, $sev:ident, $title:literal; )*) => {
        /// A diagnostic code. See [`CodeInfo`] for its description.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code { $($variant),* }

        /// The registry, in code order.
        pub static CODES: &[CodeInfo] = &[
            $(CodeInfo { code: Code::$variant, id: $id, name: $name, category: Category::$cat,
                         severity: Severity::$sev, title: $title },)*
        ];

        impl Code {
            pub fn info(self) -> &'static CodeInfo {
                &CODES[self as usize]
            }
            pub fn id(self) -> &'static str {
                self.info().id
            }
        }
    };
}

declare_codes! {
    SyntaxError = "AS0001", "syntax-error", Syntax, Error, "the file does not parse as TypeScript";
    UnreadableFile = "AS0002", "unreadable-file", Syntax, Error, "the file cannot be read as UTF-8 text";
    NotStatic = "AS0010", "not-statically-evaluable", Evaluation, Error, "a definition uses a value the compiler cannot evaluate statically";
    UnresolvedName = "AS0011", "unresolved-name", Evaluation, Error, "a name or import in a definition does not resolve";
    MutableBinding = "AS0012", "mutable-binding", Evaluation, Error, "a definition reads a `let` or `var` binding";
    SchemaNotEvaluable = "AS0013", "schema-not-evaluable", Evaluation, Error, "a schema's JSON Schema cannot be evaluated statically";
    CircularReference = "AS0014", "circular-reference", Evaluation, Error, "a definition refers to itself through constants or imports";
    InvalidField = "AS0020", "invalid-field", Definition, Error, "a definition field has the wrong type or value";
    UnknownField = "AS0021", "unknown-field", Definition, Error, "a definition has a field the contract does not know";
    MissingField = "AS0022", "missing-field", Definition, Error, "a definition lacks a required field";
    InvalidArguments = "AS0023", "invalid-arguments", Definition, Error, "a contract macro is called with the wrong arguments";
    InvalidComponentType = "AS0101", "invalid-component-type", Ids, Error, "a component type breaks the id grammar";
    InvalidCapabilityName = "AS0102", "invalid-capability-name", Ids, Error, "an observation or action name breaks the id grammar";
    InvalidProcedureId = "AS0103", "invalid-procedure-id", Ids, Error, "a domain procedure id breaks the id grammar";
    InvalidExternalToolId = "AS0104", "invalid-external-tool-id", Ids, Error, "an external tool id breaks the id grammar";
    InvalidInstanceId = "AS0105", "invalid-instance-id", Ids, Error, "a static `instanceId` passed to `.bind()` breaks the id grammar";
    UnsupportedSchemaKeyword = "AS0201", "unsupported-schema-keyword", Schema, Error, "a schema uses a keyword outside the supported subset";
    InvalidSchemaValue = "AS0202", "invalid-schema-value", Schema, Error, "a schema keyword has a value of the wrong kind";
    UnsupportedFormat = "AS0203", "unsupported-format", Schema, Error, "a string format outside date-time, date, uuid, email, uri";
    InvalidSchemaRef = "AS0204", "invalid-schema-ref", Schema, Error, "a `$ref` that is not a resolvable `#/$defs/...` reference";
    SchemaTooDeep = "AS0205", "schema-too-deep", Schema, Error, "a schema nests deeper than the limit";
    SchemaTooLarge = "AS0206", "schema-too-large", Schema, Error, "a schema serializes larger than the limit";
    InvalidPattern = "AS0207", "invalid-pattern", Schema, Error, "a `pattern` is not a valid ECMAScript regular expression";
    EmptyDescription = "AS0301", "empty-description", Limits, Error, "a description is empty";
    DescriptionTooLong = "AS0302", "description-too-long", Limits, Error, "a description is longer than the limit";
    MetaTooLarge = "AS0303", "meta-too-large", Limits, Error, "`meta` serializes larger than the limit";
    EffectNotAllowed = "AS0401", "effect-not-allowed", Planes, Error, "an effect that the capability's plane does not allow";
    ConfirmationNotAllowed = "AS0402", "confirmation-not-allowed", Planes, Error, "a confirmation setting the effect does not allow";
    DuplicateComponentType = "AS0501", "duplicate-component-type", Uniqueness, Error, "a component type is declared more than once";
    DuplicateCapabilityName = "AS0502", "duplicate-capability-name", Uniqueness, Error, "a capability name is used twice in one component";
    DuplicateOperationId = "AS0503", "duplicate-operation-id", Uniqueness, Error, "a procedure or external tool id is declared more than once";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_indexed_by_variant_and_unique() {
        let mut seen = std::collections::HashSet::new();
        for (i, info) in CODES.iter().enumerate() {
            assert_eq!(info.code as usize, i, "{} out of place", info.id);
            assert!(seen.insert(info.id), "{} declared twice", info.id);
            assert!(info.id.starts_with("AS") && info.id.len() == 6);
        }
    }

    #[test]
    fn every_code_is_documented() {
        let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/diagnostics.md"))
            .expect("docs/diagnostics.md");
        for info in CODES {
            assert!(docs.contains(&format!("## {} {}", info.id, info.name)), "{} missing from docs/diagnostics.md", info.id);
        }
    }
}
