//! The differential test of the zod translation: every corpus expression of
//! `test-tools/zod-oracle/corpus.jsonl`, in both io modes, is converted by real zod 4.6.7
//! (`node oracle.mjs`) and by the compiler; schemas must be structurally equal (key order and
//! the root `$schema` aside), and every out-of-subset expression must be refused.
//!
//! Needs Node and `npm ci` in test-tools/zod-oracle (the test command does both). Missing tools
//! fail the test: a skipped proof is no proof.

use agent_surface_compiler::compile::compile;
use agent_surface_compiler::config::Config;
use agent_surface_compiler::paths::normalize;
use agent_surface_compiler::project::Project;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

fn oracle_dir() -> std::path::PathBuf {
    crate::common::repo().join("test-tools/zod-oracle")
}

/// Structural equality: object key order ignored, numbers compared as doubles.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn without_dialect(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("$schema");
    }
    v
}

#[test]
fn zod_translation_equals_real_zod() {
    let dir = crate::common::npm_tool("zod-oracle", "node_modules/zod/package.json");
    let out = Command::new("node").arg("oracle.mjs").current_dir(&dir).output().expect("node runs (install Node.js)");
    assert!(out.status.success(), "oracle failed: {}", String::from_utf8_lossy(&out.stderr));
    let mut runs: Vec<Value> = Vec::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v.get("summary").is_none() {
            runs.push(v);
        }
    }
    let corpus: HashMap<String, Value> = std::fs::read_to_string(dir.join("corpus.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["name"].as_str().unwrap().to_string(), v)
        })
        .collect();

    // One module per run, all compiled as one project.
    let tmp = tempfile::tempdir().unwrap();
    let root = normalize(&std::fs::canonicalize(tmp.path()).unwrap());
    let mut ids = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let name = run["name"].as_str().unwrap();
        let io = run["io"].as_str().unwrap();
        let entry = &corpus[name];
        let setup = entry.get("setup").and_then(Value::as_str).unwrap_or("");
        let expr = entry["expr"].as_str().unwrap();
        let id = format!("domain:oracle.r{i}");
        let text = format!(
            "import {{ z }} from \"zod\";\nimport {{ defineAgentProcedureContract, fromStandardSchema, emptyObjectSchema }} from \"@agent-surface/core\";\n\
             {setup}\nconst __oracle = {expr};\n\
             export const contract = defineAgentProcedureContract({{ id: \"{id}\", description: \"oracle\", effect: \"read\", input: emptyObjectSchema, \
             output: fromStandardSchema(__oracle, {{ jsonSchema: z.toJSONSchema(__oracle, {{ io: \"{io}\" }}) }}) }});\n"
        );
        std::fs::write(root.join(format!("r{i}.ts")), text).unwrap();
        ids.push(id);
    }
    let c = compile(Project::new(Config::load(&root).unwrap())).unwrap();
    let by_id: HashMap<&str, &agent_surface_model::manifest::ManifestContract> =
        c.manifest().contracts.iter().map(|m| (m.id(), m)).collect();

    let (mut matched, mut refused, mut mismatched) = (0, 0, Vec::new());
    for (i, run) in runs.iter().enumerate() {
        let name = run["name"].as_str().unwrap();
        let io = run["io"].as_str().unwrap();
        let entry = &corpus[name];
        let must_refuse = entry["expect"] == "refuse";
        let file = format!("r{i}.ts");
        let errors: Vec<String> = c
            .diagnostics
            .iter()
            .filter(|d| d.is_error() && c.project.db.get(d.primary.span.file).rel == file)
            .map(|d| format!("{} {}", d.code.id(), d.message))
            .collect();
        let ours = by_id.get(ids[i].as_str()).map(|m| match m {
            agent_surface_model::manifest::ManifestContract::Procedure(p) => {
                p.output_schema.clone().unwrap_or(Value::Null)
            }
            _ => Value::Null,
        });
        if must_refuse {
            if errors.is_empty() {
                mismatched.push(format!(
                    "{name} ({io}): out of subset but accepted; ours = {}",
                    ours.map(|o| o.to_string()).unwrap_or_default()
                ));
            } else {
                refused += 1;
            }
            continue;
        }
        let theirs = without_dialect(&run["schema"]);
        match ours {
            Some(o) if same(&without_dialect(&o), &theirs) => matched += 1,
            Some(o) => mismatched.push(format!("{name} ({io}):\n    zod  {theirs}\n    ours {}", without_dialect(&o))),
            None => mismatched
                .push(format!("{name} ({io}): refused but zod's schema is in the subset: {}", errors.join(" | "))),
        }
    }
    println!("zod-oracle: {matched} matched, {refused} refused as expected, {} mismatched", mismatched.len());
    assert!(mismatched.is_empty(), "{} mismatches:\n{}", mismatched.len(), mismatched.join("\n"));
}

/// Every refused corpus construct gets a pointed diagnostic: an error on the construct's own
/// line that names it, with a help. Snapshot of one line per construct (no Node needed).
#[test]
fn refusals_name_the_construct() {
    let corpus = std::fs::read_to_string(oracle_dir().join("corpus.jsonl")).unwrap();
    let entries: Vec<Value> =
        corpus.lines().map(|l| serde_json::from_str(l).unwrap()).filter(|e: &Value| e["expect"] == "refuse").collect();
    let tmp = tempfile::tempdir().unwrap();
    let root = normalize(&std::fs::canonicalize(tmp.path()).unwrap());
    for (i, e) in entries.iter().enumerate() {
        let io = if e["io"] == "output" { "output" } else { "input" };
        let text = format!(
            "import {{ z }} from \"zod\";\nimport {{ defineAgentProcedureContract, fromStandardSchema, emptyObjectSchema }} from \"@agent-surface/core\";\n\
             {}\nconst __oracle = {};\n\
             export const contract = defineAgentProcedureContract({{ id: \"domain:refuse.r{i}\", description: \"oracle\", effect: \"read\", input: emptyObjectSchema, \
             output: fromStandardSchema(__oracle, {{ jsonSchema: z.toJSONSchema(__oracle, {{ io: \"{io}\" }}) }}) }});\n",
            e.get("setup").and_then(Value::as_str).unwrap_or(""),
            e["expr"].as_str().unwrap()
        );
        std::fs::write(root.join(format!("r{i}.ts")), text).unwrap();
    }
    let c = compile(Project::new(Config::load(&root).unwrap())).unwrap();
    let mut lines = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let file = format!("r{i}.ts");
        let d = c
            .diagnostics
            .iter()
            .find(|d| d.is_error() && c.project.db.get(d.primary.span.file).rel == file)
            .unwrap_or_else(|| panic!("{} was not refused", e["name"]));
        assert!(d.help.is_some(), "{}: refusal without help", e["name"]);
        let f = c.project.db.get(d.primary.span.file);
        let at = f.line_col(d.primary.span.lo);
        let under = &f.text[d.primary.span.lo as usize..d.primary.span.hi as usize];
        let under: String = under.chars().take(40).collect();
        lines.push(format!(
            "{} [{}] {}:{} `{}` {}\n    help: {}",
            e["name"].as_str().unwrap(),
            d.code.id(),
            at.line,
            at.column,
            under.replace('\n', " "),
            d.message,
            d.help.as_deref().unwrap_or("")
        ));
    }
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots/zod"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!("refusals", lines.join("\n")));
}
