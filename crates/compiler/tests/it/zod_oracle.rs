//! The differential test of the zod translation: every corpus expression of
//! `test-tools/zod-oracle/corpus.jsonl`, in both io modes, is converted by real zod 4.6.7
//! (`node oracle.mjs`) and by the compiler; schemas must be structurally equal (key order and
//! the root `$schema` aside), and every out-of-subset expression must be refused
//! (`oracle_harness`).
//!
//! Needs Node and `npm ci` in test-tools/zod-oracle (the test command does both). Missing tools
//! fail the test: a skipped proof is no proof.

use crate::oracle_harness::{differential, refusals};
use serde_json::Value;
use std::path::Path;

/// One module per entry, converted with `z.toJSONSchema` in the entry's io mode (input unless
/// it says output).
fn write_project(root: &Path, entries: &[&Value], prefix: &str) {
    for (i, e) in entries.iter().enumerate() {
        let io = if e["io"] == "output" { "output" } else { "input" };
        let text = format!(
            "import {{ z }} from \"zod\";\nimport {{ defineAgentProcedureContract, fromStandardSchema, emptyObjectSchema }} from \"@agent-surface/core\";\n\
             {}\nconst __oracle = {};\n\
             export const contract = defineAgentProcedureContract({{ id: \"domain:{prefix}.r{i}\", description: \"oracle\", effect: \"read\", input: emptyObjectSchema, \
             output: fromStandardSchema(__oracle, {{ jsonSchema: z.toJSONSchema(__oracle, {{ io: \"{io}\" }}) }}) }});\n",
            e.get("setup").and_then(Value::as_str).unwrap_or(""),
            e["expr"].as_str().unwrap()
        );
        std::fs::write(root.join(format!("r{i}.ts")), text).unwrap();
    }
}

#[test]
fn zod_translation_equals_real_zod() {
    differential("zod-oracle", "node_modules/zod/package.json", write_project);
}

/// Every refused corpus construct gets a pointed diagnostic: an error on the construct's own
/// line that names it, with a help. Snapshot of one line per construct (no Node needed).
#[test]
fn refusals_name_the_construct() {
    refusals("zod-oracle", "zod", write_project);
}
