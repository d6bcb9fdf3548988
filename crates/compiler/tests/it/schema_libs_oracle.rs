//! The differential tests of the schema libraries other than zod 4 (issue 29): every corpus
//! expression of `test-tools/<lib>-oracle/corpus.jsonl`, in each of its modes, is converted by
//! the real, pinned library (`node oracle.mjs`) and compiled statically by the compiler; the
//! schemas must be structurally equal (key order and the root `$schema` aside) and every
//! out-of-subset expression must be refused with an error that names the construct.
//!
//! - Valibot 1.5.0 + @valibot/to-json-schema 1.8.0: modes are `toJsonSchema`'s options
//!   (`{ target: "draft-2020-12", typeMode }`, and the default draft-07 target, refused).
//! - TypeBox: modes are the two lines, `typebox` 1.4.3 (`import Type from "typebox"`) and
//!   `@sinclair/typebox` 0.34.52 (`import { Type } from "@sinclair/typebox"`); the value is passed
//!   to `fromJsonSchema`.
//!
//! Needs Node and `npm ci` in the oracle folders (the test command does both). Missing tools fail
//! the test: a skipped proof is no proof.

use agent_surface_compiler::compile::compile;
use agent_surface_compiler::config::Config;
use agent_surface_compiler::paths::normalize;
use agent_surface_compiler::project::Project;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

use crate::oracle_harness::{run_oracle, same, without_dialect};

struct Run {
    name: String,
    mode: String,
    schema: Option<Value>,
    must_refuse: bool,
}

struct Outcome {
    matched: usize,
    refused: usize,
    mismatched: Vec<String>,
    /// One line per refused run: where the error points and what it says.
    refusals: Vec<String>,
}

/// Runs the oracle in `dir`, writes one module per run (`module(entry, mode, id)`), compiles
/// them as one project and compares.
fn differential(dir: &Path, module: impl Fn(&Value, &str, &str) -> String) -> Outcome {
    let (printed, corpus) = run_oracle(dir);
    let mut runs = Vec::new();
    for v in printed {
        let name = v["name"].as_str().unwrap().to_string();
        runs.push(Run {
            must_refuse: corpus[&name]["expect"] == "refuse",
            mode: v["mode"].as_str().unwrap().to_string(),
            schema: v.get("schema").cloned(),
            name,
        });
    }
    assert!(!runs.is_empty(), "the oracle printed no runs");
    let tmp = tempfile::tempdir().unwrap();
    let root = normalize(&std::fs::canonicalize(tmp.path()).unwrap());
    for (i, run) in runs.iter().enumerate() {
        let text = module(&corpus[&run.name], &run.mode, &format!("domain:oracle.r{i}"));
        std::fs::write(root.join(format!("r{i}.ts")), text).unwrap();
    }
    let c = compile(Project::new(Config::load(&root).unwrap())).unwrap();
    let by_id: HashMap<&str, &agent_surface_model::manifest::ManifestContract> =
        c.manifest().contracts.iter().map(|m| (m.id(), m)).collect();
    let mut o = Outcome { matched: 0, refused: 0, mismatched: Vec::new(), refusals: Vec::new() };
    for (i, run) in runs.iter().enumerate() {
        let file = format!("r{i}.ts");
        let errors: Vec<&agent_surface_compiler::diagnostics::Diagnostic> = c
            .diagnostics
            .iter()
            .filter(|d| d.is_error() && c.project.db.get(d.primary.span.file).rel == file)
            .collect();
        let id = format!("domain:oracle.r{i}");
        let ours = by_id.get(id.as_str()).map(|m| match m {
            agent_surface_model::manifest::ManifestContract::Procedure(p) => {
                p.output_schema.clone().unwrap_or(Value::Null)
            }
            _ => Value::Null,
        });
        let (name, mode) = (&run.name, &run.mode);
        if run.must_refuse {
            match errors.first() {
                None => o.mismatched.push(format!(
                    "{name} ({mode}): out of subset but accepted; ours = {}",
                    ours.map(|o| o.to_string()).unwrap_or_default()
                )),
                Some(d) => {
                    o.refused += 1;
                    let f = c.project.db.get(d.primary.span.file);
                    let at = f.line_col(d.primary.span.lo);
                    let under: String =
                        f.text[d.primary.span.lo as usize..d.primary.span.hi as usize].chars().take(40).collect();
                    o.refusals.push(format!(
                        "{name} ({mode}) [{}] {}:{} `{}` {}\n    help: {}",
                        d.code.id(),
                        at.line,
                        at.column,
                        under.replace('\n', " "),
                        d.message,
                        d.help.as_deref().unwrap_or("")
                    ));
                    if d.help.is_none() {
                        o.mismatched.push(format!("{name} ({mode}): refused without a help: {}", d.message));
                    }
                }
            }
            continue;
        }
        let theirs = without_dialect(run.schema.as_ref().expect("a match run has a schema"));
        match ours {
            Some(ours) if errors.is_empty() && same(&without_dialect(&ours), &theirs) => o.matched += 1,
            Some(ours) if errors.is_empty() => {
                o.mismatched.push(format!("{name} ({mode}):\n    lib  {theirs}\n    ours {}", without_dialect(&ours)))
            }
            _ => o.mismatched.push(format!(
                "{name} ({mode}): refused but the library's schema is in the subset: {}",
                errors.iter().map(|d| format!("{} {}", d.code.id(), d.message)).collect::<Vec<_>>().join(" | ")
            )),
        }
    }
    o
}

fn snapshot(folder: &str, lines: &[String]) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots").join(folder));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!("refusals", lines.join("\n")));
}

#[test]
fn valibot_translation_equals_real_valibot() {
    let dir = crate::common::npm_tool("valibot-oracle", "node_modules/@valibot/to-json-schema/package.json");
    let o = differential(&dir, |entry, mode, id| {
        let options = match mode {
            "draft-07" => String::new(),
            "ignore" => ", { target: \"draft-2020-12\" }".to_string(),
            m => format!(", {{ target: \"draft-2020-12\", typeMode: \"{m}\" }}"),
        };
        format!(
            "import * as v from \"valibot\";\nimport {{ toJsonSchema }} from \"@valibot/to-json-schema\";\n\
             import {{ defineAgentProcedureContract, fromStandardSchema, emptyObjectSchema }} from \"@agent-surface/core\";\n\
             {}\nconst __oracle = {};\n\
             export const contract = defineAgentProcedureContract({{ id: \"{id}\", description: \"oracle\", effect: \"read\", input: emptyObjectSchema, \
             output: fromStandardSchema(__oracle, {{ jsonSchema: toJsonSchema(__oracle{options}) }}) }});\n",
            entry.get("setup").and_then(Value::as_str).unwrap_or(""),
            entry["expr"].as_str().unwrap()
        )
    });
    println!("valibot-oracle: {} matched, {} refused as expected, {} wrong", o.matched, o.refused, o.mismatched.len());
    assert!(o.mismatched.is_empty(), "{} wrong:\n{}", o.mismatched.len(), o.mismatched.join("\n"));
    snapshot("valibot", &o.refusals);
}

#[test]
fn typebox_translation_equals_real_typebox() {
    let dir = crate::common::npm_tool("typebox-oracle", "node_modules/@sinclair/typebox/package.json");
    let o = differential(&dir, |entry, mode, id| {
        let import = match mode {
            "typebox" => "import Type from \"typebox\";",
            _ => "import { Type } from \"@sinclair/typebox\";",
        };
        format!(
            "{import}\nimport {{ defineAgentProcedureContract, fromJsonSchema, emptyObjectSchema }} from \"@agent-surface/core\";\n\
             {}\nconst __oracle = {};\n\
             export const contract = defineAgentProcedureContract({{ id: \"{id}\", description: \"oracle\", effect: \"read\", input: emptyObjectSchema, \
             output: fromJsonSchema(__oracle) }});\n",
            entry.get("setup").and_then(Value::as_str).unwrap_or(""),
            entry["expr"].as_str().unwrap()
        )
    });
    println!("typebox-oracle: {} matched, {} refused as expected, {} wrong", o.matched, o.refused, o.mismatched.len());
    assert!(o.mismatched.is_empty(), "{} wrong:\n{}", o.mismatched.len(), o.mismatched.join("\n"));
    snapshot("typebox", &o.refusals);
}
