//! Every diagnostic code, declared once: its number, name, category, default severity, title and
//! docs anchor. The renderers (`render/`: pretty, JSON, SARIF, GitHub), the language server and
//! `docs/diagnostics.md` read this table; nothing else invents a code.

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

/// Where the project's docs live.
pub const DOCS_BASE: &str = "https://github.com/agent-surface/agent-surface/blob/main/docs";

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
    /// The general fix, shown when a diagnostic has no more specific help ("" for none).
    pub help: &'static str,
}

impl CodeInfo {
    /// Where the code is documented (an absolute URL: SARIF viewers and editors link to it):
    /// the anchor GitHub gives its heading `## AS0101 invalid-component-type`.
    pub fn docs_url(&self) -> String {
        format!("{DOCS_BASE}/diagnostics.md#{}-{}", self.id.to_ascii_lowercase(), self.name)
    }
}

macro_rules! declare_codes {
    ($( $variant:ident = $id:literal, $name:literal, $cat:ident, $sev:ident, $title:literal, $help:literal; )*) => {
        /// A diagnostic code. See [`CodeInfo`] for its description.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code { $($variant),* }

        /// The registry, in code order.
        pub static CODES: &[CodeInfo] = &[
            $(CodeInfo { code: Code::$variant, id: $id, name: $name, category: Category::$cat,
                         severity: Severity::$sev, title: $title, help: $help },)*
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
    SyntaxError = "AS0001", "syntax-error", Syntax, Error, "the file does not parse as TypeScript", "";
    UnreadableFile = "AS0002", "unreadable-file", Syntax, Error, "the file cannot be read as UTF-8 text", "save the file as UTF-8";
    NotStatic = "AS0010", "not-statically-evaluable", Evaluation, Error, "a definition uses a value the compiler cannot evaluate statically", "contract definitions are evaluated at build time: use literals, `const` bindings and imports of them";
    UnresolvedName = "AS0011", "unresolved-name", Evaluation, Error, "a name or import in a definition does not resolve", "define it as a module-level `const` in a project file, or import it from one";
    MutableBinding = "AS0012", "mutable-binding", Evaluation, Error, "a definition reads a `let` or `var` binding", "declare it with `const` if it never changes";
    SchemaNotEvaluable = "AS0013", "schema-not-evaluable", Evaluation, Error, "a schema's JSON Schema cannot be evaluated statically", "pass the JSON Schema as a literal, or use `fromJsonSchema({...})`";
    CircularReference = "AS0014", "circular-reference", Evaluation, Error, "a definition refers to itself through constants or imports", "break the cycle: move the shared part into a constant both sides import";
    UnknownCoreExport = "AS0015", "unknown-core-export", Evaluation, Error, "a name imported or called from @agent-surface/core that the package does not export", "check the spelling: the package's exports are listed in docs/diagnostics.md";
    MisspelledCorePackage = "AS0016", "misspelled-core-package", Evaluation, Warning, "a call through an import from a package whose name is close to @agent-surface/core", "import the macros from `@agent-surface/core`";
    InvalidField = "AS0020", "invalid-field", Definition, Error, "a definition field has the wrong type or value", "see the contract's fields in docs/manifest.md";
    UnknownField = "AS0021", "unknown-field", Definition, Error, "a definition has a field the contract does not know", "remove the field; runtime behaviour belongs to `.bind()`";
    MissingField = "AS0022", "missing-field", Definition, Error, "a definition lacks a required field", "add the field";
    InvalidArguments = "AS0023", "invalid-arguments", Definition, Error, "a contract macro is called with the wrong arguments", "call the macro with one object literal";
    InvalidComponentType = "AS0101", "invalid-component-type", Ids, Error, "a component type breaks the id grammar", "a component type is 1 to 8 dot-separated segments, each a lowercase letter then letters, digits, `_` or `-` (e.g. \"devices.table\")";
    InvalidCapabilityName = "AS0102", "invalid-capability-name", Ids, Error, "an observation or action name breaks the id grammar", "a capability name is a lowercase letter then up to 47 letters, digits or `_` (e.g. \"selectRows\")";
    InvalidProcedureId = "AS0103", "invalid-procedure-id", Ids, Error, "a domain procedure id breaks the id grammar", "a procedure id is \"domain:\" then 2 to 8 dot-separated segments (e.g. \"domain:devices.reboot\")";
    InvalidExternalToolId = "AS0104", "invalid-external-tool-id", Ids, Error, "an external tool id breaks the id grammar", "an external tool id is \"external:\" then 1 to 8 dot-separated segments (e.g. \"external:reports.export\")";
    InvalidInstanceId = "AS0105", "invalid-instance-id", Ids, Error, "a static `instanceId` passed to `.bind()` breaks the id grammar", "an instance id is a letter or digit then up to 127 letters, digits, `_`, `.`, `:` or `-`; derive it from data (an entity id), never from render order";
    UnsupportedSchemaKeyword = "AS0201", "unsupported-schema-keyword", Schema, Error, "a schema uses a keyword outside the supported subset", "use the supported subset: anyOf instead of oneOf/allOf, explicit properties instead of patternProperties";
    InvalidSchemaValue = "AS0202", "invalid-schema-value", Schema, Error, "a schema keyword has a value of the wrong kind", "check the keyword's value against JSON Schema 2020-12";
    UnsupportedFormat = "AS0203", "unsupported-format", Schema, Error, "a string format outside date-time, date, uuid, email, uri", "use one of date-time, date, uuid, email, uri, or a `pattern`";
    InvalidSchemaRef = "AS0204", "invalid-schema-ref", Schema, Error, "a `$ref` that is not a resolvable `#/$defs/...` reference", "reference a definition of the root `$defs`: `{ \"$ref\": \"#/$defs/name\" }`";
    SchemaTooDeep = "AS0205", "schema-too-deep", Schema, Error, "a schema nests deeper than the limit", "flatten the schema or move shared parts into `$defs`";
    SchemaTooLarge = "AS0206", "schema-too-large", Schema, Error, "a schema serializes larger than the limit", "split the capability or simplify its schema";
    UnsupportedZod = "AS0208", "unsupported-zod-construct", Schema, Error, "a zod construct whose JSON Schema leaves the supported subset", "rewrite it with the supported zod API listed in docs/schemas.md";
    ZodInputInOutputMode = "AS0209", "zod-input-in-output-mode", Schema, Warning, "an input schema converted with z.toJSONSchema's default output mode", "convert inputs with `z.toJSONSchema(X, { io: \"input\" })`";
    InvalidPattern = "AS0207", "invalid-pattern", Schema, Error, "a `pattern` is not a valid ECMAScript regular expression", "write the pattern as an ECMAScript regular expression source, without slashes or flags";
    EmptyDescription = "AS0301", "empty-description", Limits, Error, "a description is empty", "describe what the capability is and when an agent should use it";
    DescriptionTooLong = "AS0302", "description-too-long", Limits, Error, "a description is longer than the limit", "shorten the description";
    MetaTooLarge = "AS0303", "meta-too-large", Limits, Error, "`meta` serializes larger than the limit", "keep `meta` small: it is sent with every snapshot";
    WireNameTooLongForRelay = "AS0304", "wire-name-too-long-for-relay", Limits, Warning, "a capability's wire name is too long to survive a relay's tool-name prefix", "shorten the component type, the capability name or the id to a wire name of 57 characters or fewer";
    SchemaNotProjectableForWebMCP = "AS0305", "schema-not-projectable-for-webmcp", Limits, Warning, "an input schema has a field WebMCP's schema allow-list cannot type (a type array, a union of different types or with null, a recursive definition)", "give the field one type, or accept that WebMCP agents see it untyped";
    EffectNotAllowed = "AS0401", "effect-not-allowed", Planes, Error, "an effect that the capability's plane does not allow", "view actions are local-state or navigation; domain effects belong to procedures";
    ConfirmationNotAllowed = "AS0402", "confirmation-not-allowed", Planes, Error, "a confirmation setting the effect does not allow", "use confirmation \"required\" (the default) or \"optional\" for destructive effects";
    DuplicateComponentType = "AS0501", "duplicate-component-type", Uniqueness, Error, "a component type is declared more than once", "rename one, or import the existing contract";
    DuplicateCapabilityName = "AS0502", "duplicate-capability-name", Uniqueness, Error, "a capability name is used twice in one component", "give the observation and the action different names";
    DuplicateOperationId = "AS0503", "duplicate-operation-id", Uniqueness, Error, "a procedure or external tool id is declared more than once", "rename one, or import the existing contract";
    // Schema libraries other than zod 4 (issue 29): AS06xx (Valibot, TypeBox).
    UnsupportedValibot = "AS0601", "unsupported-valibot-construct", Schema, Error, "a Valibot construct that its converter refuses or whose JSON Schema leaves the supported subset", "rewrite it with the supported Valibot API listed in docs/schemas.md";
    UnsupportedTypeBox = "AS0602", "unsupported-typebox-construct", Schema, Error, "a TypeBox construct whose JSON Schema leaves the supported subset", "rewrite it with the supported TypeBox API listed in docs/schemas.md";
    // Schema libraries other than zod (issue 29, ArkType: crates/compiler/src/arktype).
    UnsupportedArkType = "AS0701", "unsupported-arktype-construct", Schema, Error, "an ArkType construct whose JSON Schema leaves the supported subset, or that is not evaluated statically", "rewrite it with the supported ArkType definitions listed in docs/schemas.md";
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
        let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/diagnostics.md"))
            .expect("docs/diagnostics.md");
        // GitHub's heading anchors: lower case, punctuation other than `-` and `_` dropped,
        // spaces to `-`.
        let anchors: Vec<String> = docs
            .lines()
            .filter_map(|l| l.strip_prefix("## "))
            .map(|h| {
                h.to_lowercase()
                    .chars()
                    .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
                    .map(|c| if c == ' ' { '-' } else { c })
                    .collect()
            })
            .collect();
        for info in CODES {
            assert!(
                docs.contains(&format!("## {} {}", info.id, info.name)),
                "{} missing from docs/diagnostics.md",
                info.id
            );
            let url = info.docs_url();
            let anchor = url.rsplit_once('#').unwrap().1;
            assert!(anchors.iter().any(|a| a == anchor), "{url}: no heading of docs/diagnostics.md has this anchor");
        }
    }
}
