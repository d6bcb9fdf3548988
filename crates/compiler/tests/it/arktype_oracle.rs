//! The differential test of the ArkType translation (issue 29): every corpus expression of
//! `test-tools/arktype-oracle/corpus.jsonl` is converted by real arktype 2.2.9 (`node
//! oracle.mjs`, `T.toJsonSchema()`) and by the compiler; schemas must be structurally equal
//! (key order and the root `$schema` aside), and every out-of-subset expression must be refused
//! with a pointed diagnostic.
//!
//! Needs Node and `npm ci` in test-tools/arktype-oracle; the test command does both. Missing
//! tools fail the test.

use serde_json::Value;
use std::path::Path;

/// One module per corpus entry.
fn write_project(root: &Path, entries: &[&Value], prefix: &str) {
    std::fs::write(
        root.join("package.json"),
        r#"{ "name": "arktype-oracle-app", "dependencies": { "arktype": "2.2.9" } }"#,
    )
    .unwrap();
    for (i, e) in entries.iter().enumerate() {
        let setup = e.get("setup").and_then(Value::as_str).unwrap_or("");
        let expr = e["expr"].as_str().unwrap();
        let text = format!(
            "import {{ type }} from \"arktype\";\n\
             import {{ defineAgentProcedureContract, fromStandardSchema, emptyObjectSchema }} from \"@agent-surface/core\";\n\
             {setup}\nconst __oracle = {expr};\n\
             export const contract = defineAgentProcedureContract({{ id: \"domain:{prefix}.r{i}\", description: \"oracle\", effect: \"read\", input: emptyObjectSchema, \
             output: fromStandardSchema(__oracle, {{ jsonSchema: __oracle.toJsonSchema() }}) }});\n"
        );
        std::fs::write(root.join(format!("r{i}.ts")), text).unwrap();
    }
}

#[test]
fn arktype_translation_equals_real_arktype() {
    crate::oracle_harness::differential("arktype-oracle", "node_modules/arktype/package.json", write_project);
}

/// Every refused corpus construct gets a pointed diagnostic with a help, snapshotted one line
/// per construct (no Node needed).
#[test]
fn arktype_refusals_name_the_construct() {
    crate::oracle_harness::refusals("arktype-oracle", "arktype", write_project);
}
