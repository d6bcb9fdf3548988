//! Rule: schemas stay inside the supported JSON Schema subset (spec: Schemas): the listed
//! keywords only, `additionalProperties` boolean, formats date-time/date/uuid/email/uri, `$ref`
//! only to `#/$defs/...`, nesting depth ≤ 8, ≤ 16 kB serialized, ECMAScript patterns.
//! AS0201–AS0207. The diagnostic points at the keyword (or value) inside the schema literal,
//! even when the schema is a constant imported from another file.

use crate::contracts::BuiltContract;
use crate::diagnostics::{Code, Diagnostic};
use agent_surface_model::definition::{DefinitionViolation, DefinitionViolationKind as Kind};
use agent_surface_model::schema::subset::SchemaViolationKind as S;

pub fn diagnose(c: &BuiltContract, v: &DefinitionViolation) -> Diagnostic {
    let Kind::Schema(sv) = &v.kind else { unreachable!("schema_subset only gets schema violations") };
    let (code, on_key) = match &sv.kind {
        S::UnsupportedKeyword { .. } => (Code::UnsupportedSchemaKeyword, true),
        S::UnsupportedFormat { .. } => (Code::UnsupportedFormat, false),
        S::RefNotLocal { .. } | S::RefUnresolved | S::DefsNotAtRoot => (Code::InvalidSchemaRef, false),
        S::InvalidKeywordValue { keyword, .. } if keyword == "$ref" => (Code::InvalidSchemaRef, false),
        S::TooDeep { .. } => (Code::SchemaTooDeep, false),
        S::TooLarge { .. } => (Code::SchemaTooLarge, false),
        S::InvalidPattern { .. } => (Code::InvalidPattern, false),
        _ => (Code::InvalidSchemaValue, false),
    };
    let field_end = v.pointer.iter().position(|s| s == "inputSchema" || s == "outputSchema");
    // A whole-schema problem (too large, too deep at the root) is shown at the field's key,
    // not as the entire schema text.
    let whole_schema = field_end.is_some_and(|i| i + 1 == v.pointer.len());
    let span = if on_key || whole_schema { c.key_span_at(&v.pointer) } else { c.span_at(&v.pointer) };
    let field = field_end.map(|i| v.pointer[..=i].join("."));
    let message = match field {
        Some(f) => format!("{} (in {f})", sv.message),
        None => sv.message.clone(),
    };
    Diagnostic::new(code, span, message).maybe_help(sv.help.clone())
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    fn with_input(schema: &str) -> String {
        format!(
            "defineAgentProcedureContract({{ id: 'domain:a.b', description: 'd', effect: 'read', input: fromJsonSchema({schema}) }});"
        )
    }

    #[test]
    fn subset_schemas_pass() {
        let s = "{ type: 'object', properties: { ids: { type: 'array', items: { type: 'string', format: 'uuid' }, minItems: 1 }, \
                 mode: { enum: ['a', 'b'], default: 'a' }, at: { type: ['string', 'null'], format: 'date-time' }, \
                 n: { type: 'integer', minimum: 0, exclusiveMaximum: 10, multipleOf: 2 }, \
                 tag: { anyOf: [{ const: 'x' }, { type: 'string', pattern: '^[a-z]+$' }] }, node: { $ref: '#/$defs/node' } }, \
                 required: ['ids'], additionalProperties: false, $defs: { node: { type: 'object', description: 'n' } } }";
        // In the subset; `tag` (a literal or a string) is only warned about for WebMCP's
        // allow-list (AS0305, rules/webmcp_projection.rs).
        assert_eq!(codes_of(&with_input(s)), vec!["AS0305"]);
    }

    #[test]
    fn unsupported_keyword_points_at_the_key() {
        let body = with_input("{ type: 'object', properties: { a: { oneOf: [{ type: 'string' }] } } }");
        assert_eq!(codes_of(&body), vec!["AS0201"]);
        assert_eq!(first_span_text(&body), "oneOf");
    }

    #[test]
    fn additional_properties_schema_format_ref_pattern() {
        assert_eq!(
            codes_of(&with_input("{ type: 'object', additionalProperties: { type: 'string' } }")),
            vec!["AS0202"]
        );
        assert_eq!(codes_of(&with_input("{ type: 'string', format: 'hostname' }")), vec!["AS0203"]);
        assert_eq!(codes_of(&with_input("{ $ref: 'https://example.com/s.json' }")), vec!["AS0204"]);
        assert_eq!(codes_of(&with_input("{ $ref: '#/$defs/missing' }")), vec!["AS0204"]);
        assert_eq!(codes_of(&with_input("{ type: 'string', pattern: '(' }")), vec!["AS0207"]);
        // Found by fuzzing: a `$ref` that loops without descending compiled "cleanly" and the
        // runtime accepted it, but no validator can be built for it.
        let looped = "{ $defs: { a: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' }";
        assert_eq!(codes_of(&with_input(looped)), vec!["AS0204"]);
        assert_eq!(first_span_text(&with_input(looped)), "'#/$defs/a'");
    }

    #[test]
    fn depth_and_size_limits() {
        let mut deep = "{ type: 'string' }".to_string();
        for _ in 0..8 {
            deep = format!("{{ type: 'array', items: {deep} }}");
        }
        assert_eq!(codes_of(&with_input(&deep)), vec!["AS0205"]);
        let big = format!("{{ type: 'string', description: '{}' }}", "x".repeat(17_000));
        assert_eq!(codes_of(&with_input(&big)), vec!["AS0206"]);
    }

    #[test]
    fn schema_in_another_file_is_pointed_at_there() {
        let (c, _dir) = compile_files(&[
            ("src/schemas.ts", "export const Input = { type: 'object', properties: { a: { type: 'string', format: 'ipv4' } } } as const;\n"),
            ("src/c.ts", &format!("{PRELUDE}import {{ Input }} from './schemas';\ndefineAgentProcedureContract({{ id: 'domain:a.b', description: 'd', effect: 'read', input: fromJsonSchema(Input) }});\n")),
        ]);
        assert_eq!(c.diagnostics.len(), 1);
        let d = &c.diagnostics[0];
        assert_eq!(c.project.db.get(d.primary.span.file).rel, "src/schemas.ts");
    }
}
