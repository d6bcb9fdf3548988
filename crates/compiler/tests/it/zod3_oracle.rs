//! The differential test of the zod 3 translation (issue 29): every corpus expression of
//! `test-tools/zod3-oracle/corpus.jsonl` is converted by real zod 3.25.76 with
//! zod-to-json-schema 3.25.2 (`node oracle.mjs`) and by the compiler, in a project whose
//! package.json declares zod 3; schemas must be structurally equal after the documented
//! normalisation (the root draft-07 `$schema` dropped; key order aside), and every
//! out-of-subset expression must be refused with a pointed diagnostic.
//!
//! Needs Node and `npm ci` in test-tools/zod3-oracle; the test command does both. Missing
//! tools fail the test.

use agent_surface_compiler::compile::compile;
use agent_surface_compiler::config::Config;
use agent_surface_compiler::paths::normalize;
use agent_surface_compiler::project::Project;
use serde_json::Value;
use std::path::Path;

/// One module per corpus entry, in a project that declares zod 3.
fn write_project(root: &Path, entries: &[&Value], prefix: &str) {
    std::fs::write(
        root.join("package.json"),
        r#"{ "name": "zod3-oracle-app", "dependencies": { "zod": "3.25.76", "zod-to-json-schema": "3.25.2" } }"#,
    )
    .unwrap();
    for (i, e) in entries.iter().enumerate() {
        let setup = e.get("setup").and_then(Value::as_str).unwrap_or("");
        let expr = e["expr"].as_str().unwrap();
        let options = match e.get("options") {
            Some(o) => format!(", {o}"),
            None => String::new(),
        };
        let text = format!(
            "import {{ z }} from \"zod\";\nimport {{ zodToJsonSchema }} from \"zod-to-json-schema\";\n\
             import {{ defineAgentProcedureContract, fromStandardSchema, emptyObjectSchema }} from \"@agent-surface/core\";\n\
             {setup}\nconst __oracle = {expr};\n\
             export const contract = defineAgentProcedureContract({{ id: \"domain:{prefix}.r{i}\", description: \"oracle\", effect: \"read\", input: emptyObjectSchema, \
             output: fromStandardSchema(__oracle, {{ jsonSchema: zodToJsonSchema(__oracle{options}) }}) }});\n"
        );
        std::fs::write(root.join(format!("r{i}.ts")), text).unwrap();
    }
}

#[test]
fn zod3_translation_equals_real_zod_to_json_schema() {
    crate::oracle_harness::differential("zod3-oracle", "node_modules/zod-to-json-schema/package.json", write_project);
}

/// Every refused corpus construct gets a pointed diagnostic with a help, snapshotted one line
/// per construct (no Node needed).
#[test]
fn zod3_refusals_name_the_construct() {
    crate::oracle_harness::refusals("zod3-oracle", "zod3", write_project);
}

/// zod 3 and zod 4 share the package name: the version package.json declares and the
/// subpath decide, and the converter must fit the schema.
#[test]
fn converter_must_fit_the_zod_version() {
    let compile_with = |package: &str, source: &str| -> Vec<String> {
        let tmp = tempfile::tempdir().unwrap();
        let root = normalize(&std::fs::canonicalize(tmp.path()).unwrap());
        std::fs::write(root.join("package.json"), package).unwrap();
        std::fs::write(root.join("c.ts"), source).unwrap();
        let c = compile(Project::new(Config::load(&root).unwrap())).unwrap();
        c.diagnostics.iter().filter(|d| d.is_error()).map(|d| format!("{} {}", d.code.id(), d.message)).collect()
    };
    let contract = |imports: &str, json: &str| {
        format!(
            "{imports}\nimport {{ defineAgentProcedureContract, fromStandardSchema, emptyObjectSchema }} from \"@agent-surface/core\";\n\
             const S = z.object({{ a: z.string().email() }});\n\
             export const c = defineAgentProcedureContract({{ id: \"domain:x.y\", description: \"d\", effect: \"read\", input: emptyObjectSchema, output: fromStandardSchema(S, {{ jsonSchema: {json} }}) }});\n"
        )
    };
    let zod3 = r#"{ "dependencies": { "zod": "^3.25.0" } }"#;
    let zod4 = r#"{ "dependencies": { "zod": "4.6.7" } }"#;
    let z3 = "import { z } from \"zod\";\nimport { zodToJsonSchema } from \"zod-to-json-schema\";";
    // zod 3 declared: "zod" is zod 3, converted by zodToJsonSchema.
    assert_eq!(compile_with(zod3, &contract(z3, "zodToJsonSchema(S)")), Vec::<String>::new());
    // zod 3 declared, zod 4's converter.
    let e = compile_with(zod3, &contract(z3, "z.toJSONSchema(S)"));
    assert!(e.iter().any(|m| m.starts_with("AS0013") && m.contains("this `z` is zod 3's")), "{e:?}");
    // zod 4 declared: "zod" is zod 4, and zodToJsonSchema refuses it.
    let e = compile_with(zod4, &contract(z3, "zodToJsonSchema(S)"));
    assert!(e.iter().any(|m| m.starts_with("AS0013") && m.contains("zod 4 schema")), "{e:?}");
    // zod 4 installed, zod 3's API through "zod/v3" (what zod 4 ships for migration).
    let v3 = "import { z } from \"zod/v3\";\nimport { zodToJsonSchema } from \"zod-to-json-schema\";";
    assert_eq!(compile_with(zod4, &contract(v3, "zodToJsonSchema(S)")), Vec::<String>::new());
    // zod 4's API on a zod 3 schema is named.
    let e = compile_with(zod3, &contract(z3, "zodToJsonSchema(S)").replace("z.string().email()", "z.email()"));
    assert!(e.iter().any(|m| m.starts_with("AS0013") && m.contains("`z.email` is zod 4's API")), "{e:?}");
}
