//! The subset's vocabulary: the keywords, formats, type names, dialect and `$ref` form it
//! accepts, and the help for a keyword it refuses.

/// Values `format` may take.
pub const SUPPORTED_FORMATS: &[&str] = &["date-time", "date", "uuid", "email", "uri"];

/// Every keyword the subset accepts; anything else is refused.
pub const SUPPORTED_KEYWORDS: &[&str] = &[
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "anyOf",
    "$defs",
    "$ref",
    "$schema",
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
];

/// The seven JSON Schema type names.
pub const TYPE_NAMES: &[&str] = &["object", "array", "string", "number", "integer", "boolean", "null"];

/// The only dialect accepted in a root `$schema` (a trailing `#` is tolerated).
pub const SCHEMA_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// Prefix of the only `$ref` form supported.
pub const LOCAL_REF_PREFIX: &str = "#/$defs/";

/// Help for a keyword outside the subset, naming the supported alternative where one exists.
pub(super) fn unsupported_help(keyword: &str) -> String {
    match keyword {
        "oneOf" => "use anyOf; for a discriminated union give every branch a const-tagged \
                    property (zod: z.union of objects with z.literal tags instead of \
                    z.discriminatedUnion)"
            .into(),
        "allOf" => "merge the parts into one object schema (zod: .extend() instead of .and() \
                    or z.intersection)"
            .into(),
        "not" => "express the constraint positively (enum, anyOf) or check it in a precondition".into(),
        "if" | "then" | "else" => {
            "use anyOf with const-tagged branches, or check the condition in a precondition".into()
        }
        "patternProperties" | "propertyNames" => "list the allowed keys explicitly under \
                                                  properties (zod: z.object instead of z.record)"
            .into(),
        "dependentRequired" | "dependentSchemas" | "dependencies" => "use anyOf with const-tagged branches".into(),
        "unevaluatedProperties" => "use additionalProperties: false".into(),
        "unevaluatedItems" | "additionalItems" => "use a single items schema".into(),
        "prefixItems" => "tuples are not supported: use an object with named properties, or an \
                          array with a single items schema (zod: z.object instead of z.tuple)"
            .into(),
        "contains" | "minContains" | "maxContains" => "check it in a precondition; describe it in description".into(),
        "minProperties" | "maxProperties" => {
            "list the properties explicitly and mark the needed ones as required".into()
        }
        "definitions" => "use $defs at the schema root and \"$ref\": \"#/$defs/<name>\"".into(),
        "$id" | "id" | "$anchor" | "$dynamicRef" | "$dynamicAnchor" | "$recursiveRef" | "$recursiveAnchor"
        | "$vocabulary" => "put shared schemas in the root $defs and use \"$ref\": \"#/$defs/<name>\"".into(),
        "contentEncoding" | "contentMediaType" | "contentSchema" => {
            "binary values are unsupported; send a string such as a URL or an id".into()
        }
        "nullable" => "use a type array such as [\"string\", \"null\"] (nullable is OpenAPI, \
                       not JSON Schema)"
            .into(),
        "readOnly" | "writeOnly" | "$comment" => "remove it; the supported annotations are \
                                                  description, title, default, examples and \
                                                  deprecated"
            .into(),
        _ => format!("supported keywords: {}", SUPPORTED_KEYWORDS.join(", ")),
    }
}
